#include "service/convert.hpp"

#include <google/protobuf/util/json_util.h>

#include "util/error.hpp"

namespace cuzk::service {
namespace {
// Whether `text` is well-formed UTF-8 (a proto3 string field must be, or readers reject the
// whole message).
bool is_utf8(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const unsigned c = byte(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // The lead byte gives the length and the range of the second byte (no overlong forms,
    // no surrogates, nothing above U+10FFFF: RFC 3629's table).
    size_t length = 0;
    unsigned low = 0x80, high = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      length = 3;
      if (c == 0xe0) low = 0xa0;
      if (c == 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4;
      if (c == 0xf0) low = 0x90;
      if (c == 0xf4) high = 0x8f;
    } else {
      return false;
    }
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return false;
    for (size_t k = 2; k < length; ++k) {
      if ((byte(i + k) & 0xc0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}
}  // namespace

engine::Priority priority_from_proto(int priority) {
  switch (priority) {
    case v1::PRIORITY_UNSPECIFIED:
    case v1::PRIORITY_NORMAL:
      return engine::Priority::kNormal;
    case v1::PRIORITY_LOW:
      return engine::Priority::kLow;
    case v1::PRIORITY_HIGH:
      return engine::Priority::kHigh;
    case v1::PRIORITY_CRITICAL:
      return engine::Priority::kCritical;
  }
  CUZK_INVALID_INPUT("unknown priority " + std::to_string(priority));
}

v1::Priority priority_to_proto(engine::Priority priority) {
  // The engine's values are the order low..critical from 0; the proto keeps 0 for "unset".
  return v1::Priority(int(priority) + 1);
}

v1::Priority priority_from_name(std::string_view name) {
  for (int p = 0; p <= int(engine::Priority::kCritical); ++p) {
    if (engine::priority_name(engine::Priority(p)) == name) {
      return priority_to_proto(engine::Priority(p));
    }
  }
  CUZK_INVALID_INPUT("priority '" + std::string(name) + "': use low, normal, high or critical");
}

v1::JobState state_to_proto(engine::JobState state) {
  switch (state) {
    case engine::JobState::kQueued:
      return v1::JOB_STATE_QUEUED;
    case engine::JobState::kRunning:
      return v1::JOB_STATE_RUNNING;
    case engine::JobState::kSucceeded:
      return v1::JOB_STATE_SUCCEEDED;
    case engine::JobState::kFailed:
      return v1::JOB_STATE_FAILED;
    case engine::JobState::kCancelled:
      return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

std::string_view state_name(v1::JobState state) {
  switch (state) {
    case v1::JOB_STATE_QUEUED:
      return "queued";
    case v1::JOB_STATE_RUNNING:
      return "running";
    case v1::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case v1::JOB_STATE_FAILED:
      return "failed";
    case v1::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

v1::ProofFormat proof_format_to_proto(engine::ProofFormat format) {
  switch (format) {
    case engine::ProofFormat::kSnarkjsJson:
      return v1::PROOF_FORMAT_SNARKJS_JSON;
    case engine::ProofFormat::kBellman:
      return v1::PROOF_FORMAT_BELLMAN;
    case engine::ProofFormat::kSimToken:
      return v1::PROOF_FORMAT_SIM_TOKEN;
  }
  return v1::PROOF_FORMAT_UNSPECIFIED;
}

std::string legacy_proof_text(const engine::PartitionOutput& p) {
  if (p.format != engine::ProofFormat::kBellman) return {p.proof.begin(), p.proof.end()};
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * p.proof.size());
  for (uint8_t b : p.proof) {
    text.push_back(kDigits[b >> 4]);
    text.push_back(kDigits[b & 15]);
  }
  return text;
}

void result_to_proto(const engine::JobResult& r, v1::ProofResult& out) {
  out.set_job_id(r.id);
  out.set_state(state_to_proto(r.state));
  for (const auto& p : r.partitions) {
    auto* proof = out.add_partitions();
    proof->set_proof(p.proof.data(), p.proof.size());
    proof->set_proof_format(proof_format_to_proto(p.format));
    // A sim token of a binary witness is not text: a proto3 string must be UTF-8.
    if (auto text = legacy_proof_text(p); is_utf8(text)) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
      proof->set_proof_json(std::move(text));
#pragma GCC diagnostic pop
    }
    proof->set_public_json(p.public_inputs);
  }
  auto* t = out.mutable_timings();
  t->set_wall_ms(r.timings.wall_ms);
  auto* s = t->mutable_sum();
  s->set_queue_ms(r.timings.sum.queue_ms);
  s->set_key_load_ms(r.timings.sum.key_load_ms);
  s->set_synthesis_ms(r.timings.sum.synthesis_ms);
  s->set_stage_ms(r.timings.sum.stage_ms);
  s->set_gpu_ms(r.timings.sum.gpu_ms);
  s->set_epilogue_ms(r.timings.sum.epilogue_ms);
  s->set_total_ms(r.timings.sum.total_ms);
}

void key_status_to_proto(const engine::KeyStatus& key, v1::KeyStatus& out) {
  out.set_id(key.id);
  out.set_tier(std::string(engine::key_tier_name(key.tier)));
  out.set_bytes(key.bytes);
  out.set_in_use(key.in_use);
  out.set_loading(key.loading);
  out.set_loads(key.loads);
  for (const auto& [tier, bytes] : key.charges) {
    (*out.mutable_charges())[std::string(engine::key_tier_name(tier))] = bytes;
  }
}

void status_to_proto(const engine::EngineStatus& s, double uptime_s, v1::EngineStatus& out) {
  out.set_backend(s.backend);
  for (const auto& g : s.gpus) {
    auto* gpu = out.add_gpus();
    gpu->set_device(g.device);
    gpu->set_name(g.name);
    gpu->set_vram_bytes(g.vram_bytes);
    gpu->set_arena_bytes(g.arena_bytes);
    gpu->set_arena_in_use(g.arena_in_use);
    gpu->set_arena_peak(g.arena_peak);
    gpu->set_workers(g.workers);
    gpu->set_busy_fraction(g.busy_fraction);
  }
  out.set_cpu_workers(s.cpu_workers);
  auto* queue = out.mutable_queue();
  queue->set_queued(s.queued);
  queue->set_capacity(s.queue_capacity);
  for (size_t p = 0; p < s.queued_by_priority.size(); ++p) {
    (*queue->mutable_by_priority())[std::string(engine::priority_name(engine::Priority(p)))] =
        s.queued_by_priority[p];
  }
  out.set_jobs_active(s.jobs_active);
  out.set_jobs_retained(s.jobs_retained);
  out.set_host_budget(s.host_budget);
  out.set_host_in_use(s.host_in_use);
  out.set_host_peak(s.host_peak);
  for (const auto& k : s.keys) key_status_to_proto(k, *out.add_keys());
  for (const auto& t : s.key_tiers) {
    auto* tier = out.add_key_tiers();
    tier->set_tier(std::string(engine::key_tier_name(t.tier)));
    tier->set_budget(t.budget);
    tier->set_used(t.used);
  }
  out.set_partitions_succeeded(s.partitions_succeeded);
  out.set_partitions_failed(s.partitions_failed);
  out.set_partitions_cancelled(s.partitions_cancelled);
  out.set_accepting(s.accepting);
  out.set_uptime_s(uptime_s);
}

std::string to_json(const google::protobuf::Message& message, bool pretty) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = pretty;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) CUZK_THROW(ErrorKind::kInternal, "JSON of " + message.GetTypeName());
  return json;
}

}  // namespace cuzk::service
