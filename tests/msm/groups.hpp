#pragma once
// The four groups under test, as traits for the typed suite in msm_suite.hpp, with problem
// sizes: G2 arithmetic costs about three times G1's (and the naive reference with it), so the
// G2 suites run smaller inputs to keep the whole test binary near 40 s on one core.

#include <array>
#include <cstddef>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::test {

struct G1Sizes {
  // Random inputs against the naive sum: not powers of two, around window and chunk edges.
  static constexpr std::array<size_t, 8> kRandomSizes = {0, 1, 2, 3, 17, 100, 1000, 4097};
  static constexpr size_t kLarge = 4097;   // thread-count and 0/1 tests
  static constexpr size_t kMedium = 1000;  // option sweeps, edge-case inputs
  // More than msm::kSumChunkPoints, so that sum_selected runs several chunks.
  static constexpr size_t kSumSize = 40000;
  static constexpr std::array<unsigned, 10> kWindowSweep = {1, 2, 3, 4, 5, 7, 8, 11, 13, 16};
};

struct G2Sizes {
  static constexpr std::array<size_t, 7> kRandomSizes = {0, 1, 2, 3, 17, 100, 1000};
  static constexpr size_t kLarge = 1000;
  static constexpr size_t kMedium = 300;
  static constexpr size_t kSumSize = 20000;
  static constexpr std::array<unsigned, 8> kWindowSweep = {1, 2, 3, 4, 5, 8, 11, 16};
};

struct Bls12381G1 : G1Sizes {
  using Curve = bls12_381::G1Curve;
};
struct Bls12381G2 : G2Sizes {
  using Curve = bls12_381::G2Curve;
};
struct Bn254G1 : G1Sizes {
  using Curve = bn254::G1Curve;
};
struct Bn254G2 : G2Sizes {
  using Curve = bn254::G2Curve;
};

}  // namespace cuzk::test
