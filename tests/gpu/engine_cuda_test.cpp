// The engine on the cuda backend: real proofs from concurrent clients on both curves, verified
// (the suite shared with the cpu backend, tests/engine/real_proofs_suite.hpp), with keys resident
// in VRAM and no VRAM slot left behind; a job cancelled while its partitions run leaves nothing
// reserved; K = 1..4 workers per GPU all give verifying proofs; a prepared partition rebuilds
// its submitted witness (for a hand-back); a key the VRAM budget cannot hold proves from pinned
// host memory; keys loaded with their H tables (CudaOptions::h_tables) prove, and are charged
// for the tables, which go only to keys they fit beside; with two GPUs, partitions of one job run on both, every proof verifies, a GPU
// taken out of service mid-run loses no job, and both GPUs prove from one pinned copy of a key.
// Skips without a GPU (the two-GPU tests without a second one).

#include <gtest/gtest.h>

#include <unistd.h>

#include "engine/cuda_backend.hpp"
#include "engine/engine.hpp"
#include "gpu/device_info.hpp"
#include "gpu_skip.hpp"
#include "tests/engine/assignment_suite.hpp"
#include "tests/engine/real_proofs_suite.hpp"

namespace cuzk::engine {
namespace {

namespace fs = std::filesystem;

class CudaEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cuzk_engine_cuda_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static EngineOptions options(int workers) {
    EngineOptions o;
    o.workers_per_gpu = workers;
    o.host_bytes = uint64_t(4) << 30;
    o.vram_arena_bytes = uint64_t(2) << 30;
    o.keys.budgets = {{KeyTier::kVram, uint64_t(1) << 30}};
    return o;
  }
  fs::path dir_;
};

// Budgets that leave a key no room in VRAM but for its matrices and domain: its points go to
// pinned host memory. `charges` is what the store must then report for it.
template <class Curve>
EngineOptions pinned_key_options(Backend& backend, const test::Circuit<Curve>& c, int workers,
                                 TierBytes& charges) {
  charges = backend.key_charges({c.zkey_path}, KeyTier::kPinned);
  const uint64_t whole = backend.key_charges({c.zkey_path}, KeyTier::kVram).at(KeyTier::kVram);
  EngineOptions o;
  o.workers_per_gpu = workers;
  o.host_bytes = uint64_t(4) << 30;
  o.vram_arena_bytes = uint64_t(2) << 30;
  o.keys.budgets = {{KeyTier::kVram, charges.at(KeyTier::kVram)},
                    {KeyTier::kPinned, uint64_t(1) << 30}};
  EXPECT_LT(charges.at(KeyTier::kVram), whole) << "the whole key must not fit the VRAM budget";
  return o;
}

template <class Curve>
void expect_pinned_key_proves(const fs::path& dir, uint64_t seed, const std::string& name) {
  const auto c = test::make_circuit<Curve>(dir, seed);
  auto backend = CudaBackend::create({});
  TierBytes charges;
  const EngineOptions o = pinned_key_options(*backend, c, 2, charges);
  auto engine = Engine::create(o, std::move(backend));
  engine->register_key(name, {c.zkey_path});
  JobSpec spec;
  spec.key_id = name;
  for (int p = 0; p < 6; ++p) spec.partitions.push_back(test::input(c.witnesses[0]));
  const JobResult r = engine->await(engine->submit(spec), std::chrono::seconds(300));
  ASSERT_EQ(r.state, JobState::kSucceeded) << name << ": " << r.error_message;
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    test::expect_verifies(c, r.partitions[p], name + " partition " + std::to_string(p));
  }
  ASSERT_TRUE(engine->wait_idle(std::chrono::seconds(60)));
  const EngineStatus s = engine->status();
  ASSERT_EQ(s.keys.size(), 1u);
  EXPECT_EQ(s.keys[0].tier, KeyTier::kPinned) << name;
  EXPECT_EQ(s.keys[0].charges, charges) << name;
  for (const auto& t : s.key_tiers) {
    EXPECT_EQ(t.used, charges.at(t.tier)) << name << " " << key_tier_name(t.tier);
  }
  EXPECT_EQ(s.gpus.at(0).arena_in_use, 0u);
  engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(CudaEngine, ConcurrentClientsGetVerifiedProofsOnBothCurves) {
  CUZK_SKIP_WITHOUT_GPU();
  auto engine = Engine::create(options(2), CudaBackend::create({}));
  test::run_real_proofs_suite(engine.get(), dir_, "cuda", KeyTier::kVram);
  engine->shutdown(ShutdownMode::kDrain);
}

// A bellman .params key with its .r1cs, in VRAM and then streamed from pinned memory.
TEST_F(CudaEngine, BellmanParamsKeyWithItsR1csProves) {
  CUZK_SKIP_WITHOUT_GPU();
  const auto key = test::make_bellman_key(dir_);
  {
    auto engine = Engine::create(options(2), CudaBackend::create({}));
    test::run_bellman_key_suite(engine.get(), dir_, key, KeyTier::kVram);
    engine->shutdown(ShutdownMode::kDrain);
  }
  auto backend = CudaBackend::create({});
  const TierBytes charges = backend->key_charges({key.key_path}, KeyTier::kPinned);
  EngineOptions o = options(2);
  o.keys.budgets = {{KeyTier::kVram, charges.at(KeyTier::kVram)},
                    {KeyTier::kPinned, uint64_t(1) << 30}};
  auto engine = Engine::create(o, std::move(backend));
  test::run_bellman_key_suite(engine.get(), dir_, key, KeyTier::kPinned);
  engine->shutdown(ShutdownMode::kDrain);
}

// Bellman assignments with a .params key registered without matrices, in VRAM and then
// streamed from pinned memory.
TEST_F(CudaEngine, BellmanAssignmentsProveWithAParamsKeyAlone) {
  CUZK_SKIP_WITHOUT_GPU();
  const auto key = test::make_assignment_key(dir_);
  {
    auto engine = Engine::create(options(2), CudaBackend::create({}));
    test::run_bellman_assignment_suite(engine.get(), key, KeyTier::kVram);
    engine->shutdown(ShutdownMode::kDrain);
  }
  auto backend = CudaBackend::create({});
  const TierBytes charges = backend->key_charges(key.source, KeyTier::kPinned);
  EngineOptions o = options(2);
  o.keys.budgets = {{KeyTier::kVram, charges.at(KeyTier::kVram)},
                    {KeyTier::kPinned, uint64_t(1) << 30}};
  auto engine = Engine::create(o, std::move(backend));
  test::run_bellman_assignment_suite(engine.get(), key, KeyTier::kPinned);
  engine->shutdown(ShutdownMode::kDrain);
}

// The H table rule with the sizes measured on the H200 (BLS12-381 porep, .zkey): at 2^26 the key
// (23.8 GB), its table (70.9 GB) and two partitions of 26.1 GB fit the 150.1 GB device, three do
// not; at 2^27 the whole table (141.7 GB beside a 50.8 GB key) never does, while 4 rows of
// c = 24 (38.7 GB beside the 47.5 GB of points) do with two partitions of 26.7 GB
// (bench/results/prover/2026-12-03_h200_4dba1fc_prove_zkey_htable_2p27.json), not with three.
// Runs without a GPU.
TEST(CudaHTableRule, TablesGoOnlyWhereKeyTableAndPartitionsFit) {
  const uint64_t device = 150'109'880'320;
  const auto shape = [](double circuit_gb, double points_gb, double table_gb, double slot_gb) {
    CudaKeyShape s;
    s.circuit_bytes = uint64_t(circuit_gb * 1e9);
    s.points_bytes = uint64_t(points_gb * 1e9);
    s.h_table_bytes = uint64_t(table_gb * 1e9);
    s.partition_bytes = uint64_t(slot_gb * 1e9);
    return s;
  };
  const CudaKeyShape p26 = shape(1.0, 22.8, 70.9, 26.1);
  EXPECT_TRUE(h_table_fits(p26, 1, device));
  EXPECT_TRUE(h_table_fits(p26, 2, device));
  EXPECT_FALSE(h_table_fits(p26, 3, device));
  EXPECT_FALSE(h_table_fits(shape(3.3, 47.5, 141.7, 35.0), 1, device));
  const CudaKeyShape p27 = shape(3.3, 47.5, 38.7, 26.7);
  EXPECT_TRUE(h_table_fits(p27, 2, device));
  EXPECT_FALSE(h_table_fits(p27, 3, device));
}

// Keys in VRAM with their H tables: the suite's proofs on both curves and a bellman key's, and
// a key's VRAM charge counts its table.
TEST_F(CudaEngine, KeysWithHTablesProve) {
  CUZK_SKIP_WITHOUT_GPU();
  CudaOptions with_tables;
  with_tables.h_tables = true;
  {
    auto engine = Engine::create(options(2), CudaBackend::create(with_tables));
    test::run_real_proofs_suite(engine.get(), dir_, "cuda", KeyTier::kVram);
    engine->shutdown(ShutdownMode::kDrain);
  }
  const auto key = test::make_bellman_key(dir_);
  auto plain = CudaBackend::create({});
  auto backend = CudaBackend::create(with_tables);
  const uint64_t without = plain->key_charges({key.key_path}, KeyTier::kVram).at(KeyTier::kVram);
  const uint64_t with = backend->key_charges({key.key_path}, KeyTier::kVram).at(KeyTier::kVram);
  EXPECT_GT(with, without) << "the H table is not charged";
  EXPECT_GE(backend->partition_vram_bytes({key.key_path}),
            plain->partition_vram_bytes({key.key_path}));
  auto engine = Engine::create(options(2), std::move(backend));
  test::run_bellman_key_suite(engine.get(), dir_, key, KeyTier::kVram);
  engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(CudaEngine, EveryWorkerCountProves) {
  CUZK_SKIP_WITHOUT_GPU();
  const auto c = test::make_circuit<formats::Bls12_381>(dir_, cuzk::test::seed());
  for (int k = 1; k <= 4; ++k) {
    auto engine = Engine::create(options(k), CudaBackend::create({}));
    engine->register_key("bls", {c.zkey_path});
    JobSpec spec;
    spec.key_id = "bls";
    for (int p = 0; p < 3 * k; ++p) spec.partitions.push_back(test::input(c.witnesses[0]));
    const JobResult r = engine->await(engine->submit(spec), std::chrono::seconds(300));
    ASSERT_EQ(r.state, JobState::kSucceeded) << "K = " << k << ": " << r.error_message;
    for (size_t p = 0; p < r.partitions.size(); ++p) {
      test::expect_verifies(c, r.partitions[p],
                            "K = " + std::to_string(k) + " partition " + std::to_string(p));
    }
    ASSERT_TRUE(engine->wait_idle(std::chrono::seconds(60)));
    EXPECT_EQ(engine->status().gpus.at(0).arena_in_use, 0u);
    engine->shutdown(ShutdownMode::kDrain);
  }
}

TEST_F(CudaEngine, CancelledJobLeavesNothingReserved) {
  CUZK_SKIP_WITHOUT_GPU();
  const auto c = test::make_circuit<formats::Bn254>(dir_, cuzk::test::seed());
  auto engine = Engine::create(options(2), CudaBackend::create({}));
  engine->register_key("bn", {c.zkey_path});
  JobSpec spec;
  spec.key_id = "bn";
  for (int p = 0; p < 64; ++p) spec.partitions.push_back(test::input(c.witnesses[0]));
  const JobId id = engine->submit(spec);
  // Let some partitions start, then cancel the rest mid-flight.
  for (int i = 0;
       i < 10'000 && engine->await(id, std::chrono::milliseconds(0)).state == JobState::kQueued;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  engine->cancel(id);
  const JobResult r = engine->await(id, std::chrono::seconds(120));
  EXPECT_TRUE(r.state == JobState::kCancelled || r.state == JobState::kSucceeded)
      << job_state_name(r.state);
  ASSERT_TRUE(engine->wait_idle(std::chrono::seconds(60)));
  const EngineStatus s = engine->status();
  EXPECT_EQ(s.host_in_use, 0u);
  EXPECT_EQ(s.gpus.at(0).arena_in_use, 0u);
  for (const auto& k : s.keys) EXPECT_EQ(k.in_use, 0) << k.id;
  // And the engine still proves.
  JobSpec again;
  again.key_id = "bn";
  again.partitions = {test::input(c.witnesses[0])};
  const JobResult ra = engine->await(engine->submit(again), std::chrono::seconds(120));
  ASSERT_EQ(ra.state, JobState::kSucceeded) << ra.error_message;
  test::expect_verifies(c, ra.partitions[0], "after a cancellation");
  engine->shutdown(ShutdownMode::kDrain);
}

// The engine releases a by-value witness once prepare has copied it into pinned memory, and a
// partition handed to another GPU is prepared there from the witness its work rebuilds: that
// rebuild must give back the submitted .wtns (here byte for byte, as both come from one writer).
// One GPU cannot hand a partition to another, so this checks the rebuild directly.
TEST_F(CudaEngine, PreparedWorkRebuildsTheSubmittedWitness) {
  CUZK_SKIP_WITHOUT_GPU();
  const auto c = test::make_circuit<formats::Bls12_381>(dir_, cuzk::test::seed());
  auto backend = CudaBackend::create({});
  const auto key = backend->load_key({c.zkey_path}, KeyTier::kVram);
  const auto work = backend->prepare(*key, test::input(c.witnesses[0]), 0);
  ASSERT_TRUE(work->keeps_witness());
  const auto rebuilt = work->rebuild_witness();
  ASSERT_NE(rebuilt, nullptr);
  EXPECT_TRUE(*rebuilt == c.witnesses[0]) << "the rebuilt .wtns differs from the submitted one";
}

TEST_F(CudaEngine, AKeyTooLargeForTheVramBudgetProvesFromPinnedMemory) {
  CUZK_SKIP_WITHOUT_GPU();
  expect_pinned_key_proves<formats::Bn254>(dir_, cuzk::test::seed(), "bn");
  expect_pinned_key_proves<formats::Bls12_381>(dir_, cuzk::test::seed() + 1, "bls");
}

TEST_F(CudaEngine, TwoGpusProveFromOnePinnedCopyOfAKey) {
  CUZK_SKIP_WITHOUT_GPU();
  if (gpu::device_count() < 2) GTEST_SKIP() << "one GPU here: the two-GPU check needs two";
  const auto c = test::make_circuit<formats::Bls12_381>(dir_, cuzk::test::seed());
  auto backend = CudaBackend::create({});
  TierBytes charges;
  const EngineOptions o = pinned_key_options(*backend, c, 2, charges);
  auto engine = Engine::create(o, std::move(backend));
  engine->register_key("bls", {c.zkey_path});
  JobSpec spec;
  spec.key_id = "bls";
  for (int p = 0; p < 60; ++p) spec.partitions.push_back(test::input(c.witnesses[0]));
  const JobResult r = engine->await(engine->submit(spec), std::chrono::seconds(300));
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error_message;
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    test::expect_verifies(c, r.partitions[p], "partition " + std::to_string(p));
  }
  size_t on[2] = {0, 0};
  for (const auto& rec : engine->timeline().snapshot()) {
    if (rec.device >= 0 && rec.device < 2) ++on[rec.device];
  }
  std::printf("[engine] pinned key, 60 partitions: %zu on GPU 0, %zu on GPU 1\n", on[0], on[1]);
  EXPECT_GT(on[0], 0u);
  EXPECT_GT(on[1], 0u);
  const EngineStatus s = engine->status();
  EXPECT_EQ(s.keys.at(0).tier, KeyTier::kPinned);
  EXPECT_EQ(s.keys.at(0).charges, charges)
      << "the pinned budget holds the points once, not once per GPU";
  engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(CudaEngine, TwoGpusShareAJobAndAStoppedGpuLosesNothing) {
  CUZK_SKIP_WITHOUT_GPU();
  if (gpu::device_count() < 2) GTEST_SKIP() << "one GPU here: the two-GPU check needs two";
  const auto c = test::make_circuit<formats::Bls12_381>(dir_, cuzk::test::seed());
  auto engine = Engine::create(options(2), CudaBackend::create({}));
  engine->register_key("bls", {c.zkey_path});
  engine->preload_key("bls");
  JobSpec spec;
  spec.key_id = "bls";
  for (int p = 0; p < 200; ++p) spec.partitions.push_back(test::input(c.witnesses[0]));
  const JobId id = engine->submit(spec);
  const auto done_on = [&](int device) {
    size_t n = 0;
    for (const auto& r : engine->timeline().snapshot()) n += r.device == device;
    return n;
  };
  for (int i = 0; i < 60'000 && (done_on(0) < 3 || done_on(1) < 3); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GE(done_on(1), 3u) << "GPU 1 proved nothing";
  ASSERT_TRUE(engine->stop_gpu(1));
  const JobResult r = engine->await(id, std::chrono::seconds(300));
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error_message;
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    test::expect_verifies(c, r.partitions[p], "partition " + std::to_string(p));
  }
  const size_t on_0 = done_on(0), on_1 = done_on(1);
  std::printf("[engine] 200 partitions: %zu on GPU 0, %zu on GPU 1 (stopped mid-run)\n", on_0,
              on_1);
  EXPECT_EQ(on_0 + on_1, 200u) << "every partition completes once";
  ASSERT_TRUE(engine->wait_idle(std::chrono::seconds(60)));
  const EngineStatus s = engine->status();
  EXPECT_FALSE(s.gpus.at(1).in_service);
  for (const auto& g : s.gpus) EXPECT_EQ(g.arena_in_use, 0u) << "GPU " << g.device;
  engine->shutdown(ShutdownMode::kDrain);
}

}  // namespace
}  // namespace cuzk::engine
