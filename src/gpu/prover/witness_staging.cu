// The device side of witness staging (witness_staging.hpp): upload and form conversion.

#include <algorithm>
#include <string>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/prover/launch_shapes.hpp"
#include "gpu/prover/witness_staging.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

// standard[i] holds the uploaded values in `form`; afterwards it holds the standard form and,
// when asked, montgomery[i] the Montgomery form. One product per element either way:
// w·R · 1 · R⁻¹ = w (to standard), w · R² · R⁻¹ = w·R (to Montgomery).
template <class Fr>
__global__ void witness_forms_kernel(Fr* __restrict__ standard, Fr* __restrict__ montgomery,
                                     size_t n, bool uploaded_montgomery, Fr unit, Fr r2) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const Fr v = standard[i];
    if (uploaded_montgomery) {
      standard[i] = v * unit;
      if (montgomery != nullptr) montgomery[i] = v;
    } else if (montgomery != nullptr) {
      montgomery[i] = v * r2;
    }
  }
}

}  // namespace

template <class Fr>
void stage_witness(const PinnedWitness<Fr>& witness, const DeviceWitness<Fr>& target,
                   cudaStream_t stream) {
  const size_t n = witness.size();
  if (target.standard == nullptr || target.size < n) {
    CUZK_INVALID_INPUT("stage_witness: a device target of " + std::to_string(target.size) +
                       " elements for a witness of " + std::to_string(n));
  }
  if (n == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(target.standard, witness.data(), n * sizeof(Fr),
                             cudaMemcpyHostToDevice, stream));
  const bool uploaded_montgomery = witness.form() == WitnessForm::kMontgomery;
  if (!uploaded_montgomery && target.montgomery == nullptr) return;
  constexpr unsigned kThreads = tuning::kElementwiseThreads;
  const unsigned blocks =
      unsigned(std::clamp<size_t>((n + kThreads - 1) / kThreads, 1, tuning::kMaxBlocks));
  // The constants go in as arguments: 1 and R² as Montgomery factors (limbs 1 and R²).
  witness_forms_kernel<Fr><<<blocks, kThreads, 0, stream>>>(
      target.standard, target.montgomery, n, uploaded_montgomery,
      Fr::from_montgomery(Fr::Int::from_u64(1)), Fr::from_montgomery(Fr::kR2));
  CUZK_CHECK_LAUNCH();
}

template void stage_witness<bn254::Fr>(const PinnedWitness<bn254::Fr>&,
                                       const DeviceWitness<bn254::Fr>&, cudaStream_t);
template void stage_witness<bls12_381::Fr>(const PinnedWitness<bls12_381::Fr>&,
                                           const DeviceWitness<bls12_381::Fr>&, cudaStream_t);

}  // namespace cuzk::gpu::prover
