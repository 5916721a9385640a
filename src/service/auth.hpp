#pragma once
// Who is calling: the daemon's callers, authenticated before gRPC reads their request.
//
// TCP: `token_credentials` are gRPC server credentials whose metadata processor checks the
// `authorization: Bearer <token>` header when a call's headers arrive, before its message is
// received, so a caller without the token never makes the daemon buffer or parse a request
// (gRPC 1.51: the processor runs in the server's auth filter on the initial metadata; an
// interceptor would run only after the whole unary request was read). A caller's identity is
// a hash of its token, never the token.
//
// Unix socket: `UnixListener` accepts the connections itself, reads each peer's uid with
// SO_PEERCRED and hands the connection to the gRPC server (AddInsecureChannelFromFd), whose
// calls then name it in their peer string ("fd:N"); `peer_uid` maps that back to the uid.
//
// Thread-safety: UnixListener's accessors may be called from any thread; start/stop from the
// owner's. The credentials are immutable once made.

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include <grpcpp/security/server_credentials.h>

namespace grpc {
class Server;
}

namespace cuzk::service {

struct Caller {
  std::string owner;   // "uid:1000" or "token:<16 hex digits>"; "" for no identity
  bool local = false;  // on the unix socket
  bool admin = false;  // the admin token, or root on the unix socket
};

// "token:" and the first 16 hex digits of the token's SHA-256.
std::string token_identity(std::string_view token);

// Constant-time comparison of a header value with "Bearer <token>".
bool bearer_matches(std::string_view header, std::string_view token);

// Server credentials for plain-text TCP that refuse, with UNAUTHENTICATED and before the
// request message is read, every call whose bearer token is none of `tokens` nor
// `admin_token` (empty: no admin).
std::shared_ptr<grpc::ServerCredentials> token_credentials(const std::vector<std::string>& tokens,
                                                           const std::string& admin_token);

class UnixListener {
 public:
  // Binds `path` with `mode` (created with the mode already set, then chmod'ed exactly),
  // refusing a path another process still answers on and replacing a stale socket.
  // Throws kInvalidInput (a bad path) or kInternal.
  static std::unique_ptr<UnixListener> bind(const std::string& path, uint32_t mode);
  ~UnixListener();  // stop(); removes the socket file
  UnixListener(const UnixListener&) = delete;
  UnixListener& operator=(const UnixListener&) = delete;

  // Starts accepting into `server` (which must outlive stop()).
  void start(grpc::Server& server);
  void stop();
  // The uid of the connection a call's peer string names ("fd:N"); nullopt when unknown.
  std::optional<uint32_t> peer_uid(std::string_view peer) const;

 private:
  UnixListener(std::string path, int fd, int wake_read, int wake_write);
  void accept_loop(grpc::Server& server);

  std::string path_;
  int fd_, wake_read_, wake_write_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::unordered_map<int, uint32_t> uid_by_fd_;
};

}  // namespace cuzk::service
