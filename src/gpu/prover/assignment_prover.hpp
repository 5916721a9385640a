#pragma once
// One partition on the GPU from a bellman assignment (groth16/bellman_assignment.hpp: a, b, c
// per row, the input and auxiliary assignments, the A and B density bitmaps, as bellperson
// hands them to supraseal C2), with a .params key and no constraint matrices.
//
//   stage      a, b, c → the partition's a, b, c (zeros up to the domain), inputs ‖ aux → its
//              witness, made integers in place (the circuit path's standard form), and the
//              lists of the variables the A and B queries read, made on the host from the
//              bitmaps (word by word; ~0.1 s for 2^27 variables) and uploaded
//   compute    as a circuit's partition from the scalar counts on (partition.hpp), without the
//              synthesis: the counts, H (bellman's coefficient basis) from a, b, c, the H MSM,
//              then A and B through the lists, B2, L
//   finish     the epilogue, the public inputs from the assignment (inputs[1..]), and
//              optionally the proof checked against the key's verifying key
//
// The proofs are byte-equal to groth16::prove_bellman_assignment's (same r, s): H and every
// MSM sum are exact.
//
// The assignment's memory: pageable memory is copied (staged by CUDA) before the stage call
// returns; pinned memory is read by the copies on the stream, so it must stay untouched until
// the stream has passed the stage (as a PinnedWitness).
//
// BLS12-381 only (bellman's keys are).

#include <cstddef>
#include <span>

#include "formats/curve_id.hpp"
#include "gpu/ntt/ntt.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "gpu/prover/partition.hpp"
#include "gpu/stream.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/prover.hpp"

namespace cuzk::gpu::prover {

using AssignmentCurve = formats::Bls12_381;

// The buffers' shape of an assignment partition for a .params key of this footprint with
// n_inputs inputs (its IC count), before or after its upload.
PartitionShape assignment_partition_shape(const KeyFootprint& key, size_t n_inputs,
                                          KeyResidency key_residency = KeyResidency::kDevice,
                                          HTableShape h_table = {});
PartitionShape assignment_partition_shape(const DeviceProvingKey<AssignmentCurve>& key);

// The point counts of an uploaded .params key, for groth16::check_bellman_assignment.
groth16::BellmanKeySizes bellman_key_sizes(const DeviceProvingKey<AssignmentCurve>& key);

// kInvalidInput when the assignment does not fit the key (check_bellman_assignment's
// messages), the key is not a bellman key, or the domain or buffers were made for another.
void check_assignment_partition(const DeviceProvingKey<AssignmentCurve>& key,
                                const ntt::DeviceDomain<AssignmentCurve::Fr>& domain,
                                const groth16::BellmanAssignmentView& assignment,
                                const PartitionBuffers<AssignmentCurve>& buffers);

// The phases, as partition.hpp's (enqueue only; compute waits once on its own counts event).
void enqueue_assignment_stage(const groth16::BellmanAssignmentView& assignment,
                              PartitionBuffers<AssignmentCurve>& buffers, const Stream& stream);
void enqueue_assignment_compute(const DeviceProvingKey<AssignmentCurve>& key,
                                const ntt::DeviceDomain<AssignmentCurve::Fr>& domain,
                                PartitionBuffers<AssignmentCurve>& buffers, const Stream& stream);
// The compute phase of several assignment partitions staged on this stream, their MSMs
// together (partition.hpp, GroupMember: a streamed key crosses PCIe once for the group).
void enqueue_assignment_compute(const DeviceProvingKey<AssignmentCurve>& key,
                                const ntt::DeviceDomain<AssignmentCurve::Fr>& domain,
                                std::span<PartitionBuffers<AssignmentCurve>* const> group,
                                const Stream& stream);
// After the stream finished the compute phase's work. With self_verify, kInvalidInput for an
// assignment that does not satisfy the circuit.
groth16::ProveResult<AssignmentCurve> finish_assignment_partition(
    const DeviceProvingKey<AssignmentCurve>& key, const groth16::BellmanAssignmentView& assignment,
    PartitionBuffers<AssignmentCurve>& buffers,
    const GpuProveOptions<AssignmentCurve>& options = {}, GpuStageTimes* stage_times = nullptr);

// The phases in order on one stream.
groth16::ProveResult<AssignmentCurve> prove_assignment(
    const DeviceProvingKey<AssignmentCurve>& key,
    const ntt::DeviceDomain<AssignmentCurve::Fr>& domain,
    const groth16::BellmanAssignmentView& assignment, PartitionBuffers<AssignmentCurve>& buffers,
    const Stream& stream, const GpuProveOptions<AssignmentCurve>& options = {},
    GpuStageTimes* stage_times = nullptr);

}  // namespace cuzk::gpu::prover
