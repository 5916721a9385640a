#pragma once
// The GPU Groth16 prover: one partition from a resident circuit and key, in either convention
// (snarkjs: a .zkey key and its coefficient matrices; bellman: a .params key and the .r1cs's
// matrices).
//
//   stage      the pinned witness → device (standard form: canonical scalars)
//   synthesis  a, b, c from the resident matrices (device_circuit.hpp)
//   H          the GPU NTT's H (gpu/ntt/ntt.hpp), in place in a: the odd-coset scalars
//              (snarkjs) or the n − 1 coefficients of h (bellman)
//   MSMs       A, B1, C/L, H on G1 and B2 on G2, each classified on the device (0 skipped, 1 by
//              batch addition, the rest Pippenger: gpu/msm/msm.hpp); witness scalars are read
//              canonical, the H scalars Montgomery. A bellman key's A and B queries cover the
//              wires of non-zero polynomials only: their scalars are gathered first
//   epilogue   on the host, the formulas of groth16/prover.cpp (duplicated there: the CPU
//              prover does not expose its epilogue as a function)
//   verify     optionally, the proof against the key's verifying key on the CPU (pairings,
//              ~ms; off the GPU's critical path but on this call's)
//
// Memory: everything per partition lives in a PartitionBuffers (allocated once, reused for any
// number of partitions of circuits that fit it); prove() allocates nothing on the device and
// synchronizes only its own stream (once, before the epilogue).
//
// Not yet here: streamed keys, the engine's locks (the caller runs prove() under its compute
// lock; the staging step could move before it).

#include <cstddef>
#include <optional>
#include <span>

#include "gpu/device_memory.hpp"
#include "gpu/ntt/ntt.hpp"
#include "gpu/prover/device_circuit.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "gpu/prover/witness_staging.hpp"
#include "gpu/stream.hpp"
#include "groth16/prover.hpp"
#include "groth16/types.hpp"

namespace cuzk::gpu::prover {

// Device memory for one partition in flight.
template <class Curve>
class PartitionBuffers {
 public:
  using Fr = typename Curve::Fr;

  // Bytes the buffers for this circuit take (for the memory budget, before allocating).
  static size_t bytes_for(const DeviceCircuit<Fr>& circuit);
  // Blocking allocation (start-up work).
  static PartitionBuffers allocate(const DeviceCircuit<Fr>& circuit);

  size_t bytes() const;

  // The buffers, for prove() (device memory; the sizes are the circuit's).
  Fr* witness() const { return witness_.data(); }
  size_t witness_capacity() const { return witness_.size(); }
  Fr* a() const { return a_.data(); }
  Fr* b() const { return b_.data(); }
  Fr* c() const { return c_.data(); }
  Fr* a_scalars() const { return a_scalars_.data(); }  // bellman: the A density's values
  Fr* b_scalars() const { return b_scalars_.data(); }  // bellman: the B density's values
  size_t a_scalars_capacity() const { return a_scalars_.size(); }
  size_t b_scalars_capacity() const { return b_scalars_.size(); }
  size_t domain_capacity() const { return a_.size(); }
  std::span<std::byte> synthesis_workspace() const {
    return {synthesis_workspace_.data(), synthesis_workspace_.size()};
  }
  std::span<std::byte> msm_workspace() const {
    return {msm_workspace_.data(), msm_workspace_.size()};
  }
  groth16::G1Jacobian<Curve>* g1_results() const { return g1_results_.data(); }
  groth16::G2Jacobian<Curve>* g2_result() const { return g2_result_.data(); }

 private:
  DeviceBuffer<Fr> witness_, a_, b_, c_, a_scalars_, b_scalars_;
  DeviceBuffer<std::byte> synthesis_workspace_, msm_workspace_;
  DeviceBuffer<groth16::G1Jacobian<Curve>> g1_results_;  // A, B1, C, H
  DeviceBuffer<groth16::G2Jacobian<Curve>> g2_result_;   // B2
};

template <class Curve>
struct GpuProveOptions {
  std::optional<groth16::Blinding<Curve>> blinding;  // nullopt: from the system CSPRNG
  bool self_verify = true;
};

// Per-stage GPU times (CUDA events) and host times, in milliseconds. The GPU stages map onto
// groth16::ProveTimings as: abc_ms ← synthesis (staging included in witness_check_ms), h_ms ←
// H, msm_*_ms ← the MSMs; epilogue_ms and self_verify_ms are host times; total_ms is the wall
// time of the call.
struct GpuStageTimes {
  double stage_ms = 0, synthesis_ms = 0, h_ms = 0;
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_c_ms = 0, msm_h_ms = 0;
  double gpu_total_ms = 0;      // first event to last
  double host_enqueue_ms = 0;   // host time to enqueue everything
  double host_epilogue_ms = 0;  // download wait excluded
  double host_critical_ms = 0;  // enqueue + epilogue (what the host adds to a partition)
};

// The proof of one partition. The circuit, key and domain must be the same circuit's
// (kInvalidInput on mismatched sizes; a key of another circuit gives a proof that does not
// verify: with self_verify, kInvalidInput "the proof does not verify"). `stage_times`, when
// given, receives the per-stage times.
template <class Curve>
groth16::ProveResult<Curve> prove(const DeviceCircuit<typename Curve::Fr>& circuit,
                                  const DeviceProvingKey<Curve>& key,
                                  const ntt::DeviceDomain<typename Curve::Fr>& domain,
                                  const PinnedWitness<typename Curve::Fr>& witness,
                                  PartitionBuffers<Curve>& buffers, const Stream& stream,
                                  const GpuProveOptions<Curve>& options = {},
                                  GpuStageTimes* stage_times = nullptr);

}  // namespace cuzk::gpu::prover
