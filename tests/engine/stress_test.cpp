// The stress run (issue 6): N partitions from 32 concurrent client threads with mixed
// priorities, K = 1..4 workers on each of 2 simulated GPUs, with cancellations, client
// disconnects (the service cancels the job of a client that went away) and abandoned jobs
// (submitted and never awaited). Checks: no deadlock (every await returns within its timeout),
// no lost or duplicated job or partition, each result belongs to its input, the sim saw no VRAM
// over-commit or unfenced slot reuse, the lock-order checker never fired, and every host byte,
// VRAM slot and key reference is back when the engine is idle.
//
// N = 625·CUZK_TEST_SCALE per K (default 625; CUZK_TEST_SCALE=16 is the full 10,000 per K).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "engine/gpu_locks.hpp"
#include "engine_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::engine::test {
namespace {

using namespace std::chrono_literals;

constexpr int kClients = 32;

enum class Fate { kAwait, kCancel, kDisconnect, kAbandon, kBad };

struct Submitted {
  JobId id = 0;
  Fate fate = Fate::kAwait;
  std::vector<std::string> witnesses;
  bool cancel_accepted = false;
};

class Stress : public ::testing::TestWithParam<int> {};

TEST_P(Stress, ManyClientsMixedPrioritiesNoLossNoLeak) {
  const int k = GetParam();
  const size_t total = cuzk::test::scaled(625);
  auto e = make_sim_engine(small_engine(k), small_sim(5.0));  // 100 µs of kernels per partition
  const uint64_t violations_before = lock_order_violations();
  (void)cuzk::test::seed();  // logs the seed once, before the clients draw generators

  std::mutex mutex;
  std::vector<Submitted> all;
  std::atomic<size_t> budget{total};  // partitions left to submit, shared by the clients
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  const auto t0 = Clock::now();
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto rng = cuzk::test::rng("stress" + std::to_string(k) + "." + std::to_string(c));
      std::vector<Submitted> mine;
      for (int j = 0;; ++j) {
        size_t parts = 1 + rng() % 4, left = budget.load();
        do {
          if (left == 0) break;
          parts = std::min(parts, left);
        } while (!budget.compare_exchange_weak(left, left - parts));
        if (left == 0) break;
        Submitted s;
        const int roll = int(rng() % 100);
        s.fate = roll < 10   ? Fate::kCancel
                 : roll < 15 ? Fate::kDisconnect
                 : roll < 20 ? Fate::kAbandon
                 : roll < 22 ? Fate::kBad
                             : Fate::kAwait;
        for (size_t p = 0; p < parts; ++p) {
          s.witnesses.push_back((s.fate == Fate::kBad && p == parts - 1 ? "bad-" : "") +
                                std::string("c") + std::to_string(c) + "j" + std::to_string(j) +
                                "p" + std::to_string(p));
        }
        const auto priority = Priority(rng() % 4);
        s.id = e.engine->submit(job("key" + std::to_string(rng() % 3), s.witnesses, priority,
                                    "c" + std::to_string(c) + "j" + std::to_string(j)));
        if (s.fate == Fate::kCancel) s.cancel_accepted = e.engine->cancel(s.id);
        if (s.fate == Fate::kDisconnect) {
          // The client waits a little, then its connection drops: the service cancels.
          (void)e.engine->await(s.id, std::chrono::milliseconds(rng() % 3));
          s.cancel_accepted = e.engine->cancel(s.id);
        }
        mine.push_back(std::move(s));
      }
      for (auto& s : mine) {
        if (s.fate == Fate::kAbandon || s.fate == Fate::kDisconnect) continue;
        const JobResult r = e.engine->await(s.id, 120s);
        if (!is_final(r.state)) {
          ++failures;
          ADD_FAILURE() << "job " << s.id << " not final after 120 s: deadlock or lost job";
          continue;
        }
        if (s.fate == Fate::kBad) {
          if (r.state != JobState::kFailed || r.error_kind != ErrorKind::kInvalidInput) {
            ADD_FAILURE() << "bad-witness job " << s.id << " ended " << job_state_name(r.state);
          }
          continue;
        }
        const bool may_be_cancelled = s.fate == Fate::kCancel && s.cancel_accepted;
        if (r.state == JobState::kCancelled && may_be_cancelled) continue;
        if (r.state != JobState::kSucceeded) {
          ADD_FAILURE() << "job " << s.id << " ended " << job_state_name(r.state) << ": "
                        << r.error_message;
          continue;
        }
        if (r.partitions.size() != s.witnesses.size()) {
          ADD_FAILURE() << "job " << s.id << ": " << r.partitions.size() << " results for "
                        << s.witnesses.size() << " partitions";
          continue;
        }
        for (size_t p = 0; p < s.witnesses.size(); ++p) {
          if (proof_text(r.partitions[p]) != "sim-proof:" + s.witnesses[p]) {
            ADD_FAILURE() << "job " << s.id << " partition " << p << " got '"
                          << proof_text(r.partitions[p]) << "'";
          }
        }
      }
      std::lock_guard lock(mutex);
      for (auto& s : mine) all.push_back(std::move(s));
    });
  }
  for (auto& t : clients) t.join();
  ASSERT_TRUE(e.engine->wait_idle(120s)) << "the engine never became idle: deadlock";
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  // Every job id distinct, every job final, each witness finished at most once, and exactly
  // once for the jobs that succeeded.
  std::set<JobId> ids;
  size_t partitions = 0, succeeded = 0;
  const auto finished = e.sim->finish_counts();
  for (const auto& s : all) {
    EXPECT_TRUE(ids.insert(s.id).second) << "job id " << s.id << " given twice";
    partitions += s.witnesses.size();
    const JobResult r = e.engine->await(s.id, 1ms);
    EXPECT_TRUE(is_final(r.state)) << "job " << s.id;
    for (const auto& w : s.witnesses) {
      auto it = finished.find(w);
      const int n = it == finished.end() ? 0 : it->second;
      EXPECT_LE(n, 1) << w << " was proved " << n << " times";
      if (r.state == JobState::kSucceeded) {
        EXPECT_EQ(n, 1) << w << " succeeded without a proof";
      }
    }
    succeeded += r.state == JobState::kSucceeded;
  }
  EXPECT_EQ(partitions, total) << "partitions lost between the clients and the engine";
  const EngineStatus st = e.engine->status();
  EXPECT_EQ(st.partitions_succeeded + st.partitions_failed + st.partitions_cancelled, total)
      << "every partition must finish exactly once";
  EXPECT_EQ(lock_order_violations(), violations_before) << "the lock-order checker fired";
  expect_nothing_held(e, "stress K=" + std::to_string(k));
  std::printf(
      "[engine] stress K=%d: %zu partitions in %zu jobs from %d clients, %zu jobs "
      "succeeded, %.2f s, gpu0 modeled kernels %.0f ms, arena peak %llu / %llu bytes\n",
      k, total, all.size(), kClients, succeeded, seconds, e.sim->compute_busy_ms(0),
      (unsigned long long)st.gpus[0].arena_peak, (unsigned long long)st.gpus[0].arena_bytes);
  EXPECT_EQ(failures.load(), 0);
}

INSTANTIATE_TEST_SUITE_P(WorkersPerGpu, Stress, ::testing::Values(1, 2, 3, 4),
                         [](const auto& info) { return "K" + std::to_string(info.param); });

}  // namespace
}  // namespace cuzk::engine::test
