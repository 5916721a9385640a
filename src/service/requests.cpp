#include "service/requests.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

std::shared_ptr<OpenedFile> open_witness(const std::string& path, const Caller& caller,
                                         const PathPolicy& policy, uint64_t bound,
                                         const std::string& what) {
  if (path.empty() || path.find('\0') != std::string::npos || path.front() != '/') {
    CUZK_INVALID_INPUT(what + ": the path must be absolute");
  }
  // A TCP caller learns nothing about files outside the allowed directories, not even
  // whether they exist: the check of the name comes first and does not touch the file.
  if (!caller.local) {
    const fs::path lexical = fs::path(path).lexically_normal();
    check_allowed(lexical, path, caller, policy, what);
  }
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (policy.no_follow) flags |= O_NOFOLLOW;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int e = errno;
    CUZK_INVALID_INPUT(
        what + ": cannot open '" + truncated(path) + "': " +
        (e == ELOOP && policy.no_follow ? "it is a symbolic link (refused)" : std::strerror(e)));
  }
  auto file = std::make_shared<OpenedFile>(fd);
  // Where the opened file really is (symlinks resolved): checked again, race-free.
  if (!caller.local) {
    std::error_code ec;
    const fs::path real = fs::read_symlink(file->proc_path(), ec);
    if (ec) CUZK_INVALID_INPUT(what + ": cannot resolve '" + truncated(path) + "'");
    check_allowed(real, path, caller, policy, what);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) CUZK_INVALID_INPUT(what + ": cannot stat '" + truncated(path) + "'");
  if (!S_ISREG(st.st_mode)) {
    CUZK_INVALID_INPUT(what + ": '" + truncated(path) + "' is not a regular file");
  }
  if (st.st_size == 0) CUZK_INVALID_INPUT(what + ": '" + truncated(path) + "' is empty");
  if (uint64_t(st.st_size) > bound) {
    CUZK_INVALID_INPUT(what + ": '" + truncated(path) + "' is " + std::to_string(st.st_size) +
                       " bytes, more than the " + std::to_string(bound) +
                       " a witness of this key can be");
  }
  char magic[4] = {};
  if (::pread(fd, magic, 4, 0) != 4 || std::memcmp(magic, "wtns", 4) != 0) {
    CUZK_INVALID_INPUT(what + ": '" + truncated(path) + "' is not a .wtns file");
  }
  return file;
}

}  // namespace

OpenedFile::~OpenedFile() { ::close(fd_); }

fs::path OpenedFile::proc_path() const { return "/proc/self/fd/" + std::to_string(fd_); }

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

PreparedJob prepare_job(v1::SubmitProofRequest& request, const Caller& caller,
                        const PathPolicy& policy, uint64_t witness_bound, uint32_t max_partitions) {
  check_id(request.key_id(), "key_id");
  if (request.request_id().size() > kMaxIdBytes) check_id(request.request_id(), "request_id");
  const auto n = uint64_t(request.partitions_size());
  if (n == 0) CUZK_INVALID_INPUT("a job needs at least one partition (a witness)");
  if (n > max_partitions) {
    CUZK_INVALID_INPUT("a job has at most " + std::to_string(max_partitions) + " partitions, not " +
                       std::to_string(n));
  }
  PreparedJob job;
  job.spec.key_id = request.key_id();
  job.spec.priority = priority_from_proto(request.priority());
  job.spec.request_id = request.request_id();
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
        job.spec.partitions.push_back(
            {std::make_shared<const std::vector<uint8_t>>(bytes->begin(), bytes->end())});
        break;
      }
      case v1::Witness::kPath: {
        auto file = open_witness(w.path(), caller, policy, witness_bound, what);
        job.spec.partitions.push_back({nullptr, file->proc_path()});
        job.files.push_back(std::move(file));
        break;
      }
      default:
        CUZK_INVALID_INPUT(what + ": no witness (give wtns bytes or a path)");
    }
  }
  return job;
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
