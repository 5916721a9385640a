// GPU differential test of the BLS12-381 point formulas (G1 over Fp, G2 over Fp2): device
// results equal the host's bit for bit. The checks are in point_diff_cases.cuh.

#include "curves/bls12_381.hpp"
#include "tests/gpu/point_diff_cases.cuh"

namespace cuzk::gpu::test {
namespace {

using Groups = ::testing::Types<bls12_381::G1Curve, bls12_381::G2Curve>;
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381, PointDiffTest, Groups);

}  // namespace
}  // namespace cuzk::gpu::test
