// The GPU NTT layer instantiated for the bls12_381 scalar field (one translation unit per curve
// keeps nvcc's work per file small).

#include "gpu/ntt/h_polynomial.cuh"

namespace cuzk::gpu::ntt {
CUZK_GPU_NTT_DECLARE_FOR_FIELD(, bls12_381::Fr)
}  // namespace cuzk::gpu::ntt
