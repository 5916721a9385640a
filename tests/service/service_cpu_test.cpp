// Real proofs through the daemon (cpu backend) on a unix socket: concurrent clients on both
// curves get proofs that cuzk's verifier accepts, and `snarkjs groth16 verify` too when the
// interop tests' node_modules are installed (scripts/setup.sh); bad witnesses get
// INVALID_ARGUMENT and the daemon keeps serving.

#include <cstdlib>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "groth16/json.hpp"
#include "groth16/verifier.hpp"
#include "tests/engine/real_proofs_suite.hpp"
#include "tests/service/service_test_support.hpp"
#include "tests/support/test_random.hpp"

// Debian's libtbb is not instrumented for ThreadSanitizer (see tests/engine/cpu_backend_test).
extern "C" const char* __tsan_default_suppressions() {
  return "race:libtbb.so\n"
         "race:tbb::detail\n";
}

namespace cuzk::service::test {
namespace {

using namespace std::chrono_literals;

template <class Curve>
struct Circuit {
  fs::path zkey;
  groth16::VerifyingKey<Curve> vk;
  std::string wtns, bad_wtns;  // .wtns bytes; the bad one breaks the last constraint
};

// The engine tests' circuit and development key (tests/engine/real_proofs_suite.hpp), its
// witnesses as the bytes a client sends.
template <class Curve>
Circuit<Curve> make_circuit(const fs::path& dir, uint64_t seed) {
  const auto e = engine::test::make_circuit<Curve>(dir, seed);
  Circuit<Curve> c;
  c.zkey = e.zkey_path;
  c.vk = e.vk;
  c.wtns.assign(e.witnesses[0].begin(), e.witnesses[0].end());
  c.bad_wtns.assign(e.bad_witness.begin(), e.bad_witness.end());
  return c;
}

template <class Curve>
bool verifies(const Circuit<Curve>& c, const v1::PartitionProof& p) {
  const auto proof = groth16::proof_from_json<Curve>(nlohmann::json::parse(p.proof()));
  const auto inputs =
      groth16::public_inputs_from_json<Curve>(nlohmann::json::parse(p.public_json()));
  return groth16::verify<Curve>(c.vk, inputs, proof);
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// `snarkjs groth16 verify` on one proof; "" when it accepts, else what went wrong.
template <class Curve>
std::string snarkjs_verify(const fs::path& dir, const Circuit<Curve>& c,
                           const v1::PartitionProof& p, const std::string& name) {
  const fs::path cli =
      fs::path(CUZK_SOURCE_DIR) / "tests/interop/snarkjs/node_modules/snarkjs/build/cli.cjs";
  write(dir / (name + "_vk.json"), groth16::snarkjs_text(groth16::verifying_key_to_json(c.vk)));
  write(dir / (name + "_proof.json"), p.proof());
  write(dir / (name + "_public.json"), p.public_json());
  const std::string node =
      std::string(CUZK_NODE_EXECUTABLE).empty() ? "node" : CUZK_NODE_EXECUTABLE;
  const fs::path log = dir / (name + "_snarkjs.log");
  const std::string command =
      node + " " + cli.string() + " groth16 verify " + (dir / (name + "_vk.json")).string() + " " +
      (dir / (name + "_public.json")).string() + " " + (dir / (name + "_proof.json")).string() +
      " > " + log.string() + " 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (rc != 0 || output.find("OK") == std::string::npos) {
    return "`" + command + "` exited " + std::to_string(rc) + ": " + output;
  }
  return "";
}

class CpuDaemon : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(scratch_dir());
    const uint64_t seed = cuzk::test::seed();
    bn_ = new Circuit<formats::Bn254>(make_circuit<formats::Bn254>(*dir_, seed));
    bls_ = new Circuit<formats::Bls12_381>(make_circuit<formats::Bls12_381>(*dir_, seed + 1));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete bn_;
    delete bls_;
    delete dir_;
  }
  void SetUp() override {
    config_.backend = "cpu";
    config_.socket =
        (*dir_ / (std::string("d-") +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".sock"))
            .string();
    config_.http_address = "";
    config_.log_level = "warn";
    config_.engine.cpu_workers = 2;
    config_.engine.host_bytes = uint64_t(1) << 30;
    config_.engine.keys.budgets = {{engine::KeyTier::kPinned, uint64_t(1) << 30}};
    config_.check_key_subgroups = false;  // keys made here
    config_.key_files = {{"bn", bn_->zkey}, {"bls", bls_->zkey}};
    config_.preload = {"bn"};
    daemon_ = Daemon::start(config_);
  }
  void TearDown() override { daemon_.reset(); }

  static v1::SubmitProofRequest job(const std::string& key, const std::string& wtns,
                                    int partitions) {
    v1::SubmitProofRequest r;
    r.set_key_id(key);
    for (int p = 0; p < partitions; ++p) r.add_partitions()->set_wtns(wtns);
    return r;
  }

  static fs::path* dir_;
  static Circuit<formats::Bn254>* bn_;
  static Circuit<formats::Bls12_381>* bls_;
  DaemonConfig config_;
  std::unique_ptr<Daemon> daemon_;
};

fs::path* CpuDaemon::dir_ = nullptr;
Circuit<formats::Bn254>* CpuDaemon::bn_ = nullptr;
Circuit<formats::Bls12_381>* CpuDaemon::bls_ = nullptr;

TEST_F(CpuDaemon, ConcurrentClientsGetProofsThatVerify) {
  constexpr int kClients = 6;
  std::vector<v1::ProofResult> results(kClients);
  std::vector<std::string> errors(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      try {
        Client client(unix_client(config_));
        const bool on_bn = c % 2 == 0;
        auto request = job(on_bn ? "bn" : "bls", on_bn ? bn_->wtns : bls_->wtns, 2);
        request.set_priority(v1::Priority(1 + c % 4));
        // Half of the clients use Prove, half SubmitProof + AwaitProof.
        results[c] =
            c % 4 < 2 ? client.prove(request, 300s) : client.await(client.submit(request), 300s);
      } catch (const std::exception& e) {
        errors[c] = e.what();
      }
    });
  }
  for (auto& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) {
    ASSERT_EQ(errors[c], "") << "client " << c;
    const auto& r = results[c];
    EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED) << "client " << c;
    ASSERT_EQ(r.partitions_size(), 2) << "client " << c;
    for (int p = 0; p < 2; ++p) {
      const bool ok =
          c % 2 == 0 ? verifies(*bn_, r.partitions(p)) : verifies(*bls_, r.partitions(p));
      EXPECT_TRUE(ok) << "client " << c << " partition " << p << ": cuzk's verifier rejects";
    }
    EXPECT_GT(r.timings().wall_ms(), 0) << "client " << c;
    EXPECT_GT(r.timings().sum().gpu_ms(), 0) << "client " << c << ": no MSM time reported";
  }

  const fs::path snarkjs = fs::path(CUZK_SOURCE_DIR) / "tests/interop/snarkjs/node_modules/snarkjs";
  if (!fs::exists(snarkjs / "build/cli.cjs")) {
    std::fprintf(stderr,
                 "[cuzk] %s not installed (scripts/setup.sh runs npm ci): the snarkjs check of "
                 "the daemon's proofs is skipped\n",
                 snarkjs.c_str());
    return;
  }
  EXPECT_EQ(snarkjs_verify(*dir_, *bn_, results[0].partitions(0), "bn"), "");
  EXPECT_EQ(snarkjs_verify(*dir_, *bls_, results[1].partitions(1), "bls"), "");
}

TEST_F(CpuDaemon, BadWitnessesAreInvalidArgumentAndTheDaemonKeepsServing) {
  Client client(unix_client(config_));
  std::string message;
  // A witness that does not satisfy the circuit (found when the proof is checked).
  EXPECT_EQ(code_of([&] { client.prove(job("bn", bn_->bad_wtns, 1), 300s); }, &message),
            grpc::StatusCode::INVALID_ARGUMENT)
      << message;
  // A witness of the other curve, and bytes that are no .wtns at all.
  EXPECT_EQ(code_of([&] { client.prove(job("bn", bls_->wtns, 1), 300s); }, &message),
            grpc::StatusCode::INVALID_ARGUMENT)
      << message;
  const uint64_t garbage = client.submit(job("bls", "not a witness", 1));
  EXPECT_EQ(code_of([&] { client.await(garbage, 300s); }, &message),
            grpc::StatusCode::INVALID_ARGUMENT)
      << message;
  // Refused at submission: an empty witness, a witness path that does not exist, no witness.
  EXPECT_EQ(code_of([&] { client.submit(job("bn", "", 1)); }, &message),
            grpc::StatusCode::INVALID_ARGUMENT)
      << message;
  v1::SubmitProofRequest by_path;
  by_path.set_key_id("bn");
  by_path.add_partitions()->set_path((*dir_ / "missing.wtns").string());
  EXPECT_EQ(code_of([&] { client.submit(by_path); }, &message), grpc::StatusCode::INVALID_ARGUMENT)
      << message;
  EXPECT_EQ(code_of([&] { client.submit(job("bn", bn_->wtns, 0)); }, &message),
            grpc::StatusCode::INVALID_ARGUMENT)
      << message;

  // Still serving: a witness given by path proves and verifies.
  write(*dir_ / "good.wtns", bn_->wtns);
  by_path.mutable_partitions(0)->set_path((*dir_ / "good.wtns").string());
  const auto r = client.prove(by_path, 300s);
  ASSERT_EQ(r.partitions_size(), 1);
  EXPECT_TRUE(verifies(*bn_, r.partitions(0)));
  const auto status = client.status();
  EXPECT_EQ(status.partitions_failed(), 3u);
  EXPECT_EQ(status.jobs_active(), 0u);
  EXPECT_EQ(status.host_in_use(), 0u);
}

}  // namespace
}  // namespace cuzk::service::test
