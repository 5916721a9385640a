#include "service/auth.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <grpc/grpc_security.h>
#include <grpcpp/server.h>
#include <grpcpp/server_posix.h>
#include <openssl/sha.h>

#include "service/log.hpp"
#include "util/error.hpp"

namespace cuzk::service {

std::string token_identity(std::string_view token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  std::string out = "token:";
  char hex[3];
  for (int i = 0; i < 8; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", digest[i]);
    out += hex;
  }
  return out;
}

bool bearer_matches(std::string_view header, std::string_view token) {
  constexpr std::string_view kPrefix = "Bearer ";
  if (token.empty() || header.size() != kPrefix.size() + token.size()) return false;
  // Length is not secret; the contents are compared without an early exit.
  unsigned char diff = 0;
  for (size_t i = 0; i < kPrefix.size(); ++i) diff |= uint8_t(header[i] ^ kPrefix[i]);
  for (size_t i = 0; i < token.size(); ++i) diff |= uint8_t(header[kPrefix.size() + i] ^ token[i]);
  return diff == 0;
}

namespace {

struct Tokens {
  std::vector<std::string> tokens;
  std::string admin;
};

// The core's processor interface: answers synchronously (no I/O), before the message is read.
void process_metadata(void* state, grpc_auth_context*, const grpc_metadata* md, size_t count,
                      grpc_process_auth_metadata_done_cb done, void* user_data) {
  const auto& tokens = *static_cast<const Tokens*>(state);
  bool ok = false;
  for (size_t i = 0; i < count && !ok; ++i) {
    const auto key =
        std::string_view(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(md[i].key)),
                         GRPC_SLICE_LENGTH(md[i].key));
    if (key != "authorization") continue;
    const auto value =
        std::string_view(reinterpret_cast<const char*>(GRPC_SLICE_START_PTR(md[i].value)),
                         GRPC_SLICE_LENGTH(md[i].value));
    ok = bearer_matches(value, tokens.admin);
    for (const auto& token : tokens.tokens) ok = bearer_matches(value, token) || ok;
  }
  done(user_data, nullptr, 0, nullptr, 0, ok ? GRPC_STATUS_OK : GRPC_STATUS_UNAUTHENTICATED,
       ok ? nullptr : "missing or wrong bearer token");
}

void destroy_tokens(void* state) { delete static_cast<Tokens*>(state); }

// Plain-text credentials carrying the processor. grpc::InsecureServerCredentials() cannot take
// one, so the port is added with the core's insecure credentials, to which it is attached.
class TokenCredentials final : public grpc::ServerCredentials {
 public:
  TokenCredentials(const std::vector<std::string>& tokens, const std::string& admin)
      : creds_(grpc_insecure_server_credentials_create()) {
    grpc_auth_metadata_processor processor{&process_metadata, &destroy_tokens,
                                           new Tokens{tokens, admin}};
    grpc_server_credentials_set_auth_metadata_processor(creds_, processor);
  }
  ~TokenCredentials() override { grpc_server_credentials_release(creds_); }

  void SetAuthMetadataProcessor(const std::shared_ptr<grpc::AuthMetadataProcessor>&) override {
    CUZK_THROW(ErrorKind::kInternal, "token credentials carry their own metadata processor");
  }

 private:
  int AddPortToServer(const std::string& address, grpc_server* server) override {
    return grpc_server_add_http2_port(server, address.c_str(), creds_);
  }

  grpc_server_credentials* creds_;
};

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
  if (!fs::is_socket(status)) CUZK_INVALID_INPUT("'" + path + "' exists and is not a socket");
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size());
  const bool live = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  if (live) CUZK_INVALID_INPUT("another process is listening on '" + path + "'");
  fs::remove(p);
}

[[noreturn]] void fail_errno(const std::string& what) {
  CUZK_THROW(ErrorKind::kInternal, what + ": " + std::strerror(errno));
}

}  // namespace

std::shared_ptr<grpc::ServerCredentials> token_credentials(const std::vector<std::string>& tokens,
                                                           const std::string& admin_token) {
  return std::make_shared<TokenCredentials>(tokens, admin_token);
}

std::unique_ptr<UnixListener> UnixListener::bind(const std::string& path, uint32_t mode) {
  prepare_socket_path(path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) fail_errno("socket");
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size());
  // Created with the mode already restricted (no window in which it is open to everyone).
  const mode_t old_mask = ::umask(0777 & ~mode);
  const int bound = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::umask(old_mask);
  if (bound != 0 || ::listen(fd, 256) != 0 || ::chmod(path.c_str(), mode) != 0) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    fail_errno("cannot listen on unix:" + path);
  }
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) {
    ::close(fd);
    fail_errno("pipe");
  }
  return std::unique_ptr<UnixListener>(new UnixListener(path, fd, wake[0], wake[1]));
}

UnixListener::UnixListener(std::string path, int fd, int wake_read, int wake_write)
    : path_(std::move(path)), fd_(fd), wake_read_(wake_read), wake_write_(wake_write) {}

UnixListener::~UnixListener() {
  stop();
  ::close(fd_);
  ::close(wake_read_);
  ::close(wake_write_);
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

void UnixListener::start(grpc::Server& server) {
  thread_ = std::thread([this, &server] { accept_loop(server); });
}

void UnixListener::stop() {
  if (!thread_.joinable()) return;
  const char byte = 0;
  [[maybe_unused]] const auto n = ::write(wake_write_, &byte, 1);
  thread_.join();
}

std::optional<uint32_t> UnixListener::peer_uid(std::string_view peer) const {
  constexpr std::string_view kPrefix = "fd:";
  if (peer.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  int fd = 0;
  for (const char ch : peer.substr(kPrefix.size())) {
    if (ch < '0' || ch > '9' || fd > 1 << 24) return std::nullopt;
    fd = fd * 10 + (ch - '0');
  }
  std::lock_guard lock(mutex_);
  const auto it = uid_by_fd_.find(fd);
  if (it == uid_by_fd_.end()) return std::nullopt;
  return it->second;
}

void UnixListener::accept_loop(grpc::Server& server) {
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      log_error("unix_accept_failed").kv("error", std::strerror(errno));
      return;
    }
    if (fds[1].revents) return;
    const int connection = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (connection < 0) {
      if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED) {
        log_warn("unix_accept_failed").kv("error", std::strerror(errno));
        if (errno == EMFILE || errno == ENFILE) ::poll(nullptr, 0, 100);  // let fds free up
      }
      continue;
    }
    ucred peer{};
    socklen_t length = sizeof peer;
    if (::getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0) {
      ::close(connection);
      continue;
    }
    {
      // A descriptor number is reused only after gRPC closed the connection that had it, so
      // the entry is current for every call of the connection now using it.
      std::lock_guard lock(mutex_);
      uid_by_fd_[connection] = uint32_t(peer.uid);
    }
    grpc::AddInsecureChannelFromFd(&server, connection);
  }
}

}  // namespace cuzk::service
