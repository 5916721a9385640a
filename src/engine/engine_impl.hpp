#pragma once
// The engine's internals, shared by engine.cpp (jobs, the facade) and workers.cpp (the GPU and
// CPU worker loops). Not part of the API.
//
// Locks, in the order they may nest: jobs_mutex → the scheduler's own mutex, and jobs_mutex →
// the journal's queue mutex (queueing a record; never waiting for a commit). Nothing else nests
// with jobs_mutex: workers take it only in finish_partition, holding no GPU lock, budget or
// key store lock at that moment. GPU locks (mem, compute) are never held while taking
// jobs_mutex, the key store's lock or blocking on the host budget.

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/gpu_locks.hpp"
#include "engine/journal.hpp"
#include "engine/memory_budget.hpp"
#include "engine/scheduler.hpp"

namespace cuzk::engine {

// One Prometheus label, `key="value"`, for Metrics' label text.
inline std::string label(const char* key, const std::string& value) {
  return std::string(key) + "=\"" + value + "\"";
}

// Job ids (engine.hpp): the instance in the high bits, the job's number in this start in the
// low 40 (a trillion jobs per start). Instances stay below 2^23, so that ids fit a signed
// 64-bit integer (SQLite's, and JSON readers' that parse them as such).
inline constexpr int kJobNumberBits = 40;
inline constexpr uint64_t kJobNumberLimit = uint64_t(1) << kJobNumberBits;
inline constexpr uint64_t kInstanceLimit = uint64_t(1) << 23;
inline JobId make_job_id(uint64_t instance, uint64_t number) {
  return (instance << kJobNumberBits) | number;
}

struct JobRecord {
  JobId id = 0;
  uint64_t seq = 0;
  JobSpec spec;
  Clock::time_point submitted{};
  uint64_t host_bytes = 0, vram_bytes = 0;  // per partition, from the backend at submission
  std::atomic<bool> cancelled{false};       // read by workers at stage boundaries
  std::vector<uint64_t> witness_bytes;      // per partition: by-value bytes held while queued

  // Guarded by Engine::Impl::jobs_mutex.
  JobState state = JobState::kQueued;
  size_t remaining = 0, cancelled_partitions = 0;
  std::vector<PartitionOutput> outputs;
  StageTimes sum;
  std::optional<ErrorKind> error_kind;
  std::string error_message;
  Clock::time_point completed{};
  uint64_t completion_seq = 0;
  bool client_cancelled = false;  // Engine::cancel, not a shutdown
  bool fetched = false;           // awaited once as final: the journal dropped it
};

struct PreparedPartition;  // workers.cpp: a partition taken by a GPU worker, prepared on the host

struct Engine::Impl {
  EngineOptions options;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<KeyStore> keys;
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<MemoryBudget> memory;
  std::vector<std::unique_ptr<GpuLocks>> locks;  // one per device
  // One per device: set by Engine::stop_gpu; its workers take no new partition and hand back
  // one they hold at its next stage boundary before compute.
  std::vector<std::unique_ptr<std::atomic<bool>>> out_of_service;
  std::mutex service_mutex;  // serializes stop_gpu calls (the last-GPU check)
  std::vector<std::thread> workers;
  std::vector<std::unique_ptr<Stream>> streams;  // one per GPU worker, created at start-up
  Metrics metrics;
  Timeline timeline;
  Clock::time_point started = Clock::now();

  mutable std::mutex jobs_mutex;
  std::condition_variable jobs_changed;
  std::map<JobId, std::shared_ptr<JobRecord>> jobs;
  std::map<std::string, JobId> request_ids;
  uint64_t instance = 0;     // the high bits of this start's job ids
  uint64_t next_number = 0;  // the low bits of the last id handed out
  uint64_t next_seq = 0;     // scheduling order of jobs (recovered ones first)
  uint64_t witness_bytes_queued = 0;
  std::vector<std::shared_ptr<JobRecord>> recovered;  // unfinished in the journal, until resume
  std::unique_ptr<Journal> journal;                   // null: no journal
  std::atomic<uint64_t> freed_since_trim{0};          // witness bytes released, see trim
  uint64_t completions = 0;
  size_t active_jobs = 0;
  bool accepting = true;
  bool shut_down = false;
  std::atomic<bool> stopping{false};  // kCancel shutdown: workers abandon what they hold

  // engine.cpp
  // Ends a job that never ran (recovered from the journal): state and error, journaled.
  void end_unstarted_locked(JobRecord& job, JobState state, ErrorKind kind,
                            const std::string& message);
  void job_final_locked(JobRecord& job);
  // Gives freed heap pages back to the system once enough witness bytes were released.
  void trim_if_due(bool idle);

  // engine_journal.cpp
  void open_journal();
  void resume_recovered();

  void finish_partition(const std::shared_ptr<JobRecord>& job, uint32_t partition, JobState outcome,
                        PartitionOutput output, const StageTimes& times, const Error* error);
  void cancel_queued(const std::shared_ptr<JobRecord>& job);
  void sweep_expired_locked(Clock::time_point now);
  JobResult result_locked(const JobRecord& job) const;

  // workers.cpp
  void start_workers();
  void gpu_worker(int device, int index, Stream& stream);
  void cpu_worker(int index);
  // Takes a partition through prepare: nullptr when it ended there (settled, or back in the
  // queue). `ahead`: prepared while another partition of the worker computes, or to join its
  // group, so it takes nothing that would wait (host bytes not free, a key not loaded: back to
  // the queue).
  std::unique_ptr<PreparedPartition> prepare_on_gpu(QueuedPartition item, int device, int index,
                                                    bool ahead);
  // Stage, compute, epilogue and settlement of a prepared partition, and of the partitions of
  // its job gathered to compute with it when its key is streamed (EngineOptions::
  // group_partitions); returns the worker's next partition, prepared ahead (nullptr: none).
  std::unique_ptr<PreparedPartition> run_prepared(std::unique_ptr<PreparedPartition> current,
                                                  int device, Stream& stream);
  void run_on_cpu(const QueuedPartition& item, int index);
  void mark_running(JobRecord& job);
  // The end of a partition that was not handed back: its timeline record, then the job.
  void settle_partition(const QueuedPartition& item, TimelineRecord& tl, StageTimes& t,
                        JobState outcome, PartitionOutput output,
                        const std::optional<Error>& error);
};

}  // namespace cuzk::engine
