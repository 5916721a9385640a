// The engine's components one by one: the scheduler's order and bounds, the lock-order checker
// (it fires on a wrong order), the host budget and the VRAM arena (fences, coalescing, never
// over capacity under concurrency), the sim's own checks (a slot reused without its fence is
// caught), metrics text, the checks of a partition's witness input.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <unistd.h>

#include "engine/gpu_locks.hpp"
#include "engine/memory_budget.hpp"
#include "engine/metrics.hpp"
#include "engine/scheduler.hpp"
#include "engine/sim_backend.hpp"
#include "engine/witness_input.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::engine {
namespace {

QueuedPartition item(Priority p, uint64_t seq, uint32_t part) {
  QueuedPartition q;
  q.priority = p;
  q.job_seq = seq;
  q.partition = part;
  q.job = seq;
  return q;
}

TEST(Scheduler, PriorityThenOldestJobThenLowestPartition) {
  auto s = Scheduler::create({100});
  s->push_job({item(Priority::kLow, 1, 0), item(Priority::kLow, 1, 1)});
  s->push_job({item(Priority::kNormal, 2, 1), item(Priority::kNormal, 2, 0)});
  s->push_job({item(Priority::kCritical, 5, 0)});
  s->push_job({item(Priority::kHigh, 4, 0)});
  s->push_job({item(Priority::kNormal, 3, 0)});
  const std::vector<std::tuple<Priority, uint64_t, uint32_t>> expected = {
      {Priority::kCritical, 5, 0}, {Priority::kHigh, 4, 0},   {Priority::kNormal, 2, 0},
      {Priority::kNormal, 2, 1},   {Priority::kNormal, 3, 0}, {Priority::kLow, 1, 0},
      {Priority::kLow, 1, 1}};
  for (size_t i = 0; i < expected.size(); ++i) {
    auto p = s->pop();
    ASSERT_TRUE(p) << "pop " << i;
    EXPECT_EQ(std::make_tuple(p->priority, p->job_seq, p->partition), expected[i])
        << "pop " << i << " out of order";
  }
  EXPECT_EQ(s->size(), 0u);
}

TEST(Scheduler, BoundedAllOrNothing) {
  auto s = Scheduler::create({4});
  s->push_job({item(Priority::kNormal, 1, 0), item(Priority::kNormal, 1, 1),
               item(Priority::kNormal, 1, 2)});
  EXPECT_THROW(s->push_job({item(Priority::kNormal, 2, 0), item(Priority::kNormal, 2, 1)}),
               QueueFullError);
  EXPECT_EQ(s->size(), 3u) << "a refused job must queue nothing";
  // More partitions than the capacity: never fits, a different error than "full now".
  std::vector<QueuedPartition> big;
  for (uint32_t p = 0; p < 5; ++p) big.push_back(item(Priority::kNormal, 3, p));
  try {
    s->push_job(big);
    FAIL() << "a job larger than the queue was accepted";
  } catch (const QueueFullError&) {
    FAIL() << "a job that can never fit must not be reported as a full queue";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kResourceExhausted);
  }
  s->push_job({item(Priority::kNormal, 4, 0)});
  EXPECT_EQ(s->size(), 4u);
}

TEST(Scheduler, RemoveJobAndCloseWakesPoppers) {
  auto s = Scheduler::create({100});
  s->push_job({item(Priority::kHigh, 1, 0), item(Priority::kHigh, 1, 1)});
  s->push_job({item(Priority::kHigh, 2, 0)});
  auto removed = s->remove_job(Priority::kHigh, 1);
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_EQ(s->size(), 1u);
  EXPECT_EQ(s->pop()->job_seq, 2u);
  std::atomic<int> woke{0};
  std::vector<std::thread> poppers;
  for (int i = 0; i < 3; ++i) {
    poppers.emplace_back([&] {
      if (!s->pop()) ++woke;
    });
  }
  s->close();
  for (auto& t : poppers) t.join();
  EXPECT_EQ(woke.load(), 3) << "close() must wake every blocked pop with nullopt";
  EXPECT_THROW(s->push_job({item(Priority::kLow, 9, 0)}), Error);
}

// try_pop (a busy worker preparing ahead) leaves what is queued to a worker blocked in pop():
// pushed while one waits, the partition goes to the waiter even if try_pop runs first.
TEST(Scheduler, TryPopLeavesThePartitionToAnIdleWorker) {
  auto s = Scheduler::create({100});
  EXPECT_FALSE(s->try_pop()) << "empty queue";
  s->push_job({item(Priority::kNormal, 1, 0)});
  ASSERT_TRUE(s->try_pop()) << "nobody waits: the busy worker takes it";
  for (int round = 0; round < 50; ++round) {
    std::optional<QueuedPartition> got;
    std::thread idle([&] { got = s->pop(); });
    while (s->waiting() == 0) std::this_thread::yield();
    s->push_job({item(Priority::kNormal, 2 + uint64_t(round), 0)});
    const auto stolen = s->try_pop();
    EXPECT_FALSE(stolen) << "round " << round << ": taken from under a waiting worker";
    if (stolen) s->requeue(*stolen);  // the waiter still gets one, the test goes on
    idle.join();
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->job_seq, 2 + uint64_t(round));
  }
}

// try_pop_job (a worker gathering a group) takes only partitions of the one job, in order,
// those pinned to another GPU excepted.
TEST(Scheduler, TryPopJobTakesOnlyThatJobsPartitions) {
  auto s = Scheduler::create({100});
  EXPECT_FALSE(s->try_pop_job(Priority::kNormal, 1, 0)) << "empty queue";
  s->push_job({item(Priority::kHigh, 1, 0)});  // same seq, another priority: another job
  auto pinned = item(Priority::kNormal, 1, 1);
  pinned.device = 1;
  s->push_job({item(Priority::kNormal, 1, 0), pinned, item(Priority::kNormal, 1, 2)});
  s->push_job({item(Priority::kNormal, 2, 0)});
  auto first = s->try_pop_job(Priority::kNormal, 1, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(std::make_tuple(first->priority, first->job_seq, first->partition),
            std::make_tuple(Priority::kNormal, uint64_t(1), 0u));
  auto second = s->try_pop_job(Priority::kNormal, 1, 0);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->partition, 2u) << "partition 1 is pinned to GPU 1";
  EXPECT_FALSE(s->try_pop_job(Priority::kNormal, 1, 0)) << "only GPU 1 may take what is left";
  auto third = s->try_pop_job(Priority::kNormal, 1, 1);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->partition, 1u);
  EXPECT_FALSE(s->try_pop_job(Priority::kNormal, 1, 1));
  EXPECT_EQ(s->size(), 2u) << "the other jobs stay queued";
  EXPECT_EQ(s->pop()->priority, Priority::kHigh);
  EXPECT_EQ(s->pop()->job_seq, 2u);
}

TEST(GpuLocks, CheckerFiresOnMemUnderCompute) {
  GpuLocks locks(0);
  const uint64_t before = lock_order_violations();
  {
    OrderedLock::Guard compute(locks.compute);
    try {
      OrderedLock::Guard mem(locks.mem);
      FAIL() << "mem acquired while holding compute: the checker did not fire";
    } catch (const LockOrderViolation& e) {
      EXPECT_NE(std::string(e.what()).find("gpu0.mem"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(lock_order_violations(), before + 1);
  // mem under compute of another GPU is the same violation (one global order).
  GpuLocks other(1);
  {
    OrderedLock::Guard compute(other.compute);
    EXPECT_THROW(OrderedLock::Guard mem(locks.mem), LockOrderViolation);
  }
  // Two locks of one kind.
  {
    OrderedLock::Guard mem(locks.mem);
    EXPECT_THROW(OrderedLock::Guard mem2(other.mem), LockOrderViolation);
  }
  EXPECT_EQ(lock_order_violations(), before + 3);
  // The right order passes, and the locks were released by every path above.
  {
    OrderedLock::Guard mem(locks.mem);
    OrderedLock::Guard compute(locks.compute);
  }
  std::thread t([&] {
    OrderedLock::Guard mem(locks.mem);
    OrderedLock::Guard compute(locks.compute);
  });
  t.join();
  EXPECT_EQ(lock_order_violations(), before + 3);
}

TEST(MemoryBudget, HostRamDetectedAndBudgetBlocksUntilReleased) {
  EXPECT_GT(detect_host_ram_bytes(), uint64_t(1) << 28) << "MemTotal of /proc/meminfo";
  auto auto_sized = MemoryBudget::create({});
  EXPECT_EQ(auto_sized->host().capacity(), detect_host_ram_bytes() - (uint64_t(4) << 30));
  HostBudget host(100);
  EXPECT_THROW(host.reserve(101, nullptr), Error);
  ASSERT_TRUE(host.reserve(60, nullptr));
  std::atomic<bool> stop{false};
  std::thread waiter([&] { EXPECT_FALSE(host.reserve(50, [&] { return stop.load(); })); });
  stop = true;
  waiter.join();
  std::thread taker([&] { EXPECT_TRUE(host.reserve(50, nullptr)); });
  host.release(60);
  taker.join();
  EXPECT_EQ(host.in_use(), 50u);
  host.release(50);
  EXPECT_EQ(host.in_use(), 0u);
}

// An event whose completion the test controls.
class ManualEvent : public Event {
 public:
  bool query() const override { return done; }
  void synchronize() const override {}
  double elapsed_ms_since(const Event&) const override { return 0; }
  std::atomic<bool> done{false};
};

TEST(MemoryBudget, ArenaHandsOverFencesAndCoalesces) {
  VramArena arena(0, 4096);
  auto a = arena.try_reserve(1000);  // rounded up to 1024
  auto b = arena.try_reserve(2048);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->slot.bytes, 1024u);
  EXPECT_EQ(b->slot.offset, 1024u);
  EXPECT_FALSE(arena.try_reserve(2048)) << "only 1024 bytes are free";
  EXPECT_THROW(arena.reserve(8192, nullptr), Error) << "larger than the arena: never fits";
  auto fence = std::make_shared<ManualEvent>();
  arena.release(a->slot, fence);
  arena.release(b->slot, nullptr);
  EXPECT_EQ(arena.in_use(), 0u);
  auto whole = arena.try_reserve(4096);
  ASSERT_TRUE(whole) << "released ranges must coalesce";
  ASSERT_EQ(whole->fences.size(), 1u) << "the new owner must get the pending fence of [0, 1024)";
  arena.release(whole->slot, nullptr);
  fence->done = true;
  auto again = arena.try_reserve(512);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->fences.empty()) << "a completed fence is dropped";
  EXPECT_EQ(arena.pending_fences(), 0u);
  arena.release(again->slot, nullptr);
}

TEST(MemoryBudget, ArenaNeverOverCommittedUnderConcurrency) {
  VramArena arena(0, 64 * 1024);
  (void)cuzk::test::seed();  // logs the seed once, before the threads draw generators
  std::atomic<bool> over{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      auto rng = cuzk::test::rng("arena" + std::to_string(t));
      for (int i = 0; i < 300; ++i) {
        auto r = arena.reserve(256 * (1 + rng() % 64), nullptr);
        if (arena.in_use() > arena.capacity()) over = true;
        arena.release(r->slot, nullptr);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(over.load());
  EXPECT_LE(arena.peak(), arena.capacity());
  EXPECT_EQ(arena.in_use(), 0u);
  EXPECT_TRUE(arena.try_reserve(64 * 1024)) << "fragments did not coalesce back into one range";
}

TEST(MemoryBudget, DefaultVramKeyBudgetLeavesRoomForTheWorkersSlots) {
  constexpr uint64_t kGiB = uint64_t(1) << 30;
  // An H200 (140 GiB), 1 GiB margin, K = 2 slots of 25 GiB: keys get 89 GiB, enough for an
  // 81 GiB 2^27 key, where half the device (70 GiB) would stream it.
  EXPECT_EQ(default_vram_key_budget(140 * kGiB, kGiB, 2, 25 * kGiB), 89 * kGiB);
  EXPECT_EQ(default_vram_key_budget(140 * kGiB, kGiB, 0, 25 * kGiB), 114 * kGiB) << "K ≥ 1";
  // No key known at start-up, or slots taking half the device or more: half.
  EXPECT_EQ(default_vram_key_budget(140 * kGiB, kGiB, 2, 0), 70 * kGiB);
  EXPECT_EQ(default_vram_key_budget(80 * kGiB, kGiB, 4, 10 * kGiB), 40 * kGiB);
  EXPECT_EQ(default_vram_key_budget(80 * kGiB, kGiB, 3, 13 * kGiB), 40 * kGiB);
  EXPECT_EQ(default_vram_key_budget(80 * kGiB, kGiB, 3, 12 * kGiB), 43 * kGiB);
}

TEST(SimBackend, CatchesSlotReuseWithoutFence) {
  SimOptions o;
  o.gpus = 1;
  o.vram_bytes = 1 << 30;
  o.kernel_ns_per_constraint = 100;  // 10 ms of kernels for 100k constraints
  auto sim = SimBackend::create(o);
  sim->carve_vram_arena(0, 64 << 20);
  auto key = sim->load_key({{}, 100'000}, KeyTier::kPinned);
  auto s1 = sim->create_stream(0), s2 = sim->create_stream(0);
  const std::string w = "w";
  PartitionInput in{std::make_shared<const std::vector<uint8_t>>(w.begin(), w.end())};
  auto first = sim->prepare(*key, in, 0);
  VramSlot slot{0, 0, first->vram_bytes(), 1};
  first->stage(*s1, slot);
  first->compute(*s1);
  // The right hand-over: the second owner's stream waits for the first one's last event.
  auto done = s1->record();
  auto second = sim->prepare(*key, in, 0);
  s2->wait(*done);
  second->stage(*s2, VramSlot{0, 0, slot.bytes, 2});
  second->compute(*s2);
  EXPECT_EQ(sim->violations(), 0u) << "a fenced hand-over was reported";
  // The wrong one: a third owner uploads into the same bytes without waiting; its upload runs
  // while the second owner's kernels still read the slot.
  auto third = sim->prepare(*key, in, 0);
  auto s3 = sim->create_stream(0);
  third->stage(*s3, VramSlot{0, 0, slot.bytes, 3});
  EXPECT_GE(sim->violations(), 1u) << "the sim did not see a slot reused before its fence";
  // A slot outside the arena.
  auto fourth = sim->prepare(*key, in, 0);
  fourth->stage(*s3, VramSlot{0, 64 << 20, 256, 4});
  EXPECT_GE(sim->violations(), 2u);
  // VRAM over-commit: a VRAM-tier key on top of an arena that fills the device.
  sim->carve_vram_arena(0, 1 << 30);
  const uint64_t before = sim->violations();
  auto big = sim->load_key({{}, 1000}, KeyTier::kVram);
  EXPECT_EQ(sim->violations(), before + 1);
  EXPECT_THROW(sim->prepare(*key,
                            PartitionInput{std::make_shared<const std::vector<uint8_t>>(
                                std::vector<uint8_t>{'b', 'a', 'd'})},
                            0),
               Error);
}

TEST(Metrics, PrometheusText) {
  Metrics m;
  m.describe("cuzk_things_total", Metrics::Type::kCounter, "Things.");
  m.describe("cuzk_ms", Metrics::Type::kHistogram, "Times.", {1, 10});
  m.add("cuzk_things_total", 2, "kind=\"a\"");
  m.add("cuzk_things_total");
  m.observe("cuzk_ms", 0.5);
  m.observe("cuzk_ms", 5);
  m.observe("cuzk_ms", 50);
  const std::string text = m.prometheus_text();
  for (const char* line :
       {"# HELP cuzk_things_total Things.\n", "# TYPE cuzk_things_total counter\n",
        "cuzk_things_total{kind=\"a\"} 2\n", "cuzk_things_total 1\n", "# TYPE cuzk_ms histogram\n",
        "cuzk_ms_bucket{le=\"1\"} 1\n", "cuzk_ms_bucket{le=\"10\"} 2\n",
        "cuzk_ms_bucket{le=\"+Inf\"} 3\n", "cuzk_ms_sum 55.5\n", "cuzk_ms_count 3\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "missing line: " << line << "in:\n" << text;
  }
}

TEST(Timeline, BusyFractionIsTheUnionOfComputeSpans) {
  Timeline tl;
  const auto t0 = Clock::now();
  auto at = [&](int ms) { return t0 + std::chrono::milliseconds(ms); };
  TimelineRecord a{1, 0, 0, 0}, b{2, 0, 0, 1}, c{3, 0, 1, 0};
  a.compute_begin = at(0), a.gpu_done = at(40);
  b.compute_begin = at(20), b.gpu_done = at(60);  // overlaps a: counted once
  c.compute_begin = at(0), c.gpu_done = at(100);  // another GPU
  tl.add(a), tl.add(b), tl.add(c);
  EXPECT_NEAR(tl.gpu_busy_fraction(0, at(0), at(100)), 0.6, 1e-9);
  EXPECT_NEAR(tl.gpu_busy_fraction(1, at(0), at(100)), 1.0, 1e-9);
  EXPECT_NE(tl.to_json_lines(t0).find("\"compute_begin_us\":20000"), std::string::npos);
}

TEST(WitnessInput, SubmissionChecksNameThePartitionAndTheProblem) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("cuzk_witness_input_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "w.wtns") << "wtns";
  std::ofstream(dir / "empty.wtns");
  const auto bytes = std::make_shared<const std::vector<uint8_t>>(std::vector<uint8_t>{1, 2});
  const auto file = formats::InputFile::open(dir / "w.wtns", {});
  const auto error_of = [](const PartitionInput& input) -> std::string {
    try {
      check_partition_input(input, 3);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << e.what();
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({bytes, {}}), "");
  EXPECT_EQ(error_of({nullptr, file}), "");
  EXPECT_NE(error_of({}).find("partition 3 has no witness"), std::string::npos);
  EXPECT_NE(error_of({bytes, file}).find("both as bytes and as a file"), std::string::npos);
  EXPECT_NE(error_of({std::make_shared<const std::vector<uint8_t>>(), {}}).find("empty witness"),
            std::string::npos);
  EXPECT_NE(error_of({nullptr, formats::InputFile::open(dir / "empty.wtns", {})}).find("is empty"),
            std::string::npos);

  // Mapped when prepared: the opened file's bytes, named by its path, even after the path was
  // removed (the descriptor was kept at submission).
  fs::remove(dir / "w.wtns");
  const WitnessView view = WitnessView::of({nullptr, file});
  EXPECT_EQ(std::string(view.bytes().begin(), view.bytes().end()), "wtns");
  EXPECT_EQ(view.name(), (dir / "w.wtns").string());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuzk::engine
