// `cuzk serve`: the proving daemon (src/service/daemon.hpp). Options come from a TOML file
// (--config; deploy/cuzk.toml documents each) and these flags, which override the file.
// SIGTERM or SIGINT drains: new jobs are refused, accepted ones finish (up to the drain
// timeout, or until a second signal), the rest are cancelled; then the process exits 0.
// Start-up errors exit 2 (bad configuration, missing key file) or 1.

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <pthread.h>

#include "cli/commands.hpp"
#include "service/config.hpp"
#include "service/daemon.hpp"
#include "service/log.hpp"
#include "util/error.hpp"

namespace cuzk::cli {
namespace {

struct ServeFlags {
  std::string config;
  std::string socket, address, token, token_file, tokens_file, admin_token_file, http, log_level,
      timeline, backend, key_dir, journal;
  bool insecure_no_token = false;
  std::vector<std::string> allow_paths_over_tcp;
  int workers_per_gpu = 0, cpu_workers = 0, sim_gpus = 0;
  uint64_t queue_capacity = 0;
  double retention_s = -1, drain_timeout_s = -1, sim_kernel_ns = -1;
  std::string host_budget;
  std::vector<std::string> keys, preload, key_budgets, sim_keys;
};

std::pair<std::string, std::string> split_pair(const std::string& text, const char* flag) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    CUZK_INVALID_INPUT(std::string(flag) + " '" + text + "': expected NAME=VALUE");
  }
  return {text.substr(0, eq), text.substr(eq + 1)};
}

service::DaemonConfig make_config(const ServeFlags& f, CLI::App& cmd) {
  service::DaemonConfig c =
      f.config.empty() ? service::DaemonConfig{} : service::load_config(f.config);
  const auto given = [&](const char* name) { return cmd.count(name) > 0; };
  if (given("--socket")) c.socket = f.socket;
  if (given("--address")) c.tcp_address = f.address;
  if (given("--token")) c.token = f.token;
  if (given("--token-file")) c.token = service::read_token_file(f.token_file, "--token-file");
  if (given("--tokens-file")) c.tokens = service::read_tokens_file(f.tokens_file, "--tokens-file");
  if (given("--admin-token-file")) {
    c.admin_token = service::read_token_file(f.admin_token_file, "--admin-token-file");
  }
  if (given("--insecure-no-token")) c.insecure_no_token = f.insecure_no_token;
  for (const auto& dir : f.allow_paths_over_tcp) c.allow_paths_over_tcp.emplace_back(dir);
  if (given("--http")) c.http_address = f.http;
  if (given("--log-level")) c.log_level = f.log_level;
  if (given("--timeline")) c.timeline_file = f.timeline;
  if (given("--backend")) c.backend = f.backend;
  if (given("--workers-per-gpu")) c.engine.workers_per_gpu = f.workers_per_gpu;
  if (given("--cpu-workers")) c.engine.cpu_workers = f.cpu_workers;
  if (given("--queue-capacity")) c.engine.queue_capacity = f.queue_capacity;
  if (given("--retention")) {
    // validate() bounds it; a negative or absurd value is refused there, not wrapped here.
    if (!(f.retention_s >= 0 && f.retention_s <= 1e9)) {
      CUZK_INVALID_INPUT("--retention " + std::to_string(f.retention_s) + ": expected seconds ≥ 0");
    }
    c.engine.result_retention = std::chrono::milliseconds(std::llround(f.retention_s * 1000));
  }
  if (given("--drain-timeout")) c.drain_timeout_s = f.drain_timeout_s;
  if (given("--host-budget"))
    c.engine.host_bytes = service::parse_size(f.host_budget, "--host-budget");
  if (given("--key-dir")) c.key_directory = f.key_dir;
  if (given("--journal")) c.engine.journal_path = f.journal;
  for (const auto& k : f.keys) {
    auto [id, path] = split_pair(k, "--key");
    c.key_files[id] = path;
  }
  for (const auto& b : f.key_budgets) {
    auto [tier, size] = split_pair(b, "--key-budget");
    const uint64_t bytes = service::parse_size(size, "--key-budget " + tier);
    if (tier == "vram")
      c.engine.keys.budgets[engine::KeyTier::kVram] = bytes;
    else if (tier == "pinned")
      c.engine.keys.budgets[engine::KeyTier::kPinned] = bytes;
    else if (tier == "mmap")
      c.engine.keys.budgets[engine::KeyTier::kMmap] = bytes;
    else
      CUZK_INVALID_INPUT("--key-budget: tier '" + tier + "': use vram, pinned or mmap");
  }
  for (const auto& p : f.preload) c.preload.push_back(p);
  if (given("--sim-gpus")) c.sim.gpus = f.sim_gpus;
  if (given("--sim-kernel-ns")) c.sim.kernel_ns_per_constraint = f.sim_kernel_ns;
  for (const auto& k : f.sim_keys) {
    auto [id, constraints] = split_pair(k, "--sim-key");
    try {
      c.sim_keys[id] = std::stoull(constraints);
    } catch (const std::exception&) {
      CUZK_INVALID_INPUT("--sim-key " + k + ": the constraint count is not a number");
    }
  }
  return c;
}

// Signals are taken with sigwait by this thread: they are blocked before any other thread
// starts (gRPC's, the engine's, oneTBB's inherit the mask), so no handler runs at an
// arbitrary point and the drain runs on ordinary threads.
int serve(const ServeFlags& flags, CLI::App& cmd) {
  const auto config = make_config(flags, cmd);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto daemon = service::Daemon::start(config);
  int signal = 0;
  while (sigwait(&signals, &signal) != 0) {
  }
  service::log_info("signal")
      .kv("signal", signal == SIGTERM ? "SIGTERM" : "SIGINT")
      .kv("action", "drain");
  std::atomic<bool> done{false};
  // An exception leaving a thread's function ends the process with std::terminate: the drain's
  // failures are logged here and the process still exits through the path below.
  std::thread stopper([&] {
    try {
      daemon->stop();
    } catch (const std::exception& e) {
      service::log_error("drain_failed").kv("error", e.what());
    } catch (...) {
      service::log_error("drain_failed").kv("error", "unknown exception");
    }
    done = true;
  });
  // A second signal while draining cancels what is left.
  while (!done) {
    const timespec slice{0, 200'000'000};
    const int again = sigtimedwait(&signals, nullptr, &slice);
    if (again > 0) {
      service::log_warn("signal")
          .kv("signal", again == SIGTERM ? "SIGTERM" : "SIGINT")
          .kv("action", "cancel");
      daemon->force_cancel();
    }
  }
  stopper.join();
  daemon.reset();
  return kExitOk;
}

}  // namespace

void add_serve_command(CLI::App& app, int& exit_code) {
  auto flags = std::make_shared<ServeFlags>();
  auto* cmd = app.add_subcommand("serve", "run the proving daemon (gRPC cuzk.v1.ProvingEngine)");
  cmd->add_option("--config", flags->config, "TOML configuration (deploy/cuzk.toml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--socket", flags->socket, "unix socket path (\"\" for none)");
  cmd->add_option("--address", flags->address, "TCP host:port to listen on");
  cmd->add_option("--token", flags->token, "bearer token required from TCP clients");
  cmd->add_option("--token-file", flags->token_file, "read the token from this file");
  cmd->add_option("--tokens-file", flags->tokens_file,
                  "client tokens, one per line: each its own client, owning its jobs");
  cmd->add_option("--admin-token-file", flags->admin_token_file,
                  "a token that may see and cancel every client's jobs and manage keys");
  cmd->add_flag("--insecure-no-token", flags->insecure_no_token,
                "allow a TCP listener without a token (anyone reaching the port may submit)");
  cmd->add_option("--allow-paths-over-tcp", flags->allow_paths_over_tcp,
                  "a directory whose witness/key paths TCP clients may name (repeatable)");
  cmd->add_option("--http", flags->http, "host:port for HTTP /metrics and /status (\"\" for none)");
  cmd->add_option("--log-level", flags->log_level, "debug, info, warn or error");
  cmd->add_option("--timeline", flags->timeline, "file for the timeline (JSON lines)");
  cmd->add_option("--backend", flags->backend,
                  "cuda, cpu, auto (cuda when a GPU is present) or sim");
  cmd->add_option("--workers-per-gpu", flags->workers_per_gpu, "workers per GPU, 1..4");
  cmd->add_option("--cpu-workers", flags->cpu_workers, "proofs at once without a GPU");
  cmd->add_option("--queue-capacity", flags->queue_capacity, "queued partitions at most");
  cmd->add_option("--retention", flags->retention_s, "seconds a result is kept for AwaitProof");
  cmd->add_option("--drain-timeout", flags->drain_timeout_s,
                  "seconds SIGTERM waits for accepted jobs before cancelling them");
  cmd->add_option("--host-budget", flags->host_budget, "host bytes for partitions (\"64GiB\")");
  cmd->add_option("--key-dir", flags->key_dir,
                  "register every *.zkey, and every *.params with its .r1cs, here (id = stem)");
  cmd->add_option("--journal", flags->journal,
                  "the durable job journal (SQLite file); jobs and results survive restarts");
  cmd->add_option("--key", flags->keys, "register a key: ID=PATH (repeatable)");
  cmd->add_option("--key-budget", flags->key_budgets, "TIER=SIZE, tier vram|pinned|mmap");
  cmd->add_option("--preload", flags->preload, "load this key at start (repeatable)");
  cmd->add_option("--sim-gpus", flags->sim_gpus, "sim: simulated GPUs");
  cmd->add_option("--sim-kernel-ns", flags->sim_kernel_ns, "sim: kernel ns per constraint");
  cmd->add_option("--sim-key", flags->sim_keys, "sim: a modeled key ID=CONSTRAINTS");
  cmd->callback([flags, cmd, &exit_code] { exit_code = serve(*flags, *cmd); });
}

}  // namespace cuzk::cli
