// The engine facade and the job table: submission (validation, admission, idempotency),
// completion of partitions and jobs, cancellation, retention, status and metrics.

#include "engine/engine.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "engine/engine_impl.hpp"
#include "engine/witness_input.hpp"

namespace cuzk::engine {
namespace {

constexpr auto kBusyWindow = std::chrono::seconds(10);
const char* const kStages[] = {"queue", "key_load", "synthesis", "stage",
                               "gpu",   "epilogue", "total"};

void describe_metrics(Metrics& m) {
  using T = Metrics::Type;
  m.describe("cuzk_jobs_submitted_total", T::kCounter, "Jobs accepted, by priority.");
  m.describe("cuzk_jobs_completed_total", T::kCounter, "Jobs finished, by final state.");
  m.describe("cuzk_jobs_refused_total", T::kCounter, "Submissions refused, by reason.");
  m.describe("cuzk_partitions_completed_total", T::kCounter, "Partitions finished, by outcome.");
  m.describe("cuzk_partitions_handed_back_total", T::kCounter,
             "Partitions returned to the queue by a GPU leaving service, by GPU.");
  m.describe("cuzk_partitions_prepared_ahead_total", T::kCounter,
             "Partitions a GPU worker prepared while its previous partition computed, by GPU.");
  m.describe("cuzk_prepare_ahead_deferred_total", T::kCounter,
             "Partitions taken to prepare ahead or to join a group and put back because their "
             "host bytes were not free or their key not loaded, by GPU and reason.");
  m.describe("cuzk_partitions_grouped_total", T::kCounter,
             "Partitions computed in a group of two or more (one compute for partitions of one "
             "job whose key is streamed), by GPU.");
  m.describe("cuzk_partition_group_size", T::kHistogram,
             "Partitions per compute of a GPU worker whose partition's key is streamed (a group "
             "of one: computed alone), by GPU.",
             {1, 2, 4, 8, 16, 32, 64});
  m.describe("cuzk_partition_stage_ms", T::kHistogram, "Wall milliseconds per partition stage.",
             {1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 60000});
  m.describe("cuzk_queue_depth", T::kGauge, "Partitions waiting for a worker, by priority.");
  m.describe("cuzk_jobs_active", T::kGauge, "Jobs queued or running.");
  m.describe("cuzk_host_bytes_in_use", T::kGauge, "Host bytes reserved by partitions in flight.");
  m.describe("cuzk_vram_arena_bytes_in_use", T::kGauge, "VRAM arena bytes reserved, per GPU.");
  m.describe("cuzk_vram_arena_bytes", T::kGauge, "VRAM arena size, per GPU.");
  m.describe("cuzk_gpu_busy_fraction", T::kGauge,
             "Fraction of the last 10 s with some partition's kernels in flight, per GPU.");
  m.describe("cuzk_key_tier_bytes_in_use", T::kGauge, "Key bytes resident, per tier.");
}

}  // namespace

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() { shutdown(ShutdownMode::kCancel); }

std::unique_ptr<Engine> Engine::create(const EngineOptions& options,
                                       std::unique_ptr<Backend> backend) {
  if (!backend) CUZK_INVALID_INPUT("engine: no backend");
  if (options.workers_per_gpu < 1 || options.workers_per_gpu > 4) {
    CUZK_INVALID_INPUT("engine: workers_per_gpu must be 1..4");
  }
  if (options.group_partitions < 1 || options.group_partitions > 64) {
    CUZK_INVALID_INPUT("engine: group_partitions must be 1..64");
  }
  if (options.cpu_workers < 1) CUZK_INVALID_INPUT("engine: cpu_workers must be ≥ 1");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->backend = std::move(backend);
  Backend& b = *impl->backend;

  // VRAM: the arena of each GPU is what the keys' VRAM tier and the margin leave.
  MemoryBudget::Options memory;
  memory.host_bytes = options.host_bytes;
  memory.host_margin_bytes = options.host_margin_bytes;
  uint64_t key_vram = 0;
  if (auto it = options.keys.budgets.find(KeyTier::kVram); it != options.keys.budgets.end()) {
    key_vram = it->second;
  }
  for (int d = 0; d < b.device_count(); ++d) {
    uint64_t arena = options.vram_arena_bytes;
    if (arena == 0) {
      const uint64_t total = b.describe(d).vram_bytes;
      if (total <= key_vram + options.vram_margin_bytes) {
        CUZK_INVALID_INPUT("engine: GPU " + std::to_string(d) +
                           " has no VRAM left for partitions after the key budget and margin");
      }
      arena = total - key_vram - options.vram_margin_bytes;
    }
    b.carve_vram_arena(d, arena);
    memory.vram_arena_bytes.push_back(arena);
    impl->locks.push_back(std::make_unique<GpuLocks>(d));
    impl->out_of_service.push_back(std::make_unique<std::atomic<bool>>(false));
  }
  impl->memory = MemoryBudget::create(memory);
  impl->keys = KeyStore::create(options.keys, b);
  impl->scheduler = Scheduler::create({options.queue_capacity});
  describe_metrics(impl->metrics);
  impl->open_journal();
  impl->start_workers();
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::register_key(const KeyId& id, const KeySource& source) {
  impl_->keys->register_key(id, source);
}

void Engine::resume() { impl_->resume_recovered(); }

JobId Engine::submit(JobSpec spec) {
  Impl& m = *impl_;
  if (spec.partitions.empty()) CUZK_INVALID_INPUT("a job needs at least one partition");
  if (spec.device < -1 || spec.device >= m.memory->devices()) {
    CUZK_INVALID_INPUT("device " + std::to_string(spec.device) + ": the engine has " +
                       std::to_string(m.memory->devices()) + " GPU(s)");
  }
  for (size_t i = 0; i < spec.partitions.size(); ++i) check_partition_input(spec.partitions[i], i);
  const auto source = m.keys->source(spec.key_id);
  if (!source) CUZK_THROW(ErrorKind::kNotFound, "unknown key '" + spec.key_id + "'");
  auto job = std::make_shared<JobRecord>();
  job->host_bytes = m.backend->partition_host_bytes(*source);
  job->vram_bytes = m.backend->partition_vram_bytes(*source);
  // Admission: a partition that can never fit is refused now rather than waiting forever.
  if (job->host_bytes > m.memory->host().capacity()) {
    m.metrics.add("cuzk_jobs_refused_total", 1, label("reason", "never_fits"));
    CUZK_THROW(ErrorKind::kResourceExhausted,
               "a partition of key '" + spec.key_id + "' needs " + std::to_string(job->host_bytes) +
                   " host bytes; the budget is " + std::to_string(m.memory->host().capacity()));
  }
  for (int d = 0; d < m.memory->devices(); ++d) {
    if (job->vram_bytes > m.memory->vram(d).capacity()) {
      m.metrics.add("cuzk_jobs_refused_total", 1, label("reason", "never_fits"));
      CUZK_THROW(ErrorKind::kResourceExhausted,
                 "a partition of key '" + spec.key_id + "' needs a VRAM slot of " +
                     std::to_string(job->vram_bytes) + " bytes; the arena of GPU " +
                     std::to_string(d) + " has " + std::to_string(m.memory->vram(d).capacity()));
    }
  }
  uint64_t witness_bytes = 0;
  for (const auto& input : spec.partitions) {
    job->witness_bytes.push_back(witness_bytes_held(input));
    witness_bytes += job->witness_bytes.back();
  }

  std::optional<Journal::Ticket> ticket;
  {
    std::lock_guard lock(m.jobs_mutex);
    const auto now = Clock::now();
    m.sweep_expired_locked(now);
    if (!spec.request_id.empty()) {
      if (auto it = m.request_ids.find(spec.request_id); it != m.request_ids.end()) {
        return it->second;
      }
    }
    if (!m.accepting) throw ShuttingDownError("the engine is shutting down");
    // Admission in bytes: witnesses held by value for unfinished partitions count against the
    // host budget beside what running partitions reserved. (Running partitions reserve their
    // own bytes regardless, so queued witnesses never keep a worker from starting.)
    const uint64_t capacity = m.memory->host().capacity(), reserved = m.memory->host().in_use();
    if (witness_bytes > 0 && m.witness_bytes_queued + reserved + witness_bytes > capacity) {
      m.metrics.add("cuzk_jobs_refused_total", 1, label("reason", "host_bytes"));
      throw QueueFullError("host budget full: the job's witnesses take " +
                           std::to_string(witness_bytes) + " bytes; queued witnesses hold " +
                           std::to_string(m.witness_bytes_queued) + " and running partitions " +
                           std::to_string(reserved) + " of " + std::to_string(capacity));
    }
    if (m.next_number + 1 >= kJobNumberLimit) {
      CUZK_THROW(ErrorKind::kResourceExhausted, "this start has handed out every job id; restart");
    }
    job->id = make_job_id(m.instance, m.next_number + 1);
    job->seq = m.next_seq + 1;
    job->submitted = now;
    job->remaining = spec.partitions.size();
    job->outputs.resize(spec.partitions.size());
    job->spec = std::move(spec);
    std::vector<QueuedPartition> queued;
    for (uint32_t p = 0; p < job->spec.partitions.size(); ++p) {
      queued.push_back({job->spec.priority, job->seq, p, job->id, now, job, job->spec.device});
    }
    // Copied before a worker can take a partition and release its witness. The record is
    // queued under jobs_mutex, under which a worker settles the job too: the journal sees a
    // job's start before its end.
    const JobSpec journaled = job->spec;
    try {
      m.scheduler->push_job(std::move(queued));
    } catch (const QueueFullError&) {
      m.metrics.add("cuzk_jobs_refused_total", 1, label("reason", "queue_full"));
      throw;
    }
    ++m.next_number;
    ++m.next_seq;
    if (m.journal) ticket = m.journal->record_accepted(job->id, journaled, Journal::now_unix_ms());
    m.witness_bytes_queued += witness_bytes;
    m.jobs.emplace(job->id, job);
    if (!job->spec.request_id.empty()) m.request_ids.emplace(job->spec.request_id, job->id);
    ++m.active_jobs;
    m.metrics.add("cuzk_jobs_submitted_total", 1,
                  label("priority", std::string(priority_name(job->spec.priority))));
  }
  // Durable before the id is handed out: a crash after this keeps the job.
  if (ticket) {
    try {
      m.journal->wait_committed(*ticket);
    } catch (const Error&) {
      cancel(job->id);
      throw;
    }
  }
  return job->id;
}

void Engine::Impl::finish_partition(const std::shared_ptr<JobRecord>& job, uint32_t partition,
                                    JobState outcome, PartitionOutput output,
                                    const StageTimes& times, const Error* error) {
  metrics.add("cuzk_partitions_completed_total", 1,
              label("outcome", std::string(job_state_name(outcome))));
  if (outcome == JobState::kSucceeded) {
    const double values[] = {times.queue_ms, times.key_load_ms, times.synthesis_ms, times.stage_ms,
                             times.gpu_ms,   times.epilogue_ms, times.total_ms};
    for (size_t i = 0; i < std::size(kStages); ++i) {
      metrics.observe("cuzk_partition_stage_ms", values[i], label("stage", kStages[i]));
    }
  }
  bool first_failure = false, idle = false;
  {
    std::lock_guard lock(jobs_mutex);
    // The witness goes with its partition, not with the job's retention: a retained job keeps
    // its results only. (Only the thread settling a partition touches its input.)
    job->spec.partitions[partition] = {};
    witness_bytes_queued -= job->witness_bytes[partition];
    freed_since_trim += job->witness_bytes[partition];
    job->witness_bytes[partition] = 0;
    job->sum += times;
    if (outcome == JobState::kSucceeded) job->outputs[partition] = std::move(output);
    if (outcome == JobState::kCancelled) ++job->cancelled_partitions;
    if (outcome == JobState::kFailed && !job->error_kind) {
      job->error_kind = error ? error->kind() : ErrorKind::kInternal;
      // Which partition failed, in a job of several (the supraseal libraries' circuit index).
      const std::string what = error ? error->what() : "failed";
      const size_t partitions = job->spec.partitions.size();
      job->error_message = partitions > 1 ? "partition " + std::to_string(partition) + " of " +
                                                std::to_string(partitions) + ": " + what
                                          : what;
      job->cancelled = true;  // the other partitions stop at their next boundary
      first_failure = true;
    }
    if (--job->remaining == 0) {
      job->state = job->error_kind             ? JobState::kFailed
                   : job->cancelled_partitions ? JobState::kCancelled
                                               : JobState::kSucceeded;
      if (job->state != JobState::kSucceeded) job->outputs.clear();
      --active_jobs;
      job_final_locked(*job);
      idle = active_jobs == 0;
    }
  }
  if (first_failure) cancel_queued(job);
  trim_if_due(idle);
}

void Engine::Impl::job_final_locked(JobRecord& job) {
  job.completed = Clock::now();
  job.completion_seq = ++completions;
  metrics.add("cuzk_jobs_completed_total", 1,
              label("state", std::string(job_state_name(job.state))));
  // A job stopped by a shutdown, not by its client, stays unfinished in the journal: it runs
  // again after the next start.
  const bool stopped_by_shutdown =
      job.state == JobState::kCancelled && stopping.load() && !job.client_cancelled;
  if (journal && !stopped_by_shutdown) {
    journal->record_finished(result_locked(job), Journal::now_unix_ms());
  }
  jobs_changed.notify_all();
}

void Engine::Impl::end_unstarted_locked(JobRecord& job, JobState state, ErrorKind kind,
                                        const std::string& message) {
  job.state = state;
  if (state == JobState::kFailed) {
    job.error_kind = kind;
    job.error_message = message;
  }
  job.outputs.clear();
  job.spec.partitions.clear();
  job_final_locked(job);
}

void Engine::Impl::trim_if_due(bool idle) {
  // Witnesses are heap blocks below glibc's mmap threshold: freed, they stay in the heap
  // (and cli/main.cpp raises the trim threshold for the provers' sake). malloc_trim gives
  // their pages back, once enough were freed or when nothing is left to run.
  constexpr uint64_t kTrimAfterBytes = uint64_t(64) << 20;
  const uint64_t freed = freed_since_trim.load();
  if (freed == 0 || (freed < kTrimAfterBytes && !idle)) return;
  if (freed_since_trim.exchange(0) == 0) return;
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

void Engine::Impl::cancel_queued(const std::shared_ptr<JobRecord>& job) {
  for (auto& item : scheduler->remove_job(job->spec.priority, job->seq)) {
    finish_partition(job, item.partition, JobState::kCancelled, {}, {}, nullptr);
  }
}

void Engine::Impl::sweep_expired_locked(Clock::time_point now) {
  for (auto it = jobs.begin(); it != jobs.end();) {
    const JobRecord& job = *it->second;
    if (is_final(job.state) && now - job.completed > options.result_retention) {
      if (!job.spec.request_id.empty()) request_ids.erase(job.spec.request_id);
      if (journal && !job.fetched) journal->forget(job.id);
      it = jobs.erase(it);
    } else {
      ++it;
    }
  }
}

JobResult Engine::Impl::result_locked(const JobRecord& job) const {
  JobResult r;
  r.id = job.id;
  r.owner = job.spec.owner;
  r.state = job.state;
  if (job.state == JobState::kSucceeded) r.partitions = job.outputs;
  r.error_kind = job.error_kind;
  r.error_message = job.error_message;
  r.timings.sum = job.sum;
  const auto end = is_final(job.state) ? job.completed : Clock::now();
  r.timings.wall_ms = std::chrono::duration<double, std::milli>(end - job.submitted).count();
  r.completion_seq = job.completion_seq;
  return r;
}

JobResult Engine::await(JobId id, std::chrono::milliseconds timeout, bool fetch) {
  Impl& m = *impl_;
  std::unique_lock lock(m.jobs_mutex);
  m.sweep_expired_locked(Clock::now());
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) {
    CUZK_THROW(ErrorKind::kNotFound,
               "unknown job " + std::to_string(id) + " (or its result expired)");
  }
  std::shared_ptr<JobRecord> job = it->second;
  m.jobs_changed.wait_for(lock, timeout, [&] { return is_final(job->state); });
  // Fetched: the journal need not keep it past this start.
  if (fetch && is_final(job->state) && m.journal && !job->fetched) m.journal->forget(job->id);
  if (fetch && is_final(job->state)) job->fetched = true;
  return m.result_locked(*job);
}

void Engine::fetched(JobId id) {
  Impl& m = *impl_;
  std::lock_guard lock(m.jobs_mutex);
  auto it = m.jobs.find(id);
  if (it == m.jobs.end() || !is_final(it->second->state) || it->second->fetched) return;
  if (m.journal) m.journal->forget(id);
  it->second->fetched = true;
}

std::pair<std::string, JobState> Engine::peek(JobId id) {
  Impl& m = *impl_;
  std::lock_guard lock(m.jobs_mutex);
  m.sweep_expired_locked(Clock::now());
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) {
    CUZK_THROW(ErrorKind::kNotFound,
               "unknown job " + std::to_string(id) + " (or its result expired)");
  }
  return {it->second->spec.owner, it->second->state};
}

bool Engine::cancel(JobId id) {
  Impl& m = *impl_;
  std::shared_ptr<JobRecord> job;
  {
    std::lock_guard lock(m.jobs_mutex);
    auto it = m.jobs.find(id);
    if (it == m.jobs.end()) CUZK_THROW(ErrorKind::kNotFound, "unknown job " + std::to_string(id));
    job = it->second;
    if (is_final(job->state)) return false;
    job->cancelled = true;
    job->client_cancelled = true;
  }
  m.cancel_queued(job);
  return true;
}

bool Engine::wait_idle(std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  std::unique_lock lock(m.jobs_mutex);
  return m.jobs_changed.wait_for(lock, timeout, [&] { return m.active_jobs == 0; });
}

bool Engine::stop_gpu(int device) {
  Impl& m = *impl_;
  if (device < 0 || device >= int(m.out_of_service.size())) {
    CUZK_INVALID_INPUT("stop_gpu: there is no GPU " + std::to_string(device));
  }
  std::lock_guard lock(m.service_mutex);
  if (m.out_of_service[size_t(device)]->load()) return false;
  int in_service = 0;
  for (const auto& flag : m.out_of_service) in_service += flag->load() ? 0 : 1;
  if (in_service == 1) {
    CUZK_INVALID_INPUT("stop_gpu: GPU " + std::to_string(device) +
                       " is the last one in service; cancel the jobs or shut down instead");
  }
  m.out_of_service[size_t(device)]->store(true);
  m.scheduler->release_device(device);  // wakes every waiting worker too
  return true;
}

void Engine::preload_key(const KeyId& id) { impl_->keys->preload(id); }
bool Engine::evict_key(const KeyId& id) { return impl_->keys->evict(id); }
const Timeline& Engine::timeline() const { return impl_->timeline; }
Backend& Engine::backend() { return *impl_->backend; }

EngineStatus Engine::status() const {
  Impl& m = *impl_;
  EngineStatus s;
  s.backend = m.backend->name();
  const auto now = Clock::now();
  const auto from =
      std::max(m.started, now - std::chrono::duration_cast<Clock::duration>(kBusyWindow));
  for (int d = 0; d < m.memory->devices(); ++d) {
    GpuStatus g;
    g.device = d;
    const auto desc = m.backend->describe(d);
    g.name = desc.name;
    g.vram_bytes = desc.vram_bytes;
    g.arena_bytes = m.memory->vram(d).capacity();
    g.arena_in_use = m.memory->vram(d).in_use();
    g.arena_peak = m.memory->vram(d).peak();
    g.workers = m.options.workers_per_gpu;
    g.busy_fraction = m.timeline.gpu_busy_fraction(d, from, now);
    g.in_service = !m.out_of_service[size_t(d)]->load();
    s.gpus.push_back(g);
  }
  s.cpu_workers = m.backend->device_count() == 0 ? m.options.cpu_workers : 0;
  s.queued = m.scheduler->size();
  s.queue_capacity = m.scheduler->capacity();
  s.queued_by_priority = m.scheduler->size_by_priority();
  s.host_budget = m.memory->host().capacity();
  s.host_in_use = m.memory->host().in_use();
  s.host_peak = m.memory->host().peak();
  s.keys = m.keys->status();
  s.key_tiers = m.keys->tiers();
  s.partitions_succeeded =
      uint64_t(m.metrics.value("cuzk_partitions_completed_total", label("outcome", "succeeded")));
  s.partitions_failed =
      uint64_t(m.metrics.value("cuzk_partitions_completed_total", label("outcome", "failed")));
  s.partitions_cancelled =
      uint64_t(m.metrics.value("cuzk_partitions_completed_total", label("outcome", "cancelled")));
  std::lock_guard lock(m.jobs_mutex);
  s.jobs_active = m.active_jobs;
  s.jobs_retained = m.jobs.size() - m.active_jobs - m.recovered.size();
  s.witness_bytes_queued = m.witness_bytes_queued;
  s.accepting = m.accepting;
  return s;
}

std::string Engine::metrics_text() const {
  Impl& m = *impl_;
  const EngineStatus s = status();
  for (size_t p = 0; p < s.queued_by_priority.size(); ++p) {
    m.metrics.set("cuzk_queue_depth", double(s.queued_by_priority[p]),
                  label("priority", std::string(priority_name(Priority(p)))));
  }
  m.metrics.set("cuzk_jobs_active", double(s.jobs_active));
  m.metrics.set("cuzk_host_bytes_in_use", double(s.host_in_use));
  for (const auto& g : s.gpus) {
    const auto gpu = label("gpu", std::to_string(g.device));
    m.metrics.set("cuzk_vram_arena_bytes_in_use", double(g.arena_in_use), gpu);
    m.metrics.set("cuzk_vram_arena_bytes", double(g.arena_bytes), gpu);
    m.metrics.set("cuzk_gpu_busy_fraction", g.busy_fraction, gpu);
  }
  for (const auto& t : s.key_tiers) {
    m.metrics.set("cuzk_key_tier_bytes_in_use", double(t.used),
                  label("tier", std::string(key_tier_name(t.tier))));
  }
  return m.metrics.prometheus_text();
}

void Engine::shutdown(ShutdownMode mode) {
  Impl& m = *impl_;
  std::vector<std::shared_ptr<JobRecord>> active;
  {
    std::lock_guard lock(m.jobs_mutex);
    if (m.shut_down) return;
    m.accepting = false;
    for (auto& [id, job] : m.jobs) {
      if (!is_final(job->state)) active.push_back(job);
    }
  }
  if (mode == ShutdownMode::kCancel) {
    m.stopping = true;  // first: the jobs it stops are not journaled as cancelled
    for (auto& job : active) {
      job->cancelled = true;
      m.cancel_queued(job);
    }
  }
  // Drain: every accepted job finishes (no new ones are accepted). Cancel: the running
  // partitions stop at their next boundary.
  {
    std::unique_lock lock(m.jobs_mutex);
    m.jobs_changed.wait(lock, [&] { return m.active_jobs == 0; });
  }
  m.scheduler->close();
  for (auto& w : m.workers) w.join();
  if (m.journal) m.journal->flush();
  std::lock_guard lock(m.jobs_mutex);
  m.shut_down = true;
}

// --- small helpers of job.hpp and backend.hpp ---

std::string_view priority_name(Priority priority) {
  switch (priority) {
    case Priority::kLow:
      return "low";
    case Priority::kNormal:
      return "normal";
    case Priority::kHigh:
      return "high";
    case Priority::kCritical:
      return "critical";
  }
  return "unknown";
}

std::string_view job_state_name(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

std::string_view proof_format_name(ProofFormat format) {
  switch (format) {
    case ProofFormat::kSnarkjsJson:
      return "snarkjs_json";
    case ProofFormat::kBellman:
      return "bellman";
    case ProofFormat::kSimToken:
      return "sim_token";
  }
  return "unknown";
}

std::string_view key_tier_name(KeyTier tier) {
  switch (tier) {
    case KeyTier::kVram:
      return "vram";
    case KeyTier::kPinned:
      return "pinned";
    case KeyTier::kMmap:
      return "mmap";
    case KeyTier::kDisk:
      return "disk";
  }
  return "unknown";
}

StageTimes& StageTimes::operator+=(const StageTimes& o) {
  queue_ms += o.queue_ms;
  key_load_ms += o.key_load_ms;
  synthesis_ms += o.synthesis_ms;
  stage_ms += o.stage_ms;
  gpu_ms += o.gpu_ms;
  epilogue_ms += o.epilogue_ms;
  total_ms += o.total_ms;
  return *this;
}

}  // namespace cuzk::engine
