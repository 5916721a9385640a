#pragma once
// The GPU Groth16 prover: one partition from a resident circuit and key, in either convention
// (snarkjs: a .zkey key and its coefficient matrices; bellman: a .params key and the .r1cs's
// matrices).
//
//   stage      the pinned witness → device (standard form: canonical scalars)
//   counts     how many of the A, B and private-wire scalars are 1 and how many neither 0 nor
//              1 (msm::count_scalars), copied to pinned memory
//   synthesis  a, b, c from the resident matrices (device_circuit.hpp)
//   H          the GPU NTT's H (gpu/ntt/ntt.hpp), in place in a: the odd-coset scalars
//              (snarkjs) or the n − 1 coefficients of h (bellman)
//   MSMs       H, then A, B1, B2, C/L: H on dense scalars; the others, once the counts are on
//              the host (read while the GPU runs the stages before), sort only the pairs of
//              their ones and others (msm::MsmConfig::scalar_counts: a porep witness is 90%
//              zeros and ones). Signed-digit Pippenger (gpu/msm/msm.hpp); witness scalars are
//              read canonical, the H scalars Montgomery. A bellman key's A and B queries cover
//              the wires of non-zero polynomials only and read their scalars through the
//              circuit's density lists, a .zkey's filtered queries (zkey_density) through the
//              key's (msm::MsmConfig::scalar_index: no copy of the scalars per partition)
//   epilogue   on the host, the CPU provers' own (groth16/epilogue.hpp)
//   verify     optionally, the proof against the key's verifying key on the CPU (pairings,
//              ~ms; off the GPU's critical path but on this call's)
//
// Memory: everything per partition lives in a PartitionBuffers: device memory carved from one
// block (its own, or a slot of the engine's VRAM arena) and a small pinned host area the MSM
// sums are downloaded into. prove() allocates nothing on the device and synchronizes only its
// own stream (once, before the epilogue). The MSM workspace overlays b, c and the synthesis
// workspace, which are dead once H is in a (PartitionBuffers::carve).
//
// The phases, for a caller that interleaves partitions (the engine: stage under its memory lock,
// compute under its compute lock, finish with no lock; DESIGN.md §2.1):
//   check_partition   everything that can be wrong, refused before anything is enqueued
//   enqueue_stage     the witness upload                        (enqueue only)
//   enqueue_compute   the counts, synthesis, H and its MSM, then (waiting for the counts,
//                     this partition's own event) the other MSMs and the sums' download
//   finish_partition  once the stream reached the end of enqueue_compute's work: the epilogue
//                     and the optional self-verification
// prove() runs them in order.
//
// A bellman assignment (a, b, c, assignments and densities, no matrices) takes the same stages
// without the synthesis: assignment_prover.hpp.

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "gpu/device_memory.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/ntt/ntt.hpp"
#include "gpu/prover/device_circuit.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "gpu/prover/host_circuit.hpp"
#include "gpu/prover/witness_staging.hpp"
#include "gpu/stream.hpp"
#include "groth16/epilogue.hpp"
#include "groth16/prover.hpp"
#include "groth16/types.hpp"

namespace cuzk::gpu::prover {

// The sizes one partition's buffers depend on, from the circuit on either side of its upload.
struct PartitionShape {
  size_t n_vars = 0, n_private = 0, domain = 0;
  size_t synthesis_workspace_bytes = 0;
  // Where the key's points live: a streamed key's MSMs stage their bases through the
  // workspace in chunks of stream_chunk_points (0: the MSM's default), on the buffers' own
  // copy stream.
  KeyResidency key_residency = KeyResidency::kDevice;
  size_t stream_chunk_points = 0;
  // The key's H table (DeviceProvingKey::add_h_table; rows 0: none): the H MSM then runs as
  // msm_shifted, whose workspace differs.
  HTableShape h_table;
  // A partition proved from a bellman assignment (assignment_prover.hpp): a, b and c are
  // uploaded instead of synthesized (no synthesis workspace), and the buffers hold the lists
  // of the variables the A and B queries read (n_vars u32 each), made from its bitmaps.
  bool assignment = false;
};
template <class Fr>
PartitionShape partition_shape(const DeviceCircuit<Fr>& circuit,
                               KeyResidency key_residency = KeyResidency::kDevice,
                               HTableShape h_table = {});
template <class Fr>
PartitionShape partition_shape(const HostCircuit<Fr>& circuit,
                               KeyResidency key_residency = KeyResidency::kDevice,
                               HTableShape h_table = {});

// One partition in flight. Move-only; one partition at a time uses it.
template <class Curve>
class PartitionBuffers {
 public:
  using Fr = typename Curve::Fr;
  using G1J = groth16::G1Jacobian<Curve>;
  using G2J = groth16::G2Jacobian<Curve>;

  // Device bytes of a partition of this shape (sub-buffers aligned to 256 bytes).
  static size_t bytes_for(const PartitionShape& shape);
  // Owning: allocates its own device block (blocking allocation: start-up work).
  static PartitionBuffers allocate(const PartitionShape& shape);
  // Unplaced: the pinned host area and the events only (pinned allocation: start-up work); the
  // device memory comes from place(), e.g. a slot of an arena, before each partition.
  static PartitionBuffers unplaced(const PartitionShape& shape);
  // Points the device buffers into `memory` (device memory of at least bytes_for(shape());
  // kInvalidInput otherwise). Not for owning buffers.
  void place(std::span<std::byte> memory);

  const PartitionShape& shape() const { return shape_; }
  size_t bytes() const { return bytes_for(shape_); }
  bool placed() const { return d_.witness != nullptr; }

  // The device buffers (the sizes are the shape's).
  Fr* witness() const { return d_.witness; }
  Fr* a() const { return d_.a; }
  Fr* b() const { return d_.b; }
  Fr* c() const { return d_.c; }
  std::span<std::byte> synthesis_workspace() const { return d_.synthesis_workspace; }
  std::span<std::byte> msm_workspace() const { return d_.msm_workspace; }
  G1J* g1_results() const { return d_.g1_results; }  // A, B1, C, H
  G2J* g2_result() const { return d_.g2_result; }    // B2
  // An assignment partition's A and B variable lists (null otherwise).
  uint32_t* a_variables() const { return d_.a_variables; }
  uint32_t* b_variables() const { return d_.b_variables; }
  msm::ScalarForm h_scalar_form() const { return d_.h_scalars; }

  // Where each buffer lies in a block of device memory (`base` null: only the size, in `bytes`).
  struct Carving {
    Fr *witness = nullptr, *a = nullptr, *b = nullptr, *c = nullptr;
    std::span<std::byte> synthesis_workspace, msm_workspace;
    G1J* g1_results = nullptr;
    G2J* g2_result = nullptr;
    msm::ScalarCounts* scalar_counts = nullptr;               // A, B, private wires
    uint32_t *a_variables = nullptr, *b_variables = nullptr;  // assignment partitions only
    // The form the H MSM reads its scalars in: integers made in place where that keeps a copy
    // out of its workspace (a partial H table), else the NTT's Montgomery form.
    msm::ScalarForm h_scalars = msm::ScalarForm::kMontgomery;
    size_t bytes = 0;
  };
  static Carving carve(const PartitionShape& shape, std::byte* base);

  // Host side: the downloaded sums (pinned) and the stage boundaries (timing events).
  groth16::MsmSums<Curve>& sums() const { return *sums_.data(); }
  // The scalar counts of A, B and the private wires as downloaded (pinned), and the event after
  // their download.
  static constexpr size_t kCountedQueries = 3;
  msm::ScalarCounts* scalar_counts() const { return counts_.data(); }
  msm::ScalarCounts* device_scalar_counts() const { return d_.scalar_counts; }
  Event& counts_ready() { return counts_ready_; }
  static constexpr size_t kMarks = 9;
  std::array<Event, kMarks>& marks() { return marks_; }
  // The stream a streamed key's bases are copied on (null for a device-resident key).
  cudaStream_t copy_stream() const { return copy_stream_ ? copy_stream_->get() : nullptr; }

 private:
  explicit PartitionBuffers(const PartitionShape& shape);
  PartitionShape shape_;
  DeviceBuffer<std::byte> block_;  // owning buffers only
  Carving d_;
  PinnedBuffer<groth16::MsmSums<Curve>> sums_;
  PinnedBuffer<msm::ScalarCounts> counts_;
  Event counts_ready_;
  std::array<Event, kMarks> marks_;
  std::optional<Stream> copy_stream_;  // streamed keys only
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
  double gpu_total_ms = 0;  // first event to last
  // Host time spent in the enqueue calls. It can overlap the GPU's work: once CUDA's queue of
  // pending launches is full (hundreds of MSM launches at 2^27), a launch waits for the GPU to
  // drain it, so this grows with the GPU time without delaying the GPU.
  double host_enqueue_ms = 0;
  double host_epilogue_ms = 0;  // download wait excluded
  // The wall time of prove() the GPU did not cover (wall − gpu_total): the host's share of
  // the critical path (checks, enqueue before the first kernel starts, the wake-up after the
  // last, the epilogue and verification).
  double host_critical_ms = 0;
};

// Throws kInvalidInput when the circuit, key, domain, witness and buffers do not belong together
// (mismatched sizes or conventions, unplaced buffers). A key of another circuit with matching
// sizes is not detected here: its proof does not verify.
template <class Curve>
void check_partition(const DeviceCircuit<typename Curve::Fr>& circuit,
                     const DeviceProvingKey<Curve>& key,
                     const ntt::DeviceDomain<typename Curve::Fr>& domain,
                     const PinnedWitness<typename Curve::Fr>& witness,
                     const PartitionBuffers<Curve>& buffers);

// No allocation. enqueue_stage only enqueues; enqueue_compute waits once, on its own event (the
// scalar counts, which follow the upload), after enqueueing the stages up to the H MSM. The
// pinned witness must stay untouched until the stream has passed the upload; the buffers until
// it has passed the download.
template <class Curve>
void enqueue_stage(const PinnedWitness<typename Curve::Fr>& witness,
                   PartitionBuffers<Curve>& buffers, const Stream& stream);
template <class Curve>
void enqueue_compute(const DeviceCircuit<typename Curve::Fr>& circuit,
                     const DeviceProvingKey<Curve>& key,
                     const ntt::DeviceDomain<typename Curve::Fr>& domain,
                     PartitionBuffers<Curve>& buffers, const Stream& stream);

// After the stream finished enqueue_compute's work: the proof from the downloaded sums, the
// public inputs from the witness, the GPU stage times from the buffers' events. With
// self_verify, kInvalidInput "the proof does not verify" for a witness that does not satisfy
// the circuit (or a key of another circuit).
template <class Curve>
groth16::ProveResult<Curve> finish_partition(const DeviceProvingKey<Curve>& key,
                                             const PinnedWitness<typename Curve::Fr>& witness,
                                             PartitionBuffers<Curve>& buffers,
                                             const GpuProveOptions<Curve>& options = {},
                                             GpuStageTimes* stage_times = nullptr);

// The stages after the witness, for the provers of either input (a circuit's witness, a bellman
// assignment): the variables the A and B MSMs read through lists (device memory; a null list
// with `listed` false reads the witness as it is), and the public signals' count.
struct QueryVariables {
  const uint32_t *a = nullptr, *b = nullptr;
  bool a_listed = false, b_listed = false;
  size_t n_public = 0;
};
// The scalar counts of A, B and the private wires from the device witness (standard form),
// downloaded; buffers.counts_ready() follows them.
template <class Curve>
void enqueue_scalar_counts(const DeviceProvingKey<Curve>& key, PartitionBuffers<Curve>& buffers,
                           const QueryVariables& variables, const Stream& stream);
// With a, b, c in the buffers (marks[2] recorded after them): H in the key's convention, the H
// MSM, then (waiting for the counts) the other four MSMs and the sums' download.
template <class Curve>
void enqueue_h_and_msms(const DeviceProvingKey<Curve>& key,
                        const ntt::DeviceDomain<typename Curve::Fr>& domain,
                        PartitionBuffers<Curve>& buffers, const QueryVariables& variables,
                        const Stream& stream);
// Partitions of one key computed together on one stream (a key streamed from pinned host
// memory): H for each in turn, then each query's MSMs as one msm::msm_batch over the members,
// so that every chunk of the key crosses PCIe once for the group rather than once per
// partition; the sums are those of each partition alone. Each member's buffers are placed, hold
// its a, b, c (marks[2] recorded) and have its scalar counts enqueued on this stream.
template <class Curve>
struct GroupMember {
  PartitionBuffers<Curve>* buffers = nullptr;
  QueryVariables variables;
};
template <class Curve>
void enqueue_h_and_msms(const DeviceProvingKey<Curve>& key,
                        const ntt::DeviceDomain<typename Curve::Fr>& domain,
                        std::span<const GroupMember<Curve>> members, const Stream& stream);
// enqueue_compute for several partitions of the circuit, staged on this stream (each checked
// by check_partition): their counts and synthesis, then their H and MSMs together as above.
template <class Curve>
void enqueue_compute(const DeviceCircuit<typename Curve::Fr>& circuit,
                     const DeviceProvingKey<Curve>& key,
                     const ntt::DeviceDomain<typename Curve::Fr>& domain,
                     std::span<PartitionBuffers<Curve>* const> group, const Stream& stream);
// finish_partition with the public inputs (Montgomery form) given by the caller.
template <class Curve>
groth16::ProveResult<Curve> finish_with_public_inputs(const DeviceProvingKey<Curve>& key,
                                                      std::vector<typename Curve::Fr> public_inputs,
                                                      PartitionBuffers<Curve>& buffers,
                                                      const GpuProveOptions<Curve>& options = {},
                                                      GpuStageTimes* stage_times = nullptr);

// The proof of one partition: the phases above in order, on one stream. `stage_times`, when
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
