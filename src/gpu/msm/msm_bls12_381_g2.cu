// GPU MSM kernels and entry points for bls12_381 G2 (one group per file keeps nvcc's work per
// translation unit small).

#include "curves/bls12_381.hpp"
#include "gpu/msm/msm_impl.cuh"

namespace cuzk::gpu::msm {
CUZK_GPU_MSM_INSTANTIATE(bls12_381::G2Curve)

}  // namespace cuzk::gpu::msm
