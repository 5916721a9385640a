#include "service/status_codes.hpp"

#include "service/requests.hpp"
#include "service/server.hpp"

namespace cuzk::service {

using grpc::Status;
using grpc::StatusCode;

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
    case StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
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

Status status_of_exception() {
  try {
    throw;
  } catch (const Error& e) {
    return Status(StatusCode(status_code_for(e)), e.what());
  } catch (const std::exception& e) {
    return Status(StatusCode::INTERNAL, std::string("internal error: ") + e.what());
  }
}

int status_code_for(const Error& error) {
  if (dynamic_cast<const engine::ShuttingDownError*>(&error)) return int(StatusCode::UNAVAILABLE);
  if (dynamic_cast<const PermissionDenied*>(&error)) return int(StatusCode::PERMISSION_DENIED);
  return int(code_for_kind(error.kind()));
}

}  // namespace cuzk::service
