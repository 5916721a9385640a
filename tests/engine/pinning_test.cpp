// JobSpec::device: a job pinned to one GPU runs there only, beside unpinned work on the
// others; the scheduler hands a pinned partition to that GPU's workers alone; a GPU taken out
// of service releases its pinned partitions to the others.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine/scheduler.hpp"
#include "engine_test_support.hpp"

namespace cuzk::engine::test {
namespace {

using namespace std::chrono_literals;

QueuedPartition pinned(uint64_t seq, int device) {
  QueuedPartition p;
  p.job_seq = seq;
  p.job = seq;
  p.device = device;
  return p;
}

TEST(SchedulerPinning, PinnedPartitionsGoToTheirGpuOnly) {
  auto s = Scheduler::create({100});
  s->push_job({pinned(1, 1)});
  s->push_job({pinned(2, -1)});
  auto first = s->try_pop(nullptr, 0);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->job_seq, 2u) << "GPU 0 took a partition pinned to GPU 1";
  EXPECT_FALSE(s->try_pop(nullptr, 0));
  auto second = s->try_pop(nullptr, 1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->job_seq, 1u);

  // A worker of GPU 0 blocked in pop() is not woken for a partition pinned to GPU 1, and
  // takes it once GPU 1 leaves service.
  std::optional<QueuedPartition> got;
  std::thread worker([&] { got = s->pop(nullptr, 0); });
  while (s->waiting() == 0) std::this_thread::yield();
  s->push_job({pinned(3, 1)});
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(got.has_value()) << "taken by the wrong GPU";
  s->release_device(1);
  worker.join();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->job_seq, 3u);
  s->push_job({pinned(4, 1)});
  auto later = s->try_pop(nullptr, 0);
  ASSERT_TRUE(later) << "a job pinned to a GPU out of service is not released";
  EXPECT_EQ(later->device, -1);
}

TEST(EnginePinning, JobsRunOnTheirGpu) {
  auto e = make_sim_engine(small_engine(2), small_sim(), 1);
  std::vector<JobId> ids;
  for (int i = 0; i < 6; ++i) {
    JobSpec spec = job("key0", {"x" + std::to_string(i) + "a", "x" + std::to_string(i) + "b"});
    spec.device = i % 3 == 2 ? -1 : i % 2;
    ids.push_back(e.engine->submit(std::move(spec)));
  }
  for (JobId id : ids) ASSERT_EQ(e.engine->await(id, 30s).state, JobState::kSucceeded);
  for (const auto& r : e.engine->timeline().snapshot()) {
    const size_t i = size_t(std::find(ids.begin(), ids.end(), r.job) - ids.begin());
    ASSERT_LT(i, ids.size());
    if (i % 3 != 2) {
      EXPECT_EQ(r.device, int(i % 2)) << "job " << i;
    }
  }
  JobSpec bad = job("key0", {"y"});
  bad.device = 2;
  EXPECT_THROW(e.engine->submit(bad), Error) << "a GPU the engine does not have";
}

}  // namespace
}  // namespace cuzk::engine::test
