// GPU MSM kernels and entry points for bn254 G2 (one group per file keeps nvcc's work per
// translation unit small).

#include "curves/bn254.hpp"
#include "gpu/msm/msm_impl.cuh"

namespace cuzk::gpu::msm {
CUZK_GPU_MSM_INSTANTIATE(bn254::G2Curve)

}  // namespace cuzk::gpu::msm
