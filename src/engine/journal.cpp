#include "engine/journal.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace cuzk::engine {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS instances(
  id INTEGER PRIMARY KEY AUTOINCREMENT, started_unix_ms INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS jobs(
  id INTEGER PRIMARY KEY, key_id TEXT NOT NULL, request_id TEXT NOT NULL, owner TEXT NOT NULL,
  priority INTEGER NOT NULL, partitions INTEGER NOT NULL, submitted_unix_ms INTEGER NOT NULL,
  state INTEGER, error_kind INTEGER, error_message TEXT, completed_unix_ms INTEGER,
  wall_ms REAL, stage_ms BLOB);
CREATE TABLE IF NOT EXISTS witnesses(
  job INTEGER NOT NULL, partition INTEGER NOT NULL, bytes BLOB, path TEXT, blinding BLOB,
  PRIMARY KEY(job, partition));
CREATE TABLE IF NOT EXISTS outputs(
  job INTEGER NOT NULL, partition INTEGER NOT NULL, format INTEGER NOT NULL,
  proof BLOB NOT NULL, public_inputs BLOB NOT NULL, PRIMARY KEY(job, partition));
)sql";

// The seven stage times of StageTimes, as one blob of doubles (the journal is read back by the
// machine that wrote it).
constexpr size_t kStageCount = 7;
std::vector<double> stage_values(const StageTimes& t) {
  return {t.queue_ms, t.key_load_ms, t.synthesis_ms, t.stage_ms,
          t.gpu_ms,   t.epilogue_ms, t.total_ms};
}
StageTimes stage_times(const void* blob, int bytes) {
  double v[kStageCount] = {};
  if (blob != nullptr && size_t(bytes) == sizeof(v)) std::memcpy(v, blob, sizeof(v));
  return {v[0], v[1], v[2], v[3], v[4], v[5], v[6]};
}

// One prepared statement, reset after each use.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql, const std::string& file) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      CUZK_INVALID_INPUT(file + ": not a job journal (" + sqlite3_errmsg(db) + ")");
    }
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, int64_t v) { return check(sqlite3_bind_int64(stmt_, i, v)); }
  Statement& bind(int i, double v) { return check(sqlite3_bind_double(stmt_, i, v)); }
  Statement& bind(int i, const std::string& v) {
    return check(sqlite3_bind_text(stmt_, i, v.data(), int(v.size()), SQLITE_TRANSIENT));
  }
  Statement& bind_blob(int i, const void* data, size_t bytes) {
    return check(sqlite3_bind_blob64(stmt_, i, data, bytes, SQLITE_STATIC));
  }
  Statement& bind_null(int i) { return check(sqlite3_bind_null(stmt_, i)); }
  // One step: true while a row is there.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail(rc);
    return false;
  }
  void run() {
    step();
    reset();
  }
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  int64_t integer(int c) const { return sqlite3_column_int64(stmt_, c); }
  double real(int c) const { return sqlite3_column_double(stmt_, c); }
  bool null(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
  std::string text(int c) const {
    const auto* p = sqlite3_column_blob(stmt_, c);
    return p ? std::string(static_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, c)))
             : std::string();
  }
  const void* blob(int c) const { return sqlite3_column_blob(stmt_, c); }
  int bytes(int c) const { return sqlite3_column_bytes(stmt_, c); }

 private:
  Statement& check(int rc) {
    if (rc != SQLITE_OK) fail(rc);
    return *this;
  }
  [[noreturn]] void fail(int rc) {
    const std::string message =
        std::string("job journal: ") + sqlite3_errstr(rc) + " (" + sqlite3_errmsg(db_) + ")";
    reset();
    CUZK_THROW(ErrorKind::kInternal, message);
  }
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

struct Journal::Impl {
  Options options;
  sqlite3* db = nullptr;
  uint64_t instance = 0;

  // The writer thread's queue: each task runs inside the transaction of its batch.
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::function<void()>> queue;
  uint64_t queued = 0, committed = 0;  // tasks
  // The tickets (first, last] of the last batch that failed, and its error.
  uint64_t failed_after = 0, failed_last = 0;
  std::string failed_error;
  bool closing = false;
  std::thread writer;

  uint64_t spool_used = 0;            // guarded by mutex
  std::map<JobId, uint64_t> spooled;  // per job, guarded by mutex

  std::unique_ptr<Statement> begin, commit, rollback, insert_job, insert_witness, finish_job,
      insert_output, delete_witnesses, delete_outputs, delete_job;

  void exec(const char* sql) {
    char* error = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error ? error : "unknown error";
      sqlite3_free(error);
      CUZK_INVALID_INPUT(options.path.string() + ": cannot use the job journal: " + message);
    }
  }

  // Queues a task; returns its ticket (the value of `committed` once it is done).
  uint64_t enqueue(std::function<void()> task) {
    std::lock_guard lock(mutex);
    queue.push_back(std::move(task));
    changed.notify_all();
    return ++queued;
  }

  // Waits for a ticket; the error of its batch, if that failed.
  std::string wait(uint64_t ticket) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return committed >= ticket; });
    return ticket > failed_after && ticket <= failed_last ? failed_error : std::string();
  }

  void write_loop() {
    std::unique_lock lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return closing || !queue.empty(); });
      if (queue.empty()) return;
      std::deque<std::function<void()>> batch;
      batch.swap(queue);
      lock.unlock();
      std::string error;
      try {
        begin->run();
        for (auto& task : batch) task();
        commit->run();
      } catch (const std::exception& e) {
        error = e.what();
        try {
          rollback->run();
        } catch (const std::exception&) {
          // Nothing more to undo: the error of the batch is what callers see.
        }
      }
      lock.lock();
      if (!error.empty()) {
        failed_after = committed;
        failed_last = committed + batch.size();
        failed_error = error;
      }
      committed += batch.size();
      changed.notify_all();
    }
  }
};

Journal::Journal(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

std::unique_ptr<Journal> Journal::open(const Options& options) {
  auto m = std::make_unique<Impl>();
  m->options = options;
  const std::string file = options.path.string();
  if (sqlite3_open_v2(file.c_str(), &m->db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string message = m->db ? sqlite3_errmsg(m->db) : "out of memory";
    sqlite3_close(m->db);
    CUZK_INVALID_INPUT(file + ": cannot open the job journal: " + message);
  }
  std::unique_ptr<Journal> journal(new Journal(std::move(m)));
  Impl& j = *journal->impl_;
  sqlite3_busy_timeout(j.db, 5000);
  j.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  j.exec(kSchema);
  {
    Statement start(j.db, "INSERT INTO instances(started_unix_ms) VALUES(?)", file);
    start.bind(1, now_unix_ms()).run();
    j.instance = uint64_t(sqlite3_last_insert_rowid(j.db));
  }
  {
    Statement spool(j.db, "SELECT job, SUM(LENGTH(bytes)) FROM witnesses GROUP BY job", file);
    while (spool.step()) {
      j.spooled[JobId(spool.integer(0))] = uint64_t(spool.integer(1));
      j.spool_used += uint64_t(spool.integer(1));
    }
  }
  const auto prepare = [&](const char* sql) {
    return std::make_unique<Statement>(j.db, sql, file);
  };
  j.begin = prepare("BEGIN");
  j.commit = prepare("COMMIT");
  j.rollback = prepare("ROLLBACK");
  j.insert_job = prepare(
      "INSERT OR REPLACE INTO jobs(id, key_id, request_id, owner, priority, partitions, "
      "submitted_unix_ms) VALUES(?, ?, ?, ?, ?, ?, ?)");
  j.insert_witness = prepare(
      "INSERT OR REPLACE INTO witnesses(job, partition, bytes, path, blinding) "
      "VALUES(?, ?, ?, ?, ?)");
  j.finish_job = prepare(
      "UPDATE jobs SET state = ?, error_kind = ?, error_message = ?, completed_unix_ms = ?, "
      "wall_ms = ?, stage_ms = ? WHERE id = ?");
  j.insert_output = prepare(
      "INSERT OR REPLACE INTO outputs(job, partition, format, proof, public_inputs) "
      "VALUES(?, ?, ?, ?, ?)");
  j.delete_witnesses = prepare("DELETE FROM witnesses WHERE job = ?");
  j.delete_outputs = prepare("DELETE FROM outputs WHERE job = ?");
  j.delete_job = prepare("DELETE FROM jobs WHERE id = ?");
  j.writer = std::thread([&j] { j.write_loop(); });
  return journal;
}

Journal::~Journal() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->closing = true;
  }
  impl_->changed.notify_all();
  if (impl_->writer.joinable()) impl_->writer.join();
  impl_->begin.reset();
  impl_->commit.reset();
  impl_->rollback.reset();
  impl_->insert_job.reset();
  impl_->insert_witness.reset();
  impl_->finish_job.reset();
  impl_->insert_output.reset();
  impl_->delete_witnesses.reset();
  impl_->delete_outputs.reset();
  impl_->delete_job.reset();
  sqlite3_close(impl_->db);
}

uint64_t Journal::instance() const { return impl_->instance; }

int64_t Journal::now_unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

uint64_t Journal::spool_in_use() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->spool_used;
}

std::vector<Journal::StoredJob> Journal::recover() {
  Impl& j = *impl_;
  const std::string file = j.options.path.string();
  std::vector<StoredJob> jobs;
  std::map<JobId, size_t> index;
  Statement read_jobs(j.db,
                      "SELECT id, key_id, request_id, owner, priority, partitions, "
                      "submitted_unix_ms, state, error_kind, error_message, completed_unix_ms, "
                      "wall_ms, stage_ms FROM jobs ORDER BY id",
                      file);
  while (read_jobs.step()) {
    StoredJob s;
    s.id = JobId(read_jobs.integer(0));
    s.spec.key_id = read_jobs.text(1);
    s.spec.request_id = read_jobs.text(2);
    s.spec.owner = read_jobs.text(3);
    s.spec.priority = Priority(std::min<int64_t>(read_jobs.integer(4), 3));
    const size_t partitions = size_t(read_jobs.integer(5));
    s.spec.partitions.resize(partitions);
    s.witness_paths.resize(partitions);
    s.witness_retained.assign(partitions, false);
    s.submitted_unix_ms = read_jobs.integer(6);
    s.finished = !read_jobs.null(7);
    s.result.id = s.id;
    s.result.owner = s.spec.owner;
    s.result.state = s.finished ? JobState(read_jobs.integer(7)) : JobState::kQueued;
    if (!read_jobs.null(8)) s.result.error_kind = ErrorKind(read_jobs.integer(8));
    s.result.error_message = read_jobs.text(9);
    s.completed_unix_ms = read_jobs.integer(10);
    s.result.timings.wall_ms = read_jobs.real(11);
    s.result.timings.sum = stage_times(read_jobs.blob(12), read_jobs.bytes(12));
    if (s.result.state == JobState::kSucceeded) s.result.partitions.resize(partitions);
    index[s.id] = jobs.size();
    jobs.push_back(std::move(s));
  }
  Statement read_witnesses(j.db, "SELECT job, partition, bytes, path, blinding FROM witnesses",
                           file);
  while (read_witnesses.step()) {
    auto it = index.find(JobId(read_witnesses.integer(0)));
    const size_t p = size_t(read_witnesses.integer(1));
    if (it == index.end() || p >= jobs[it->second].spec.partitions.size()) continue;
    StoredJob& s = jobs[it->second];
    if (!read_witnesses.null(2)) {
      const auto* data = static_cast<const uint8_t*>(read_witnesses.blob(2));
      s.spec.partitions[p].witness =
          std::make_shared<const std::vector<uint8_t>>(data, data + read_witnesses.bytes(2));
      s.witness_retained[p] = true;
    } else if (!read_witnesses.null(3)) {
      s.witness_paths[p] = read_witnesses.text(3);
      s.witness_retained[p] = true;
    }
    groth16::BlindingBytes blinding;
    if (size_t(read_witnesses.bytes(4)) == sizeof(blinding.r) + sizeof(blinding.s)) {
      const auto* b = static_cast<const uint8_t*>(read_witnesses.blob(4));
      std::copy(b, b + 32, blinding.r.begin());
      std::copy(b + 32, b + 64, blinding.s.begin());
      s.spec.partitions[p].blinding = blinding;
    }
  }
  Statement read_outputs(j.db, "SELECT job, partition, format, proof, public_inputs FROM outputs",
                         file);
  while (read_outputs.step()) {
    auto it = index.find(JobId(read_outputs.integer(0)));
    const size_t p = size_t(read_outputs.integer(1));
    if (it == index.end() || p >= jobs[it->second].result.partitions.size()) continue;
    const std::string proof = read_outputs.text(3);
    jobs[it->second].result.partitions[p] = {ProofFormat(read_outputs.integer(2)),
                                             std::vector<uint8_t>(proof.begin(), proof.end()),
                                             read_outputs.text(4)};
  }
  return jobs;
}

Journal::Ticket Journal::record_accepted(JobId id, const JobSpec& spec, int64_t submitted_unix_ms) {
  Impl& j = *impl_;
  // Which by-value witnesses fit the spool is decided now, in submission order.
  std::vector<bool> spool(spec.partitions.size(), false);
  {
    std::lock_guard lock(j.mutex);
    uint64_t job_bytes = 0;
    for (size_t p = 0; p < spec.partitions.size(); ++p) {
      const auto& w = spec.partitions[p].witness;
      if (w && j.spool_used + w->size() <= j.options.spool_bytes) {
        spool[p] = true;
        j.spool_used += w->size();
        job_bytes += w->size();
      }
    }
    j.spooled[id] += job_bytes;
  }
  // The task holds the witnesses (shared, immutable) until it has written them.
  return j.enqueue([&j, id, spec, submitted_unix_ms, spool] {
    j.insert_job->bind(1, int64_t(id))
        .bind(2, spec.key_id)
        .bind(3, spec.request_id)
        .bind(4, spec.owner)
        .bind(5, int64_t(spec.priority))
        .bind(6, int64_t(spec.partitions.size()))
        .bind(7, submitted_unix_ms)
        .run();
    for (size_t p = 0; p < spec.partitions.size(); ++p) {
      const PartitionInput& input = spec.partitions[p];
      Statement& s = *j.insert_witness;
      s.bind(1, int64_t(id)).bind(2, int64_t(p));
      if (spool[p]) {
        s.bind_blob(3, input.witness->data(), input.witness->size()).bind_null(4);
      } else if (input.witness_file) {
        s.bind_null(3).bind(4, input.witness_file->name());
      } else {
        s.bind_null(3).bind_null(4);  // not retained
      }
      std::array<uint8_t, 64> blinding{};
      if (input.blinding) {
        std::copy(input.blinding->r.begin(), input.blinding->r.end(), blinding.begin());
        std::copy(input.blinding->s.begin(), input.blinding->s.end(), blinding.begin() + 32);
        s.bind_blob(5, blinding.data(), blinding.size());
      } else {
        s.bind_null(5);
      }
      s.run();
    }
  });
}

void Journal::wait_committed(Ticket ticket) {
  const std::string error = impl_->wait(ticket);
  if (!error.empty()) CUZK_THROW(ErrorKind::kInternal, "cannot record the job: " + error);
}

void Journal::record_finished(const JobResult& result, int64_t completed_unix_ms) {
  Impl& j = *impl_;
  {
    std::lock_guard lock(j.mutex);
    if (auto it = j.spooled.find(result.id); it != j.spooled.end()) {
      j.spool_used -= it->second;
      j.spooled.erase(it);
    }
  }
  j.enqueue([&j, result, completed_unix_ms] {
    const int64_t id = int64_t(result.id);
    const auto stages = stage_values(result.timings.sum);
    Statement& f = *j.finish_job;
    f.bind(1, int64_t(result.state));
    if (result.error_kind) {
      f.bind(2, int64_t(*result.error_kind));
    } else {
      f.bind_null(2);
    }
    f.bind(3, result.error_message)
        .bind(4, completed_unix_ms)
        .bind(5, result.timings.wall_ms)
        .bind_blob(6, stages.data(), stages.size() * sizeof(double))
        .bind(7, id)
        .run();
    j.delete_witnesses->bind(1, id).run();
    for (size_t p = 0; p < result.partitions.size(); ++p) {
      const PartitionOutput& out = result.partitions[p];
      j.insert_output->bind(1, id)
          .bind(2, int64_t(p))
          .bind(3, int64_t(out.format))
          .bind_blob(4, out.proof.data(), out.proof.size())
          .bind_blob(5, out.public_inputs.data(), out.public_inputs.size())
          .run();
    }
  });
}

void Journal::forget(JobId id) {
  Impl& j = *impl_;
  {
    std::lock_guard lock(j.mutex);
    if (auto it = j.spooled.find(id); it != j.spooled.end()) {
      j.spool_used -= it->second;
      j.spooled.erase(it);
    }
  }
  j.enqueue([&j, id] {
    j.delete_witnesses->bind(1, int64_t(id)).run();
    j.delete_outputs->bind(1, int64_t(id)).run();
    j.delete_job->bind(1, int64_t(id)).run();
  });
}

void Journal::flush() {
  Impl& j = *impl_;
  uint64_t ticket;
  {
    std::lock_guard lock(j.mutex);
    ticket = j.queued;
  }
  j.wait(ticket);
}

}  // namespace cuzk::engine
