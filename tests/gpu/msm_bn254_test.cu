// GPU MSM differential suite for bn254 G1 and G2 (the checks are in msm_cases.cuh).

#include "curves/bn254.hpp"
#include "tests/gpu/msm_cases.cuh"

namespace cuzk::gpu::test {
namespace {

using Groups = ::testing::Types<bn254::G1Curve, bn254::G2Curve>;
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254, GpuMsmTest, Groups);

}  // namespace
}  // namespace cuzk::gpu::test
