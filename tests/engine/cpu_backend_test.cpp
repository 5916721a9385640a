// Real proofs through the engine on the cpu backend (the suite in real_proofs_suite.hpp), and
// a missing key file.

#include <gtest/gtest.h>

#include <unistd.h>

#include "engine/cpu_backend.hpp"
#include "engine/engine.hpp"
#include "tests/engine/assignment_suite.hpp"
#include "tests/engine/real_proofs_suite.hpp"

// ThreadSanitizer builds: Debian's libtbb is not instrumented, so TSAN cannot see the
// synchronization inside oneTBB's task scheduler and reports the parallel loops of the CPU
// prover and setup (src/groth16, src/msm) as races. Reports with a oneTBB frame in either stack
// are suppressed here; the engine's own threads are std::threads and stay fully checked (and
// engine_test, which does not prove on the CPU, runs with no suppression at all).
extern "C" const char* __tsan_default_suppressions() {
  return "race:libtbb.so\n"
         "race:tbb::detail\n";
}

namespace cuzk::engine {
namespace {

namespace fs = std::filesystem;

class CpuEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cuzk_engine_cpu_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(CpuEngine, ConcurrentClientsGetVerifiedProofsOnBothCurves) {
  EngineOptions o;
  o.cpu_workers = 2;
  o.host_bytes = uint64_t(1) << 30;
  o.keys.budgets = {{KeyTier::kPinned, uint64_t(1) << 30}};
  CpuOptions cpu;
  auto engine = Engine::create(o, CpuBackend::create(cpu));
  test::run_real_proofs_suite(engine.get(), dir_, "cpu", KeyTier::kPinned);
  engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(CpuEngine, BellmanParamsKeyWithItsR1csProves) {
  EngineOptions o;
  o.cpu_workers = 2;
  o.host_bytes = uint64_t(1) << 30;
  o.keys.budgets = {{KeyTier::kPinned, uint64_t(1) << 30}};
  auto engine = Engine::create(o, CpuBackend::create({}));
  test::run_bellman_key_suite(engine.get(), dir_, test::make_bellman_key(dir_), KeyTier::kPinned);
  engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(CpuEngine, BellmanAssignmentsProveWithAParamsKeyAlone) {
  EngineOptions o;
  o.cpu_workers = 2;
  o.host_bytes = uint64_t(1) << 30;
  o.keys.budgets = {{KeyTier::kPinned, uint64_t(1) << 30}};
  auto engine = Engine::create(o, CpuBackend::create({}));
  test::run_bellman_assignment_suite(engine.get(), test::make_assignment_key(dir_),
                                     KeyTier::kPinned);
  engine->shutdown(ShutdownMode::kDrain);
}

TEST_F(CpuEngine, MissingKeyFileIsNotFound) {
  EngineOptions o;
  o.host_bytes = uint64_t(1) << 30;
  o.keys.budgets = {{KeyTier::kPinned, uint64_t(1) << 30}};
  auto engine = Engine::create(o, CpuBackend::create({}));
  try {
    engine->register_key("missing", {dir_ / "nope.zkey"});
    FAIL() << "a missing key file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound) << e.what();
  }
}

}  // namespace
}  // namespace cuzk::engine
