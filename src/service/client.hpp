#pragma once
// A client of cuzk.v1.ProvingEngine for the CLI commands and the tests: one channel, a method
// per RPC taking and returning the protocol's messages, and a non-OK status thrown as
// ClientError (its code says which: NOT_FOUND, INVALID_ARGUMENT, DEADLINE_EXCEEDED, ...).
//
// Thread-safety: a Client may be used from several threads at once (gRPC channels and stubs
// are thread-safe).

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving_engine.grpc.pb.h"

namespace cuzk::service {

struct ClientOptions {
  std::string socket;   // a unix socket path; used when address is empty
  std::string address;  // "host:port" over TCP
  std::string token;    // sent as `authorization: Bearer <token>` when set
  // Deadline of calls that do not wait for a job (the waits add their own timeout to it).
  std::chrono::milliseconds call_timeout = std::chrono::seconds(60);
};

class ClientError : public std::runtime_error {
 public:
  ClientError(grpc::StatusCode code, const std::string& message);
  grpc::StatusCode code() const { return code_; }

 private:
  grpc::StatusCode code_;
};

// "NOT_FOUND", "INVALID_ARGUMENT", ...
std::string status_code_name(grpc::StatusCode code);

class Client {
 public:
  explicit Client(const ClientOptions& options);

  uint64_t submit(const v1::SubmitProofRequest& request);
  // Waits up to `timeout` (0: answers at once). Throws ClientError for anything but success:
  // DEADLINE_EXCEEDED while the job is not final, the job's error code when it failed,
  // CANCELLED when it was cancelled.
  v1::ProofResult await(uint64_t job_id, std::chrono::milliseconds timeout);
  v1::ProofResult prove(const v1::SubmitProofRequest& request, std::chrono::milliseconds timeout);
  bool cancel(uint64_t job_id);
  v1::EngineStatus status();
  std::string metrics();
  v1::KeyStatus preload(const std::string& key_id, const std::string& path = "");
  bool evict(const std::string& key_id);

  v1::ProvingEngine::Stub& stub() { return *stub_; }
  // A context with the token and a deadline `extra` beyond the call timeout.
  std::unique_ptr<grpc::ClientContext> context(
      std::chrono::milliseconds extra = std::chrono::milliseconds(0)) const;

 private:
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ProvingEngine::Stub> stub_;
};

}  // namespace cuzk::service
