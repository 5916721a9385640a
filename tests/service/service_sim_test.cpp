// The service's contract on the sim backend (fast, timed partitions): status codes
// (NOT_FOUND, RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE, UNAUTHENTICATED),
// idempotent request ids, Prove cancelling its job when the caller goes away, the unix
// socket's mode, HTTP /metrics and /status, and the drain of Daemon::stop.

#include <sys/stat.h>

#include <future>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/service/service_test_support.hpp"

namespace cuzk::service::test {
namespace {

using namespace std::chrono_literals;
using grpc::StatusCode;

// Waits until `done` holds or ~10 s pass.
template <class Pred>
bool eventually(Pred&& done) {
  for (int i = 0; i < 200; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return done();
}

TEST(ServiceSim, SubmitAwaitAndTheErrorCodes) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir, 2000.0);  // "slow": 2 s per partition, "fast": 2 ms
  config.sim_keys["fast"] = 1000;
  auto daemon = Daemon::start(config);
  Client client(unix_client(config));
  std::string message;

  const auto r = client.await(client.submit(sim_job("fast", 3)), 30s);
  EXPECT_EQ(r.state(), v1::JOB_STATE_SUCCEEDED);
  ASSERT_EQ(r.partitions_size(), 3);
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(r.partitions(p).proof_format(), v1::PROOF_FORMAT_SIM_TOKEN);
    EXPECT_EQ(r.partitions(p).proof(), "sim-proof:witness" + std::to_string(p))
        << "partition " << p << " got another partition's result";
  }

  EXPECT_EQ(code_of([&] { client.submit(sim_job("nope", 1)); }, &message), StatusCode::NOT_FOUND)
      << message;
  EXPECT_EQ(code_of([&] { client.await(987654, 0ms); }, &message), StatusCode::NOT_FOUND)
      << message;
  EXPECT_EQ(code_of([&] { client.cancel(987654); }, &message), StatusCode::NOT_FOUND) << message;
  EXPECT_EQ(code_of([&] { client.preload("nope"); }, &message), StatusCode::NOT_FOUND) << message;
  auto bad_priority = sim_job("fast", 1);
  bad_priority.set_priority(v1::Priority(17));
  EXPECT_EQ(code_of([&] { client.submit(bad_priority); }, &message), StatusCode::INVALID_ARGUMENT)
      << message;
  // The sim backend refuses witnesses starting with "bad" (as a real backend a malformed one).
  const auto bad = client.submit(sim_job("fast", 2, "bad"));
  EXPECT_EQ(code_of([&] { client.await(bad, 30s); }, &message), StatusCode::INVALID_ARGUMENT)
      << message;

  // A slow job: a short await is DEADLINE_EXCEEDED, the job goes on; cancelled, it is CANCELLED.
  const auto slow = client.submit(sim_job("slow", 1));
  EXPECT_EQ(code_of([&] { client.await(slow, 50ms); }, &message), StatusCode::DEADLINE_EXCEEDED)
      << message;
  EXPECT_TRUE(client.cancel(slow));
  EXPECT_EQ(code_of([&] { client.await(slow, 30s); }, &message), StatusCode::CANCELLED) << message;
  EXPECT_FALSE(client.cancel(slow)) << "a final job cannot be cancelled again";

  const auto key = client.preload("fast");
  EXPECT_EQ(key.id(), "fast");
  EXPECT_NE(key.tier(), "disk");
  EXPECT_TRUE(client.evict("fast"));
  EXPECT_EQ(client.status().backend(), "sim");
  EXPECT_TRUE(daemon->stop()) << "nothing was left to cancel";
}

TEST(ServiceSim, StatusNamesWhatAKeyTakesFromEachBudget) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir);
  // 1,000,000 constraints: a key of 1,024,000,000 bytes, which keeps 16,000,000 of VRAM when it
  // lives in pinned memory; the VRAM budget cannot hold the whole key.
  config.sim.key_bytes_per_constraint = 1024;
  config.sim.host_key_vram_bytes_per_constraint = 16;
  config.engine.keys.budgets = {{engine::KeyTier::kVram, uint64_t(512) << 20},
                                {engine::KeyTier::kPinned, uint64_t(4) << 30}};
  auto daemon = Daemon::start(config);
  Client client(unix_client(config));

  using Charges = std::map<std::string, uint64_t>;
  const auto charges_of = [](const v1::KeyStatus& k) {
    return Charges(k.charges().begin(), k.charges().end());
  };
  const auto preloaded = client.preload("slow");
  EXPECT_EQ(preloaded.tier(), "pinned");
  EXPECT_EQ(preloaded.bytes(), 1'024'000'000u);
  const Charges expected{{"pinned", 1'024'000'000u}, {"vram", 16'000'000u}};
  EXPECT_EQ(charges_of(preloaded), expected);
  const auto status = client.status();
  ASSERT_EQ(status.keys_size(), 1);
  EXPECT_EQ(charges_of(status.keys(0)), expected);
  for (const auto& t : status.key_tiers()) {
    const auto charged = expected.find(t.tier());
    EXPECT_EQ(t.used(), charged == expected.end() ? 0 : charged->second) << t.tier();
  }

  EXPECT_TRUE(client.evict("slow"));
  EXPECT_EQ(client.status().keys(0).charges_size(), 0) << "an evicted key charges nothing";
}

TEST(ServiceSim, IdempotentRequestIds) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir, 200.0);
  auto daemon = Daemon::start(config);
  Client client(unix_client(config));
  auto request = sim_job("slow", 1);
  request.set_request_id("req-1");
  const auto first = client.submit(request);
  EXPECT_EQ(client.submit(request), first) << "the same request id queued a second job";
  request.set_request_id("req-2");
  const auto second = client.submit(request);
  EXPECT_NE(second, first);
  EXPECT_EQ(client.await(first, 30s).state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(client.await(second, 30s).state(), v1::JOB_STATE_SUCCEEDED);
  EXPECT_EQ(client.status().partitions_succeeded(), 2u) << "one job per request id";
}

TEST(ServiceSim, AFullQueueIsResourceExhausted) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir, 2000.0);  // one worker, 2 s per partition
  config.engine.queue_capacity = 2;
  auto daemon = Daemon::start(config);
  Client client(unix_client(config));
  std::string message;
  EXPECT_EQ(code_of([&] { client.submit(sim_job("slow", 3)); }, &message),
            StatusCode::RESOURCE_EXHAUSTED)
      << "a job larger than the queue: " << message;
  // At most four: one partition runs, one is prepared ahead (EngineOptions::prepare_ahead)
  // and two wait in the queue.
  std::vector<uint64_t> accepted;
  StatusCode refused = StatusCode::OK;
  for (int i = 0; i < 6 && refused == StatusCode::OK; ++i) {
    refused = code_of([&] { accepted.push_back(client.submit(sim_job("slow", 1))); }, &message);
  }
  EXPECT_EQ(refused, StatusCode::RESOURCE_EXHAUSTED) << message;
  EXPECT_LE(accepted.size(), 4u);
  const auto metrics = client.metrics();
  EXPECT_NE(metrics.find("cuzk_jobs_refused_total{reason=\"queue_full\"}"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("cuzk_rpc_total{method=\"SubmitProof\",code=\"RESOURCE_EXHAUSTED\"}"),
            std::string::npos)
      << metrics;
  for (auto id : accepted) client.cancel(id);
}

TEST(ServiceSim, ProveCancelsItsJobWhenTheCallerGoesAway) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir, 3000.0);
  auto daemon = Daemon::start(config);
  ClientOptions short_calls = unix_client(config);
  short_calls.call_timeout = 300ms;  // the call's deadline passes long before the proof
  Client impatient(short_calls);
  EXPECT_EQ(code_of([&] { impatient.prove(sim_job("slow", 1), 0ms); }),
            StatusCode::DEADLINE_EXCEEDED);
  Client client(unix_client(config));
  EXPECT_TRUE(eventually([&] { return client.status().jobs_active() == 0; }))
      << "the abandoned job is still active";
  const auto s = client.status();
  EXPECT_EQ(s.partitions_cancelled(), 1u);
  EXPECT_EQ(s.host_in_use(), 0u);
  ASSERT_EQ(s.gpus_size(), 1);
  EXPECT_EQ(s.gpus(0).arena_in_use(), 0u) << "a VRAM slot was left behind";
}

TEST(ServiceSim, TcpTokenAndSocketMode) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir);
  config.sim_keys["fast"] = 1000;
  config.tcp_address = "127.0.0.1:0";
  config.token = "s3cret-token";
  auto daemon = Daemon::start(config);
  ASSERT_GT(daemon->tcp_port(), 0);

  struct stat st {};
  ASSERT_EQ(::stat(config.socket.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);

  ClientOptions tcp;
  tcp.address = "127.0.0.1:" + std::to_string(daemon->tcp_port());
  std::string message;
  EXPECT_EQ(code_of([&] { Client(tcp).status(); }, &message), StatusCode::UNAUTHENTICATED)
      << "no token: " << message;
  tcp.token = "s3cret-tokeN";
  EXPECT_EQ(code_of([&] { Client(tcp).submit(sim_job("fast", 1)); }, &message),
            StatusCode::UNAUTHENTICATED)
      << "wrong token: " << message;
  tcp.token = config.token;
  Client good(tcp);
  EXPECT_EQ(good.await(good.submit(sim_job("fast", 1)), 30s).state(), v1::JOB_STATE_SUCCEEDED);
  // The unix socket needs no token: its file mode is the access control.
  EXPECT_EQ(Client(unix_client(config)).status().backend(), "sim");
}

TEST(ServiceSim, HttpMetricsAndStatus) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir);
  config.sim_keys["fast"] = 1000;
  config.http_address = "127.0.0.1:0";
  auto daemon = Daemon::start(config);
  ASSERT_GT(daemon->http_port(), 0);
  Client client(unix_client(config));
  client.await(client.submit(sim_job("fast", 2)), 30s);

  const auto metrics = http_request(daemon->http_port(), "GET", "/metrics");
  EXPECT_EQ(metrics.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << metrics;
  EXPECT_NE(metrics.find("Content-Type: text/plain; version=0.0.4"), std::string::npos);
  EXPECT_NE(metrics.find("# TYPE cuzk_jobs_submitted_total counter"), std::string::npos);
  EXPECT_NE(metrics.find("cuzk_jobs_submitted_total{priority=\"normal\"} 1"), std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("cuzk_partitions_completed_total{outcome=\"succeeded\"} 2"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("cuzk_rpc_total{method=\"SubmitProof\",code=\"OK\"} 1"), std::string::npos)
      << metrics;

  const auto status = http_request(daemon->http_port(), "GET", "/status");
  ASSERT_EQ(status.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << status;
  const auto json = nlohmann::json::parse(status.substr(status.find("\r\n\r\n") + 4));
  EXPECT_EQ(json["backend"], "sim");
  EXPECT_EQ(json["accepting"], true);
  EXPECT_EQ(json["gpus"].size(), 1u);

  EXPECT_EQ(http_request(daemon->http_port(), "GET", "/nope").rfind("HTTP/1.1 404", 0), 0u);
  EXPECT_EQ(http_request(daemon->http_port(), "POST", "/metrics").rfind("HTTP/1.1 405", 0), 0u);
  const auto head = http_request(daemon->http_port(), "HEAD", "/metrics");
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u);
  EXPECT_EQ(head.substr(head.find("\r\n\r\n") + 4), "") << "HEAD has no body";
}

TEST(ServiceSim, StopDrainsAcceptedJobsAndRefusesNewOnes) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir, 1000.0);
  auto daemon = Daemon::start(config);
  Client client(unix_client(config));
  const auto job = client.submit(sim_job("slow", 1));
  auto result = std::async(std::launch::async, [&] { return client.await(job, 30s); });
  auto stopped = std::async(std::launch::async, [&] { return daemon->stop(); });
  ASSERT_TRUE(eventually([&] { return !client.status().accepting(); }));
  std::string message;
  EXPECT_EQ(code_of([&] { client.submit(sim_job("slow", 1)); }, &message), StatusCode::UNAVAILABLE)
      << message;
  EXPECT_EQ(result.get().state(), v1::JOB_STATE_SUCCEEDED) << "the accepted job was not drained";
  EXPECT_TRUE(stopped.get());
  EXPECT_FALSE(fs::exists(config.socket)) << "the socket file is removed at exit";
}

TEST(ServiceSim, DrainTimeoutCancelsWhatIsLeft) {
  const auto dir = scratch_dir();
  auto config = sim_config(dir, 5000.0);
  config.drain_timeout_s = 0.3;
  config.timeline_file = (dir / "timeline.jsonl").string();
  auto daemon = Daemon::start(config);
  Client client(unix_client(config));
  const auto job = client.submit(sim_job("slow", 2));
  auto result =
      std::async(std::launch::async, [&] { return code_of([&] { client.await(job, 30s); }); });
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(daemon->stop()) << "the drain should have timed out";
  EXPECT_EQ(result.get(), StatusCode::CANCELLED);
  EXPECT_TRUE(fs::exists(config.timeline_file)) << "the timeline is written at stop";
}

}  // namespace
}  // namespace cuzk::service::test
