// GPU differential test of the BN254 point formulas (G1 over Fp, G2 over Fp2): device
// results equal the host's bit for bit. The checks are in point_diff_cases.cuh.

#include "curves/bn254.hpp"
#include "tests/gpu/point_diff_cases.cuh"

namespace cuzk::gpu::test {
namespace {

using Groups = ::testing::Types<bn254::G1Curve, bn254::G2Curve>;
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254, PointDiffTest, Groups);

}  // namespace
}  // namespace cuzk::gpu::test
