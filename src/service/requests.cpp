#include "service/requests.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "formats/input_file.hpp"
#include "service/convert.hpp"

namespace cuzk::service {
namespace {

namespace fs = std::filesystem;

bool inside(const fs::path& path, const fs::path& directory) {
  auto p = path.begin();
  for (auto d = directory.begin(); d != directory.end(); ++d, ++p) {
    if (d->empty()) continue;  // a trailing separator
    if (p == path.end() || *p != *d) return false;
  }
  return true;
}

void check_allowed(const fs::path& real, const std::string& shown, const Caller& caller,
                   const PathPolicy& policy, const std::string& what) {
  if (caller.local) return;
  for (const auto& directory : policy.allowed_over_tcp) {
    if (inside(real, directory)) return;
  }
  throw PermissionDenied(what + " '" + truncated(shown) +
                         "': paths are accepted from the unix socket only (a TCP client may "
                         "name files under the server's allow_paths_over_tcp)");
}

// Closes a descriptor at the end of a scope.
struct Descriptor {
  int fd;
  ~Descriptor() { ::close(fd); }
  std::string proc_path() const { return "/proc/self/fd/" + std::to_string(fd); }
};

std::shared_ptr<const formats::InputFile> open_witness(const std::string& path,
                                                       const Caller& caller,
                                                       const PathPolicy& policy, uint64_t bound,
                                                       const std::string& what) {
  if (path.empty() || path.find('\0') != std::string::npos || path.front() != '/') {
    CUZK_INVALID_INPUT(what + ": the path must be absolute");
  }
  formats::OpenInputOptions options;
  options.no_follow = policy.no_follow;
  options.max_bytes = bound;
  std::shared_ptr<const formats::InputFile> file;
  if (caller.local) {
    try {
      file = formats::InputFile::open(path, options);
    } catch (const Error& e) {
      // A missing witness file is a bad request, not an unknown job or key.
      if (e.kind() != ErrorKind::kNotFound) throw;
      CUZK_INVALID_INPUT(what + ": " + e.what());
    }
  } else {
    // A TCP caller learns nothing about files outside the allowed directories, not even
    // whether they exist: the name is checked before the file is touched, then the opened
    // file's real path (symlinks resolved), and that same open file is what the engine gets.
    check_allowed(fs::path(path).lexically_normal(), path, caller, policy, what);
    int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (policy.no_follow) flags |= O_NOFOLLOW;
    const Descriptor opened{::open(path.c_str(), flags)};
    if (opened.fd < 0) {
      const int e = errno;
      CUZK_INVALID_INPUT(
          what + ": cannot open '" + truncated(path) + "': " +
          (e == ELOOP && policy.no_follow ? "it is a symbolic link (refused)" : std::strerror(e)));
    }
    std::error_code ec;
    const fs::path real = fs::read_symlink(opened.proc_path(), ec);
    if (ec) CUZK_INVALID_INPUT(what + ": cannot resolve '" + truncated(path) + "'");
    check_allowed(real, path, caller, policy, what);
    options.no_follow = false;  // the /proc name is a link to the file already opened
    file = formats::InputFile::open(opened.proc_path(), options);
  }
  if (file->size() == 0) CUZK_INVALID_INPUT(what + ": '" + truncated(path) + "' is empty");
  const auto mapped = file->map();
  if (mapped.bytes().size() < 4 || std::memcmp(mapped.bytes().data(), "wtns", 4) != 0) {
    CUZK_INVALID_INPUT(what + ": '" + truncated(path) + "' is not a .wtns file");
  }
  return file;
}

}  // namespace

std::string truncated(std::string_view text) {
  constexpr size_t kShown = 64;
  if (text.size() <= kShown) return std::string(text);
  return std::string(text.substr(0, kShown)) + "…(" + std::to_string(text.size()) + " bytes)";
}

void check_id(std::string_view id, const char* what) {
  if (id.empty()) CUZK_INVALID_INPUT(std::string(what) + " is empty");
  if (id.size() > kMaxIdBytes) {
    CUZK_INVALID_INPUT(std::string(what) + " is " + std::to_string(id.size()) +
                       " bytes, more than " + std::to_string(kMaxIdBytes));
  }
}

engine::JobSpec prepare_job(v1::SubmitProofRequest& request, const Caller& caller,
                            const PathPolicy& policy, uint64_t witness_bound,
                            uint32_t max_partitions) {
  check_id(request.key_id(), "key_id");
  if (request.request_id().size() > kMaxIdBytes) check_id(request.request_id(), "request_id");
  const auto n = uint64_t(request.partitions_size());
  if (n == 0) CUZK_INVALID_INPUT("a job needs at least one partition (a witness)");
  if (n > max_partitions) {
    CUZK_INVALID_INPUT("a job has at most " + std::to_string(max_partitions) + " partitions, not " +
                       std::to_string(n));
  }
  engine::JobSpec spec;
  spec.key_id = request.key_id();
  spec.priority = priority_from_proto(request.priority());
  spec.owner = caller.owner;
  // Idempotency is per caller: another caller's request id names another job.
  if (!request.request_id().empty()) spec.request_id = caller.owner + "/" + request.request_id();
  for (int i = 0; i < request.partitions_size(); ++i) {
    auto& w = *request.mutable_partitions(i);
    const std::string what = "partition " + std::to_string(i);
    switch (w.source_case()) {
      case v1::Witness::kWtns: {
        if (w.wtns().empty()) CUZK_INVALID_INPUT(what + ": the witness is empty");
        if (w.wtns().size() > witness_bound) {
          CUZK_INVALID_INPUT(what + ": the witness is " + std::to_string(w.wtns().size()) +
                             " bytes, more than the " + std::to_string(witness_bound) +
                             " a witness of this key can be");
        }
        // Copied into the engine's buffer and freed at once, so the request holds each
        // witness once, not twice.
        std::unique_ptr<std::string> bytes(w.release_wtns());
        spec.partitions.push_back(
            {std::make_shared<const std::vector<uint8_t>>(bytes->begin(), bytes->end())});
        break;
      }
      case v1::Witness::kPath: {
        spec.partitions.push_back(
            {nullptr, open_witness(w.path(), caller, policy, witness_bound, what)});
        break;
      }
      default:
        CUZK_INVALID_INPUT(what + ": no witness (give wtns bytes or a path)");
    }
  }
  return spec;
}

fs::path check_key_path(const std::string& path, const Caller& caller, const PathPolicy& policy) {
  const std::string what = "key path";
  if (path.empty() || path.find('\0') != std::string::npos || path.front() != '/') {
    CUZK_INVALID_INPUT(what + ": the path must be absolute");
  }
  if (!caller.local) check_allowed(fs::path(path).lexically_normal(), path, caller, policy, what);
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec) CUZK_INVALID_INPUT(what + " '" + truncated(path) + "': " + ec.message());
  check_allowed(real, path, caller, policy, what);
  if (!fs::is_regular_file(real, ec)) {
    CUZK_INVALID_INPUT(what + " '" + truncated(path) + "' is not a regular file");
  }
  return real;
}

}  // namespace cuzk::service
