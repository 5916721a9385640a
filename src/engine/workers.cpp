// The worker loops. A GPU worker takes a partition and runs it through
//   prepare (no lock) → stage (hold mem) → compute (hold compute while its kernels are
//   enqueued) → wait for them (no lock) → epilogue (no lock)
// on its own stream (DESIGN.md §2.1), and prepares its next partition while the kernels of the
// current one run (EngineOptions::prepare_ahead), taking for it only what is free at that moment;
// a CPU worker runs the whole proof on the host. When the partition's key is streamed from host
// memory (PartitionWork::group_key), the worker stages more queued partitions of the same job
// beside it, each only if its host bytes, key and slot are free at once, and computes them in
// one call (PartitionGroup, EngineOptions::group_partitions). Both look at the job's cancel flag
// at every stage boundary; a GPU worker also at its GPU's out-of-service flag (Engine::stop_gpu),
// up to compute, and then hands the partition back to the queue. Every resource a partition
// holds (host bytes, key handle, VRAM slot) is owned by a scope guard, so an abandoned
// partition — cancelled, failed, handed back or stopped by shutdown — leaves nothing reserved.

#include <algorithm>
#include <chrono>

#include "engine/engine_impl.hpp"

namespace cuzk::engine {
namespace {

struct Cancelled {};  // thrown to leave a partition at a stage boundary
struct HandBack {};   // thrown to return a partition to the queue (its GPU left service)
// Thrown to return a partition taken to prepare ahead whose resources are busy.
struct NotNow {
  const char* reason;  // "host_bytes" or "key"
};

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Host bytes of one partition, held from taking it to finishing it.
class HostHold {
 public:
  HostHold(HostBudget& budget, uint64_t bytes, const StopPredicate& stop)
      : budget_(budget), bytes_(bytes) {
    if (!budget_.reserve(bytes_, stop)) throw Cancelled{};
  }
  // Takes over bytes already reserved (HostBudget::try_reserve).
  HostHold(HostBudget& budget, uint64_t bytes) : budget_(budget), bytes_(bytes) {}
  ~HostHold() { budget_.release(bytes_); }
  HostHold(const HostHold&) = delete;
  HostHold& operator=(const HostHold&) = delete;

 private:
  HostBudget& budget_;
  uint64_t bytes_;
};

// A VRAM slot, handed back on every exit: with a fence event recorded on the owner's stream
// once uploads or kernels were enqueued, so that the next owner waits for them.
class SlotHold {
 public:
  SlotHold(VramArena& arena, Stream& stream) : arena_(arena), stream_(stream) {}
  ~SlotHold() { release(); }
  SlotHold(const SlotHold&) = delete;
  SlotHold& operator=(const SlotHold&) = delete;

  void set(const VramSlot& slot) {
    slot_ = slot;
    held_ = true;
  }
  const VramSlot& get() const { return slot_; }
  void mark_touched() { touched_ = true; }
  void release(std::shared_ptr<const Event> fence = nullptr) {
    if (!held_) return;
    held_ = false;
    if (!fence && touched_) fence = stream_.record();
    arena_.release(slot_, std::move(fence));
  }

 private:
  VramArena& arena_;
  Stream& stream_;
  VramSlot slot_;
  bool held_ = false, touched_ = false;
};

// Runs a partition's stages and says how they ended: kSucceeded, kCancelled (Cancelled thrown)
// or kFailed (any error, kept in `error`). HandBack passes through to the caller.
template <class Stages>
JobState run_stages(Stages&& stages, std::optional<Error>& error) {
  try {
    stages();
    return JobState::kSucceeded;
  } catch (const Cancelled&) {
    return JobState::kCancelled;
  } catch (const Error& e) {
    error = e;
  } catch (const std::exception& e) {
    error = Error(ErrorKind::kInternal, e.what());
  }
  return JobState::kFailed;
}

}  // namespace

void Engine::Impl::start_workers() {
  const int devices = backend->device_count();
  if (devices == 0) {
    for (int w = 0; w < options.cpu_workers; ++w)
      workers.emplace_back([this, w] { cpu_worker(w); });
    return;
  }
  for (int d = 0; d < devices; ++d) {
    for (int w = 0; w < options.workers_per_gpu; ++w) {
      streams.push_back(backend->create_stream(d));
    }
  }
  for (int d = 0; d < devices; ++d) {
    for (int w = 0; w < options.workers_per_gpu; ++w) {
      Stream& stream = *streams[size_t(d * options.workers_per_gpu + w)];
      workers.emplace_back([this, d, w, &stream] { gpu_worker(d, w, stream); });
    }
  }
}

void Engine::Impl::gpu_worker(int device, int index, Stream& stream) {
  const std::atomic<bool>& leave = *out_of_service[size_t(device)];
  std::unique_ptr<PreparedPartition> next;
  for (;;) {
    std::unique_ptr<PreparedPartition> current = std::move(next);
    if (current == nullptr) {
      auto item = scheduler->pop(&leave, device);
      if (!item) return;
      current = prepare_on_gpu(std::move(*item), device, index, false);
      if (current == nullptr) continue;
    }
    next = run_prepared(std::move(current), device, stream);
  }
}

void Engine::Impl::cpu_worker(int index) {
  while (auto item = scheduler->pop()) run_on_cpu(*item, index);
}

// A partition between prepare and stage: what it holds (host bytes, key, the backend's work) and
// its records so far.
struct PreparedPartition {
  QueuedPartition item;
  TimelineRecord tl;
  StageTimes t;
  std::unique_ptr<HostHold> host;
  KeyHandle key;
  std::unique_ptr<PartitionWork> work;
  bool witness_released = false;  // the job's copy of the witness went to `work`

  // Gives back the work, the key and the host bytes, in that order (the work may hold pinned
  // memory of the key's pool).
  void release() {
    work.reset();
    key = KeyHandle();
    host.reset();
  }
};

std::unique_ptr<PreparedPartition> Engine::Impl::prepare_on_gpu(QueuedPartition item, int device,
                                                                int index, bool ahead) {
  auto p = std::make_unique<PreparedPartition>();
  p->item = std::move(item);
  const std::shared_ptr<JobRecord>& job = p->item.record;
  p->tl = TimelineRecord{job->id, p->item.partition, device, index};
  p->tl.taken = Clock::now();
  p->t.queue_ms = ms_between(p->item.enqueued, p->tl.taken);
  const StopPredicate stop = [&] { return job->cancelled.load() || stopping.load(); };
  const std::atomic<bool>& leave = *out_of_service[size_t(device)];
  const auto boundary = [&] {
    if (stop()) throw Cancelled{};
    if (leave.load()) throw HandBack{};
  };
  mark_running(*job);
  std::optional<Error> error;
  JobState outcome;
  try {
    outcome = run_stages(
        [&] {
          boundary();
          if (ahead) {
            if (!memory->host().try_reserve(job->host_bytes)) throw NotNow{"host_bytes"};
            p->host = std::make_unique<HostHold>(memory->host(), job->host_bytes);
          } else {
            p->host = std::make_unique<HostHold>(memory->host(), job->host_bytes, stop);
          }
          auto t0 = Clock::now();
          if (ahead) {
            p->key = keys->acquire_if_loaded(job->spec.key_id);
            if (!p->key) throw NotNow{"key"};
          } else {
            p->key = keys->acquire_or_wait(job->spec.key_id, stop);
            if (!p->key) throw Cancelled{};
          }
          p->t.key_load_ms = ms_between(t0, Clock::now());
          boundary();
          // prepare: host work, no lock. A witness submitted by value is released once the work
          // holds its own copy; a hand-back gives the queue a copy made from the work's.
          PartitionInput& input = job->spec.partitions[p->item.partition];
          p->work = backend->prepare(p->key.key(), input, device);
          p->witness_released = input.witness != nullptr && p->work->keeps_witness();
          if (p->witness_released) input.witness.reset();
          p->t.synthesis_ms = p->work->synthesis_ms;
          p->tl.prepared = Clock::now();
        },
        error);
  } catch (const HandBack&) {
    metrics.add("cuzk_partitions_handed_back_total", 1, label("gpu", std::to_string(device)));
    p->release();
    scheduler->requeue(p->item);
    return nullptr;
  } catch (const NotNow& busy) {
    metrics.add("cuzk_prepare_ahead_deferred_total", 1,
                label("gpu", std::to_string(device)) + "," + label("reason", busy.reason));
    p->release();
    scheduler->requeue(p->item);
    return nullptr;
  }
  if (outcome == JobState::kSucceeded) return p;
  p->release();
  settle_partition(p->item, p->tl, p->t, outcome, {}, error);
  return nullptr;
}

namespace {

// The partitions a GPU worker stages and computes at once on its stream: its current partition
// (the leader) and, when the leader's work has a group key, more queued partitions of the same
// job whose works have that key (EngineOptions::group_partitions), taken only where their host
// bytes, key and VRAM slot are free at once. Each member holds its own host bytes, key handle
// and slot and keeps its own timeline record and stage times; up to compute it meets the stage
// boundaries alone, and one cancelled, failed or handed back leaves the group and is settled or
// requeued alone. A group of one is the partition alone (PartitionWork::compute).
class PartitionGroup {
 public:
  PartitionGroup(Engine::Impl& m, int device, Stream& stream)
      : m_(m),
        device_(device),
        stream_(stream),
        gpu_(*m.locks[size_t(device)]),
        arena_(m.memory->vram(device)),
        leave_(*m.out_of_service[size_t(device)]) {}

  // Stages the leader, waiting for its slot; false when it ended there (settled or requeued).
  bool stage_leader(std::unique_ptr<PreparedPartition> p) {
    return add_and_stage(std::move(p), true) == Staging::kStaged;
  }

  // Adds queued partitions of the leader's job with the leader's group key, prepared without
  // waiting (prepare_on_gpu ahead) and staged into a slot free now, up to group_partitions in
  // all. Returns a partition it prepared that cannot join (another group key, or no slot free):
  // the worker's next partition with preparation ahead; without it, it goes back to the queue.
  std::unique_ptr<PreparedPartition> gather() {
    const PreparedPartition& lead = *members_.front().p;
    const void* key = lead.work->group_key();
    const QueuedPartition& item = lead.item;
    const int worker = lead.tl.worker;
    const int limit = group_limit(item);
    for (int n = 1; n < limit && !leave_.load(); ++n) {
      auto taken = m_.scheduler->try_pop_job(item.priority, item.job_seq, device_);
      if (!taken) break;
      auto p = m_.prepare_on_gpu(std::move(*taken), device_, worker, true);
      if (p == nullptr) break;  // ended in prepare, or back in the queue (resources busy)
      if (p->work->group_key() != key) return set_aside(std::move(p));
      const Staging staged = add_and_stage(std::move(p), false);
      if (staged == Staging::kNoRoom) {
        auto unstaged = std::move(members_.back().p);
        members_.pop_back();
        return set_aside(std::move(unstaged));
      }
      if (staged == Staging::kEnded) break;
    }
    return nullptr;
  }

  // The last hand-back point, for each member: after it the group computes here. False when no
  // member is left.
  bool before_compute() {
    for (auto it = members_.begin(); it != members_.end();) {
      try {
        boundary(*it->p);
        ++it;
        continue;
      } catch (const Cancelled&) {
        settle(*it, JobState::kCancelled, {}, std::nullopt);
      } catch (const HandBack&) {
        hand_back(*it);
      }
      it = members_.erase(it);
    }
    return !members_.empty();
  }

  // Under the GPU's compute lock: enqueues the kernels and downloads of every member (one
  // compute_group call for two or more) and records the event of their end. False when that
  // threw: every member then fails with the error (in finish).
  bool compute() {
    const auto begin = Clock::now();
    for (Member& mem : members_) mem.p->tl.compute_begin = begin;
    const JobState outcome = run_stages(
        [&] {
          PartitionWork& leader = *members_.front().p->work;
          if (members_.size() == 1) {
            leader.compute(stream_);
          } else {
            std::vector<PartitionWork*> others;
            for (size_t i = 1; i < members_.size(); ++i)
              others.push_back(members_[i].p->work.get());
            leader.compute_group(others, stream_);
          }
          done_ = stream_.record();
        },
        compute_error_);
    return outcome == JobState::kSucceeded;
  }

  // Waits for the kernels' end (its own event only), hands the slots back with it, then runs
  // each member's epilogue and settles it: a member whose finish throws fails alone.
  void finish() {
    if (!done_) {
      for (Member& mem : members_) settle(mem, JobState::kFailed, {}, compute_error_);
      return;
    }
    done_->synchronize();
    const auto gpu_done = Clock::now();
    for (Member& mem : members_) {
      mem.p->tl.gpu_done = gpu_done;
      mem.slot->release(done_);
      mem.p->t.gpu_ms = ms_between(mem.p->tl.compute_begin, gpu_done);
    }
    for (Member& mem : members_) {
      PreparedPartition& p = *mem.p;
      PartitionOutput output;
      std::optional<Error> error;
      const JobState outcome = run_stages(
          [&] {
            if (stopped(p)) throw Cancelled{};  // computed: no hand-back from here on
            const auto begin = Clock::now();
            output = p.work->finish();
            p.t.epilogue_ms = ms_between(begin, Clock::now());
          },
          error);
      settle(mem, outcome, std::move(output), error);
    }
  }

  size_t size() const { return members_.size(); }

 private:
  struct Member {
    std::unique_ptr<PreparedPartition> p;
    std::unique_ptr<SlotHold> slot;
  };
  enum class Staging { kStaged, kNoRoom, kEnded };

  // The most partitions of the leader's job one group takes: group_partitions, and no more
  // than the job's share of each GPU in service that may take it, so that a job on a key
  // streamed to several GPUs is spread over them (each GPU moving the key once for its share)
  // rather than computed on one while the others idle.
  int group_limit(const QueuedPartition& item) const {
    int gpus = 0;
    for (const auto& out : m_.out_of_service) gpus += out->load() ? 0 : 1;
    if (item.device >= 0 || gpus < 1) gpus = 1;
    const size_t partitions = item.record->spec.partitions.size();
    const size_t share = (partitions + size_t(gpus) - 1) / size_t(gpus);
    return int(std::min<size_t>(size_t(m_.options.group_partitions), share));
  }

  bool stopped(const PreparedPartition& p) const {
    return p.item.record->cancelled.load() || m_.stopping.load();
  }
  void boundary(const PreparedPartition& p) const {
    if (stopped(p)) throw Cancelled{};
    if (leave_.load()) throw HandBack{};
  }

  // Adds `p` to the group and stages it: under mem, reserve its slot (waiting for one when
  // `wait`, else only if one is free now), order the stream after the slot's previous owner's
  // work, enqueue the uploads. Nothing here waits for the device. kNoRoom: no slot free now,
  // nothing reserved, `p` still the last member; kEnded: settled or requeued, removed.
  Staging add_and_stage(std::unique_ptr<PreparedPartition> p, bool wait) {
    members_.push_back({std::move(p), std::make_unique<SlotHold>(arena_, stream_)});
    Member& mem = members_.back();
    PreparedPartition& pp = *mem.p;
    bool no_room = false;
    std::optional<Error> error;
    JobState outcome;
    try {
      outcome = run_stages(
          [&] {
            boundary(pp);
            pp.tl.stage_begin = Clock::now();
            {
              OrderedLock::Guard mem_lock(gpu_.mem);
              const uint64_t bytes = pp.work->vram_bytes();
              auto reservation = wait ? arena_.reserve(bytes, [&] { return stopped(pp); })
                                      : arena_.try_reserve(bytes);
              if (!reservation) {
                if (wait) throw Cancelled{};
                no_room = true;
                return;
              }
              mem.slot->set(reservation->slot);
              for (const auto& fence : reservation->fences) stream_.wait(*fence);
              mem.slot->mark_touched();
              pp.work->stage(stream_, mem.slot->get());
            }
            pp.tl.staged = Clock::now();
            pp.t.stage_ms = ms_between(pp.tl.stage_begin, pp.tl.staged);
          },
          error);
    } catch (const HandBack&) {
      hand_back(mem);
      members_.pop_back();
      return Staging::kEnded;
    }
    if (outcome != JobState::kSucceeded) {
      settle(mem, outcome, {}, error);
      members_.pop_back();
      return Staging::kEnded;
    }
    return no_room ? Staging::kNoRoom : Staging::kStaged;
  }

  // A prepared partition that cannot join: kept as the worker's next partition with preparation
  // ahead, else put back in its place in the queue.
  std::unique_ptr<PreparedPartition> set_aside(std::unique_ptr<PreparedPartition> p) {
    if (m_.options.prepare_ahead) return p;
    requeue(*p);
    return nullptr;
  }
  // Back to the queue holding nothing; a witness the work took over is rebuilt from its copy.
  void requeue(PreparedPartition& p) {
    PartitionInput& input = p.item.record->spec.partitions[p.item.partition];
    if (p.witness_released) input.witness = p.work->rebuild_witness();
    p.release();
    m_.scheduler->requeue(p.item);
  }
  // Its GPU left service before compute: everything it held is released; the partition waits
  // for another GPU.
  void hand_back(Member& mem) {
    m_.metrics.add("cuzk_partitions_handed_back_total", 1, label("gpu", std::to_string(device_)));
    mem.slot->release();
    requeue(*mem.p);
  }
  // The slot, then the work, the key and the host bytes go back; then the job hears of it.
  void settle(Member& mem, JobState outcome, PartitionOutput output,
              const std::optional<Error>& error) {
    mem.slot->release();
    PreparedPartition& p = *mem.p;
    p.release();
    m_.settle_partition(p.item, p.tl, p.t, outcome, std::move(output), error);
  }

  Engine::Impl& m_;
  const int device_;
  Stream& stream_;
  GpuLocks& gpu_;
  VramArena& arena_;
  const std::atomic<bool>& leave_;
  std::vector<Member> members_;  // the leader first
  std::shared_ptr<Event> done_;  // the end of the group's kernels, once computed
  std::optional<Error> compute_error_;
};

}  // namespace

std::unique_ptr<PreparedPartition> Engine::Impl::run_prepared(
    std::unique_ptr<PreparedPartition> current, int device, Stream& stream) {
  const int worker = current->tl.worker;
  const std::string gpu_label = label("gpu", std::to_string(device));
  // Partitions of a key streamed from host memory compute in groups: each compute moves the
  // key across PCIe once for the whole group.
  const bool grouping = options.group_partitions > 1 && current->work->group_key() != nullptr;
  PartitionGroup group(*this, device, stream);
  if (!group.stage_leader(std::move(current))) return nullptr;
  std::unique_ptr<PreparedPartition> next = grouping ? group.gather() : nullptr;
  if (!group.before_compute()) return next;
  // compute: under compute, enqueue the kernels and the download (waiting on this stream's own
  // events only, DESIGN.md §2.1), then let the next worker enqueue its partition while these
  // kernels run: two partitions' kernels then share the GPU and fill each other's gaps (a
  // reduction's tail, a host wait inside the enqueue). Holding the lock until the kernels were
  // done ran the partitions one after another: 275 ms per 2^24 partition in steady state with
  // K = 2; released here, 261 ms with K = 2 and 248 with K = 3
  // (bench/results/engine/2026-11-30_h200_{15621ff,fe020e9}_engine_2p24.json). The end is
  // awaited without the lock; the slots go back with that event.
  bool computed;
  {
    OrderedLock::Guard compute(locks[size_t(device)]->compute);
    computed = group.compute();
  }
  if (computed && grouping) {
    metrics.observe("cuzk_partition_group_size", double(group.size()), gpu_label);
    if (group.size() >= 2)
      metrics.add("cuzk_partitions_grouped_total", double(group.size()), gpu_label);
  }
  // While these kernels run, the host prepares this worker's next partition, so that it is
  // ready to stage when they end: otherwise the GPU waits for that preparation whenever no
  // other worker has a partition ready.
  if (computed && options.prepare_ahead && next == nullptr) {
    if (auto item = scheduler->try_pop(out_of_service[size_t(device)].get(), device)) {
      next = prepare_on_gpu(std::move(*item), device, worker, true);
      if (next != nullptr) metrics.add("cuzk_partitions_prepared_ahead_total", 1, gpu_label);
    }
  }
  group.finish();
  return next;
}

void Engine::Impl::run_on_cpu(const QueuedPartition& item, int index) {
  const std::shared_ptr<JobRecord>& job = item.record;
  TimelineRecord tl{job->id, item.partition, -1, index};
  tl.taken = Clock::now();
  StageTimes t;
  t.queue_ms = ms_between(item.enqueued, tl.taken);
  const StopPredicate stop = [&] { return job->cancelled.load() || stopping.load(); };
  mark_running(*job);
  PartitionOutput output;
  std::optional<Error> error;
  const JobState outcome = run_stages(
      [&] {
        if (stop()) throw Cancelled{};
        HostHold host(memory->host(), job->host_bytes, stop);
        auto t0 = Clock::now();
        KeyHandle key = keys->acquire_or_wait(job->spec.key_id, stop);
        if (!key) throw Cancelled{};
        t.key_load_ms = ms_between(t0, Clock::now());
        if (stop()) throw Cancelled{};
        tl.prepared = Clock::now();
        output = backend->prove_on_host(key.key(), job->spec.partitions[item.partition],
                                        job->cancelled, t);
        if (stop()) throw Cancelled{};
      },
      error);
  settle_partition(item, tl, t, outcome, std::move(output), error);
}

void Engine::Impl::mark_running(JobRecord& job) {
  std::lock_guard lock(jobs_mutex);
  if (job.state == JobState::kQueued) job.state = JobState::kRunning;
}

void Engine::Impl::settle_partition(const QueuedPartition& item, TimelineRecord& tl, StageTimes& t,
                                    JobState outcome, PartitionOutput output,
                                    const std::optional<Error>& error) {
  tl.finished = Clock::now();
  tl.outcome = outcome;
  t.total_ms = ms_between(item.record->submitted, tl.finished);
  timeline.add(tl);
  finish_partition(item.record, item.partition, outcome, std::move(output), t,
                   error ? &*error : nullptr);
}

}  // namespace cuzk::engine
