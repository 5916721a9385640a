// The gRPC handlers of cuzk.v1.ProvingEngine on the callback API: request → engine call →
// answer, errors → codes; waits are kept by JobWaiters, not by threads.

#include "service/server.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>

#include <unistd.h>

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include "cuzk/v1/proving_engine.grpc.pb.h"
#include "engine/metrics.hpp"
#include "service/auth.hpp"
#include "service/convert.hpp"
#include "service/http.hpp"
#include "service/log.hpp"
#include "service/requests.hpp"
#include "service/status_codes.hpp"
#include "service/waiters.hpp"

namespace cuzk::service {
namespace {

using engine::Clock;
using grpc::Status;
using grpc::StatusCode;
using namespace std::chrono_literals;

// The longest wait a call may ask for (timeout_ms is clamped to it, so no deadline overflows);
// Prove with timeout_ms = 0 waits this long, or until the call's own deadline.
constexpr auto kLongestWait = std::chrono::milliseconds(std::chrono::hours(24 * 365));
// Blocking calls (PreloadKey loads a key from disk, minutes for Filecoin keys) run on their own
// threads, this many at once; more answer RESOURCE_EXHAUSTED.
constexpr int kMaxBlockingCalls = 4;

// One answer, word for word, for a job that is not there and for another caller's job.
[[noreturn]] void unknown_job(engine::JobId id) {
  CUZK_THROW(ErrorKind::kNotFound,
             "unknown job " + std::to_string(id) + " (or its result expired)");
}

}  // namespace

class ProvingEngineService;

struct Server::Impl {
  engine::Engine& engine;
  ServerOptions options;
  PathPolicy paths;
  mutable std::shared_mutex accept_mutex;
  bool accepting = true;
  engine::Metrics rpc_metrics;
  std::mutex jobs_mutex;
  std::map<std::string, uint64_t> witness_bounds;
  std::set<engine::JobId> logged_done;  // jobs whose completion was logged (bounded)
  std::mutex blocking_mutex;
  std::condition_variable blocking_done;
  int blocking_calls = 0;
  std::unique_ptr<JobWaiters> waiters;
  std::unique_ptr<UnixListener> unix_listener;
  std::unique_ptr<ProvingEngineService> unix_service, tcp_service;
  std::unique_ptr<grpc::Server> unix_server, tcp_server;
  int tcp_port = 0;
  bool shut_down = false;

  Impl(engine::Engine& e, const ServerOptions& o)
      : engine(e), options(o), witness_bounds(o.witness_bounds) {
    rpc_metrics.describe("cuzk_rpc_total", engine::Metrics::Type::kCounter,
                         "gRPC calls answered, by method and status code.");
    for (const auto& dir : o.allow_paths_over_tcp) {
      std::error_code ec;
      const auto canonical = std::filesystem::canonical(dir, ec);
      if (ec) CUZK_INVALID_INPUT("allow_paths_over_tcp: '" + dir.string() + "': " + ec.message());
      paths.allowed_over_tcp.push_back(canonical);
    }
    paths.no_follow = o.paths_no_follow;
    waiters = std::make_unique<JobWaiters>(o.max_waiting_calls);
  }

  bool accepting_now() const {
    std::shared_lock lock(accept_mutex);
    return accepting;
  }

  Caller caller_of(const grpc::CallbackServerContext& context, bool unix) const {
    Caller caller;
    if (unix) {
      const auto uid = unix_listener ? unix_listener->peer_uid(context.peer()) : std::nullopt;
      if (!uid) CUZK_THROW(ErrorKind::kInternal, "cannot identify the unix socket peer");
      caller.owner = "uid:" + std::to_string(*uid);
      caller.local = true;
      caller.admin = *uid == 0 || *uid == ::geteuid();
      return caller;
    }
    if (options.tokens.empty() && options.admin_token.empty()) {
      caller.owner = "anonymous";
      return caller;
    }
    // The token was checked before the request was read (auth.hpp): here it names the caller.
    const auto& metadata = context.client_metadata();
    const auto it = metadata.find("authorization");
    const std::string_view header = it == metadata.end()
                                        ? std::string_view()
                                        : std::string_view(it->second.data(), it->second.size());
    if (bearer_matches(header, options.admin_token)) {
      caller.admin = true;
      caller.owner = token_identity(options.admin_token);
      return caller;
    }
    for (const auto& token : options.tokens) {
      if (bearer_matches(header, token)) caller.owner = token_identity(token);
    }
    if (caller.owner.empty())
      CUZK_THROW(ErrorKind::kInternal, "a call past the token check has no token");
    return caller;
  }

  void set_witness_bound_of(const std::string& key_id, const engine::KeySource& source) {
    const uint64_t bytes = engine.backend().partition_host_bytes(source);
    std::lock_guard lock(jobs_mutex);
    witness_bounds[key_id] = bytes;
  }

  uint64_t witness_bound(const std::string& key_id) {
    std::lock_guard lock(jobs_mutex);
    const auto it = witness_bounds.find(key_id);
    if (it == witness_bounds.end()) {
      CUZK_THROW(ErrorKind::kNotFound, "unknown key '" + truncated(key_id) + "'");
    }
    return it->second;
  }

  // A job is the caller's (or the caller is an admin); otherwise it is "unknown".
  void check_access(const Caller& caller, engine::JobId id) {
    std::string owner;
    try {
      owner = engine.peek(id).first;
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kNotFound) unknown_job(id);
      throw;
    }
    if (!caller.admin && owner != caller.owner) unknown_job(id);
  }

  engine::JobId submit(v1::SubmitProofRequest& request, const Caller& caller) {
    check_id(request.key_id(), "key_id");
    auto spec = prepare_job(request, caller, paths, witness_bound(request.key_id()),
                            options.max_partitions_per_request);
    std::shared_lock lock(accept_mutex);
    if (!accepting) {
      throw engine::ShuttingDownError("the daemon is shutting down and takes no new jobs");
    }
    return engine.submit(std::move(spec));
  }

  void record(const char* method, const Status& status, const std::string& peer) {
    const char* code = code_name(status.error_code());
    rpc_metrics.add("cuzk_rpc_total", 1,
                    std::string("method=\"") + method + "\",code=\"" + code + "\"");
    if (!status.ok()) {
      LogLine(status.error_code() == StatusCode::INTERNAL ? LogLevel::kError : LogLevel::kInfo,
              "rpc_error")
          .kv("method", method)
          .kv("code", code)
          .kv("peer", peer)
          .kv("message", truncated(status.error_message()));
    }
  }

  void log_done(const engine::JobResult& r) {
    {
      std::lock_guard lock(jobs_mutex);
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

namespace {

// One AwaitProof or Prove call waiting for its job. Finished by its own poll (on the waiters'
// thread) exactly once; deleted by gRPC after that (OnDone).
class WaitReactor final : public grpc::ServerUnaryReactor, public Waiting {
 public:
  WaitReactor(Server::Impl& impl, const char* method, grpc::CallbackServerContext& context,
              engine::JobId id, uint64_t timeout_ms, bool owns_job, v1::ProofResult* out)
      : impl_(impl),
        context_(context),
        method_(method),
        peer_(context.peer()),
        id_(id),
        deadline_(Clock::now() + std::min<std::chrono::milliseconds>(
                                     std::chrono::milliseconds(std::min<uint64_t>(
                                         timeout_ms, uint64_t(kLongestWait.count()))),
                                     kLongestWait)),
        owns_job_(owns_job),
        out_(out) {}

  void OnCancel() override {
    cancelled_ = true;
    impl_.waiters->wake(*this);
  }
  // A final result counts as fetched (the journal forgets it) once its answer was sent.
  void OnDone() override {
    if (sent_final_ && !context_.IsCancelled()) impl_.engine.fetched(id_);
    delete this;
  }

  // Peeks at the job's state until it is final, the wait ends or the call goes away. The
  // result is read only for a call still there to receive it, and counts as fetched (the
  // journal forgets it) once its answer was sent (OnDone). A final answer to a call that
  // went away is CANCELLED, the result kept for a later await.
  bool poll() override {
    Status status;
    try {
      const bool cancelled = cancelled_;
      const bool final_state = engine::is_final(impl_.engine.peek(id_).second);
      if (!final_state && !cancelled && Clock::now() < deadline_) return false;
      if (!final_state && owns_job_ && impl_.engine.cancel(id_)) {
        log_info("job_abandoned").kv("job", id_).kv("reason", cancelled ? "call ended" : "timeout");
      }
      if (cancelled) {
        status =
            Status(StatusCode::CANCELLED, "job " + std::to_string(id_) +
                                              ": the call was cancelled or its deadline passed");
      } else {
        const auto r = impl_.engine.await(id_, 0ms, /*fetch=*/false);
        sent_final_ = engine::is_final(r.state);
        if (sent_final_) impl_.log_done(r);
        result_to_proto(r, *out_);
        status = result_status(r);
      }
    } catch (...) {
      status = status_of_exception();
    }
    impl_.record(method_, status, peer_);
    Finish(status);
    return true;
  }

 private:
  Server::Impl& impl_;
  grpc::CallbackServerContext& context_;
  const char* method_;
  std::string peer_;
  engine::JobId id_;
  Clock::time_point deadline_;
  bool owns_job_;
  v1::ProofResult* out_;
  std::atomic<bool> cancelled_{false};
  bool sent_final_ = false;
};

}  // namespace

class ProvingEngineService final : public v1::ProvingEngine::CallbackService {
 public:
  ProvingEngineService(Server::Impl& impl, bool unix) : impl_(impl), unix_(unix) {}

  grpc::ServerUnaryReactor* SubmitProof(grpc::CallbackServerContext* context,
                                        const v1::SubmitProofRequest* request,
                                        v1::SubmitProofResponse* response) override {
    return answer("SubmitProof", context, [&](const Caller& caller) {
      // The request is ours until the reactor finishes: its witness bytes are moved out.
      auto& mutable_request = const_cast<v1::SubmitProofRequest&>(*request);
      const auto id = impl_.submit(mutable_request, caller);
      response->set_job_id(id);
      log_submitted(id, *request, caller, "SubmitProof");
      return Status::OK;
    });
  }

  grpc::ServerUnaryReactor* AwaitProof(grpc::CallbackServerContext* context,
                                       const v1::AwaitProofRequest* request,
                                       v1::ProofResult* response) override {
    try {
      impl_.check_access(caller(*context), request->job_id());
    } catch (...) {
      return finish("AwaitProof", context, status_of_exception());
    }
    return wait("AwaitProof", context, request->job_id(), request->timeout_ms(), false, response);
  }

  grpc::ServerUnaryReactor* Prove(grpc::CallbackServerContext* context,
                                  const v1::ProveRequest* request,
                                  v1::ProofResult* response) override {
    engine::JobId id = 0;
    try {
      const Caller who = caller(*context);
      auto* job = const_cast<v1::ProveRequest&>(*request).mutable_job();
      id = impl_.submit(*job, who);
      log_submitted(id, *job, who, "Prove");
    } catch (...) {
      return finish("Prove", context, status_of_exception());
    }
    const uint64_t timeout = request->timeout_ms() == 0 ? UINT64_MAX : request->timeout_ms();
    return wait("Prove", context, id, timeout, true, response);
  }

  grpc::ServerUnaryReactor* CancelProof(grpc::CallbackServerContext* context,
                                        const v1::CancelProofRequest* request,
                                        v1::CancelProofResponse* response) override {
    return answer("CancelProof", context, [&](const Caller& caller) {
      impl_.check_access(caller, request->job_id());
      response->set_cancelled(impl_.engine.cancel(request->job_id()));
      log_info("job_cancel").kv("job", request->job_id()).kv("cancelled", response->cancelled());
      return Status::OK;
    });
  }

  grpc::ServerUnaryReactor* GetStatus(grpc::CallbackServerContext* context,
                                      const v1::GetStatusRequest*,
                                      v1::EngineStatus* response) override {
    return answer("GetStatus", context, [&](const Caller&) {
      auto status = impl_.engine.status();
      status.accepting = status.accepting && impl_.accepting_now();
      status_to_proto(status, uptime_s(), *response);
      return Status::OK;
    });
  }

  grpc::ServerUnaryReactor* GetMetrics(grpc::CallbackServerContext* context,
                                       const v1::GetMetricsRequest*,
                                       v1::MetricsText* response) override {
    return answer("GetMetrics", context, [&](const Caller&) {
      response->set_text(impl_.engine.metrics_text() + impl_.rpc_metrics.prometheus_text());
      return Status::OK;
    });
  }

  grpc::ServerUnaryReactor* PreloadKey(grpc::CallbackServerContext* context,
                                       const v1::PreloadKeyRequest* request,
                                       v1::KeyStatus* response) override {
    auto* reactor = context->DefaultReactor();
    try {
      const Caller who = caller(*context);
      check_key_admin(who, "PreloadKey");
      check_id(request->key_id(), "key_id");
      std::filesystem::path path;
      if (!request->path().empty()) path = check_key_path(request->path(), who, impl_.paths);
      std::unique_lock lock(impl_.blocking_mutex);
      if (impl_.blocking_calls >= kMaxBlockingCalls) {
        CUZK_THROW(ErrorKind::kResourceExhausted,
                   std::to_string(kMaxBlockingCalls) + " key loads are running; retry later");
      }
      ++impl_.blocking_calls;
      // Loading takes up to minutes: off gRPC's threads.
      std::thread([this, reactor, request, response, path, peer = context->peer()] {
        Status status;
        try {
          preload(*request, path, *response);
        } catch (...) {
          status = status_of_exception();
        }
        impl_.record("PreloadKey", status, peer);
        reactor->Finish(status);
        std::lock_guard done(impl_.blocking_mutex);
        --impl_.blocking_calls;
        impl_.blocking_done.notify_all();
      }).detach();
      return reactor;
    } catch (...) {
      const auto status = status_of_exception();
      impl_.record("PreloadKey", status, context->peer());
      reactor->Finish(status);
      return reactor;
    }
  }

  grpc::ServerUnaryReactor* EvictKey(grpc::CallbackServerContext* context,
                                     const v1::EvictKeyRequest* request,
                                     v1::EvictKeyResponse* response) override {
    return answer("EvictKey", context, [&](const Caller& caller) {
      check_key_admin(caller, "EvictKey");
      check_id(request->key_id(), "key_id");
      response->set_evicted(impl_.engine.evict_key(request->key_id()));
      log_info("key_evict").kv("key", request->key_id()).kv("evicted", response->evicted());
      return Status::OK;
    });
  }

 private:
  Caller caller(const grpc::CallbackServerContext& context) const {
    return impl_.caller_of(context, unix_);
  }

  static void check_key_admin(const Caller& caller, const char* method) {
    if (!caller.local && !caller.admin) {
      throw PermissionDenied(std::string(method) +
                             " needs the admin token or a client on the unix socket");
    }
  }

  void preload(const v1::PreloadKeyRequest& request, const std::filesystem::path& path,
               v1::KeyStatus& response) {
    if (!path.empty()) {
      impl_.engine.register_key(request.key_id(), {path});
      impl_.set_witness_bound_of(request.key_id(), {path});
    }
    const auto t0 = Clock::now();
    impl_.engine.preload_key(request.key_id());
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    for (const auto& k : impl_.engine.status().keys) {
      if (k.id == request.key_id()) key_status_to_proto(k, response);
    }
    log_info("key_preloaded")
        .kv("key", request.key_id())
        .kv("tier", response.tier())
        .kv("bytes", response.bytes())
        .kv("ms", ms);
  }

  void log_submitted(engine::JobId id, const v1::SubmitProofRequest& request, const Caller& caller,
                     const char* call) {
    log_info("job_submitted")
        .kv("job", id)
        .kv("key", truncated(request.key_id()))
        .kv("partitions", request.partitions_size())
        .kv("priority", engine::priority_name(priority_from_proto(request.priority())))
        .kv("request_id", truncated(request.request_id()))
        .kv("owner", caller.owner)
        .kv("call", call);
  }

  grpc::ServerUnaryReactor* wait(const char* method, grpc::CallbackServerContext* context,
                                 engine::JobId id, uint64_t timeout_ms, bool owns_job,
                                 v1::ProofResult* response) {
    auto* reactor = new WaitReactor(impl_, method, *context, id, timeout_ms, owns_job, response);
    if (!impl_.waiters->add(reactor)) {
      if (owns_job) impl_.engine.cancel(id);
      const Status status(StatusCode::RESOURCE_EXHAUSTED,
                          "too many calls are waiting for jobs; retry later");
      impl_.record(method, status, context->peer());
      reactor->Finish(status);
    }
    return reactor;
  }

  grpc::ServerUnaryReactor* finish(const char* method, grpc::CallbackServerContext* context,
                                   const Status& status) {
    impl_.record(method, status, context->peer());
    auto* reactor = context->DefaultReactor();
    reactor->Finish(status);
    return reactor;
  }

  // Identification, error mapping, counting and logging shared by the quick methods.
  template <class Body>
  grpc::ServerUnaryReactor* answer(const char* method, grpc::CallbackServerContext* context,
                                   Body&& body) {
    Status status;
    try {
      status = body(caller(*context));
    } catch (...) {
      status = status_of_exception();
    }
    return finish(method, context, status);
  }

  double uptime_s() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  Server::Impl& impl_;
  bool unix_;
  Clock::time_point started_ = Clock::now();
};

std::unique_ptr<Server> Server::start(engine::Engine& engine, const ServerOptions& options) {
  if (options.unix_socket.empty() && options.tcp_address.empty()) {
    CUZK_INVALID_INPUT("the server needs a unix socket or a TCP address");
  }
  if (!options.tcp_address.empty() && options.tokens.empty() && !options.insecure_no_token) {
    CUZK_INVALID_INPUT("a TCP listener needs a token unless insecure_no_token is set");
  }
  auto impl = std::make_unique<Impl>(engine, options);
  grpc::ResourceQuota quota("cuzk");
  quota.Resize(size_t(options.grpc_memory_bytes));
  quota.SetMaxThreads(options.grpc_max_threads);
  const int max_receive = int(std::min<uint64_t>(options.max_receive_bytes, INT_MAX));
  const auto configure = [&](grpc::ServerBuilder& builder) {
    builder.SetResourceQuota(quota);
    builder.SetMaxReceiveMessageSize(max_receive);
  };
  if (!options.unix_socket.empty()) {
    impl->unix_listener = UnixListener::bind(options.unix_socket, options.socket_mode);
    impl->unix_service = std::make_unique<ProvingEngineService>(*impl, true);
    grpc::ServerBuilder builder;
    configure(builder);
    builder.RegisterService(impl->unix_service.get());
    impl->unix_server = builder.BuildAndStart();
    if (!impl->unix_server) {
      CUZK_THROW(ErrorKind::kInternal, "cannot start the server of unix:" + options.unix_socket);
    }
    impl->unix_listener->start(*impl->unix_server);
  }
  if (!options.tcp_address.empty()) {
    split_host_port(options.tcp_address);  // a clear error for a malformed address
    impl->tcp_service = std::make_unique<ProvingEngineService>(*impl, false);
    grpc::ServerBuilder builder;
    configure(builder);
    const auto credentials = options.tokens.empty() && options.admin_token.empty()
                                 ? grpc::InsecureServerCredentials()
                                 : token_credentials(options.tokens, options.admin_token);
    builder.AddListeningPort(options.tcp_address, credentials, &impl->tcp_port);
    builder.RegisterService(impl->tcp_service.get());
    impl->tcp_server = builder.BuildAndStart();
    if (!impl->tcp_server || impl->tcp_port == 0) {
      CUZK_THROW(ErrorKind::kInternal, "cannot listen on " + options.tcp_address);
    }
  }
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() { shutdown(std::chrono::seconds(1)); }

void Server::set_witness_bound(const std::string& key_id, uint64_t bytes) {
  std::lock_guard lock(impl_->jobs_mutex);
  impl_->witness_bounds[key_id] = bytes;
}

int Server::tcp_port() const { return impl_->tcp_port; }

void Server::stop_accepting() {
  std::unique_lock lock(impl_->accept_mutex);
  impl_->accepting = false;
}

bool Server::accepting() const { return impl_->accepting_now(); }

void Server::shutdown(std::chrono::milliseconds deadline) {
  if (impl_->shut_down) return;
  impl_->shut_down = true;
  if (impl_->unix_listener) impl_->unix_listener->stop();
  // Calls still waiting at the deadline are cancelled; their next poll finishes them, so the
  // waiters' thread runs until the servers are done.
  const auto until = std::chrono::system_clock::now() + deadline;
  if (impl_->unix_server) impl_->unix_server->Shutdown(until);
  if (impl_->tcp_server) impl_->tcp_server->Shutdown(until);
  if (impl_->unix_server) impl_->unix_server->Wait();
  if (impl_->tcp_server) impl_->tcp_server->Wait();
  impl_->waiters->stop();
  std::unique_lock lock(impl_->blocking_mutex);
  impl_->blocking_done.wait(lock, [&] { return impl_->blocking_calls == 0; });
  lock.unlock();
  impl_->unix_listener.reset();
}

std::string Server::metrics_text() const { return impl_->rpc_metrics.prometheus_text(); }

}  // namespace cuzk::service
