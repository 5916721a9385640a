#include "service/daemon.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cuzk/v1/proving_engine.pb.h"
#include "engine/backend_factory.hpp"
#include "groth16/key_file.hpp"
#include "service/convert.hpp"
#include "service/log.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A key file of a key directory: a .zkey, or a bellman .params (whose .r1cs, by the same stem,
// sits beside it: groth16/key_file.hpp).
bool is_key_file(const fs::directory_entry& entry) {
  return groth16::is_key_file_name(entry.path()) && entry.is_regular_file();
}

// The keys the config registers at start-up, as (id, path): every key file of key_directory
// (id: the file name's stem), then key_files. kNotFound when the directory does not exist.
std::vector<std::pair<std::string, fs::path>> configured_keys(const DaemonConfig& c) {
  std::vector<std::pair<std::string, fs::path>> keys;
  if (!c.key_directory.empty()) {
    if (!fs::is_directory(c.key_directory)) {
      CUZK_THROW(ErrorKind::kNotFound,
                 "key directory '" + c.key_directory.string() + "' does not exist");
    }
    for (const auto& entry : fs::directory_iterator(c.key_directory)) {
      if (is_key_file(entry)) keys.emplace_back(entry.path().stem().string(), entry.path());
    }
  }
  for (const auto& [id, path] : c.key_files) keys.emplace_back(id, path);
  return keys;
}

// Key budgets when the config names none (engine::default_key_budgets), sized for the
// configured keys.
std::map<engine::KeyTier, uint64_t> default_budgets(const engine::Backend& backend,
                                                    const DaemonConfig& config) {
  std::vector<engine::KeySource> keys;
  for (const auto& [id, path] : configured_keys(config)) keys.push_back({path});
  return engine::default_key_budgets(backend, keys, config.engine.workers_per_gpu,
                                     config.engine.vram_margin_bytes);
}

// Registers the configured keys; returns each key's witness bound: what one partition of it
// takes in host memory, which a witness file never exceeds.
std::map<std::string, uint64_t> register_keys(engine::Engine& engine, const DaemonConfig& c) {
  std::map<std::string, uint64_t> bounds;
  const auto add = [&](const std::string& id, const engine::KeySource& source) {
    engine.register_key(id, source);
    bounds[id] = engine.backend().partition_host_bytes(source);
  };
  for (const auto& [id, path] : configured_keys(c)) {
    add(id, {path});
    log_info("key_registered").kv("key", id).kv("path", path.string());
  }
  for (const auto& [id, constraints] : c.sim_keys) {
    add(id, {fs::path("sim") / id, constraints});
    log_info("key_registered").kv("key", id).kv("sim_constraints", constraints);
  }
  return bounds;
}

// The backend the config names (engine::make_backend: auto is the GPUs where present).
std::unique_ptr<engine::Backend> make_backend(const DaemonConfig& config) {
  return engine::make_backend(service::backend_choice(config));
}

}  // namespace

Daemon::Daemon(const DaemonConfig& config) : config_(config) {}

std::unique_ptr<Daemon> Daemon::start(const DaemonConfig& config) {
  validate(config);
  set_log_level(parse_log_level(config.log_level));
  std::unique_ptr<Daemon> d(new Daemon(config));
  engine::EngineOptions options = config.engine;
  std::unique_ptr<engine::Backend> backend = make_backend(config);
  if (options.keys.budgets.empty()) options.keys.budgets = default_budgets(*backend, config);
  log_info("backend").kv("name", backend->name()).kv("gpus", backend->device_count());
  d->engine_ = engine::Engine::create(options, std::move(backend));
  const auto witness_bounds = register_keys(*d->engine_, config);
  d->engine_->resume();  // the jobs the journal held unfinished, now that their keys are known
  for (const auto& id : config.preload) {
    const auto t0 = engine::Clock::now();
    d->engine_->preload_key(id);
    for (const auto& k : d->engine_->status().keys) {
      if (k.id != id) continue;
      log_info("key_preloaded")
          .kv("key", id)
          .kv("tier", engine::key_tier_name(k.tier))
          .kv("bytes", k.bytes)
          .kv("ms", std::chrono::duration<double, std::milli>(engine::Clock::now() - t0).count());
    }
  }

  ServerOptions server;
  server.unix_socket = config.socket;
  server.socket_mode = config.socket_mode;
  server.tcp_address = config.tcp_address;
  if (!config.token.empty()) server.tokens.push_back(config.token);
  server.tokens.insert(server.tokens.end(), config.tokens.begin(), config.tokens.end());
  server.admin_token = config.admin_token;
  server.insecure_no_token = config.insecure_no_token;
  server.allow_paths_over_tcp = config.allow_paths_over_tcp;
  server.paths_no_follow = config.paths_no_follow;
  server.max_partitions_per_request = config.max_partitions_per_request;
  server.grpc_memory_bytes = config.grpc_memory_bytes;
  server.grpc_max_threads = config.grpc_max_threads;
  // The largest request: the largest witness any configured key takes, in every partition of
  // a job, with room for the message's own fields.
  uint64_t largest_witness = 0;
  for (const auto& [id, bytes] : witness_bounds) largest_witness = std::max(largest_witness, bytes);
  const uint64_t kEnvelope = 1 << 20;
  server.max_receive_bytes =
      largest_witness > (UINT64_MAX - kEnvelope) / config.max_partitions_per_request
          ? UINT64_MAX
          : largest_witness * config.max_partitions_per_request + kEnvelope;
  server.witness_bounds = witness_bounds;
  d->server_ = Server::start(*d->engine_, server);
  if (!config.http_address.empty()) {
    HttpOptions http;
    http.timeout = std::chrono::milliseconds(std::llround(config.http_timeout_s * 1000));
    d->http_ = HttpServer::start(
        config.http_address,
        [raw = d.get()](const std::string& path) { return raw->http_answer(path); }, http);
  }
  if (!config.timeline_file.empty()) {
    d->timeline_thread_ = std::thread([raw = d.get()] { raw->timeline_loop(); });
  }
  const auto s = d->engine_->status();
  log_info("daemon_started")
      .kv("backend", s.backend)
      .kv("gpus", s.gpus.size())
      .kv("workers_per_gpu", config.engine.workers_per_gpu)
      .kv("prepare_ahead", config.engine.prepare_ahead)
      .kv("group_partitions", config.engine.group_partitions)
      .kv("cpu_workers", s.cpu_workers)
      .kv("queue_capacity", s.queue_capacity)
      .kv("keys", s.keys.size())
      .kv("socket", config.socket)
      .kv("tcp", config.tcp_address.empty() ? std::string() : config.tcp_address)
      .kv("tcp_port", d->tcp_port())
      .kv("token", !config.token.empty())
      .kv("http_port", d->http_port());
  return d;
}

Daemon::~Daemon() {
  // A daemon that failed half-way through start has no server; there is nothing to drain.
  if (server_) stop();
}

void Daemon::force_cancel() { force_ = true; }

bool Daemon::stop() {
  std::lock_guard lock(stop_mutex_);
  if (stopped_) return drained_;
  stopped_ = true;
  server_->stop_accepting();
  const auto before = engine_->status();
  log_info("drain_begin")
      .kv("jobs_active", before.jobs_active)
      .kv("queued_partitions", before.queued)
      .kv("timeout_s", config_.drain_timeout_s);
  const auto deadline =
      engine::Clock::now() + std::chrono::duration_cast<engine::Clock::duration>(
                                 std::chrono::duration<double>(config_.drain_timeout_s));
  bool idle = false;
  while (!(idle = engine_->wait_idle(100ms))) {
    if (force_ || engine::Clock::now() >= deadline) break;
  }
  if (idle) {
    engine_->shutdown(engine::ShutdownMode::kDrain);
  } else {
    log_warn("drain_cancel")
        .kv("reason", force_ ? "second signal" : "timeout")
        .kv("jobs_active", engine_->status().jobs_active);
    engine_->shutdown(engine::ShutdownMode::kCancel);
  }
  drained_ = idle;
  server_->shutdown(2s);
  if (http_) http_->stop();
  if (timeline_thread_.joinable()) {
    {
      std::lock_guard wake(timeline_mutex_);
      timeline_stop_ = true;
    }
    timeline_wake_.notify_all();
    timeline_thread_.join();
  }
  if (!config_.timeline_file.empty()) write_timeline();
  const auto after = engine_->status();
  log_info("daemon_stopped")
      .kv("drained", idle)
      .kv("partitions_succeeded", after.partitions_succeeded)
      .kv("partitions_failed", after.partitions_failed)
      .kv("partitions_cancelled", after.partitions_cancelled);
  return idle;
}

HttpResponse Daemon::http_answer(const std::string& path) {
  if (path == "/metrics") {
    return {200, "text/plain; version=0.0.4; charset=utf-8",
            engine_->metrics_text() + server_->metrics_text()};
  }
  if (path == "/status") {
    auto status = engine_->status();
    status.accepting = status.accepting && server_->accepting();
    v1::EngineStatus message;
    status_to_proto(status, std::chrono::duration<double>(engine::Clock::now() - started_).count(),
                    message);
    return {200, "application/json", to_json(message, true) + "\n"};
  }
  if (path == "/") return {200, "text/plain; charset=utf-8", "cuzk: /metrics /status\n"};
  return {404, "text/plain; charset=utf-8", "not found: " + path + " (try /metrics, /status)\n"};
}

void Daemon::timeline_loop() {
  std::unique_lock lock(timeline_mutex_);
  const auto period = std::chrono::duration<double>(config_.timeline_flush_s);
  while (!timeline_wake_.wait_for(lock, period, [&] { return timeline_stop_; })) {
    lock.unlock();
    write_timeline();
    lock.lock();
  }
}

// The whole timeline (the engine keeps the last 65,536 partitions) replaces the file, so a
// reader never sees half a file; times are microseconds since the daemon started.
void Daemon::write_timeline() {
  const fs::path target(config_.timeline_file);
  const fs::path temporary = target.string() + ".tmp";
  try {
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out << engine_->timeline().to_json_lines(started_);
      if (!out) throw std::runtime_error("write failed");
    }
    fs::rename(temporary, target);
  } catch (const std::exception& e) {
    log_warn("timeline_write_failed").kv("path", target.string()).kv("error", e.what());
  }
}

}  // namespace cuzk::service
