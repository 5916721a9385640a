#pragma once
// Requests → engine jobs, with the checks that keep a client to what is its own:
//
// - key_id and request_id are bounded (kMaxIdBytes); a job has 1..max_partitions partitions;
// - witness bytes are moved out of the request, so a witness is held once per request;
// - a witness path is honoured for local callers (the unix socket), and for TCP callers only
//   inside `allowed_over_tcp` (checked on the name, and again on where the opened file really
//   is); the file is opened here, once, as a formats::InputFile (a regular file no larger
//   than the key's witness bound; O_NOFOLLOW when asked), must be non-empty and start with the
//   .wtns magic; the engine maps that opened file, so a swap of the path after submission
//   changes nothing. Error messages name the path, never its contents.
//
// Errors: kInvalidInput; PermissionDenied for a path the caller may not name. Pure functions
// over their arguments (thread-safe).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cuzk/v1/proving_engine.pb.h"
#include "engine/job.hpp"
#include "service/auth.hpp"
#include "util/error.hpp"

namespace cuzk::service {

constexpr size_t kMaxIdBytes = 256;

// A path the caller may not name (PERMISSION_DENIED).
class PermissionDenied : public Error {
 public:
  explicit PermissionDenied(const std::string& message)
      : Error(ErrorKind::kInvalidInput, message) {}
};

struct PathPolicy {
  std::vector<std::filesystem::path> allowed_over_tcp;  // canonical directories
  bool no_follow = false;
};

// `text` cut to 64 bytes with its length, for logs and messages.
std::string truncated(std::string_view text);
// kInvalidInput when empty or longer than kMaxIdBytes.
void check_id(std::string_view id, const char* what);

// Consumes the request's witness bytes. `witness_bound`: the largest witness file the key takes.
// The job's owner is the caller's; its request id is scoped to the caller.
engine::JobSpec prepare_job(v1::SubmitProofRequest& request, const Caller& caller,
                            const PathPolicy& policy, uint64_t witness_bound,
                            uint32_t max_partitions);

// A key path of PreloadKey: PermissionDenied unless the caller may name it; kInvalidInput
// when it is not a regular file. Returns the canonical path.
std::filesystem::path check_key_path(const std::string& path, const Caller& caller,
                                     const PathPolicy& policy);

}  // namespace cuzk::service
