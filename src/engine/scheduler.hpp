#pragma once
// The queue of partitions waiting for a worker: CRITICAL > HIGH > NORMAL > LOW, then the oldest
// job (submission order), then the lowest partition index. Bounded: a job whose partitions do
// not fit in the free room now is refused whole with QueueFullError (the service's
// RESOURCE_EXHAUSTED; retry later), and one with more partitions than the capacity, which can
// never fit, with a plain kResourceExhausted error that says so.
//
// Thread-safety: every member may be called from any thread. pop() blocks until a partition
// is queued or the queue is closed and empty. Order of calls: create, then any number of
// push_job / pop / remove_job, then close() (pushes are refused, pops drain what is left and
// then return nullopt); destroy only after every thread blocked in pop() has returned.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "engine/job.hpp"

namespace cuzk::engine {

struct JobRecord;  // the engine's per-job state (engine.cpp); opaque here

struct QueuedPartition {
  Priority priority = Priority::kNormal;
  uint64_t job_seq = 0;  // submission order of the job: smaller is older
  uint32_t partition = 0;
  JobId job = 0;
  Clock::time_point enqueued{};
  std::shared_ptr<JobRecord> record;  // may be null (scheduler tests)
  int device = -1;                    // ≥ 0: only a worker of this GPU takes it (JobSpec::device)
};

class Scheduler {
 public:
  struct Options {
    size_t capacity = 1 << 16;  // partitions
  };
  static std::unique_ptr<Scheduler> create(const Options& options);

  // All of `partitions` (one job: same priority and job_seq) or none. Throws QueueFullError
  // when they do not fit now, Error(kResourceExhausted) when they never can, and
  // Error(kResourceExhausted) after close().
  void push_job(std::vector<QueuedPartition> partitions);
  // The first partition in the order above that `device` may take (the caller's GPU: those
  // pinned to it and those pinned to none; -1 takes any); nullopt once closed with none left
  // for it, or as soon as `leave` (when given) is true: a worker whose GPU was taken out of
  // service.
  std::optional<QueuedPartition> pop(const std::atomic<bool>* leave = nullptr, int device = -1);
  // The same without waiting, for a worker that is still busy (preparation ahead): nullopt when
  // nothing is queued now, when `leave` is true, or while another caller waits in pop() — an
  // idle worker takes what is queued first, so no partition waits behind a busy one while a
  // worker (of this GPU or another) has nothing to do.
  // A partition pinned to `device` is taken even while others wait: they cannot take it.
  std::optional<QueuedPartition> try_pop(const std::atomic<bool>* leave = nullptr, int device = -1);
  // The first queued partition of one job (priority and job_seq, as remove_job) that `device`
  // may take, without waiting; nullopt when there is none now. Unlike try_pop it does not give
  // way to callers waiting in pop(): a GPU worker gathering partitions of its current job to
  // compute them together (EngineOptions::group_partitions) takes them for its group.
  std::optional<QueuedPartition> try_pop_job(Priority priority, uint64_t job_seq, int device = -1);
  // Callers blocked in pop() now (idle workers).
  size_t waiting() const;
  // Puts back a partition a worker took but gave up before running it (its GPU was taken out
  // of service), in its old place. Never refused: the room was counted when it was pushed.
  void requeue(QueuedPartition partition);
  // The GPU is out of service: partitions pinned to it, queued now or pushed later, are
  // pinned to none.
  void release_device(int device);
  // Wakes every blocked pop() to look at its `leave` flag again.
  void wake_all();
  // Removes and returns the queued partitions of one job (cancellation).
  std::vector<QueuedPartition> remove_job(Priority priority, uint64_t job_seq);
  // Removes and returns everything queued (shutdown by cancellation).
  std::vector<QueuedPartition> remove_all();
  void close();

  size_t size() const;
  size_t capacity() const { return options_.capacity; }
  // Queued partitions per priority, indexed by Priority's value.
  std::vector<size_t> size_by_priority() const;

 private:
  explicit Scheduler(const Options& options) : options_(options) {}

  struct Order {
    bool operator()(const QueuedPartition& a, const QueuedPartition& b) const {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.job_seq != b.job_seq) return a.job_seq < b.job_seq;
      return a.partition < b.partition;
    }
  };

  // The first partition `device` may take, or end(). Caller holds mutex_.
  std::set<QueuedPartition, Order>::const_iterator first_for(int device) const;
  Options options_;
  mutable std::mutex mutex_;
  std::condition_variable not_empty_;
  std::set<QueuedPartition, Order> queue_;
  bool closed_ = false;
  size_t waiting_ = 0;      // callers blocked in pop()
  std::set<int> released_;  // GPUs out of service (release_device)
};

}  // namespace cuzk::engine
