// Partitions of one job computed together when their key is streamed (EngineOptions::
// group_partitions, PartitionWork::group_key): on the sim backend, whose works of a key in the
// pinned tier share a group key and whose compute_group moves the key once per group. Groups
// form, each partition keeps its own result, the key moves fewer times than partitions
// compute; no grouping with group_partitions = 1 or a key in VRAM; a group takes only the
// slots free at once; a job on two GPUs is shared between them; a cancelled group, a refused member and a GPU leaving service while its
// worker gathers leave nothing reserved and lose no partition.

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <thread>

#include "engine_test_support.hpp"

namespace cuzk::engine::test {
namespace {

using namespace std::chrono_literals;

constexpr int kPartitions = 10;

// One GPU, one worker, the key in the pinned tier (no VRAM key budget), an arena of
// `arena_slots` partition slots.
SimEngine streamed_key_engine(int group_partitions, int arena_slots, SimOptions s = small_sim()) {
  s.gpus = 1;
  s.vram_bytes = 256 * kMiB;
  EngineOptions o = small_engine(1);
  o.group_partitions = group_partitions;
  o.keys.budgets = {{KeyTier::kPinned, 100 * kMiB}};
  const uint64_t slot = uint64_t(s.slot_bytes_per_constraint * kPartitionConstraints);
  o.vram_arena_bytes = uint64_t(arena_slots) * slot + slot / 2;
  return make_sim_engine(o, s, 1);
}

std::vector<std::string> witnesses(const std::string& stem, int n) {
  std::vector<std::string> w;
  for (int p = 0; p < n; ++p) w.push_back(stem + std::to_string(p));
  return w;
}

void expect_results(const JobResult& r, const std::vector<std::string>& w) {
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error_message;
  ASSERT_EQ(r.partitions.size(), w.size());
  for (size_t p = 0; p < w.size(); ++p)
    EXPECT_EQ(proof_text(r.partitions[p]), "sim-proof:" + w[p]) << "partition " << p;
}

void expect_each_finished_once(const SimEngine& e) {
  for (const auto& [witness, count] : e.sim->finish_counts())
    EXPECT_EQ(count, 1) << witness << " finished " << count << " times";
}

// Members of one group share their compute_begin: the sizes of the groups, in no order.
std::vector<size_t> group_sizes(const SimEngine& e) {
  std::map<Clock::time_point, size_t> groups;
  for (const auto& r : e.engine->timeline().snapshot()) ++groups[r.compute_begin];
  std::vector<size_t> sizes;
  for (const auto& [begin, size] : groups) sizes.push_back(size);
  return sizes;
}

double grouped(const SimEngine& e) {
  return metric_value(e.engine->metrics_text(), "cuzk_partitions_grouped_total{gpu=\"0\"}");
}

TEST(Grouping, StreamedKeyPartitionsComputeTogether) {
  auto e = streamed_key_engine(16, 12);
  const auto w = witnesses("g", kPartitions);
  expect_results(e.engine->await(e.engine->submit(job("key0", w)), 60s), w);
  ASSERT_TRUE(e.engine->wait_idle(30s));
  EXPECT_EQ(e.engine->status().keys.at(0).tier, KeyTier::kPinned);
  EXPECT_LT(e.sim->compute_calls(), uint64_t(kPartitions)) << "no group was computed";
  EXPECT_EQ(e.sim->key_transfers(), e.sim->compute_calls()) << "the key moves once per compute";
  EXPECT_LT(e.sim->key_transfers(), uint64_t(kPartitions));
  EXPECT_GE(grouped(e), 2) << e.engine->metrics_text();
  EXPECT_EQ(group_sizes(e).size(), e.sim->compute_calls());
  expect_each_finished_once(e);
  expect_nothing_held(e, "after a grouped job");
}

TEST(Grouping, NoneWithGroupPartitionsOneOrAKeyInVram) {
  {
    SCOPED_TRACE("group_partitions = 1");
    auto e = streamed_key_engine(1, 12);
    const auto w = witnesses("one", kPartitions);
    expect_results(e.engine->await(e.engine->submit(job("key0", w)), 60s), w);
    ASSERT_TRUE(e.engine->wait_idle(30s));
    EXPECT_EQ(e.sim->compute_calls(), uint64_t(kPartitions));
    EXPECT_EQ(e.sim->key_transfers(), uint64_t(kPartitions)) << "a streamed key moves per compute";
    EXPECT_EQ(grouped(e), 0);
    expect_nothing_held(e, "group_partitions = 1");
  }
  {
    SCOPED_TRACE("a key in VRAM");
    SimOptions s = small_sim();
    s.gpus = 1;
    auto e = make_sim_engine(small_engine(1), s, 1);
    const auto w = witnesses("vram", kPartitions);
    expect_results(e.engine->await(e.engine->submit(job("key0", w)), 60s), w);
    ASSERT_TRUE(e.engine->wait_idle(30s));
    EXPECT_EQ(e.engine->status().keys.at(0).tier, KeyTier::kVram);
    EXPECT_EQ(e.sim->compute_calls(), uint64_t(kPartitions));
    EXPECT_EQ(e.sim->key_transfers(), 0u);
    EXPECT_EQ(grouped(e), 0);
    expect_nothing_held(e, "a key in VRAM");
  }
}

// An arena of three slots: a group takes the slots free when it gathers, at most three; the
// partitions left run in later groups, and the job completes.
TEST(Grouping, AGroupTakesOnlyTheSlotsFree) {
  for (const bool ahead : {true, false}) {
    SCOPED_TRACE(ahead ? "prepare_ahead" : "no preparation ahead");
    SimOptions s = small_sim();
    s.gpus = 1;
    s.vram_bytes = 256 * kMiB;
    EngineOptions o = small_engine(1);
    o.prepare_ahead = ahead;
    o.keys.budgets = {{KeyTier::kPinned, 100 * kMiB}};
    o.vram_arena_bytes = 16 * kMiB;  // three slots of 5.12 MB
    auto e = make_sim_engine(o, s, 1);
    const auto w = witnesses(ahead ? "a" : "n", kPartitions);
    expect_results(e.engine->await(e.engine->submit(job("key0", w)), 60s), w);
    ASSERT_TRUE(e.engine->wait_idle(30s));
    const auto sizes = group_sizes(e);
    EXPECT_EQ(sizes.size(), e.sim->compute_calls());
    EXPECT_GE(sizes.size(), 4u) << "ten partitions in groups of at most three";
    EXPECT_LT(sizes.size(), size_t(kPartitions)) << "no group was computed";
    for (size_t size : sizes) EXPECT_LE(size, 3u) << "a group larger than the arena's slots";
    EXPECT_LE(e.engine->status().gpus.at(0).arena_peak, o.vram_arena_bytes);
    expect_each_finished_once(e);
    expect_nothing_held(e, "a group limited by the arena");
  }
}

// A job cancelled while its partitions compute as one group: none is finished, the job ends
// cancelled, and nothing stays reserved.
TEST(Grouping, CancellingAGroupedJobLeavesNothingReserved) {
  auto e = streamed_key_engine(16, 12, small_sim(2'000.0));  // 40 ms of kernels per partition
  const uint64_t all =
      kPartitions * uint64_t(small_sim().host_bytes_per_constraint * double(kPartitionConstraints));
  const JobId id = e.engine->submit(job("key0", witnesses("c", kPartitions)));
  for (int i = 0; i < 100'000 && e.engine->status().host_in_use < all; ++i)
    std::this_thread::sleep_for(100us);
  ASSERT_EQ(e.engine->status().host_in_use, all) << "the partitions were not gathered";
  EXPECT_GT(e.engine->status().gpus.at(0).arena_in_use, 0u);
  ASSERT_TRUE(e.engine->cancel(id));
  EXPECT_EQ(e.engine->await(id, 60s).state, JobState::kCancelled);
  ASSERT_TRUE(e.engine->wait_idle(30s));
  EXPECT_TRUE(e.sim->finish_counts().empty()) << "a cancelled partition was finished";
  expect_nothing_held(e, "after cancelling a grouped job");
}

// A partition whose witness prepare refuses, taken while gathering, fails alone: the job
// fails with its error, and the members already staged still settle and release everything.
TEST(Grouping, AMemberRefusedInPrepareFailsTheJobAndLeavesNothingHeld) {
  auto e = streamed_key_engine(16, 12);
  auto w = witnesses("r", kPartitions);
  w[3] = "bad3";
  const JobResult r = e.engine->await(e.engine->submit(job("key0", w)), 60s);
  EXPECT_EQ(r.state, JobState::kFailed);
  EXPECT_NE(r.error_message.find("bad3"), std::string::npos) << r.error_message;
  ASSERT_TRUE(e.engine->wait_idle(30s));
  expect_each_finished_once(e);
  expect_nothing_held(e, "after a member refused in prepare");
}

// Two GPUs streaming one key: a job's partitions are shared between them (a group takes at most
// the job's share of each GPU), so both compute and each group is at most half the job.
TEST(Grouping, AJobOnTwoGpusIsSharedBetweenThem) {
  SimOptions s = small_sim();
  s.vram_bytes = 256 * kMiB;
  EngineOptions o = small_engine(1);
  o.group_partitions = 16;
  o.keys.budgets = {{KeyTier::kPinned, 100 * kMiB}};
  const uint64_t slot = uint64_t(s.slot_bytes_per_constraint * kPartitionConstraints);
  o.vram_arena_bytes = 12 * slot;
  auto e = make_sim_engine(o, s, 1);
  const auto w = witnesses("t", kPartitions);
  expect_results(e.engine->await(e.engine->submit(job("key0", w)), 60s), w);
  ASSERT_TRUE(e.engine->wait_idle(30s));
  std::map<int, size_t> per_gpu;
  for (const auto& r : e.engine->timeline().snapshot()) ++per_gpu[r.device];
  EXPECT_GT(per_gpu[0], 0u) << "GPU 0 computed nothing";
  EXPECT_GT(per_gpu[1], 0u) << "GPU 1 computed nothing";
  for (size_t size : group_sizes(e)) EXPECT_LE(size, size_t(kPartitions / 2));
  EXPECT_LT(e.sim->key_transfers(), uint64_t(kPartitions));
  expect_each_finished_once(e);
  expect_nothing_held(e, "after a job shared by two GPUs");
}

// A GPU taken out of service while its worker gathers a group: every member it holds goes back
// to the queue (a witness the work took over rebuilt from its copy) and the other GPU proves
// it; no partition is lost or proved twice.
TEST(Grouping, AGpuLeavingServiceHandsEveryMemberBack) {
  SimOptions s = small_sim();
  s.prepare_us = 50'000;
  EngineOptions o = small_engine(1);
  o.keys.budgets = {{KeyTier::kPinned, 100 * kMiB}};
  auto e = make_sim_engine(o, s, 1);
  const auto w = witnesses("h", 6);
  const JobId id = e.engine->submit(job("key0", w));
  const uint64_t both = 2 * uint64_t(s.host_bytes_per_constraint * kPartitionConstraints);
  for (int i = 0; i < 100'000 && e.engine->status().host_in_use < both; ++i)
    std::this_thread::sleep_for(100us);
  ASSERT_GE(e.engine->status().host_in_use, both) << "the partitions did not both start";
  std::this_thread::sleep_for(70ms);  // both workers are gathering their groups
  ASSERT_TRUE(e.engine->stop_gpu(1));
  expect_results(e.engine->await(id, 60s), w);
  ASSERT_TRUE(e.engine->wait_idle(30s));
  EXPECT_GE(metric_value(e.engine->metrics_text(), "cuzk_partitions_handed_back_total{gpu=\"1\"}"),
            1)
      << e.engine->metrics_text();
  expect_each_finished_once(e);
  expect_nothing_held(e, "after a GPU left service while grouping");
}

}  // namespace
}  // namespace cuzk::engine::test
