#pragma once
// The daemon behind `cuzk serve`: from a DaemonConfig it makes the backend (cuda, cpu or sim) and
// the Engine, registers the keys (a key directory's *.zkey, [keys.files], [sim.keys]),
// preloads the ones asked for, and starts the gRPC server, the HTTP /metrics + /status
// responder and the timeline writer. stop() is the drain of SIGTERM:
//
//   1. SubmitProof / Prove answer UNAVAILABLE from now on; other calls go on being answered
//      (clients of accepted jobs still collect their proofs);
//   2. the accepted jobs run until none is left or drain_timeout_s passes (or force_cancel());
//   3. whatever is left is cancelled (its waiters get CANCELLED), the workers stop;
//   4. the servers close (calls still waiting get 2 s), the timeline file is written last.
//
// Ownership: the daemon owns everything it starts. Thread-safety: stop() and force_cancel()
// may be called from any thread (a second stop() waits for the first and returns its answer);
// the accessors from any thread while the daemon lives.

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "engine/engine.hpp"
#include "service/config.hpp"
#include "service/http.hpp"
#include "service/server.hpp"

namespace cuzk::service {

class Daemon {
 public:
  // Throws kInvalidInput for a bad configuration, kNotFound for a missing key file, and what
  // the engine or the listeners throw when they cannot start.
  static std::unique_ptr<Daemon> start(const DaemonConfig& config);
  ~Daemon();  // stop()
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  // The drain described above. Returns true when every accepted job finished (none had to be
  // cancelled).
  bool stop();
  // Ends a drain in progress now: the remaining jobs are cancelled.
  void force_cancel();

  engine::Engine& engine() { return *engine_; }
  int tcp_port() const { return server_->tcp_port(); }
  int http_port() const { return http_ ? http_->port() : 0; }
  // What HTTP GET `path` answers: /metrics (Prometheus text), /status (JSON), 404 otherwise.
  HttpResponse http_answer(const std::string& path);

 private:
  explicit Daemon(const DaemonConfig& config);
  void write_timeline();
  void timeline_loop();

  DaemonConfig config_;
  engine::Clock::time_point started_ = engine::Clock::now();
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<HttpServer> http_;
  std::atomic<bool> force_{false};
  std::mutex stop_mutex_;
  bool stopped_ = false;
  bool drained_ = true;
  std::mutex timeline_mutex_;
  std::condition_variable timeline_wake_;
  bool timeline_stop_ = false;
  std::thread timeline_thread_;
};

}  // namespace cuzk::service
