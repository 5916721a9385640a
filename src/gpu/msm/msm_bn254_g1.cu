// GPU MSM kernels and entry points for bn254 G1 (one group per file keeps nvcc's work per
// translation unit small).
// The scalar classification of bn254's Fr is instantiated here too.

#include "curves/bn254.hpp"
#include "gpu/msm/msm_impl.cuh"

namespace cuzk::gpu::msm {
CUZK_GPU_MSM_INSTANTIATE(bn254::G1Curve)
CUZK_GPU_MSM_INSTANTIATE_SCALARS(bn254::Fr)
}  // namespace cuzk::gpu::msm
