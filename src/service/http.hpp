#pragma once
// A tiny HTTP/1.1 responder for /metrics and /status: GET (and HEAD) only, one request per
// connection (`Connection: close`), answered on the accepting thread. That is all a Prometheus
// scraper or `curl` needs, and it keeps a web framework out of the daemon. Requests larger than
// 8 KiB or slower than 2 s are dropped, so a stuck client delays others by at most that.
//
// Ownership: the server owns its socket and thread; the handler must stay callable until the
// server is destroyed (or stop() returns). Thread-safety: the handler runs on the server's
// thread, one request at a time; start/stop/port from the owner's thread.

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace cuzk::service {

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};

class HttpServer {
 public:
  // The request's path without its query string, e.g. "/metrics".
  using Handler = std::function<HttpResponse(const std::string& path)>;

  // Listens on "host:port" (IPv4 or a name; port 0 picks a free one). Throws kInvalidInput for
  // a malformed address and kInternal when the socket cannot be bound.
  static std::unique_ptr<HttpServer> start(const std::string& address, Handler handler);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  void stop();

 private:
  HttpServer(int fd, int wake_fd_read, int wake_fd_write, int port, Handler handler);
  void serve();
  void answer(int connection);

  int fd_, wake_read_, wake_write_, port_;
  Handler handler_;
  std::thread thread_;
};

// "host:port" → (host, port); kInvalidInput when malformed.
std::pair<std::string, int> split_host_port(const std::string& address);

}  // namespace cuzk::service
