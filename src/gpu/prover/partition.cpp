// The GPU Groth16 prover (partition.hpp), both curves. Host code: it enqueues the device stages
// through their host entry points and runs the epilogue.

#include "gpu/prover/partition.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

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

// The MSM configuration of a partition's MSMs for a key of this residency (stream and scalar
// form set by the caller).
msm::MsmConfig msm_config_for(const PartitionShape& s) {
  msm::MsmConfig config;
  if (s.key_residency == KeyResidency::kStreamed) {
    config.bases = msm::Location::kPinnedHost;
    config.chunk_points = s.stream_chunk_points;
  }
  return config;
}

// The H MSM over an H table takes its scalars (H, in the partition's `a`, dead after it) as
// integers made in place (msm::canonicalize_scalars) where msm_shifted would otherwise convert
// them into its workspace: a partial table's several sort passes. Its workspace then has no
// room for that copy (n·32 bytes: 4.3 GB at 2^27, what lets a 2^27 key's fourth table row fit an
// H200 beside two partitions). A whole table in one pass converts inside its digits kernel at
// no workspace cost, and keeps the Montgomery scalars.
struct HMsmScalars {
  msm::ScalarForm form;
  size_t workspace_bytes;
};
template <class G1C>
HMsmScalars h_msm_scalars(const PartitionShape& s, msm::MsmConfig config) {
  config.scalars = msm::ScalarForm::kMontgomery;
  const size_t montgomery =
      msm::msm_shifted_workspace_bytes<G1C>(s.domain, s.h_table.c, config, s.h_table.rows);
  config.scalars = msm::ScalarForm::kCanonical;
  const size_t canonical =
      msm::msm_shifted_workspace_bytes<G1C>(s.domain, s.h_table.c, config, s.h_table.rows);
  if (canonical < montgomery) return {msm::ScalarForm::kCanonical, canonical};
  return {msm::ScalarForm::kMontgomery, montgomery};
}

// The MSM workspace for this circuit: the largest of the five MSMs (they run one after the
// other on one stream, so they share it).
template <class Curve>
size_t msm_workspace_for(const PartitionShape& s) {
  using G1C = groth16::G1CurveOf<Curve>;
  using G2C = groth16::G2CurveOf<Curve>;
  msm::MsmConfig config = msm_config_for(s);
  const auto bytes_of = [&]<class C>(size_t n) { return msm::msm_workspace_bytes<C>(n, config); };
  // Sized as for Montgomery scalars throughout: the canonical witness needs no conversion, but a
  // filtered .zkey query gathers it into the same room (msm::MsmConfig::scalar_index).
  config.scalars = msm::ScalarForm::kMontgomery;
  size_t bytes = std::max(bytes_of.template operator()<G1C>(s.n_vars),
                          bytes_of.template operator()<G1C>(s.n_private));
  bytes = std::max(bytes, bytes_of.template operator()<G2C>(s.n_vars));
  if (s.h_table) return std::max(bytes, h_msm_scalars<G1C>(s, config).workspace_bytes);
  return std::max(bytes, bytes_of.template operator()<G1C>(s.domain));
}

constexpr size_t kAlign = 256;

size_t align_up(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

}  // namespace

template <class Fr>
PartitionShape partition_shape(const DeviceCircuit<Fr>& circuit, KeyResidency key_residency,
                               HTableShape h_table) {
  PartitionShape s;
  s.n_vars = circuit.n_vars();
  s.n_private = circuit.n_vars() - circuit.n_public() - 1;
  s.domain = circuit.domain_size();
  s.synthesis_workspace_bytes = circuit.synthesis_workspace_bytes();
  s.key_residency = key_residency;
  s.h_table = h_table;
  return s;
}

template <class Fr>
PartitionShape partition_shape(const HostCircuit<Fr>& circuit, KeyResidency key_residency,
                               HTableShape h_table) {
  // DeviceCircuit::synthesis_workspace_bytes: one partial per heavy-row segment.
  const size_t segments = circuit.a.segments.size() + circuit.b.segments.size() +
                          (circuit.c ? circuit.c->segments.size() : 0);
  PartitionShape s;
  s.n_vars = circuit.n_vars;
  s.n_private = size_t(circuit.n_vars) - circuit.n_public - 1;
  s.domain = circuit.domain_size;
  s.synthesis_workspace_bytes = segments * sizeof(Fr);
  s.key_residency = key_residency;
  s.h_table = h_table;
  return s;
}

template <class Curve>
typename PartitionBuffers<Curve>::Carving PartitionBuffers<Curve>::carve(const PartitionShape& s,
                                                                         std::byte* base) {
  Carving out;
  const auto take = [&]<class T>(T*& at, size_t count) {
    at = base == nullptr ? nullptr : reinterpret_cast<T*>(base + out.bytes);
    out.bytes += align_up(count * sizeof(T));
  };
  const auto take_bytes = [&](std::span<std::byte>& at, size_t count) {
    std::byte* p = nullptr;
    take(p, count);
    at = {p, p == nullptr ? 0 : count};
  };
  take(out.witness, s.n_vars);
  take(out.a, s.domain);  // a, b, c → H (in a), which the H MSM reads
  take(out.g1_results, 4);
  take(out.g2_result, 1);
  take(out.scalar_counts, kCountedQueries);
  if (s.assignment) {
    take(out.a_variables, s.n_vars);
    take(out.b_variables, s.n_vars);
  }
  // b, c and the synthesis workspace are dead once H is in a, and the MSMs come after it on the
  // same stream: their workspace overlays them (at 2^27 this saves ~8.6 GB per partition, the
  // difference between one and two partitions next to the key on a 141 GB card).
  const size_t shared_from = out.bytes;
  take(out.b, s.domain);
  take(out.c, s.domain);
  take_bytes(out.synthesis_workspace, s.synthesis_workspace_bytes);
  const size_t synthesis_end = out.bytes;
  out.bytes = shared_from;
  take_bytes(out.msm_workspace, msm_workspace_for<Curve>(s));
  if (s.h_table) {
    out.h_scalars = h_msm_scalars<groth16::G1CurveOf<Curve>>(s, msm_config_for(s)).form;
  }
  out.bytes = std::max(out.bytes, synthesis_end);
  return out;
}

template <class Curve>
PartitionBuffers<Curve>::PartitionBuffers(const PartitionShape& shape)
    : shape_(shape), sums_(1), counts_(kCountedQueries), marks_{Event(true), Event(true),
                                                                Event(true), Event(true),
                                                                Event(true), Event(true),
                                                                Event(true), Event(true),
                                                                Event(true)} {
  if (shape.key_residency == KeyResidency::kStreamed) copy_stream_.emplace();
}

template <class Curve>
size_t PartitionBuffers<Curve>::bytes_for(const PartitionShape& shape) {
  return carve(shape, nullptr).bytes;
}

template <class Curve>
PartitionBuffers<Curve> PartitionBuffers<Curve>::allocate(const PartitionShape& shape) {
  PartitionBuffers buffers(shape);
  buffers.block_ = DeviceBuffer<std::byte>::allocate_blocking(bytes_for(shape));
  buffers.d_ = carve(shape, buffers.block_.data());
  return buffers;
}

template <class Curve>
PartitionBuffers<Curve> PartitionBuffers<Curve>::unplaced(const PartitionShape& shape) {
  return PartitionBuffers(shape);
}

template <class Curve>
void PartitionBuffers<Curve>::place(std::span<std::byte> memory) {
  if (block_.data() != nullptr) {
    CUZK_INVALID_INPUT("PartitionBuffers::place: these buffers own their device memory");
  }
  if (memory.data() == nullptr || memory.size() < bytes()) {
    CUZK_INVALID_INPUT("PartitionBuffers::place: " + std::to_string(memory.size()) +
                       " bytes of device memory for a partition that needs " +
                       std::to_string(bytes()));
  }
  if (reinterpret_cast<uintptr_t>(memory.data()) % kAlign != 0) {
    CUZK_INVALID_INPUT("PartitionBuffers::place: the device memory is not 256-byte aligned");
  }
  d_ = carve(shape_, memory.data());
}

template <class Curve>
void check_partition(const DeviceCircuit<typename Curve::Fr>& circuit,
                     const DeviceProvingKey<Curve>& key,
                     const ntt::DeviceDomain<typename Curve::Fr>& domain,
                     const PinnedWitness<typename Curve::Fr>& witness,
                     const PartitionBuffers<Curve>& buffers) {
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
  // A .zkey's a and b queries may be filtered by their own density lists (any length up to
  // n_vars; the key made the lists and the points together).
  const size_t a_count = bellman ? circuit.a_wires().size() : key.a_filtered() ? f.a : n_vars;
  const size_t b_count = bellman ? circuit.b_wires().size() : key.b_filtered() ? f.b1 : n_vars;
  const size_t h_count = bellman ? n - 1 : n;
  const auto convention = bellman ? ntt::Convention::kBellman : ntt::Convention::kSnarkjs;
  if (f.a != a_count || f.b1 != b_count || f.b2 != b_count || a_count > n_vars ||
      b_count > n_vars || f.c != n_vars - n_public - 1 || f.h != h_count || domain.size() != n ||
      domain.convention() != convention) {
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
  const PartitionShape want = partition_shape(circuit);
  const PartitionShape& have = buffers.shape();
  if (have.n_vars != want.n_vars || have.domain != want.domain ||
      have.n_private != want.n_private ||
      have.synthesis_workspace_bytes != want.synthesis_workspace_bytes || have.assignment) {
    CUZK_INVALID_INPUT("gpu prove: the partition buffers were made for another circuit");
  }
  if (have.key_residency != key.residency()) {
    CUZK_INVALID_INPUT(std::string("gpu prove: the partition buffers were made for a key ") +
                       (have.key_residency == KeyResidency::kStreamed ? "streamed from host memory"
                                                                      : "resident in VRAM") +
                       ", the key given is not");
  }
  if (!(have.h_table == key.h_table_shape())) {
    const auto describe = [](HTableShape t) {
      return t ? "an H table of " + std::to_string(t.rows) + " rows at c = " + std::to_string(t.c)
               : std::string("no H table");
    };
    CUZK_INVALID_INPUT("gpu prove: the partition buffers were made for a key with " +
                       describe(have.h_table) + ", the key given has " +
                       describe(key.h_table_shape()));
  }
  if (!buffers.placed()) {
    CUZK_INVALID_INPUT("gpu prove: the partition buffers have no device memory (place() them)");
  }
}

template <class Curve>
void enqueue_stage(const PinnedWitness<typename Curve::Fr>& witness,
                   PartitionBuffers<Curve>& buffers, const Stream& stream) {
  auto& marks = buffers.marks();
  marks[0].record(stream);
  stage_witness(witness, {buffers.witness(), nullptr, buffers.shape().n_vars}, stream);
  marks[1].record(stream);
}

template <class Curve>
void enqueue_scalar_counts(const DeviceProvingKey<Curve>& key, PartitionBuffers<Curve>& buffers,
                           const QueryVariables& variables, const Stream& stream) {
  using Fr = typename Curve::Fr;
  const KeyFootprint& f = key.footprint();
  const std::span<const Fr> w(buffers.witness(), buffers.shape().n_vars);
  msm::ScalarCounts* counts = buffers.device_scalar_counts();
  msm::count_scalars<Fr>(w, msm::ScalarForm::kCanonical, variables.a, f.a, counts + 0, stream);
  msm::count_scalars<Fr>(w, msm::ScalarForm::kCanonical, variables.b, f.b1, counts + 1, stream);
  msm::count_scalars<Fr>(w.subspan(variables.n_public + 1), msm::ScalarForm::kCanonical, nullptr,
                         f.c, counts + 2, stream);
  CUDA_CHECK(cudaMemcpyAsync(buffers.scalar_counts(), counts,
                             PartitionBuffers<Curve>::kCountedQueries * sizeof(msm::ScalarCounts),
                             cudaMemcpyDeviceToHost, stream));
  buffers.counts_ready().record(stream);
}

template <class Curve>
void enqueue_h_and_msms(const DeviceProvingKey<Curve>& key,
                        const ntt::DeviceDomain<typename Curve::Fr>& domain,
                        std::span<const GroupMember<Curve>> members, const Stream& stream) {
  using Fr = typename Curve::Fr;
  using G1C = groth16::G1CurveOf<Curve>;
  using G2C = groth16::G2CurveOf<Curve>;
  if (members.empty()) return;
  const size_t n = members.front().buffers->shape().domain;
  const KeyFootprint& f = key.footprint();
  const size_t a_count = f.a, b_count = f.b1, h_count = f.h;

  for (const GroupMember<Curve>& m : members) {
    PartitionBuffers<Curve>& buffers = *m.buffers;
    if (key.convention() == KeyConvention::kBellman) {
      ntt::bellman_h_coefficients(domain, std::span<Fr>(buffers.a(), n),
                                  std::span<Fr>(buffers.b(), n), std::span<Fr>(buffers.c(), n),
                                  stream);
    } else {
      ntt::snarkjs_h_scalars(domain, std::span<Fr>(buffers.a(), n), std::span<Fr>(buffers.b(), n),
                             std::span<Fr>(buffers.c(), n), stream);
    }
    buffers.marks()[3].record(stream);
  }
  const auto mark = [&](size_t k) {
    for (const GroupMember<Curve>& m : members) m.buffers->marks()[k].record(stream);
  };

  msm::MsmConfig config = msm_config_for(members.front().buffers->shape());
  config.stream = stream;
  config.copy_stream = members.front().buffers->copy_stream();
  // The plain MSM for every query, porep's mostly-0/1 witnesses included: with the scalar
  // counts, zero scalars have no pairs to sort and ones only window 0's, and the ones fill one
  // bucket that the accumulation spreads over many threads. Summing the ones apart
  // (msm_with_classification) was 7-9% slower on the H200 (porep G1 2^26 153.6 against
  // 165.2 ms, G2 2^24 179.0 against 195.0;
  // bench/results/msm/2026-11-29_h200_e593945_msm.json). The members' MSMs of one query run as
  // one msm_batch: a streamed key's bases are staged chunk by chunk, each chunk once for all.
  const auto run_batch = [&]<class C>(std::span<const ec::Affine<C>> bases, const auto& vector_of) {
    std::vector<msm::MsmVector<C>> vectors;
    vectors.reserve(members.size());
    for (const GroupMember<Curve>& m : members) vectors.push_back(vector_of(m));
    msm::msm_batch<C>(bases, vectors, config);
  };
  const auto witness_of = [](const GroupMember<Curve>& m) {
    return std::span<const Fr>(m.buffers->witness(), m.buffers->shape().n_vars);
  };
  // H first: its scalars are dense, and the GPU runs it while the host waits for the counts.
  if (key.h_table_shape()) {
    for (const GroupMember<Curve>& m : members) {
      config.scalars = m.buffers->h_scalar_form();
      if (config.scalars == msm::ScalarForm::kCanonical) {
        msm::canonicalize_scalars<Fr>({m.buffers->a(), h_count}, stream);
      }
      msm::msm_shifted<G1C>(key.h_table(), {m.buffers->a(), h_count}, m.buffers->g1_results() + 3,
                            m.buffers->msm_workspace(), config);
    }
  } else {
    config.scalars = msm::ScalarForm::kMontgomery;  // the NTT's output
    run_batch.template operator()<G1C>(std::span<const ec::Affine<G1C>>(key.h(), h_count),
                                       [&](const GroupMember<Curve>& m) {
                                         return msm::MsmVector<G1C>{{m.buffers->a(), h_count},
                                                                    m.buffers->g1_results() + 3,
                                                                    m.buffers->msm_workspace(),
                                                                    nullptr,
                                                                    std::nullopt};
                                       });
  }
  mark(4);
  config.scalars = msm::ScalarForm::kCanonical;

  for (const GroupMember<Curve>& m : members) m.buffers->counts_ready().synchronize();
  // A listed query reads the witness through its list; it may be empty (no points, no scalars).
  // query: 0 A, 1 B (B1 and B2), 2 the private wires (C / L).
  const auto query_vector = [&]<class C>(const GroupMember<Curve>& m, size_t query,
                                         ec::Jacobian<C>* result) {
    const QueryVariables& v = m.variables;
    std::span<const Fr> scalars = witness_of(m);
    const uint32_t* index = nullptr;
    if (query == 0) {
      index = v.a;
      if (v.a_listed && a_count == 0) scalars = {};
    } else if (query == 1) {
      index = v.b;
      if (v.b_listed && b_count == 0) scalars = {};
    } else {
      scalars = scalars.subspan(v.n_public + 1);
    }
    return msm::MsmVector<C>{scalars, result, m.buffers->msm_workspace(), index,
                             m.buffers->scalar_counts()[query]};
  };
  run_batch.template operator()<G1C>(
      std::span<const ec::Affine<G1C>>(key.a(), a_count), [&](const GroupMember<Curve>& m) {
        return query_vector.template operator()<G1C>(m, 0, m.buffers->g1_results() + 0);
      });
  mark(5);
  run_batch.template operator()<G1C>(
      std::span<const ec::Affine<G1C>>(key.b1(), b_count), [&](const GroupMember<Curve>& m) {
        return query_vector.template operator()<G1C>(m, 1, m.buffers->g1_results() + 1);
      });
  mark(6);
  run_batch.template operator()<G2C>(
      std::span<const ec::Affine<G2C>>(key.b2(), b_count), [&](const GroupMember<Curve>& m) {
        return query_vector.template operator()<G2C>(m, 1, m.buffers->g2_result());
      });
  mark(7);
  run_batch.template operator()<G1C>(
      std::span<const ec::Affine<G1C>>(key.c(), f.c), [&](const GroupMember<Curve>& m) {
        return query_vector.template operator()<G1C>(m, 2, m.buffers->g1_results() + 2);
      });

  // Into pinned memory, so that the copies are asynchronous and nothing more waits here.
  for (const GroupMember<Curve>& m : members) {
    PartitionBuffers<Curve>& buffers = *m.buffers;
    using G1J = groth16::G1Jacobian<Curve>;
    G1J* g1 = buffers.g1_results();
    groth16::MsmSums<Curve>& sums = buffers.sums();
    CUDA_CHECK(cudaMemcpyAsync(&sums.a, g1 + 0, sizeof(G1J), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&sums.b1, g1 + 1, sizeof(G1J), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(
        cudaMemcpyAsync(&sums.private_wires, g1 + 2, sizeof(G1J), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&sums.h, g1 + 3, sizeof(G1J), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&sums.b2, buffers.g2_result(), sizeof(sums.b2),
                               cudaMemcpyDeviceToHost, stream));
  }
  mark(8);
}

template <class Curve>
void enqueue_h_and_msms(const DeviceProvingKey<Curve>& key,
                        const ntt::DeviceDomain<typename Curve::Fr>& domain,
                        PartitionBuffers<Curve>& buffers, const QueryVariables& variables,
                        const Stream& stream) {
  const GroupMember<Curve> one[] = {{&buffers, variables}};
  enqueue_h_and_msms<Curve>(key, domain, one, stream);
}

template <class Curve>
QueryVariables query_variables(const DeviceCircuit<typename Curve::Fr>& circuit,
                               const DeviceProvingKey<Curve>& key) {
  const bool bellman = key.convention() == KeyConvention::kBellman;
  // A bellman key's a and b queries read the witness through the circuit's density lists, a
  // filtered .zkey query through its own; a listed query may be empty (no points, no scalars).
  QueryVariables variables;
  variables.n_public = circuit.n_public();
  variables.a_listed = bellman || key.a_filtered();
  variables.b_listed = bellman || key.b_filtered();
  const KeyFootprint& f = key.footprint();
  variables.a = !variables.a_listed || f.a == 0 ? nullptr
                : bellman                       ? circuit.a_wires().data()
                                                : key.a_wires();
  variables.b = !variables.b_listed || f.b1 == 0 ? nullptr
                : bellman                        ? circuit.b_wires().data()
                                                 : key.b_wires();
  return variables;
}

template <class Curve>
void enqueue_compute(const DeviceCircuit<typename Curve::Fr>& circuit,
                     const DeviceProvingKey<Curve>& key,
                     const ntt::DeviceDomain<typename Curve::Fr>& domain,
                     std::span<PartitionBuffers<Curve>* const> group, const Stream& stream) {
  using Fr = typename Curve::Fr;
  const QueryVariables variables = query_variables(circuit, key);
  std::vector<GroupMember<Curve>> members;
  for (PartitionBuffers<Curve>* buffers : group) {
    members.push_back({buffers, variables});
    // The scalar counts of the A, B and private-wire MSMs, first on the stream (they need the
    // witness alone), read back on the host before those MSMs are enqueued.
    enqueue_scalar_counts(key, *buffers, variables, stream);
    SynthesisArgs<Fr> args;
    args.stream = stream;
    args.witness_standard = buffers->witness();
    args.witness_size = circuit.n_vars();
    args.a = buffers->a();
    args.b = buffers->b();
    args.c = buffers->c();
    args.n = circuit.domain_size();
    args.workspace = buffers->synthesis_workspace().data();
    args.workspace_bytes = buffers->synthesis_workspace().size();
    synthesize(circuit, args);
    buffers->marks()[2].record(stream);
  }
  enqueue_h_and_msms<Curve>(key, domain, members, stream);
}

template <class Curve>
void enqueue_compute(const DeviceCircuit<typename Curve::Fr>& circuit,
                     const DeviceProvingKey<Curve>& key,
                     const ntt::DeviceDomain<typename Curve::Fr>& domain,
                     PartitionBuffers<Curve>& buffers, const Stream& stream) {
  PartitionBuffers<Curve>* const one[] = {&buffers};
  enqueue_compute<Curve>(circuit, key, domain, one, stream);
}

template <class Curve>
groth16::ProveResult<Curve> finish_partition(const DeviceProvingKey<Curve>& key,
                                             const PinnedWitness<typename Curve::Fr>& witness,
                                             PartitionBuffers<Curve>& buffers,
                                             const GpuProveOptions<Curve>& options,
                                             GpuStageTimes* stage_times) {
  using Fr = typename Curve::Fr;
  const size_t n_public = key.constants().vk.ic.size() - 1;
  std::vector<Fr> public_inputs(n_public);
  for (size_t i = 0; i < n_public; ++i) {
    const Fr v = witness.data()[i + 1];
    public_inputs[i] = witness.form() == WitnessForm::kMontgomery ? v : Fr::from_int(v.as_int());
  }
  return finish_with_public_inputs(key, std::move(public_inputs), buffers, options, stage_times);
}

template <class Curve>
groth16::ProveResult<Curve> finish_with_public_inputs(const DeviceProvingKey<Curve>& key,
                                                      std::vector<typename Curve::Fr> public_inputs,
                                                      PartitionBuffers<Curve>& buffers,
                                                      const GpuProveOptions<Curve>& options,
                                                      GpuStageTimes* stage_times) {
  using Fr = typename Curve::Fr;
  const auto start = Clock::now();
  groth16::ProveResult<Curve> result;
  result.public_inputs = std::move(public_inputs);
  const groth16::Blinding<Curve> blinding = groth16::choose_blinding<Curve>(options.blinding);
  const KeyConstants<Curve>& k = key.constants();
  result.proof = groth16::combine_proof<Curve>(
      buffers.sums(), {k.alpha1, k.beta1, k.delta1, k.beta2, k.delta2}, blinding);
  const double epilogue_ms = ms_since(start);

  auto& marks = buffers.marks();
  auto& t = result.timings;
  const auto gpu_ms = [&](size_t from, size_t to) {
    return double(Event::elapsed_ms(marks[from], marks[to]));
  };
  t.witness_check_ms = gpu_ms(0, 1);
  t.abc_ms = gpu_ms(1, 2);
  t.h_ms = gpu_ms(2, 3);
  t.msm_h_ms = gpu_ms(3, 4);  // H first (enqueue_compute)
  t.msm_a_ms = gpu_ms(4, 5);
  t.msm_b1_ms = gpu_ms(5, 6);
  t.msm_b2_ms = gpu_ms(6, 7);
  t.msm_c_ms = gpu_ms(7, 8);
  t.epilogue_ms = epilogue_ms;
  if (stage_times != nullptr) {
    *stage_times = {t.witness_check_ms, t.abc_ms,    t.h_ms,      t.msm_a_ms,
                    t.msm_b1_ms,        t.msm_b2_ms, t.msm_c_ms,  t.msm_h_ms,
                    gpu_ms(0, 8),       0,           epilogue_ms, epilogue_ms};
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
  t.total_ms = ms_since(start);
  return result;
}

template <class Curve>
groth16::ProveResult<Curve> prove(const DeviceCircuit<typename Curve::Fr>& circuit,
                                  const DeviceProvingKey<Curve>& key,
                                  const ntt::DeviceDomain<typename Curve::Fr>& domain,
                                  const PinnedWitness<typename Curve::Fr>& witness,
                                  PartitionBuffers<Curve>& buffers, const Stream& stream,
                                  const GpuProveOptions<Curve>& options,
                                  GpuStageTimes* stage_times) {
  const auto call_start = Clock::now();
  check_partition(circuit, key, domain, witness, buffers);
  enqueue_stage(witness, buffers, stream);
  enqueue_compute(circuit, key, domain, buffers, stream);
  const double enqueue_ms = ms_since(call_start);
  stream.synchronize();
  auto result = finish_partition(key, witness, buffers, options, stage_times);
  result.timings.total_ms = ms_since(call_start);
  if (stage_times != nullptr) {
    stage_times->host_enqueue_ms = enqueue_ms;
    stage_times->host_critical_ms =
        std::max(0.0, result.timings.total_ms - stage_times->gpu_total_ms);
  }
  return result;
}

#define CUZK_GPU_PROVER_FOR_CURVE(Curve)                                                          \
  template class PartitionBuffers<Curve>;                                                         \
  template PartitionShape partition_shape(const DeviceCircuit<typename Curve::Fr>&, KeyResidency, \
                                          HTableShape);                                           \
  template PartitionShape partition_shape(const HostCircuit<typename Curve::Fr>&, KeyResidency,   \
                                          HTableShape);                                           \
  template void check_partition<Curve>(                                                           \
      const DeviceCircuit<typename Curve::Fr>&, const DeviceProvingKey<Curve>&,                   \
      const ntt::DeviceDomain<typename Curve::Fr>&, const PinnedWitness<typename Curve::Fr>&,     \
      const PartitionBuffers<Curve>&);                                                            \
  template void enqueue_stage<Curve>(const PinnedWitness<typename Curve::Fr>&,                    \
                                     PartitionBuffers<Curve>&, const Stream&);                    \
  template void enqueue_compute<Curve>(                                                           \
      const DeviceCircuit<typename Curve::Fr>&, const DeviceProvingKey<Curve>&,                   \
      const ntt::DeviceDomain<typename Curve::Fr>&, PartitionBuffers<Curve>&, const Stream&);     \
  template void enqueue_scalar_counts<Curve>(const DeviceProvingKey<Curve>&,                      \
                                             PartitionBuffers<Curve>&, const QueryVariables&,     \
                                             const Stream&);                                      \
  template void enqueue_h_and_msms<Curve>(                                                        \
      const DeviceProvingKey<Curve>&, const ntt::DeviceDomain<typename Curve::Fr>&,               \
      PartitionBuffers<Curve>&, const QueryVariables&, const Stream&);                            \
  template void enqueue_h_and_msms<Curve>(const DeviceProvingKey<Curve>&,                         \
                                          const ntt::DeviceDomain<typename Curve::Fr>&,           \
                                          std::span<const GroupMember<Curve>>, const Stream&);    \
  template void enqueue_compute<Curve>(const DeviceCircuit<typename Curve::Fr>&,                  \
                                       const DeviceProvingKey<Curve>&,                            \
                                       const ntt::DeviceDomain<typename Curve::Fr>&,              \
                                       std::span<PartitionBuffers<Curve>* const>, const Stream&); \
  template groth16::ProveResult<Curve> finish_with_public_inputs<Curve>(                          \
      const DeviceProvingKey<Curve>&, std::vector<typename Curve::Fr>, PartitionBuffers<Curve>&,  \
      const GpuProveOptions<Curve>&, GpuStageTimes*);                                             \
  template groth16::ProveResult<Curve> finish_partition<Curve>(                                   \
      const DeviceProvingKey<Curve>&, const PinnedWitness<typename Curve::Fr>&,                   \
      PartitionBuffers<Curve>&, const GpuProveOptions<Curve>&, GpuStageTimes*);                   \
  template groth16::ProveResult<Curve> prove<Curve>(                                              \
      const DeviceCircuit<typename Curve::Fr>&, const DeviceProvingKey<Curve>&,                   \
      const ntt::DeviceDomain<typename Curve::Fr>&, const PinnedWitness<typename Curve::Fr>&,     \
      PartitionBuffers<Curve>&, const Stream&, const GpuProveOptions<Curve>&, GpuStageTimes*);

CUZK_GPU_PROVER_FOR_CURVE(formats::Bn254)
CUZK_GPU_PROVER_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::gpu::prover
