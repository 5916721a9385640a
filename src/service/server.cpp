// The gRPC handlers of cuzk.v1.ProvingEngine: request → engine call → answer, errors → codes.

#include "service/server.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <shared_mutex>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <grpcpp/grpcpp.h>

#include "cuzk/v1/proving_engine.grpc.pb.h"
#include "engine/metrics.hpp"
#include "formats/input_file.hpp"
#include "service/convert.hpp"
#include "service/http.hpp"
#include "service/log.hpp"

namespace cuzk::service {
namespace {

using engine::Clock;
using grpc::Status;
using grpc::StatusCode;
using namespace std::chrono_literals;

// An await is cut into slices this long so that a call whose client went away (or whose
// deadline passed) notices within one slice.
constexpr auto kAwaitSlice = 100ms;
// Prove with timeout_ms = 0 waits until the call's own deadline.
constexpr auto kForever = std::chrono::hours(24 * 365);

const char* code_name(StatusCode code) {
  switch (code) {
    case StatusCode::OK:
      return "OK";
    case StatusCode::CANCELLED:
      return "CANCELLED";
    case StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case StatusCode::INTERNAL:
      return "INTERNAL";
    default:
      return "OTHER";
  }
}

StatusCode code_for_kind(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
      return StatusCode::INVALID_ARGUMENT;
    case ErrorKind::kNotFound:
      return StatusCode::NOT_FOUND;
    case ErrorKind::kResourceExhausted:
      return StatusCode::RESOURCE_EXHAUSTED;
    case ErrorKind::kCuda:
    case ErrorKind::kInternal:
      return StatusCode::INTERNAL;
  }
  return StatusCode::INTERNAL;
}

// Length is not secret; the contents are compared without an early exit.
bool same_token(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

engine::JobSpec job_from_request(const v1::SubmitProofRequest& request) {
  if (request.key_id().empty()) CUZK_INVALID_INPUT("key_id is empty");
  if (request.partitions().empty()) {
    CUZK_INVALID_INPUT("a job needs at least one partition (a witness)");
  }
  engine::JobSpec spec;
  spec.key_id = request.key_id();
  spec.priority = priority_from_proto(request.priority());
  spec.request_id = request.request_id();
  for (int i = 0; i < request.partitions_size(); ++i) {
    const auto& w = request.partitions(i);
    switch (w.source_case()) {
      case v1::Witness::kWtns:
        if (w.wtns().empty()) {
          CUZK_INVALID_INPUT("partition " + std::to_string(i) + ": the witness is empty");
        }
        spec.partitions.push_back(
            {std::make_shared<const std::vector<uint8_t>>(w.wtns().begin(), w.wtns().end())});
        break;
      case v1::Witness::kPath:
        // Opened now (a regular file, its descriptor kept), mapped when a worker prepares the
        // partition (engine/job.hpp).
        spec.partitions.push_back({nullptr, formats::InputFile::open(w.path(), {})});
        break;
      default:
        CUZK_INVALID_INPUT("partition " + std::to_string(i) +
                           ": no witness (give wtns bytes or a path)");
    }
  }
  return spec;
}

// The answer to a wait on a job: OK only for success; the job's own error code for a failure.
Status result_status(const engine::JobResult& r) {
  const std::string job = "job " + std::to_string(r.id);
  switch (r.state) {
    case engine::JobState::kSucceeded:
      return Status::OK;
    case engine::JobState::kFailed:
      return Status(code_for_kind(r.error_kind.value_or(ErrorKind::kInternal)),
                    job + " failed: " + r.error_message);
    case engine::JobState::kCancelled:
      return Status(StatusCode::CANCELLED, job + " was cancelled");
    default:
      return Status(StatusCode::DEADLINE_EXCEEDED,
                    job + " is still " + std::string(engine::job_state_name(r.state)) + " after " +
                        std::to_string(int64_t(r.timings.wall_ms)) + " ms");
  }
}

}  // namespace

int status_code_for(const Error& error) {
  if (dynamic_cast<const engine::ShuttingDownError*>(&error)) return int(StatusCode::UNAVAILABLE);
  return int(code_for_kind(error.kind()));
}

class ProvingEngineService;

struct Server::Impl {
  engine::Engine& engine;
  ServerOptions options;
  mutable std::shared_mutex accept_mutex;
  bool accepting = true;
  engine::Metrics rpc_metrics;
  std::mutex logged_mutex;
  std::set<engine::JobId> logged_done;  // jobs whose completion was logged (bounded)
  std::unique_ptr<ProvingEngineService> unix_service, tcp_service;
  std::unique_ptr<grpc::Server> unix_server, tcp_server;
  int tcp_port = 0;
  bool shut_down = false;

  bool accepting_now() const;
  Impl(engine::Engine& e, const ServerOptions& o) : engine(e), options(o) {
    rpc_metrics.describe("cuzk_rpc_total", engine::Metrics::Type::kCounter,
                         "gRPC calls answered, by method and status code.");
  }

  engine::JobId submit(engine::JobSpec spec) {
    std::shared_lock lock(accept_mutex);
    if (!accepting) {
      throw engine::ShuttingDownError("the daemon is shutting down and takes no new jobs");
    }
    return engine.submit(std::move(spec));
  }

  // Waits for the job in slices until it is final, `timeout` passes, or the call ends.
  Status await(engine::JobId id, std::chrono::milliseconds timeout, grpc::ServerContext& context,
               bool cancel_if_abandoned, v1::ProofResult& out) {
    const auto deadline = Clock::now() + timeout;
    engine::JobResult r;
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      r = engine.await(id, std::clamp(left, 0ms, std::chrono::milliseconds(kAwaitSlice)));
      if (engine::is_final(r.state)) break;
      if (context.IsCancelled() || Clock::now() >= deadline) {
        if (cancel_if_abandoned && engine.cancel(id)) {
          log_info("job_abandoned")
              .kv("job", id)
              .kv("reason", context.IsCancelled() ? "call ended" : "timeout");
        }
        if (context.IsCancelled()) {
          return Status(
              StatusCode::CANCELLED,
              "job " + std::to_string(id) + ": the call was cancelled or its deadline passed");
        }
        break;
      }
    }
    if (engine::is_final(r.state)) log_done(r);
    result_to_proto(r, out);
    return result_status(r);
  }

  void log_done(const engine::JobResult& r) {
    {
      std::lock_guard lock(logged_mutex);
      if (!logged_done.insert(r.id).second) return;
      if (logged_done.size() > 100'000) logged_done.erase(logged_done.begin());
    }
    LogLine line(r.state == engine::JobState::kSucceeded ? LogLevel::kInfo : LogLevel::kWarn,
                 "job_done");
    line.kv("job", r.id)
        .kv("state", engine::job_state_name(r.state))
        .kv("partitions", r.partitions.size())
        .kv("wall_ms", r.timings.wall_ms)
        .kv("queue_ms", r.timings.sum.queue_ms)
        .kv("gpu_ms", r.timings.sum.gpu_ms);
    if (!r.error_message.empty()) line.kv("error", r.error_message);
  }
};

class ProvingEngineService final : public v1::ProvingEngine::Service {
 public:
  ProvingEngineService(Server::Impl& impl, bool require_token)
      : impl_(impl), require_token_(require_token && !impl.options.token.empty()) {}

  Status SubmitProof(grpc::ServerContext* context, const v1::SubmitProofRequest* request,
                     v1::SubmitProofResponse* response) override {
    return handle("SubmitProof", *context, [&] {
      auto spec = job_from_request(*request);
      const size_t partitions = spec.partitions.size();
      const auto id = impl_.submit(std::move(spec));
      response->set_job_id(id);
      log_info("job_submitted")
          .kv("job", id)
          .kv("key", request->key_id())
          .kv("partitions", partitions)
          .kv("priority", engine::priority_name(priority_from_proto(request->priority())))
          .kv("request_id", request->request_id());
      return Status::OK;
    });
  }

  Status AwaitProof(grpc::ServerContext* context, const v1::AwaitProofRequest* request,
                    v1::ProofResult* response) override {
    return handle("AwaitProof", *context, [&] {
      return impl_.await(request->job_id(), std::chrono::milliseconds(request->timeout_ms()),
                         *context, false, *response);
    });
  }

  Status Prove(grpc::ServerContext* context, const v1::ProveRequest* request,
               v1::ProofResult* response) override {
    return handle("Prove", *context, [&] {
      const auto id = impl_.submit(job_from_request(request->job()));
      log_info("job_submitted")
          .kv("job", id)
          .kv("key", request->job().key_id())
          .kv("partitions", request->job().partitions_size())
          .kv("priority", engine::priority_name(priority_from_proto(request->job().priority())))
          .kv("request_id", request->job().request_id())
          .kv("call", "Prove");
      const auto timeout = request->timeout_ms() == 0
                               ? std::chrono::duration_cast<std::chrono::milliseconds>(kForever)
                               : std::chrono::milliseconds(request->timeout_ms());
      return impl_.await(id, timeout, *context, true, *response);
    });
  }

  Status CancelProof(grpc::ServerContext* context, const v1::CancelProofRequest* request,
                     v1::CancelProofResponse* response) override {
    return handle("CancelProof", *context, [&] {
      response->set_cancelled(impl_.engine.cancel(request->job_id()));
      log_info("job_cancel").kv("job", request->job_id()).kv("cancelled", response->cancelled());
      return Status::OK;
    });
  }

  Status GetStatus(grpc::ServerContext* context, const v1::GetStatusRequest*,
                   v1::EngineStatus* response) override {
    return handle("GetStatus", *context, [&] {
      auto status = impl_.engine.status();
      status.accepting = status.accepting && impl_.accepting_now();
      status_to_proto(status, uptime_s(), *response);
      return Status::OK;
    });
  }

  Status GetMetrics(grpc::ServerContext* context, const v1::GetMetricsRequest*,
                    v1::MetricsText* response) override {
    return handle("GetMetrics", *context, [&] {
      response->set_text(impl_.engine.metrics_text() + impl_.rpc_metrics.prometheus_text());
      return Status::OK;
    });
  }

  Status PreloadKey(grpc::ServerContext* context, const v1::PreloadKeyRequest* request,
                    v1::KeyStatus* response) override {
    return handle("PreloadKey", *context, [&] {
      if (request->key_id().empty()) CUZK_INVALID_INPUT("key_id is empty");
      if (!request->path().empty()) {
        impl_.engine.register_key(request->key_id(), {request->path()});
      }
      const auto t0 = Clock::now();
      impl_.engine.preload_key(request->key_id());
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      for (const auto& k : impl_.engine.status().keys) {
        if (k.id == request->key_id()) key_status_to_proto(k, *response);
      }
      log_info("key_preloaded")
          .kv("key", request->key_id())
          .kv("tier", response->tier())
          .kv("bytes", response->bytes())
          .kv("ms", ms);
      return Status::OK;
    });
  }

  Status EvictKey(grpc::ServerContext* context, const v1::EvictKeyRequest* request,
                  v1::EvictKeyResponse* response) override {
    return handle("EvictKey", *context, [&] {
      response->set_evicted(impl_.engine.evict_key(request->key_id()));
      log_info("key_evict").kv("key", request->key_id()).kv("evicted", response->evicted());
      return Status::OK;
    });
  }

 private:
  // Token check, error mapping, counting and logging shared by every method.
  template <class Body>
  Status handle(const char* method, grpc::ServerContext& context, Body&& body) {
    Status status;
    if (!authorized(context)) {
      status = Status(StatusCode::UNAUTHENTICATED, "missing or wrong bearer token");
    } else {
      try {
        status = body();
      } catch (const Error& e) {
        status = Status(StatusCode(status_code_for(e)), e.what());
      } catch (const std::exception& e) {
        status = Status(StatusCode::INTERNAL, std::string("internal error: ") + e.what());
      }
    }
    const char* code = code_name(status.error_code());
    impl_.rpc_metrics.add("cuzk_rpc_total", 1,
                          std::string("method=\"") + method + "\",code=\"" + code + "\"");
    if (!status.ok()) {
      LogLine(status.error_code() == StatusCode::INTERNAL ? LogLevel::kError : LogLevel::kInfo,
              "rpc_error")
          .kv("method", method)
          .kv("code", code)
          .kv("peer", context.peer())
          .kv("message", status.error_message());
    }
    return status;
  }

  bool authorized(const grpc::ServerContext& context) const {
    if (!require_token_) return true;
    const auto& metadata = context.client_metadata();
    const auto it = metadata.find("authorization");
    if (it == metadata.end()) return false;
    return same_token(std::string_view(it->second.data(), it->second.size()),
                      "Bearer " + impl_.options.token);
  }

  double uptime_s() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  Server::Impl& impl_;
  bool require_token_;
  Clock::time_point started_ = Clock::now();
};

namespace {

// Refuses to take over a socket another process still answers on; removes a stale one.
void prepare_socket_path(const std::string& path) {
  namespace fs = std::filesystem;
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) {
    CUZK_INVALID_INPUT("unix socket path '" + path + "' is longer than " +
                       std::to_string(sizeof(address.sun_path) - 1) + " bytes");
  }
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::error_code ec;
  const auto status = fs::symlink_status(p, ec);
  if (ec || !fs::exists(status)) return;
  if (!fs::is_socket(status)) {
    CUZK_INVALID_INPUT("'" + path + "' exists and is not a socket");
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size());
  const bool live = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  if (live) CUZK_INVALID_INPUT("another process is listening on '" + path + "'");
  fs::remove(p);
}

}  // namespace

bool Server::Impl::accepting_now() const {
  std::shared_lock lock(accept_mutex);
  return accepting;
}

std::unique_ptr<Server> Server::start(engine::Engine& engine, const ServerOptions& options) {
  if (options.unix_socket.empty() && options.tcp_address.empty()) {
    CUZK_INVALID_INPUT("the server needs a unix socket or a TCP address");
  }
  auto impl = std::make_unique<Impl>(engine, options);
  if (!options.unix_socket.empty()) {
    prepare_socket_path(options.unix_socket);
    impl->unix_service = std::make_unique<ProvingEngineService>(*impl, false);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + options.unix_socket, grpc::InsecureServerCredentials());
    builder.RegisterService(impl->unix_service.get());
    builder.SetMaxReceiveMessageSize(INT_MAX);  // witnesses of up to 2 GiB; larger by path
    // The socket is created with the mode already restricted (no window in which it is open
    // to everyone), then set exactly.
    const mode_t old_mask = ::umask(0777 & ~options.socket_mode);
    impl->unix_server = builder.BuildAndStart();
    ::umask(old_mask);
    if (!impl->unix_server) {
      CUZK_THROW(ErrorKind::kInternal, "cannot listen on unix:" + options.unix_socket);
    }
    if (::chmod(options.unix_socket.c_str(), options.socket_mode) != 0) {
      CUZK_THROW(ErrorKind::kInternal,
                 "chmod " + options.unix_socket + ": " + std::strerror(errno));
    }
  }
  if (!options.tcp_address.empty()) {
    split_host_port(options.tcp_address);  // a clear error for a malformed address
    impl->tcp_service = std::make_unique<ProvingEngineService>(*impl, true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort(options.tcp_address, grpc::InsecureServerCredentials(),
                             &impl->tcp_port);
    builder.RegisterService(impl->tcp_service.get());
    builder.SetMaxReceiveMessageSize(INT_MAX);
    impl->tcp_server = builder.BuildAndStart();
    if (!impl->tcp_server || impl->tcp_port == 0) {
      CUZK_THROW(ErrorKind::kInternal, "cannot listen on " + options.tcp_address);
    }
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { shutdown(std::chrono::seconds(1)); }

int Server::tcp_port() const { return impl_->tcp_port; }

void Server::stop_accepting() {
  std::unique_lock lock(impl_->accept_mutex);
  impl_->accepting = false;
}

bool Server::accepting() const { return impl_->accepting_now(); }

void Server::shutdown(std::chrono::milliseconds deadline) {
  if (impl_->shut_down) return;
  impl_->shut_down = true;
  const auto until = std::chrono::system_clock::now() + deadline;
  if (impl_->unix_server) impl_->unix_server->Shutdown(until);
  if (impl_->tcp_server) impl_->tcp_server->Shutdown(until);
  if (impl_->unix_server) impl_->unix_server->Wait();
  if (impl_->tcp_server) impl_->tcp_server->Wait();
  if (!impl_->options.unix_socket.empty()) {
    std::error_code ignored;
    std::filesystem::remove(impl_->options.unix_socket, ignored);
  }
}

std::string Server::metrics_text() const { return impl_->rpc_metrics.prometheus_text(); }

}  // namespace cuzk::service
