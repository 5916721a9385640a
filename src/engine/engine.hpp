#pragma once
// The engine facade: what the gRPC service (SubmitProof, AwaitProof, CancelProof, GetStatus,
// GetMetrics, PreloadKey, EvictKey) and the CLI sit on. It owns the backend, the key store, the
// scheduler, the memory budget, the per-GPU locks and workers (or the CPU worker pool), the
// metrics and the timeline; src/engine/README.md draws how a partition flows through them.
//
// Jobs and the journal: with EngineOptions::journal_path set, accepted jobs, their request ids
// and their results outlive the process (journal.hpp). create() reads the journal: results not
// yet fetched come back as they were; jobs accepted but not finished wait until resume() (called
// once the keys are registered) re-queues them, or end FAILED with the reason when a witness
// was not retained or its file cannot be opened again. A result is kept in the journal until
// its first successful await or its retention; a shutdown by cancellation leaves the jobs it
// stopped unfinished in the journal, to run after the next start.
//
// Job ids: (instance << 40) | n, n counting the jobs of this start from 1; the instance is the
// journal's number for this start (each start's is larger than every earlier one's), or a
// random one without a journal. Two ids of one start differ in n; of two starts of one
// journal, in the instance; so an id is never handed out twice. Without a journal two starts
// share an instance with probability 2^-23, and nothing of an earlier start is known anyway.
//
// Errors (cuzk::Error kinds, which the service maps to status codes):
//   kInvalidInput       a malformed job (no partitions, a missing witness), bad options
//   kNotFound           an unknown key id or job id (or a job whose retention expired)
//   kResourceExhausted  QueueFullError: the queue is full now, or the witnesses held for
//                       queued partitions would pass the host budget (retry later); a plain
//                       kResourceExhausted: a partition can never fit the host budget or a
//                       VRAM arena; ShuttingDownError: the engine is shutting down
// A partition's own failure (a bad witness) does not throw from submit: the job ends kFailed
// with the error's kind and message in its JobResult.
//
// Thread-safety: every member may be called from any thread, concurrently, until shutdown()
// returns; after it, submit is refused and await/status still answer. Order: create (start-up:
// the VRAM arenas are carved here, the only device allocation), register_key, then anything;
// shutdown (or the destructor, which cancels) last.

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend.hpp"
#include "engine/job.hpp"
#include "engine/key_store.hpp"
#include "engine/metrics.hpp"

namespace cuzk::engine {

struct EngineOptions {
  int workers_per_gpu = 2;  // K, 1..4 (DESIGN.md §2.1)
  // A GPU worker prepares its next partition (host bytes, key, the backend's host work) while
  // the kernels of its current one run, when one is queued, its key is loaded and its host
  // bytes are free at that moment; otherwise it takes the next one after the current ends.
  bool prepare_ahead = true;
  // Partitions of one job a GPU worker computes together at most, when their works share a
  // group key (PartitionWork::group_key: a key streamed from pinned host memory, which each
  // compute then moves across PCIe once for the whole group), 1..64; 1: never grouped. Each
  // member holds its own host bytes and VRAM slot; the group takes only what is free at once.
  int group_partitions = 16;
  int cpu_workers = 2;  // backends without devices; each proof also uses oneTBB's threads
  size_t queue_capacity = 1 << 16;  // partitions
  std::chrono::milliseconds result_retention = std::chrono::minutes(10);
  // The durable job journal (journal.hpp); empty: none, jobs live as long as the process.
  std::filesystem::path journal_path;
  // Witness bytes given by value that the journal keeps for re-queueing after a restart; a
  // witness past it is not retained (its job fails if the engine restarts before it ends).
  uint64_t journal_spool_bytes = uint64_t(1) << 30;
  uint64_t host_bytes = 0;  // 0: /proc/meminfo's MemTotal minus host_margin_bytes
  uint64_t host_margin_bytes = uint64_t(4) << 30;
  // The partition arena per GPU; 0: device memory minus the VRAM key budget minus the margin.
  uint64_t vram_arena_bytes = 0;
  uint64_t vram_margin_bytes = uint64_t(1) << 30;
  KeyStore::Options keys;

  // Partitions the workers of one GPU hold at once (each its own pinned staging): one per
  // worker, two with preparation ahead.
  int partitions_held_per_gpu() const { return workers_per_gpu * (prepare_ahead ? 2 : 1); }
};

enum class ShutdownMode { kDrain, kCancel };

struct GpuStatus {
  int device = 0;
  std::string name;
  uint64_t vram_bytes = 0, arena_bytes = 0, arena_in_use = 0, arena_peak = 0;
  int workers = 0;
  double busy_fraction = 0;  // from the timeline, over the last status window
  bool in_service = true;    // false after stop_gpu
};

struct EngineStatus {
  std::string backend;
  std::vector<GpuStatus> gpus;
  int cpu_workers = 0;
  size_t queued = 0, queue_capacity = 0;
  std::vector<size_t> queued_by_priority;  // indexed by Priority's value
  size_t jobs_active = 0, jobs_retained = 0;
  uint64_t host_budget = 0, host_in_use = 0, host_peak = 0;
  uint64_t witness_bytes_queued = 0;  // by-value witnesses of partitions not yet finished
  std::vector<KeyStatus> keys;
  std::vector<TierUsage> key_tiers;
  uint64_t partitions_succeeded = 0, partitions_failed = 0, partitions_cancelled = 0;
  bool accepting = true;
};

class Engine {
 public:
  // Throws kInvalidInput for bad options, kResourceExhausted when an arena cannot be carved.
  static std::unique_ptr<Engine> create(const EngineOptions& options,
                                        std::unique_ptr<Backend> backend);
  ~Engine();  // shutdown(kCancel) unless already shut down
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  void register_key(const KeyId& id, const KeySource& source);
  // Queues the jobs the journal held unfinished at create(), once the keys are registered;
  // one whose key is unknown now ends FAILED. Idempotent; a no-op without a journal.
  void resume();
  JobId submit(JobSpec spec);
  // The job's result once it is final, waiting up to `timeout`; before that, its current state
  // (kQueued or kRunning) with no outputs. Throws kNotFound for an unknown or expired job.
  // `fetch` = false leaves a final result in the journal until fetched(id): for a caller that
  // first makes sure the result reached its client.
  JobResult await(JobId id, std::chrono::milliseconds timeout, bool fetch = true);
  // The result of a final job reached its client: the journal need not keep it past this start.
  void fetched(JobId id);
  // The job's owner (JobSpec::owner) and state now, without fetching it: a final result stays
  // in the journal for its await. Throws kNotFound for an unknown or expired job.
  std::pair<std::string, JobState> peek(JobId id);
  // Cancels queued partitions at once and running ones at their next stage boundary; the job
  // ends kCancelled (or as it was, if it was already final: then false).
  bool cancel(JobId id);
  // Blocks until no job is queued or running, or the timeout passes (false).
  bool wait_idle(std::chrono::milliseconds timeout);

  // Takes a GPU out of service (it failed, or it is needed elsewhere): its workers take no new
  // partition, and one that has not reached compute yet goes back to the queue for the other
  // GPUs (a partition already computing finishes there). No job is lost or failed by it. True
  // when the GPU was in service; kInvalidInput for an unknown GPU or the last one in service.
  bool stop_gpu(int device);

  void preload_key(const KeyId& id);
  bool evict_key(const KeyId& id);

  EngineStatus status() const;
  std::string metrics_text() const;
  const Timeline& timeline() const;
  Backend& backend();

  // kDrain: refuse new jobs, finish the queued and running ones; kCancel: cancel them. Then
  // stop the workers. Idempotent.
  void shutdown(ShutdownMode mode);

  struct Impl;  // engine_impl.hpp

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::engine
