#pragma once
// The engine's durable job journal: a small SQLite database (WAL mode) that lets jobs outlive
// the process. What it keeps:
//   instances  one row per start: its number is the high part of the job ids handed out in
//              that start (engine.cpp, make_job_id), never reused (AUTOINCREMENT)
//   jobs       every accepted job (id, key id, request id, owner, priority, partition count,
//              submission time) and, once final, its state, error and timings
//   witnesses  per partition: the bytes of a witness given by value while the spool has room
//              (spool_bytes in all), or the path of a witness given as a file, neither when it
//              was not retained; and its fixed blinding, when it has one
//   outputs    per partition of a succeeded job: proof format, proof and public inputs
// A job's rows go when its result is fetched or its retention expires (forget). What survives
// a SIGKILL: every job whose record_accepted returned, and every result whose record_finished
// was committed (a result not yet committed leaves its job accepted: it runs again after the
// restart). synchronous=NORMAL in WAL mode: a process crash loses nothing committed; a power
// loss may lose the last transactions.
//
// Writes are kept off the proving path: record_finished and forget queue their work for the
// journal's own thread, which commits what is queued in one transaction; record_accepted
// queues too and waits for the commit (so the job is durable when submit returns). Statements
// are prepared once per kind.
//
// Thread-safety: every member may be called from any thread. Order: open, instance, recover
// (once, before any record_*), then record_* and forget in any order; the destructor commits
// what is queued and closes the database.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/job.hpp"

namespace cuzk::engine {

class Journal {
 public:
  struct Options {
    std::filesystem::path path;
    uint64_t spool_bytes = 0;  // by-value witnesses kept, in all; past it, not retained
  };
  // Opens (or creates) the database and registers this start as a new instance. Throws
  // kInvalidInput naming the file when it cannot be opened or is not a journal.
  static std::unique_ptr<Journal> open(const Options& options);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // This start's instance number: larger than every earlier start's of this journal, ≥ 1.
  uint64_t instance() const;

  // A job as the journal holds it.
  struct StoredJob {
    JobId id = 0;
    JobSpec spec;  // partitions: the spooled bytes or the file path, per partition (below)
    std::vector<std::string> witness_paths;  // per partition; empty when not a file
    std::vector<bool> witness_retained;      // per partition: bytes spooled or a path kept
    int64_t submitted_unix_ms = 0;
    bool finished = false;  // the rest only when finished
    JobResult result;
    int64_t completed_unix_ms = 0;
  };
  // Everything stored, oldest job first. Witness bytes are read into spec.partitions.
  std::vector<StoredJob> recover();

  // Queues the record of an accepted job, spooling its by-value witnesses while the spool has
  // room. Cheap (a caller may hold its own lock); the returned ticket is then waited for with
  // wait_committed, which throws kInternal when the database could not be written. Records are
  // committed in the order they were queued.
  using Ticket = uint64_t;
  Ticket record_accepted(JobId id, const JobSpec& spec, int64_t submitted_unix_ms);
  void wait_committed(Ticket ticket);
  // Records a final result (outputs when succeeded) and drops the job's spooled witnesses.
  void record_finished(const JobResult& result, int64_t completed_unix_ms);
  // Drops every row of a job (fetched, expired).
  void forget(JobId id);
  // Waits until everything queued so far is committed (tests; shutdown).
  void flush();

  uint64_t spool_in_use() const;  // witness bytes spooled now

  static int64_t now_unix_ms();

  struct Impl;

 private:
  explicit Journal(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuzk::engine
