// Host-only checks of the H table choice: h_table_shapes lists the tables worth making in the
// tuning model's order, and fastest_fitting_h_table takes the first that fits. These run
// without a GPU.

#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/tuning.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "gpu/prover/resident_circuit.hpp"

namespace cuzk::gpu::prover {
namespace {

template <class Curve>
class HTableChoice : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(HTableChoice, Curves);

// Every listed shape is a real table (2 rows or more, at most a row per window), beats the
// plain MSM in the model, is listed once, and the list runs from the fastest down; no shape
// has more rows than its number of bucket sets needs.
TYPED_TEST(HTableChoice, ShapesAreTheModelsTablesFastestFirst) {
  using Curve = TypeParam;
  using G1C = groth16::G1CurveOf<Curve>;
  const unsigned bits = unsigned(Curve::Fr::kBits);
  for (const size_t n : {size_t(1000), size_t(1) << 20, size_t(1) << 24, size_t(1) << 27}) {
    const double plain =
        msm::shifted_cost(n, bits, msm::shifted_window_bits_for(n, bits, 1), 1);
    const std::vector<HTableShape> shapes = h_table_shapes<Curve>(n);
    ASSERT_FALSE(shapes.empty()) << n;
    std::set<std::pair<unsigned, unsigned>> seen;
    double previous = 0;
    for (const HTableShape& s : shapes) {
      const unsigned windows = msm::shifted_windows<G1C>(s.c);
      EXPECT_GE(s.rows, 2u);
      EXPECT_LE(s.rows, windows);
      EXPECT_TRUE(seen.insert({s.c, s.rows}).second) << "listed twice: " << s.c << "/" << s.rows;
      const double cost = msm::shifted_cost(n, bits, s.c, s.rows);
      EXPECT_LT(cost, plain) << n << ": " << s.c << "/" << s.rows;
      EXPECT_GE(cost, previous) << n << ": " << s.c << "/" << s.rows << " out of order";
      previous = cost;
      const unsigned sets = (windows + s.rows - 1) / s.rows;
      EXPECT_EQ(s.rows, (windows + sets - 1) / sets) << "rows beyond what " << sets << " sets need";
    }
    // The fastest is the model's whole table.
    EXPECT_TRUE(shapes.front() == h_table_shape<Curve>(n)) << n;
  }
}

// At 2^27 (an H200 beside two partitions holds 3 rows) the model takes c = 24 for 3 rows, as
// measured; when that table's larger buckets do not fit, 3 rows of c = 22 come before 2 rows.
TEST(HTableChoice, PartitionSizedChoices) {
  using Curve = formats::Bls12_381;
  const size_t n = size_t(1) << 27;
  const auto at_most = [&](unsigned rows, unsigned max_c) {
    return fastest_fitting_h_table<Curve>(
        n, rows, [&](HTableShape s) { return s.c <= max_c; });
  };
  EXPECT_TRUE(at_most(3, 26) == (HTableShape{24, 3}));
  EXPECT_TRUE(at_most(3, 22) == (HTableShape{22, 3}));
  EXPECT_TRUE(at_most(2, 26) == (HTableShape{22, 2}));
  EXPECT_TRUE(at_most(0, 26) == h_table_shape<Curve>(n));
  EXPECT_FALSE(fastest_fitting_h_table<Curve>(n, 0, [](HTableShape) { return false; }));
}

}  // namespace
}  // namespace cuzk::gpu::prover
