// The GPU Groth16 prover (prover.hpp), both curves. Host code: it enqueues the device stages
// through their host entry points and runs the epilogue.

#include "gpu/prover/prover.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "groth16/epilogue.hpp"
#include "groth16/verifier.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The MSM workspace for this circuit: the largest of the five classified MSMs (they run one
// after the other on one stream, so they share it).
template <class Curve>
size_t msm_workspace_for(size_t n_vars, size_t n_private, size_t n) {
  using G1C = groth16::G1CurveOf<Curve>;
  using G2C = groth16::G2CurveOf<Curve>;
  msm::MsmConfig config;
  config.scalars = msm::ScalarForm::kCanonical;
  size_t bytes = std::max(msm::classified_msm_workspace_bytes<G1C>(n_vars, config),
                          msm::classified_msm_workspace_bytes<G1C>(n_private, config));
  bytes = std::max(bytes, msm::classified_msm_workspace_bytes<G2C>(n_vars, config));
  config.scalars = msm::ScalarForm::kMontgomery;
  return std::max(bytes, msm::classified_msm_workspace_bytes<G1C>(n, config));
}

template <class Fr>
size_t private_wires(const DeviceCircuit<Fr>& circuit) {
  return circuit.n_vars() - circuit.n_public() - 1;
}

}  // namespace

template <class Curve>
size_t PartitionBuffers<Curve>::bytes_for(const DeviceCircuit<Fr>& circuit) {
  const size_t n = circuit.domain_size();
  return (circuit.n_vars() + 3 * n + circuit.a_wires().size() + circuit.b_wires().size()) *
             sizeof(Fr) +
         circuit.synthesis_workspace_bytes() +
         msm_workspace_for<Curve>(circuit.n_vars(), private_wires(circuit), n) +
         4 * sizeof(groth16::G1Jacobian<Curve>) + sizeof(groth16::G2Jacobian<Curve>);
}

template <class Curve>
PartitionBuffers<Curve> PartitionBuffers<Curve>::allocate(const DeviceCircuit<Fr>& circuit) {
  const size_t n = circuit.domain_size();
  PartitionBuffers b;
  b.witness_ = DeviceBuffer<Fr>::allocate_blocking(circuit.n_vars());
  b.a_ = DeviceBuffer<Fr>::allocate_blocking(n);
  b.b_ = DeviceBuffer<Fr>::allocate_blocking(n);
  b.c_ = DeviceBuffer<Fr>::allocate_blocking(n);
  b.a_scalars_ = DeviceBuffer<Fr>::allocate_blocking(circuit.a_wires().size());
  b.b_scalars_ = DeviceBuffer<Fr>::allocate_blocking(circuit.b_wires().size());
  b.synthesis_workspace_ =
      DeviceBuffer<std::byte>::allocate_blocking(circuit.synthesis_workspace_bytes());
  b.msm_workspace_ = DeviceBuffer<std::byte>::allocate_blocking(
      msm_workspace_for<Curve>(circuit.n_vars(), private_wires(circuit), n));
  b.g1_results_ = DeviceBuffer<groth16::G1Jacobian<Curve>>::allocate_blocking(4);
  b.g2_result_ = DeviceBuffer<groth16::G2Jacobian<Curve>>::allocate_blocking(1);
  return b;
}

template <class Curve>
size_t PartitionBuffers<Curve>::bytes() const {
  return witness_.bytes() + a_.bytes() + b_.bytes() + c_.bytes() + a_scalars_.bytes() +
         b_scalars_.bytes() + synthesis_workspace_.bytes() + msm_workspace_.bytes() +
         g1_results_.bytes() + g2_result_.bytes();
}

template <class Curve>
groth16::ProveResult<Curve> prove(const DeviceCircuit<typename Curve::Fr>& circuit,
                                  const DeviceProvingKey<Curve>& key,
                                  const ntt::DeviceDomain<typename Curve::Fr>& domain,
                                  const PinnedWitness<typename Curve::Fr>& witness,
                                  PartitionBuffers<Curve>& buffers, const Stream& stream,
                                  const GpuProveOptions<Curve>& options,
                                  GpuStageTimes* stage_times) {
  using Fr = typename Curve::Fr;
  using G1C = groth16::G1CurveOf<Curve>;
  using G2C = groth16::G2CurveOf<Curve>;
  using G1J = groth16::G1Jacobian<Curve>;
  using G2J = groth16::G2Jacobian<Curve>;
  const auto call_start = Clock::now();

  // ---- checks: everything that can be wrong is refused before anything is enqueued ----
  const size_t n = circuit.domain_size();
  const size_t n_vars = circuit.n_vars();
  const size_t n_public = circuit.n_public();
  const KeyFootprint& f = key.footprint();
  const bool bellman = key.convention() == KeyConvention::kBellman;
  if (bellman != circuit.has_c()) {
    CUZK_INVALID_INPUT(
        "gpu prove: a .zkey key takes the matrices of its coefficient section, a bellman .params "
        "key those of the .r1cs (with C); the circuit and key given are one of each");
  }
  const size_t a_count = bellman ? circuit.a_wires().size() : n_vars;
  const size_t b_count = bellman ? circuit.b_wires().size() : n_vars;
  const size_t h_count = bellman ? n - 1 : n;
  const auto convention = bellman ? ntt::Convention::kBellman : ntt::Convention::kSnarkjs;
  if (f.a != a_count || f.b1 != b_count || f.b2 != b_count || f.c != n_vars - n_public - 1 ||
      f.h != h_count || domain.size() != n || domain.convention() != convention) {
    CUZK_INVALID_INPUT("gpu prove: the key (" + std::to_string(f.a) + " A points, H of " +
                       std::to_string(f.h) + "), the circuit (" + std::to_string(n_vars) +
                       " wires, domain " + std::to_string(n) + ") and the NTT domain (" +
                       std::to_string(domain.size()) + ", " +
                       (domain.convention() == ntt::Convention::kBellman ? "bellman" : "snarkjs") +
                       " roots) do not belong together");
  }
  if (witness.size() != n_vars) {
    CUZK_INVALID_INPUT("gpu prove: the witness has " + std::to_string(witness.size()) +
                       " values, but the circuit has " + std::to_string(n_vars) + " wires");
  }
  if (buffers.witness_capacity() < n_vars || buffers.domain_capacity() != n ||
      buffers.synthesis_workspace().size() < circuit.synthesis_workspace_bytes() ||
      (bellman &&
       (buffers.a_scalars_capacity() < a_count || buffers.b_scalars_capacity() < b_count))) {
    CUZK_INVALID_INPUT("gpu prove: the partition buffers were allocated for another circuit");
  }

  // ---- enqueue: stage, synthesis, H, MSMs ----
  std::array<Event, 9> marks{Event(true), Event(true), Event(true), Event(true), Event(true),
                             Event(true), Event(true), Event(true), Event(true)};
  marks[0].record(stream);
  stage_witness(witness, {buffers.witness(), nullptr, buffers.witness_capacity()}, stream);
  marks[1].record(stream);

  SynthesisArgs<Fr> args;
  args.stream = stream;
  args.witness_standard = buffers.witness();
  args.witness_size = n_vars;
  args.a = buffers.a();
  args.b = buffers.b();
  args.c = buffers.c();
  args.n = n;
  args.workspace = buffers.synthesis_workspace().data();
  args.workspace_bytes = buffers.synthesis_workspace().size();
  synthesize(circuit, args);
  marks[2].record(stream);

  if (bellman) {
    ntt::bellman_h_coefficients(domain, std::span<Fr>(buffers.a(), n),
                                std::span<Fr>(buffers.b(), n), std::span<Fr>(buffers.c(), n),
                                stream);
  } else {
    ntt::snarkjs_h_scalars(domain, std::span<Fr>(buffers.a(), n), std::span<Fr>(buffers.b(), n),
                           std::span<Fr>(buffers.c(), n), stream);
  }
  marks[3].record(stream);

  msm::MsmConfig config;
  config.stream = stream;
  config.scalars = msm::ScalarForm::kCanonical;
  const std::span<std::byte> workspace = buffers.msm_workspace();
  const std::span<const Fr> w(buffers.witness(), n_vars);
  std::span<const Fr> a_scalars = w, b_scalars = w;
  if (bellman) {  // the values of the density lists' wires (still canonical)
    gather(circuit.a_wires().data(), a_count, buffers.witness(), buffers.a_scalars(), stream);
    gather(circuit.b_wires().data(), b_count, buffers.witness(), buffers.b_scalars(), stream);
    a_scalars = {buffers.a_scalars(), a_count};
    b_scalars = {buffers.b_scalars(), b_count};
  }
  G1J* g1 = buffers.g1_results();
  msm::msm_with_classification<G1C>({key.a(), a_count}, a_scalars, g1 + 0, workspace, config);
  marks[4].record(stream);
  msm::msm_with_classification<G1C>({key.b1(), b_count}, b_scalars, g1 + 1, workspace, config);
  marks[5].record(stream);
  msm::msm_with_classification<G2C>({key.b2(), b_count}, b_scalars, buffers.g2_result(), workspace,
                                    config);
  marks[6].record(stream);
  msm::msm_with_classification<G1C>({key.c(), f.c}, w.subspan(n_public + 1), g1 + 2, workspace,
                                    config);
  marks[7].record(stream);
  config.scalars = msm::ScalarForm::kMontgomery;  // the NTT's output
  msm::msm_with_classification<G1C>({key.h(), h_count}, std::span<const Fr>(buffers.a(), h_count),
                                    g1 + 3, workspace, config);
  marks[8].record(stream);

  std::array<G1J, 4> g1_sums;
  G2J g2_sum;
  CUDA_CHECK(cudaMemcpyAsync(g1_sums.data(), g1, sizeof(g1_sums), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(&g2_sum, buffers.g2_result(), sizeof(g2_sum), cudaMemcpyDeviceToHost,
                             stream));
  const double enqueue_ms = ms_since(call_start);

  // While the GPU works: the public inputs and the blinding (host work off the critical path).
  groth16::ProveResult<Curve> result;
  result.public_inputs.resize(n_public);
  for (size_t i = 0; i < n_public; ++i) {
    const Fr v = witness.data()[i + 1];
    result.public_inputs[i] =
        witness.form() == WitnessForm::kMontgomery ? v : Fr::from_int(v.as_int());
  }
  const groth16::Blinding<Curve> blinding = groth16::choose_blinding<Curve>(options.blinding);
  stream.synchronize();

  // ---- epilogue (the CPU provers' own function) ----
  const auto epilogue_start = Clock::now();
  const KeyConstants<Curve>& k = key.constants();
  result.proof =
      groth16::combine_proof<Curve>({g1_sums[0], g1_sums[1], g1_sums[2], g1_sums[3], g2_sum},
                                    {k.alpha1, k.beta1, k.delta1, k.beta2, k.delta2}, blinding);
  const double epilogue_ms = ms_since(epilogue_start);

  auto& t = result.timings;
  const auto gpu_ms = [&](size_t from, size_t to) {
    return double(Event::elapsed_ms(marks[from], marks[to]));
  };
  t.witness_check_ms = gpu_ms(0, 1);
  t.abc_ms = gpu_ms(1, 2);
  t.h_ms = gpu_ms(2, 3);
  t.msm_a_ms = gpu_ms(3, 4);
  t.msm_b1_ms = gpu_ms(4, 5);
  t.msm_b2_ms = gpu_ms(5, 6);
  t.msm_c_ms = gpu_ms(6, 7);
  t.msm_h_ms = gpu_ms(7, 8);
  t.epilogue_ms = epilogue_ms;
  if (stage_times != nullptr) {
    *stage_times = {t.witness_check_ms, t.abc_ms,    t.h_ms,      t.msm_a_ms,
                    t.msm_b1_ms,        t.msm_b2_ms, t.msm_c_ms,  t.msm_h_ms,
                    gpu_ms(0, 8),       enqueue_ms,  epilogue_ms, enqueue_ms + epilogue_ms};
  }

  if (options.self_verify) {
    const auto verify_start = Clock::now();
    if (!groth16::verify(key.constants().vk, std::span<const Fr>(result.public_inputs),
                         result.proof)) {
      CUZK_INVALID_INPUT(
          "the witness does not satisfy the circuit: the proof does not verify against the key");
    }
    t.self_verify_ms = ms_since(verify_start);
  }
  t.total_ms = ms_since(call_start);
  return result;
}

#define CUZK_GPU_PROVER_FOR_CURVE(Curve)                                                      \
  template class PartitionBuffers<Curve>;                                                     \
  template groth16::ProveResult<Curve> prove<Curve>(                                          \
      const DeviceCircuit<typename Curve::Fr>&, const DeviceProvingKey<Curve>&,               \
      const ntt::DeviceDomain<typename Curve::Fr>&, const PinnedWitness<typename Curve::Fr>&, \
      PartitionBuffers<Curve>&, const Stream&, const GpuProveOptions<Curve>&, GpuStageTimes*);

CUZK_GPU_PROVER_FOR_CURVE(formats::Bn254)
CUZK_GPU_PROVER_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::gpu::prover
