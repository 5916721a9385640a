#include "engine/scheduler.hpp"

#include <string>

namespace cuzk::engine {

std::unique_ptr<Scheduler> Scheduler::create(const Options& options) {
  if (options.capacity == 0) CUZK_INVALID_INPUT("scheduler: the queue capacity must be > 0");
  return std::unique_ptr<Scheduler>(new Scheduler(options));
}

void Scheduler::push_job(std::vector<QueuedPartition> partitions) {
  if (partitions.empty()) return;
  if (partitions.size() > options_.capacity) {
    CUZK_THROW(ErrorKind::kResourceExhausted,
               "job has " + std::to_string(partitions.size()) +
                   " partitions, more than the queue can ever hold (" +
                   std::to_string(options_.capacity) + ")");
  }
  {
    std::lock_guard lock(mutex_);
    if (closed_) CUZK_THROW(ErrorKind::kResourceExhausted, "the engine is shutting down");
    if (queue_.size() + partitions.size() > options_.capacity) {
      throw QueueFullError("queue full: " + std::to_string(queue_.size()) + " of " +
                           std::to_string(options_.capacity) + " partitions queued, job needs " +
                           std::to_string(partitions.size()));
    }
    for (auto& p : partitions) {
      if (released_.count(p.device) != 0) p.device = -1;
      queue_.insert(std::move(p));
    }
  }
  not_empty_.notify_all();
}

std::set<QueuedPartition, Scheduler::Order>::const_iterator Scheduler::first_for(int device) const {
  auto it = queue_.begin();
  while (it != queue_.end() && device >= 0 && it->device >= 0 && it->device != device) ++it;
  return it;
}

std::optional<QueuedPartition> Scheduler::pop(const std::atomic<bool>* leave, int device) {
  const auto leaving = [leave] { return leave != nullptr && leave->load(); };
  std::unique_lock lock(mutex_);
  ++waiting_;
  not_empty_.wait(lock, [&] { return closed_ || first_for(device) != queue_.end() || leaving(); });
  --waiting_;
  const auto it = first_for(device);
  if (it == queue_.end() || leaving()) return std::nullopt;
  auto node = queue_.extract(it);
  return std::move(node.value());
}

std::optional<QueuedPartition> Scheduler::try_pop(const std::atomic<bool>* leave, int device) {
  std::lock_guard lock(mutex_);
  const auto it = first_for(device);
  if (it == queue_.end() || (leave != nullptr && leave->load())) return std::nullopt;
  // An idle worker takes what is queued first, unless only this GPU may take it.
  if (waiting_ > 0 && it->device < 0) return std::nullopt;
  auto node = queue_.extract(it);
  return std::move(node.value());
}

std::optional<QueuedPartition> Scheduler::try_pop_job(Priority priority, uint64_t job_seq,
                                                      int device) {
  std::lock_guard lock(mutex_);
  // The job's partitions are contiguous in the order: from (priority, seq, 0) on.
  QueuedPartition first;
  first.priority = priority;
  first.job_seq = job_seq;
  for (auto it = queue_.lower_bound(first);
       it != queue_.end() && it->priority == priority && it->job_seq == job_seq; ++it) {
    if (device >= 0 && it->device >= 0 && it->device != device) continue;
    auto node = queue_.extract(it);
    return std::move(node.value());
  }
  return std::nullopt;
}

size_t Scheduler::waiting() const {
  std::lock_guard lock(mutex_);
  return waiting_;
}

void Scheduler::requeue(QueuedPartition partition) {
  {
    std::lock_guard lock(mutex_);
    if (released_.count(partition.device) != 0) partition.device = -1;
    queue_.insert(std::move(partition));
  }
  // All: a partition pinned to one GPU must reach a worker of that GPU.
  not_empty_.notify_all();
}

void Scheduler::release_device(int device) {
  {
    std::lock_guard lock(mutex_);
    released_.insert(device);
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->device != device) {
        ++it;
        continue;
      }
      auto node = queue_.extract(it++);
      node.value().device = -1;
      queue_.insert(std::move(node));
    }
  }
  not_empty_.notify_all();
}

void Scheduler::wake_all() {
  // Taking the mutex orders the caller's flag store before the waiters' next look at it.
  { std::lock_guard lock(mutex_); }
  not_empty_.notify_all();
}

std::vector<QueuedPartition> Scheduler::remove_job(Priority priority, uint64_t job_seq) {
  std::vector<QueuedPartition> removed;
  std::lock_guard lock(mutex_);
  // The job's partitions are contiguous in the order: from (priority, seq, 0) on.
  QueuedPartition first;
  first.priority = priority;
  first.job_seq = job_seq;
  first.partition = 0;
  auto it = queue_.lower_bound(first);
  while (it != queue_.end() && it->priority == priority && it->job_seq == job_seq) {
    removed.push_back(std::move(queue_.extract(it++).value()));
  }
  return removed;
}

std::vector<QueuedPartition> Scheduler::remove_all() {
  std::lock_guard lock(mutex_);
  std::vector<QueuedPartition> removed;
  removed.reserve(queue_.size());
  while (!queue_.empty()) removed.push_back(std::move(queue_.extract(queue_.begin()).value()));
  return removed;
}

void Scheduler::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  not_empty_.notify_all();
}

size_t Scheduler::size() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

std::vector<size_t> Scheduler::size_by_priority() const {
  std::vector<size_t> counts(4, 0);
  std::lock_guard lock(mutex_);
  for (const auto& p : queue_) ++counts[size_t(p.priority)];
  return counts;
}

}  // namespace cuzk::engine
