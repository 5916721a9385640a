#pragma once
// Conversions between the engine's values (src/engine/job.hpp, engine.hpp) and the messages
// of cuzk.v1 (proto/cuzk/v1/proving_engine.proto), shared by the server, the HTTP /status page
// and the client commands. Pure functions.

#include <string>
#include <string_view>

#include "cuzk/v1/proving_engine.pb.h"
#include "engine/engine.hpp"

namespace cuzk::service {

// PRIORITY_UNSPECIFIED is NORMAL; a value outside the enum is kInvalidInput.
engine::Priority priority_from_proto(int priority);
v1::Priority priority_to_proto(engine::Priority priority);
// "low", "normal", "high", "critical" → the enum; kInvalidInput otherwise.
v1::Priority priority_from_name(std::string_view name);
v1::JobState state_to_proto(engine::JobState state);
std::string_view state_name(v1::JobState state);  // "queued", ..., "cancelled"

v1::ProofFormat proof_format_to_proto(engine::ProofFormat format);
// The deprecated PartitionProof.proof_json text of an output: its bytes, or a bellman proof's
// 384 lowercase hex digits.
std::string legacy_proof_text(const engine::PartitionOutput& p);
void result_to_proto(const engine::JobResult& result, v1::ProofResult& out);
void key_status_to_proto(const engine::KeyStatus& key, v1::KeyStatus& out);

void status_to_proto(const engine::EngineStatus& status, double uptime_s, v1::EngineStatus& out);

// The message as JSON (proto field names, every field printed, indented when `pretty`).
std::string to_json(const google::protobuf::Message& message, bool pretty);

}  // namespace cuzk::service
