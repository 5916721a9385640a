// GPU MSM kernels and entry points for bls12_381 G1 (one group per file keeps nvcc's work per
// translation unit small).
// The scalar classification of bls12_381's Fr is instantiated here too.

#include "curves/bls12_381.hpp"
#include "gpu/msm/msm_impl.cuh"

namespace cuzk::gpu::msm {
CUZK_GPU_MSM_INSTANTIATE(bls12_381::G1Curve)
CUZK_GPU_MSM_INSTANTIATE_SCALARS(bls12_381::Fr)
}  // namespace cuzk::gpu::msm
