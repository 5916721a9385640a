#pragma once
// gRPC status codes of the daemon's answers: error kinds → codes (server.hpp, status_code_for),
// a job's result → the answer to a wait, the exception being handled → a status. Pure.

#include <grpcpp/support/status.h>

#include "engine/job.hpp"

namespace cuzk::service {

// "INVALID_ARGUMENT", ... for the metrics and logs ("OTHER" for codes the daemon never sends).
const char* code_name(grpc::StatusCode code);
grpc::StatusCode code_for_kind(ErrorKind kind);
// The answer to a wait on a job: OK only for success; the job's own error code for a failure;
// CANCELLED; DEADLINE_EXCEEDED while it is not final.
grpc::Status result_status(const engine::JobResult& result);
// The status for the exception being handled (call inside a catch block).
grpc::Status status_of_exception();

}  // namespace cuzk::service
