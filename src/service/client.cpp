#include "service/client.hpp"

#include <climits>

namespace cuzk::service {
namespace {

void check(const grpc::Status& status) {
  if (!status.ok()) throw ClientError(status.error_code(), status.error_message());
}

}  // namespace

ClientError::ClientError(grpc::StatusCode code, const std::string& message)
    : std::runtime_error(status_code_name(code) + ": " + message), code_(code) {}

std::string status_code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "CODE_" + std::to_string(int(code));
  }
}

Client::Client(const ClientOptions& options) : options_(options) {
  const std::string target = options.address.empty() ? "unix:" + options.socket : options.address;
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(INT_MAX);
  args.SetMaxSendMessageSize(INT_MAX);
  channel_ = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
  stub_ = v1::ProvingEngine::NewStub(channel_);
}

std::unique_ptr<grpc::ClientContext> Client::context(std::chrono::milliseconds extra) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + options_.call_timeout + extra);
  if (!options_.token.empty()) context->AddMetadata("authorization", "Bearer " + options_.token);
  return context;
}

uint64_t Client::submit(const v1::SubmitProofRequest& request) {
  v1::SubmitProofResponse response;
  check(stub_->SubmitProof(context().get(), request, &response));
  return response.job_id();
}

v1::ProofResult Client::await(uint64_t job_id, std::chrono::milliseconds timeout) {
  v1::AwaitProofRequest request;
  request.set_job_id(job_id);
  request.set_timeout_ms(uint64_t(timeout.count()));
  v1::ProofResult result;
  check(stub_->AwaitProof(context(timeout).get(), request, &result));
  return result;
}

v1::ProofResult Client::prove(const v1::SubmitProofRequest& job,
                              std::chrono::milliseconds timeout) {
  v1::ProveRequest request;
  *request.mutable_job() = job;
  request.set_timeout_ms(uint64_t(timeout.count()));
  v1::ProofResult result;
  check(stub_->Prove(context(timeout).get(), request, &result));
  return result;
}

bool Client::cancel(uint64_t job_id) {
  v1::CancelProofRequest request;
  request.set_job_id(job_id);
  v1::CancelProofResponse response;
  check(stub_->CancelProof(context().get(), request, &response));
  return response.cancelled();
}

v1::EngineStatus Client::status() {
  v1::EngineStatus status;
  check(stub_->GetStatus(context().get(), v1::GetStatusRequest(), &status));
  return status;
}

std::string Client::metrics() {
  v1::MetricsText text;
  check(stub_->GetMetrics(context().get(), v1::GetMetricsRequest(), &text));
  return text.text();
}

v1::KeyStatus Client::preload(const std::string& key_id, const std::string& path) {
  v1::PreloadKeyRequest request;
  request.set_key_id(key_id);
  request.set_path(path);
  v1::KeyStatus key;
  // Loading a Filecoin-size key from disk takes minutes.
  check(stub_->PreloadKey(context(std::chrono::hours(1)).get(), request, &key));
  return key;
}

bool Client::evict(const std::string& key_id) {
  v1::EvictKeyRequest request;
  request.set_key_id(key_id);
  v1::EvictKeyResponse response;
  check(stub_->EvictKey(context().get(), request, &response));
  return response.evicted();
}

}  // namespace cuzk::service
