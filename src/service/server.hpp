#pragma once
// The gRPC server of cuzk.v1.ProvingEngine (proto/cuzk/v1/proving_engine.proto) on an Engine:
// each handler converts the request, calls the engine, converts the answer, and maps
// cuzk::Error kinds to status codes (status_for); nothing else lives here.
//
// Listeners: a unix socket (the file is replaced if stale, then set to `socket_mode`; access
// is controlled by the file mode, no token) and/or TCP (a bearer token, when set, is required
// in the `authorization` metadata of every call; wrong or missing → UNAUTHENTICATED).
//
// Ownership: the server borrows the engine, which must outlive it. Thread-safety: handlers run
// on gRPC's threads; stop_accepting, shutdown and the accessors may be called from any thread.
// Order: start → (stop_accepting) → shutdown (or the destructor).

#include <chrono>
#include <memory>
#include <string>

#include "engine/engine.hpp"
#include "util/error.hpp"

namespace cuzk::service {

struct ServerOptions {
  std::string unix_socket;  // a path; "" none
  uint32_t socket_mode = 0660;
  std::string tcp_address;  // "host:port" (port 0 picks one); "" none
  std::string token;        // TCP only; "" accepts any TCP client
};

class Server {
 public:
  // Throws kInvalidInput (no listener, a bad address) or kInternal (cannot bind).
  static std::unique_ptr<Server> start(engine::Engine& engine, const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int tcp_port() const;  // the bound port; 0 without TCP
  // From now on SubmitProof and Prove answer UNAVAILABLE; a submission already past the check
  // is in the engine when this returns (so a drain that follows sees it).
  void stop_accepting();
  bool accepting() const;
  // Stops listening; calls still running at the deadline are cancelled (their waits end).
  void shutdown(std::chrono::milliseconds deadline);
  // Prometheus text of the service's own counters (cuzk_rpc_total{method,code}).
  std::string metrics_text() const;

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The gRPC status code (grpc::StatusCode's value) for an error of the core: kInvalidInput →
// INVALID_ARGUMENT, kNotFound → NOT_FOUND, kResourceExhausted → RESOURCE_EXHAUSTED (the engine's
// ShuttingDownError → UNAVAILABLE), kCuda / kInternal → INTERNAL.
int status_code_for(const Error& error);

}  // namespace cuzk::service
