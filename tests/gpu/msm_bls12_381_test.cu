// GPU MSM differential suite for bls12_381 G1 and G2 (the checks are in msm_cases.cuh).

#include "curves/bls12_381.hpp"
#include "tests/gpu/msm_cases.cuh"

namespace cuzk::gpu::test {
namespace {

using Groups = ::testing::Types<bls12_381::G1Curve, bls12_381::G2Curve>;
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381, GpuMsmTest, Groups);

}  // namespace
}  // namespace cuzk::gpu::test
