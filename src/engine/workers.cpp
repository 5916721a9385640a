// The worker loops. A GPU worker takes a partition and runs it through
//   prepare (no lock) → stage (hold mem) → compute (hold compute while its kernels are
//   enqueued) → wait for them (no lock) → epilogue (no lock)
// on its own stream (DESIGN.md §2.1), and prepares its next partition while the kernels of the
// current one run (EngineOptions::prepare_ahead), taking for it only what is free at that moment;
// a CPU worker runs the whole proof on the host. Both look
// at the job's cancel flag at every stage boundary; a GPU worker also at its GPU's
// out-of-service flag (Engine::stop_gpu), up to compute, and then hands the partition back to
// the queue. Every resource a partition holds (host bytes, key handle, VRAM slot) is owned by a
// scope guard, so an abandoned partition — cancelled, failed, handed back or stopped by
// shutdown — leaves nothing reserved.

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
  if (outcome == JobState::kSucceeded) {
    if (ahead) {
      metrics.add("cuzk_partitions_prepared_ahead_total", 1, label("gpu", std::to_string(device)));
    }
    return p;
  }
  p->release();
  settle_partition(p->item, p->tl, p->t, outcome, {}, error);
  return nullptr;
}

std::unique_ptr<PreparedPartition> Engine::Impl::run_prepared(
    std::unique_ptr<PreparedPartition> current, int device, Stream& stream) {
  PreparedPartition& p = *current;
  const std::shared_ptr<JobRecord>& job = p.item.record;
  TimelineRecord& tl = p.tl;
  StageTimes& t = p.t;
  const StopPredicate stop = [&] { return job->cancelled.load() || stopping.load(); };
  const std::atomic<bool>& leave = *out_of_service[size_t(device)];
  const auto boundary = [&] {
    if (stop()) throw Cancelled{};
    if (leave.load()) {
      PartitionInput& input = job->spec.partitions[p.item.partition];
      if (p.witness_released) input.witness = p.work->rebuild_witness();
      throw HandBack{};
    }
  };
  std::unique_ptr<PreparedPartition> next;
  PartitionOutput output;
  std::optional<Error> error;
  JobState outcome;
  try {
    outcome = run_stages(
        [&] {
          boundary();
          // stage: under mem, reserve the slot, order the stream after its previous owner's work,
          // enqueue the uploads. Nothing here waits for the device.
          tl.stage_begin = Clock::now();
          GpuLocks& gpu = *locks[size_t(device)];
          VramArena& arena = memory->vram(device);
          SlotHold slot(arena, stream);
          {
            OrderedLock::Guard mem(gpu.mem);
            auto reservation = arena.reserve(p.work->vram_bytes(), stop);
            if (!reservation) throw Cancelled{};
            slot.set(reservation->slot);
            for (const auto& fence : reservation->fences) stream.wait(*fence);
            slot.mark_touched();
            p.work->stage(stream, slot.get());
          }
          tl.staged = Clock::now();
          t.stage_ms = ms_between(tl.stage_begin, tl.staged);
          // The last hand-back point: after it the partition computes here.
          boundary();
          // compute: under compute, enqueue the kernels and the download (waiting on this
          // stream's own events only, DESIGN.md §2.1), then let the next worker enqueue its
          // partition while these kernels run: two partitions' kernels then share the GPU and
          // fill each other's gaps (a reduction's tail, a host wait inside the enqueue). Holding
          // the lock until the kernels were done ran the partitions one after another: 275 ms per
          // 2^24 partition in steady state with K = 2; released here, 261 ms with K = 2 and 248
          // with K = 3 (bench/results/engine/2026-11-30_h200_{15621ff,fe020e9}_engine_2p24.json).
          // The end is awaited without the lock; the slot goes back with that event.
          std::shared_ptr<Event> done;
          {
            OrderedLock::Guard compute(gpu.compute);
            tl.compute_begin = Clock::now();
            p.work->compute(stream);
            done = stream.record();
          }
          // While these kernels run, the host prepares this worker's next partition, so that
          // it is ready to stage when they end: otherwise the GPU waits for that preparation
          // whenever no other worker has a partition ready.
          if (options.prepare_ahead) {
            if (auto item = scheduler->try_pop(&leave, device)) {
              next = prepare_on_gpu(std::move(*item), device, tl.worker, true);
            }
          }
          done->synchronize();
          tl.gpu_done = Clock::now();
          slot.release(done);
          t.gpu_ms = ms_between(tl.compute_begin, tl.gpu_done);
          if (stop()) throw Cancelled{};  // computed: no hand-back from here on
          output = p.work->finish();
          t.epilogue_ms = ms_between(tl.gpu_done, Clock::now());
        },
        error);
  } catch (const HandBack&) {
    // Everything it held is released; the partition waits for another GPU.
    metrics.add("cuzk_partitions_handed_back_total", 1, label("gpu", std::to_string(device)));
    p.release();
    scheduler->requeue(p.item);
    return next;
  }
  p.release();
  settle_partition(p.item, tl, t, outcome, std::move(output), error);
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
