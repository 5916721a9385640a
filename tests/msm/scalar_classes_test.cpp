// classify_scalars: the zero / one / other split that msm_with_classification relies on, for
// both scalar fields, on sizes around the bitmap's word and block edges.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "msm/instances.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::msm {
namespace {

template <class Fr>
void check_classes(const std::string& name) {
  auto rng = test::rng("scalar_classes/" + name);
  for (size_t n : {size_t(0), size_t(1), size_t(63), size_t(64), size_t(65), size_t(4096 + 7),
                   size_t(3 * 4096 + 100)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<Fr> scalars(n);
    std::vector<uint64_t> ones(selection_words(n), 0);
    std::vector<size_t> others;
    size_t zeros = 0;
    for (size_t i = 0; i < n; ++i) {
      switch (rng() % 4) {
        case 0:
          scalars[i] = Fr::zero();
          ++zeros;
          break;
        case 1:
          scalars[i] = Fr::one();
          ones[i / 64] |= uint64_t(1) << (i % 64);
          break;
        case 2:  // neighbours of 0 and 1 are "other"
          scalars[i] = rng() % 2 ? Fr::from_u64(2) : Fr::zero() - Fr::one();
          others.push_back(i);
          break;
        default:
          scalars[i] = Fr::random(rng);
          if (scalars[i].is_zero() || scalars[i] == Fr::one()) FAIL() << "improbable draw";
          others.push_back(i);
      }
    }
    const ScalarClasses classes = classify_scalars<Fr>(scalars);
    EXPECT_EQ(classes.ones, ones);
    EXPECT_EQ(classes.others, others);
    EXPECT_EQ(classes.zeros, zeros);
  }
}

TEST(ScalarClasses, Bls12381) { check_classes<bls12_381::Fr>("bls12_381"); }
TEST(ScalarClasses, Bn254) { check_classes<bn254::Fr>("bn254"); }

}  // namespace
}  // namespace cuzk::msm
