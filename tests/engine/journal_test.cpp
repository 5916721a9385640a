// The engine across restarts (the job journal) and under floods (admission in bytes), on the
// sim backend: ids never repeat, accepted jobs survive a crash and run again or fail with the
// reason, request ids and unfetched results outlive the process, and witnesses held for queued
// partitions are refused past the host budget and released on cancel.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "engine/journal.hpp"
#include "formats/input_file.hpp"
#include "tests/engine/engine_test_support.hpp"

namespace cuzk::engine::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class Journaled : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cuzk_journal_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One sim GPU with one worker. slow: each partition's prepare sleeps 200 ms, so that jobs
  // submitted together are still queued (or preparing) when the engine is destroyed.
  SimEngine start(bool slow, uint64_t spool_bytes = uint64_t(1) << 30) {
    EngineOptions o = small_engine(1);
    o.journal_path = dir_ / "jobs.sqlite";
    o.journal_spool_bytes = spool_bytes;
    SimOptions sim = small_sim();
    sim.gpus = 1;
    if (slow) sim.prepare_us = 200'000;
    SimEngine e = make_sim_engine(o, sim, 1);
    e.engine->resume();
    return e;
  }

  SimEngine start_fast() { return start(false); }

  static JobSpec owned(const std::string& witness, const std::string& owner,
                       const std::string& request_id = "") {
    JobSpec spec = job("key0", {witness}, Priority::kNormal, request_id);
    spec.owner = owner;
    return spec;
  }

  fs::path dir_;
};

TEST_F(Journaled, IdsNeverRepeatAcrossRestarts) {
  std::set<JobId> seen;
  JobId last = 0;
  for (int start = 0; start < 3; ++start) {
    SimEngine e = start_fast();
    for (int j = 0; j < 5; ++j) {
      const JobId id = e.engine->submit(owned("w" + std::to_string(j), "alice"));
      EXPECT_NE(id, 0u);
      EXPECT_TRUE(seen.insert(id).second) << "job id " << id << " handed out twice";
      EXPECT_GT(id, last) << "a later start's ids are larger";
      last = id;
    }
    ASSERT_TRUE(e.engine->wait_idle(30s));
    e.engine->shutdown(ShutdownMode::kDrain);
  }
}

TEST(JobIds, WithoutAJournalTwoStartsDiffer) {
  std::set<JobId> seen;
  for (int start = 0; start < 4; ++start) {
    SimEngine e = make_sim_engine(small_engine(1), small_sim(), 1);
    for (int j = 0; j < 3; ++j) {
      EXPECT_TRUE(seen.insert(e.engine->submit(job("key0", {"w"}))).second);
    }
    e.engine->shutdown(ShutdownMode::kDrain);
  }
}

TEST_F(Journaled, CrashedJobsRunAgainWithTheirIdsAndOwners) {
  std::vector<JobId> ids;
  {
    SimEngine e = start(true);
    for (int j = 0; j < 4; ++j)
      ids.push_back(e.engine->submit(owned("w" + std::to_string(j), "bob")));
    // Destroyed with jobs queued and one preparing: none of them is journaled as finished.
  }
  SimEngine e = start_fast();
  for (size_t j = 0; j < ids.size(); ++j) {
    const JobResult r = e.engine->await(ids[j], 10s);
    ASSERT_EQ(r.state, JobState::kSucceeded) << r.error_message;
    EXPECT_EQ(r.owner, "bob");
    ASSERT_EQ(r.partitions.size(), 1u);
    EXPECT_EQ(proof_text(r.partitions[0]), "sim-proof:w" + std::to_string(j));
  }
  e.engine->shutdown(ShutdownMode::kDrain);
  expect_nothing_held(e, "after the re-run");
}

TEST_F(Journaled, AWitnessNotRetainedFailsTheJobWithTheReason) {
  JobId by_value = 0, by_file = 0, file_gone = 0;
  const fs::path kept = dir_ / "kept.wtns", removed = dir_ / "removed.wtns";
  std::ofstream(kept) << "from-file";
  std::ofstream(removed) << "gone";
  {
    SimEngine e = start(true, /*spool_bytes=*/0);
    JobSpec first = owned("w-first", "carol");
    e.engine->submit(std::move(first));  // preparing when the engine goes
    by_value = e.engine->submit(owned("w-value", "carol"));
    JobSpec file = owned("x", "carol");
    file.partitions[0] = {nullptr, formats::InputFile::open(kept, {})};
    by_file = e.engine->submit(std::move(file));
    JobSpec gone = owned("x", "carol");
    gone.partitions[0] = {nullptr, formats::InputFile::open(removed, {})};
    file_gone = e.engine->submit(std::move(gone));
  }
  fs::remove(removed);
  SimEngine e = start_fast();
  const JobResult value = e.engine->await(by_value, 10s);
  EXPECT_EQ(value.state, JobState::kFailed);
  EXPECT_NE(value.error_message.find("restarted and the witness of partition 0 was not retained"),
            std::string::npos)
      << value.error_message;
  const JobResult file = e.engine->await(by_file, 10s);
  ASSERT_EQ(file.state, JobState::kSucceeded) << file.error_message;
  EXPECT_EQ(proof_text(file.partitions[0]), "sim-proof:from-file");
  const JobResult missing = e.engine->await(file_gone, 10s);
  EXPECT_EQ(missing.state, JobState::kFailed);
  EXPECT_NE(missing.error_message.find("could not be opened again"), std::string::npos)
      << missing.error_message;
  e.engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(Journaled, RequestIdsSurviveACrash) {
  JobId first = 0;
  {
    SimEngine e = start(true);
    first = e.engine->submit(owned("w", "dave", "request-1"));
  }
  SimEngine e = start_fast();
  EXPECT_EQ(e.engine->submit(owned("w", "dave", "request-1")), first);
  EXPECT_EQ(e.engine->await(first, 10s).state, JobState::kSucceeded);
  e.engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(Journaled, UnfetchedResultsSurviveACleanStopUntilFetched) {
  JobId id = 0;
  {
    SimEngine e = start_fast();
    id = e.engine->submit(owned("w-kept", "erin", "request-2"));
    ASSERT_TRUE(e.engine->wait_idle(30s));
    e.engine->shutdown(ShutdownMode::kDrain);
  }
  {
    SimEngine e = start_fast();
    const JobResult r = e.engine->await(id, 0ms);
    ASSERT_EQ(r.state, JobState::kSucceeded);
    EXPECT_EQ(r.owner, "erin");
    ASSERT_EQ(r.partitions.size(), 1u);
    EXPECT_EQ(proof_text(r.partitions[0]), "sim-proof:w-kept");
    EXPECT_EQ(r.partitions[0].format, ProofFormat::kSimToken);
    EXPECT_EQ(e.engine->submit(owned("w-kept", "erin", "request-2")), id);
    e.engine->shutdown(ShutdownMode::kDrain);
  }
  // Fetched above: the next start does not know it.
  SimEngine e = start_fast();
  EXPECT_THROW(e.engine->await(id, 0ms), Error);
  e.engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(Journaled, ExpiredResultsAreDropped) {
  JobId id = 0;
  {
    SimEngine e = start_fast();
    id = e.engine->submit(owned("w", "frank"));
    ASSERT_TRUE(e.engine->wait_idle(30s));
    e.engine->shutdown(ShutdownMode::kDrain);
  }
  EngineOptions o = small_engine(1);
  o.journal_path = dir_ / "jobs.sqlite";
  o.result_retention = 0ms;
  std::this_thread::sleep_for(5ms);
  SimEngine e = make_sim_engine(o, small_sim(), 1);
  EXPECT_THROW(e.engine->await(id, 0ms), Error);
}

TEST(Admission, WitnessBytesPastTheHostBudgetAreRefusedAndReleasedOnCancel) {
  EngineOptions o = small_engine(1);
  o.host_bytes = 16 * kMiB;
  SimOptions sim = small_sim();
  sim.gpus = 1;
  // Jobs stay queued: the first one's prepare takes 2 s, longer than the submissions and the
  // cancellations take even under ThreadSanitizer.
  sim.prepare_us = 2'000'000;
  SimEngine e = make_sim_engine(o, sim, 1);
  const std::string witness(kMiB, 'w');
  std::vector<JobId> accepted;
  std::string refusal;
  for (int j = 0; j < 40 && refusal.empty(); ++j) {
    try {
      accepted.push_back(e.engine->submit(job("key0", {witness})));
    } catch (const QueueFullError& error) {
      refusal = error.what();
    }
  }
  ASSERT_FALSE(refusal.empty()) << "40 MiB of witnesses were accepted with a 16 MiB budget";
  EXPECT_NE(refusal.find("host budget full"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find(std::to_string(kMiB)), std::string::npos) << refusal;
  EXPECT_NE(refusal.find(std::to_string(16 * kMiB)), std::string::npos) << refusal;
  EXPECT_LE(accepted.size(), 16u);
  EXPECT_GE(accepted.size(), 10u);
  EXPECT_GT(e.engine->status().witness_bytes_queued, 0u);
  for (JobId id : accepted) e.engine->cancel(id);
  ASSERT_TRUE(e.engine->wait_idle(30s));
  EXPECT_EQ(e.engine->status().witness_bytes_queued, 0u);
  for (JobId id : accepted) EXPECT_EQ(e.engine->await(id, 0ms).state, JobState::kCancelled);
  // The room is back.
  const JobId again = e.engine->submit(job("key0", {witness}));
  e.engine->cancel(again);
  e.engine->shutdown(ShutdownMode::kDrain);
  expect_nothing_held(e, "after cancelling");
}

}  // namespace
}  // namespace cuzk::engine::test
