// The engine's side of the journal: this start's instance, the jobs and results read back at
// create(), and the re-queueing of unfinished jobs at resume() (engine.hpp says what a client
// sees).

#include <random>

#include "engine/engine_impl.hpp"
#include "engine/witness_input.hpp"

namespace cuzk::engine {
namespace {

// The steady-clock time of a wall-clock instant of an earlier start.
Clock::time_point steady_from_unix_ms(int64_t unix_ms) {
  const int64_t age_ms = std::max<int64_t>(0, Journal::now_unix_ms() - unix_ms);
  return Clock::now() - std::chrono::milliseconds(age_ms);
}

}  // namespace

void Engine::Impl::open_journal() {
  if (options.journal_path.empty()) {
    // No journal: nothing survives this start, and its ids need only differ from those a
    // client may still hold from an earlier one (engine.hpp).
    std::random_device random;
    instance = 1 + (uint64_t(random()) << 32 | random()) % (kInstanceLimit - 1);
    return;
  }
  journal = Journal::open({options.journal_path, options.journal_spool_bytes});
  instance = journal->instance();
  if (instance >= kInstanceLimit) {
    CUZK_THROW(ErrorKind::kResourceExhausted,
               options.journal_path.string() + ": the journal has counted " +
                   std::to_string(instance) + " starts, the most job ids can tell apart; " +
                   "start with a new journal");
  }
  std::lock_guard lock(jobs_mutex);
  for (Journal::StoredJob& stored : journal->recover()) {
    auto job = std::make_shared<JobRecord>();
    job->id = stored.id;
    job->seq = ++next_seq;
    job->submitted = steady_from_unix_ms(stored.submitted_unix_ms);
    job->spec = std::move(stored.spec);
    const size_t partitions = job->spec.partitions.size();
    if (stored.finished) {
      const Clock::time_point completed = steady_from_unix_ms(stored.completed_unix_ms);
      if (Clock::now() - completed > options.result_retention) {
        journal->forget(job->id);
        continue;
      }
      job->state = stored.result.state;
      job->outputs = std::move(stored.result.partitions);
      job->error_kind = stored.result.error_kind;
      job->error_message = std::move(stored.result.error_message);
      job->sum = stored.result.timings.sum;
      job->submitted =
          completed - std::chrono::duration_cast<Clock::duration>(
                          std::chrono::duration<double, std::milli>(stored.result.timings.wall_ms));
      job->completed = completed;
      job->completion_seq = ++completions;
      job->spec.partitions.clear();
    } else {
      job->remaining = partitions;
      job->outputs.resize(partitions);
      job->witness_bytes.assign(partitions, 0);
      std::string reason;
      for (size_t p = 0; p < partitions && reason.empty(); ++p) {
        if (!stored.witness_retained[p]) {
          reason = "the daemon restarted and the witness of partition " + std::to_string(p) +
                   " was not retained (the journal's spool was full)";
        } else if (!stored.witness_paths[p].empty()) {
          try {
            job->spec.partitions[p].witness_file =
                formats::InputFile::open(stored.witness_paths[p], {});
          } catch (const Error& e) {
            reason = "the daemon restarted and the witness file of partition " + std::to_string(p) +
                     " could not be opened again: " + e.what();
          }
        }
      }
      if (!reason.empty()) {
        end_unstarted_locked(*job, JobState::kFailed, ErrorKind::kNotFound, reason);
      } else {
        recovered.push_back(job);
      }
    }
    jobs.emplace(job->id, job);
    if (!job->spec.request_id.empty()) request_ids.emplace(job->spec.request_id, job->id);
  }
}

void Engine::Impl::resume_recovered() {
  std::lock_guard lock(jobs_mutex);
  for (const auto& job : recovered) {
    if (job->cancelled.load()) {
      job->client_cancelled = true;
      end_unstarted_locked(*job, JobState::kCancelled, ErrorKind::kInternal, "");
      continue;
    }
    const auto source = keys->source(job->spec.key_id);
    if (!source) {
      end_unstarted_locked(
          *job, JobState::kFailed, ErrorKind::kNotFound,
          "the daemon restarted and the key '" + job->spec.key_id + "' is not registered any more");
      continue;
    }
    try {
      job->host_bytes = backend->partition_host_bytes(*source);
      job->vram_bytes = backend->partition_vram_bytes(*source);
    } catch (const Error& e) {
      end_unstarted_locked(
          *job, JobState::kFailed, e.kind(),
          std::string("the daemon restarted and the key cannot be used: ") + e.what());
      continue;
    }
    // Accepted before the restart: queued whatever the queue holds now (requeue is never
    // refused), and its witnesses counted as any queued ones.
    const auto now = Clock::now();
    for (uint32_t p = 0; p < job->spec.partitions.size(); ++p) {
      job->witness_bytes[p] = witness_bytes_held(job->spec.partitions[p]);
      witness_bytes_queued += job->witness_bytes[p];
      scheduler->requeue({job->spec.priority, job->seq, p, job->id, now, job});
    }
    ++active_jobs;
  }
  recovered.clear();
}

}  // namespace cuzk::engine
