// One partition from a bellman assignment on the GPU (assignment_prover.hpp). Host code: it
// enqueues the uploads and the stages shared with the circuit path (partition.hpp).

#include "gpu/prover/assignment_prover.hpp"

#include <chrono>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

using Curve = AssignmentCurve;
using Fr = Curve::Fr;
using Clock = std::chrono::steady_clock;

template <class T>
void upload(T* device, std::span<const T> host, cudaStream_t stream) {
  if (host.empty()) return;
  CUDA_CHECK(
      cudaMemcpyAsync(device, host.data(), host.size_bytes(), cudaMemcpyHostToDevice, stream));
}

}  // namespace

PartitionShape assignment_partition_shape(const KeyFootprint& key, size_t n_inputs,
                                          KeyResidency key_residency, HTableShape h_table) {
  PartitionShape s;
  s.n_vars = n_inputs + key.c;
  s.n_private = key.c;
  s.domain = key.h + 1;
  s.synthesis_workspace_bytes = 0;
  s.key_residency = key_residency;
  s.h_table = h_table;
  s.assignment = true;
  return s;
}

PartitionShape assignment_partition_shape(const DeviceProvingKey<Curve>& key) {
  return assignment_partition_shape(key.footprint(), key.constants().vk.ic.size(), key.residency(),
                                    key.h_table_shape());
}

groth16::BellmanKeySizes bellman_key_sizes(const DeviceProvingKey<Curve>& key) {
  const KeyFootprint& f = key.footprint();
  return {key.constants().vk.ic.size(), f.c, f.a, f.b1, f.b2, f.h};
}

void check_assignment_partition(const DeviceProvingKey<Curve>& key,
                                const ntt::DeviceDomain<Fr>& domain,
                                const groth16::BellmanAssignmentView& assignment,
                                const PartitionBuffers<Curve>& buffers) {
  if (key.convention() != KeyConvention::kBellman) {
    CUZK_INVALID_INPUT(
        "gpu prove: an assignment is proved with a bellman .params key, not a .zkey");
  }
  groth16::check_bellman_assignment(bellman_key_sizes(key), assignment);
  const size_t n = key.footprint().h + 1;
  if (domain.size() != n || domain.convention() != ntt::Convention::kBellman) {
    CUZK_INVALID_INPUT("gpu prove: the NTT domain (" + std::to_string(domain.size()) +
                       ") is not the key's (" + std::to_string(n) + ", bellman roots)");
  }
  const PartitionShape want = assignment_partition_shape(key);
  const PartitionShape& have = buffers.shape();
  if (!have.assignment || have.n_vars != want.n_vars || have.n_private != want.n_private ||
      have.domain != want.domain) {
    CUZK_INVALID_INPUT(
        "gpu prove: the partition buffers were not made for assignments of this key");
  }
  if (have.key_residency != key.residency() || !(have.h_table == key.h_table_shape())) {
    CUZK_INVALID_INPUT(
        "gpu prove: the partition buffers were made for another placement of the key (residency "
        "or H table)");
  }
  if (!buffers.placed()) {
    CUZK_INVALID_INPUT("gpu prove: the partition buffers have no device memory (place() them)");
  }
}

void enqueue_assignment_stage(const groth16::BellmanAssignmentView& assignment,
                              PartitionBuffers<Curve>& buffers, const Stream& stream) {
  const PartitionShape& shape = buffers.shape();
  auto& marks = buffers.marks();
  marks[0].record(stream);
  const size_t rows = assignment.a.size();
  Fr* abc[3] = {buffers.a(), buffers.b(), buffers.c()};
  const std::span<const Fr> host_abc[3] = {assignment.a, assignment.b, assignment.c};
  for (size_t k = 0; k < 3; ++k) {
    upload(abc[k], host_abc[k], stream);
    CUDA_CHECK(cudaMemsetAsync(abc[k] + rows, 0, (shape.domain - rows) * sizeof(Fr), stream));
  }
  const size_t n_inputs = assignment.inputs.size();
  upload(buffers.witness(), assignment.inputs, stream);
  upload(buffers.witness() + n_inputs, assignment.aux, stream);
  // The MSMs and counts read the witness as integers, as a circuit partition's.
  msm::canonicalize_scalars<Fr>({buffers.witness(), shape.n_vars}, stream);
  // Pageable vectors: CUDA stages them before cudaMemcpyAsync returns.
  const groth16::AssignmentQueryVariables variables =
      groth16::assignment_query_variables(assignment);
  upload(buffers.a_variables(), std::span<const uint32_t>(variables.a), stream);
  upload(buffers.b_variables(), std::span<const uint32_t>(variables.b), stream);
  marks[1].record(stream);
}

void enqueue_assignment_compute(const DeviceProvingKey<Curve>& key,
                                const ntt::DeviceDomain<Fr>& domain,
                                std::span<PartitionBuffers<Curve>* const> group,
                                const Stream& stream) {
  std::vector<GroupMember<Curve>> members;
  for (PartitionBuffers<Curve>* buffers : group) {
    QueryVariables variables;
    variables.n_public = key.constants().vk.ic.size() - 1;
    variables.a_listed = variables.b_listed = true;
    variables.a = key.footprint().a == 0 ? nullptr : buffers->a_variables();
    variables.b = key.footprint().b1 == 0 ? nullptr : buffers->b_variables();
    enqueue_scalar_counts(key, *buffers, variables, stream);
    buffers->marks()[2].record(stream);  // no synthesis: a, b, c came with the stage
    members.push_back({buffers, variables});
  }
  enqueue_h_and_msms<Curve>(key, domain, members, stream);
}

void enqueue_assignment_compute(const DeviceProvingKey<Curve>& key,
                                const ntt::DeviceDomain<Fr>& domain,
                                PartitionBuffers<Curve>& buffers, const Stream& stream) {
  PartitionBuffers<Curve>* const one[] = {&buffers};
  enqueue_assignment_compute(key, domain, one, stream);
}

groth16::ProveResult<Curve> finish_assignment_partition(
    const DeviceProvingKey<Curve>& key, const groth16::BellmanAssignmentView& assignment,
    PartitionBuffers<Curve>& buffers, const GpuProveOptions<Curve>& options,
    GpuStageTimes* stage_times) {
  std::vector<Fr> public_inputs(assignment.inputs.begin() + 1, assignment.inputs.end());
  return finish_with_public_inputs(key, std::move(public_inputs), buffers, options, stage_times);
}

groth16::ProveResult<Curve> prove_assignment(const DeviceProvingKey<Curve>& key,
                                             const ntt::DeviceDomain<Fr>& domain,
                                             const groth16::BellmanAssignmentView& assignment,
                                             PartitionBuffers<Curve>& buffers, const Stream& stream,
                                             const GpuProveOptions<Curve>& options,
                                             GpuStageTimes* stage_times) {
  const auto call_start = Clock::now();
  check_assignment_partition(key, domain, assignment, buffers);
  enqueue_assignment_stage(assignment, buffers, stream);
  enqueue_assignment_compute(key, domain, buffers, stream);
  const double enqueue_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - call_start).count();
  stream.synchronize();
  auto result = finish_assignment_partition(key, assignment, buffers, options, stage_times);
  result.timings.total_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - call_start).count();
  if (stage_times != nullptr) {
    stage_times->host_enqueue_ms = enqueue_ms;
    stage_times->host_critical_ms =
        std::max(0.0, result.timings.total_ms - stage_times->gpu_total_ms);
  }
  return result;
}

}  // namespace cuzk::gpu::prover
