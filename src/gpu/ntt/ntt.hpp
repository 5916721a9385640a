#pragma once
// GPU number-theoretic transforms and the Groth16 H evaluations, for the scalar fields of
// BLS12-381 and BN254. Host header: includable from .cpp files (no device code); the kernels
// and the explicit instantiations live in the .cu files of this folder.
//
// The results equal the CPU reference (src/ntt: ntt::Domain, snarkjs_h_scalars,
// bellman_h_coefficients) bit for bit: the same roots (taken from a CPU Domain), and the
// field's canonical Montgomery bytes on both sides.
//
// Contract of every operation (DESIGN.md §2.1): asynchronous on the caller's stream, in place
// on device buffers of exactly size() elements, 16-byte aligned (cudaMalloc and arena slots
// are); no allocation, no device-wide synchronization, launch errors checked after each launch
// (faults inside a kernel surface at the caller's next synchronization). The buffers must stay
// valid until the stream has run the work. Workspace: none (workspace_bytes() says 0).
//
// Thread-safety: a DeviceDomain is immutable after construction; several threads may enqueue
// transforms with it on their own streams at the same time.
//
// Usage:
//   gpu::ntt::DeviceDomain<bls12_381::Fr> domain(24, ntt::Convention::kBellman);  // start-up
//   gpu::ntt::NttConfig config;
//   config.stream = stream;
//   config.output_order = Order::kBitReversed;
//   domain.inverse(std::span(values_on_device, domain.size()), config);

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/ntt/tables.hpp"
#include "ntt/instances.hpp"

namespace cuzk::gpu::ntt {

using cuzk::ntt::Convention;

struct NttConfig {
  // The caller's stream; the legacy default stream (nullptr) is accepted but serializes with
  // every other stream: do not use it on the proving path.
  cudaStream_t stream = nullptr;
  Order input_order = Order::kNatural;
  Order output_order = Order::kNatural;
  // Coset transform: forward evaluates at g·ω^i (multiplies coefficient j by g^j first),
  // inverse undoes that (multiplies coefficient j by g^(−j) last); g is the domain's shift.
  bool coset = false;
  // false: the input holds canonical integers (< r, standard form) and is converted to
  // Montgomery form on the way in (one more product per element). Outputs are always in
  // Montgomery form.
  bool inputs_montgomery = true;
};

// The twiddle tables a DeviceDomain keeps in VRAM (tables.hpp). kCompact: at most 42 MiB (2^28);
// the first pass of a domain above 2^19 assembles each twiddle from two table entries (one
// product more per element). kFull adds the domain's first n/2 powers of ω, n/2 × 32 bytes
// (2 GiB at 2^27, 4 GiB at 2^28; nothing below 2^20, where the compact tables already give every
// twiddle in one lookup), for one product less per element in that pass.
enum class TwiddleTables { kCompact, kFull };

template <class Fr>
class DeviceDomain {
 public:
  // Builds the CPU domain and uploads its tables (blocking allocation and copy: start-up work).
  // kInvalidInput when log_size > Tuning::kMaxLogSize or the field's 2-adicity.
  DeviceDomain(unsigned log_size, Convention convention,
               TwiddleTables twiddles = TwiddleTables::kCompact);

  unsigned log_size() const { return host_.log_size(); }
  size_t size() const { return host_.size(); }
  Convention convention() const { return host_.convention(); }
  // The CPU reference domain whose roots the device uses.
  const cuzk::ntt::Domain<Fr>& host_domain() const { return host_; }
  TwiddleTables twiddles() const {
    return half_twiddles_.size() != 0 ? TwiddleTables::kFull : TwiddleTables::kCompact;
  }
  // Device memory held by this object (the tables), for VRAM budgeting.
  size_t device_bytes() const { return device_tables_.bytes() + half_twiddles_.bytes(); }
  // What a domain of 2^log_size with these tables holds in VRAM, before building it.
  static size_t device_bytes(unsigned log_size, TwiddleTables twiddles);
  // Workspace an operation needs besides its buffers: none, the transforms run in place.
  static size_t workspace_bytes(unsigned /*log_size*/, const NttConfig& /*config*/) { return 0; }

  // In place; kInvalidInput when values.size() != size() or the buffer is not 16-byte aligned.
  void forward(std::span<Fr> values, const NttConfig& config) const;
  void inverse(std::span<Fr> values, const NttConfig& config) const;

  // Runs a schedule (plan.hpp) on a device vector of size() elements: the building block of
  // the operations above and of the H evaluations.
  void run(std::span<const Step<Fr>> steps, Fr* values, cudaStream_t stream) const;
  // a[i] = (a[i]·b[i] − c[i])·factor (factor 1 skips the product), on the device.
  void combine(Fr* a, const Fr* b, const Fr* c, const Fr& factor, cudaStream_t stream) const;
  void check_buffer(std::span<const Fr> values, const char* operation) const;

 private:
  cuzk::ntt::Domain<Fr> host_;
  HostTables<Fr> tables_;  // host copy: layout and the values the device copy came from
  DeviceBuffer<Fr> device_tables_;
  DeviceBuffer<Fr> half_twiddles_;  // TwiddleTables::kFull above 2^19; empty otherwise
};

// The GPU H evaluations, with the CPU functions' buffer contract (src/ntt/h_polynomial.hpp) on
// device buffers: a, b, c hold n values on the domain in natural order; on return `a` holds
// the result in natural order, `b` and `c` are clobbered. Asynchronous on `stream`, no
// allocation, no workspace (h_workspace_bytes() is 0). The domain must have the matching
// convention (kInvalidInput otherwise).
//   snarkjs: a ← A·B − C at the odd coset points g·ω^i (6 transforms).
//   bellman: a ← the n coefficients of h = (A·B − C)/Z (7 transforms and a permutation).
template <class Fr>
void snarkjs_h_scalars(const DeviceDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                       std::span<Fr> c, cudaStream_t stream);
template <class Fr>
void bellman_h_coefficients(const DeviceDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                            std::span<Fr> c, cudaStream_t stream);
inline size_t h_workspace_bytes(unsigned /*log_size*/) { return 0; }

#define CUZK_GPU_NTT_DECLARE_FOR_FIELD(EXTERN, Fr)                                        \
  EXTERN template class DeviceDomain<Fr>;                                                 \
  EXTERN template void snarkjs_h_scalars<Fr>(const DeviceDomain<Fr>&, std::span<Fr>,      \
                                             std::span<Fr>, std::span<Fr>, cudaStream_t); \
  EXTERN template void bellman_h_coefficients<Fr>(const DeviceDomain<Fr>&, std::span<Fr>, \
                                                  std::span<Fr>, std::span<Fr>, cudaStream_t);

CUZK_GPU_NTT_DECLARE_FOR_FIELD(extern, bls12_381::Fr)
CUZK_GPU_NTT_DECLARE_FOR_FIELD(extern, bn254::Fr)

}  // namespace cuzk::gpu::ntt
