#pragma once
// The gRPC server of cuzk.v1.ProvingEngine (proto/cuzk/v1/proving_engine.proto) on an Engine,
// on gRPC's callback API: a call that waits for a job (AwaitProof, Prove) holds no thread; one
// waiter thread polls the engine for every waiting call (JobWaiters in server.cpp), so a
// thousand waiting clients cost a thousand small objects, not a thousand threads.
//
// Listeners and who the caller is (auth.hpp):
//   - a unix socket (mode `socket_mode`): the caller is its peer uid (SO_PEERCRED), local;
//     root and the daemon's own uid are admins;
//   - TCP: a bearer token, checked before the request message is read (UNAUTHENTICATED
//     otherwise); the caller is the token's hash; the admin token makes an admin. A TCP
//     listener without a token needs `insecure_no_token` (every caller is then "anonymous").
// A job belongs to the caller that submitted it: others get NOT_FOUND from AwaitProof and
// CancelProof, as for an unknown job; admins may act on every job. PreloadKey and EvictKey
// need an admin or a local caller (PERMISSION_DENIED otherwise). Witness and key paths follow
// requests.hpp (local callers; TCP only under allow_paths_over_tcp).
//
// Limits: every request message is at most `max_receive_bytes` (set from the largest witness a
// configured key takes times max_partitions_per_request; gRPC 1.51 has no per-method server
// limit, so the small methods share it, while a caller without the token is refused before
// any message); the gRPC buffers of all calls together are bounded by a ResourceQuota.
//
// Ownership: the server borrows the engine, which must outlive it. Thread-safety: handlers run
// on gRPC's threads; stop_accepting, shutdown and the accessors may be called from any thread.
// Order: start → (set_witness_bound, stop_accepting) → shutdown (or the destructor).

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "util/error.hpp"

namespace cuzk::service {

struct ServerOptions {
  std::string unix_socket;  // a path; "" none
  uint32_t socket_mode = 0660;
  std::string tcp_address;  // "host:port" (port 0 picks one); "" none
  // TCP callers' tokens, one per client identity; none needs insecure_no_token.
  std::vector<std::string> tokens;
  std::string admin_token;  // TCP admins; "" none
  bool insecure_no_token = false;
  std::vector<std::filesystem::path> allow_paths_over_tcp;
  bool paths_no_follow = false;
  uint32_t max_partitions_per_request = 1024;
  uint64_t max_receive_bytes = 64 << 20;
  uint64_t grpc_memory_bytes = uint64_t(2) << 30;
  int grpc_max_threads = 64;
  // The largest witness file (bytes) each key takes; a key without one cannot be submitted to.
  std::map<std::string, uint64_t> witness_bounds;
  size_t max_waiting_calls = 100'000;  // AwaitProof/Prove waiting at once; more: RESOURCE_EXHAUSTED
};

class Server {
 public:
  // Throws kInvalidInput (no listener, a bad address, TCP without a token and without
  // insecure_no_token) or kInternal (cannot bind).
  static std::unique_ptr<Server> start(engine::Engine& engine, const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Sets a key's witness bound (ServerOptions::witness_bounds) for a key registered later.
  void set_witness_bound(const std::string& key_id, uint64_t bytes);

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
// INVALID_ARGUMENT (PermissionDenied → PERMISSION_DENIED), kNotFound → NOT_FOUND,
// kResourceExhausted → RESOURCE_EXHAUSTED (the engine's ShuttingDownError → UNAVAILABLE),
// kCuda / kInternal → INTERNAL.
int status_code_for(const Error& error);

}  // namespace cuzk::service
