#pragma once
// The job model of the engine: what a client submits, what it gets back, and the errors that a
// service layer maps to status codes (gRPC: INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED).
//
// A job is one or more partitions of one circuit: one key id and one witness per partition.
// Partitions are scheduled independently (by priority, then the oldest job, then the lowest
// partition index) and the job completes when all of its partitions have: every one succeeded,
// or the first failure or a cancellation settled it. Plain values; no thread-safety concerns.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/input_file.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/blinding_bytes.hpp"
#include "util/error.hpp"

namespace cuzk::engine {

using Clock = std::chrono::steady_clock;
using JobId = uint64_t;
using KeyId = std::string;

// Higher runs first. The numeric values are the order (and the later protobuf enum's).
enum class Priority : uint8_t { kLow = 0, kNormal = 1, kHigh = 2, kCritical = 3 };
std::string_view priority_name(Priority priority);  // "low", "normal", "high", "critical"

// One partition's input: the witness as the bytes of a .wtns file, or a .wtns file opened at
// submission (formats::InputFile: resolved once, a regular file of a bounded size, its
// descriptor kept), or instead of a witness a bellman assignment. The file is mapped only when
// a worker prepares the partition, so queued partitions hold no witness in host memory, and a
// path swapped after submission changes nothing that is read. A backend that models work (sim)
// reads only the bytes and may treat agreed contents as a bad witness (sim_backend.hpp). The
// bytes are shared and immutable, so that a retry or an idempotent resubmission does not copy
// them. Exactly one of the three is set (Engine::submit checks).
struct PartitionInput {
  std::shared_ptr<const std::vector<uint8_t>> witness;
  std::shared_ptr<const formats::InputFile> witness_file = {};
  // A bellman assignment (groth16/bellman_assignment.hpp: a, b, c, the input and auxiliary
  // assignments and the density bitmaps, as bellperson hands them over) instead of a witness,
  // for a .params key (KeySource::assignments_only: no matrices). The view does not own its
  // memory: assignment_owner keeps it alive (or the caller does, until the job is final).
  std::shared_ptr<const groth16::BellmanAssignmentView> assignment = nullptr;
  std::shared_ptr<const void> assignment_owner = nullptr;
  // Fixed r and s for this partition's proof; nullopt: the prover draws them.
  std::optional<groth16::BlindingBytes> blinding = std::nullopt;
};

// Job ids are unique across restarts of an engine that keeps a journal, and practically so
// without one (engine.cpp, make_job_id, says how). 0 is never an id.
struct JobSpec {
  KeyId key_id;
  std::vector<PartitionInput> partitions;  // at least one
  Priority priority = Priority::kNormal;
  // ≥ 0: every partition runs on this GPU (the caller routes its work, as Curio does with
  // supraseal's gpu_index); should the GPU be taken out of service, they run on the others.
  // -1: any GPU.
  int device = -1;
  // Idempotency: a second submission with the same non-empty request id, while the first job
  // is known (queued, running or retained), returns the first job's id and queues nothing.
  std::string request_id;
  // Who submitted the job, as the service names it (a token identity, a peer uid). Opaque to
  // the engine: kept with the job, journaled, returned in its JobResult.
  std::string owner;
};

enum class JobState : uint8_t { kQueued, kRunning, kSucceeded, kFailed, kCancelled };
std::string_view job_state_name(JobState state);
inline bool is_final(JobState state) { return state >= JobState::kSucceeded; }

// Wall-clock milliseconds of one partition's stages. queue: submission to a worker taking it;
// key_load: acquiring the key (0 when resident); synthesis: host preparation before any lock
// (witness parsing; the cpu backend's a, b, c); stage: waiting for and holding `mem` (slot
// reservation and upload enqueue); gpu: from taking `compute` to the partition's last device
// event, a span the device may share with other partitions' kernels (the cpu backend: NTTs and
// MSMs); epilogue: host work after the device; total: the sum
// of the wall time from submission to the partition's completion.
struct StageTimes {
  double queue_ms = 0, key_load_ms = 0, synthesis_ms = 0, stage_ms = 0, gpu_ms = 0, epilogue_ms = 0,
         total_ms = 0;
  StageTimes& operator+=(const StageTimes& o);
};

// A job's timings: the per-stage sums over its partitions and the job's wall time.
struct JobTimings {
  StageTimes sum;      // summed over partitions
  double wall_ms = 0;  // submission to completion of the job
};

// How PartitionOutput::proof is encoded: the key's own format (groth16::ProofFormat's values:
// snarkjs proof.json text for a .zkey, the 192-byte compressed proof for a bellman .params),
// or the sim backend's token naming job and partition.
enum class ProofFormat : uint8_t { kSnarkjsJson = 1, kBellman = 2, kSimToken = 3 };
std::string_view proof_format_name(ProofFormat format);  // "snarkjs_json", "bellman", "sim_token"

// One partition's result: the proof's bytes in `format`, and the public inputs as public.json
// text (empty for sim).
struct PartitionOutput {
  ProofFormat format = ProofFormat::kSnarkjsJson;
  std::vector<uint8_t> proof;
  std::string public_inputs;
};

struct JobResult {
  JobId id = 0;
  std::string owner;  // JobSpec::owner
  JobState state = JobState::kQueued;
  std::vector<PartitionOutput> partitions;  // filled when state is kSucceeded
  // kFailed: the first error's kind and message (kInvalidInput for a bad witness).
  std::optional<ErrorKind> error_kind;
  std::string error_message;
  JobTimings timings;
  // A global sequence number of completions (1 for the first job to complete): the order in
  // which jobs finished, for tests and logs.
  uint64_t completion_seq = 0;
};

// Thrown by submit when the queue cannot take the job's partitions now (backpressure; the
// client may retry). Distinct from other kResourceExhausted errors (a job that can never fit).
class QueueFullError : public Error {
 public:
  explicit QueueFullError(const std::string& message)
      : Error(ErrorKind::kResourceExhausted, message) {}
};

// Thrown by submit after shutdown began: the engine takes no new jobs (a service reports it as
// unavailable, not as backpressure).
class ShuttingDownError : public Error {
 public:
  explicit ShuttingDownError(const std::string& message)
      : Error(ErrorKind::kResourceExhausted, message) {}
};

}  // namespace cuzk::engine
