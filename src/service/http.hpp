#pragma once
// The HTTP endpoint for /metrics and /status, served by cpp-httplib (Debian's
// libcpp-httplib-dev): GET and HEAD, connections answered concurrently by a pool of threads
// (one per open connection), each connection bounded by read and write timeouts, a 1 s
// keep-alive and a request size: an idle or slow client holds one thread for at most the
// timeout and delays nobody else while fewer than `threads` such clients are connected.
//
// Ownership: the server owns its socket and threads; the handler must stay callable until the
// server is destroyed (or stop() returns). Thread-safety: the handler runs on the pool's
// threads, concurrently; start/stop/port from the owner's thread.

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace httplib {
class Server;
}

namespace cuzk::service {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

struct HttpOptions {
  std::chrono::milliseconds timeout = std::chrono::seconds(5);  // read and write, each
  int threads = 16;
};

class HttpServer {
 public:
  // The request's path without its query string, e.g. "/metrics".
  using Handler = std::function<HttpResponse(const std::string& path)>;

  // Listens on "host:port" (port 0 picks a free one). Throws kInvalidInput for a malformed
  // address and kInternal when the socket cannot be bound.
  static std::unique_ptr<HttpServer> start(const std::string& address, Handler handler,
                                           const HttpOptions& options = {});
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  void stop();

 private:
  HttpServer() = default;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
};

// "host:port" → (host, port); kInvalidInput when malformed.
std::pair<std::string, int> split_host_port(const std::string& address);

}  // namespace cuzk::service
