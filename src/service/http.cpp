#include "service/http.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "service/log.hpp"
#include "util/error.hpp"

namespace cuzk::service {
namespace {

constexpr size_t kMaxRequest = 8192;
constexpr int kRequestTimeoutMs = 2000;

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 503:
      return "Service Unavailable";
    default:
      return status < 500 ? "Error" : "Internal Server Error";
  }
}

void write_all(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away; nothing to tell it
    done += size_t(n);
  }
}

}  // namespace

std::pair<std::string, int> split_host_port(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon + 1 == address.size()) {
    CUZK_INVALID_INPUT("address '" + address + "': expected host:port");
  }
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int port = -1;
  try {
    size_t used = 0;
    port = std::stoi(address.substr(colon + 1), &used);
    if (used != address.size() - colon - 1) port = -1;
  } catch (const std::exception&) {
  }
  if (port < 0 || port > 65535) CUZK_INVALID_INPUT("address '" + address + "': bad port");
  return {host.empty() ? "0.0.0.0" : host, port};
}

std::unique_ptr<HttpServer> HttpServer::start(const std::string& address, Handler handler) {
  const auto [host, port] = split_host_port(address);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    CUZK_INVALID_INPUT("http address '" + address + "': " + ::gai_strerror(rc));
  }
  int fd = -1;
  std::string error = "no address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 64) == 0) break;
    error = std::strerror(errno);
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(found);
  if (fd < 0) CUZK_THROW(ErrorKind::kInternal, "http: cannot listen on " + address + ": " + error);
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  const int bound_port = bound.ss_family == AF_INET6
                             ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                             : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  int wake[2];
  if (::pipe2(wake, O_CLOEXEC) != 0) {
    ::close(fd);
    CUZK_THROW(ErrorKind::kInternal, "http: pipe: " + std::string(std::strerror(errno)));
  }
  std::unique_ptr<HttpServer> server(
      new HttpServer(fd, wake[0], wake[1], bound_port, std::move(handler)));
  server->thread_ = std::thread([s = server.get()] { s->serve(); });
  return server;
}

HttpServer::HttpServer(int fd, int wake_fd_read, int wake_fd_write, int port, Handler handler)
    : fd_(fd),
      wake_read_(wake_fd_read),
      wake_write_(wake_fd_write),
      port_(port),
      handler_(std::move(handler)) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::stop() {
  if (!thread_.joinable()) return;
  const char byte = 0;
  [[maybe_unused]] ssize_t n = ::write(wake_write_, &byte, 1);
  thread_.join();
  ::close(fd_);
  ::close(wake_read_);
  ::close(wake_write_);
}

void HttpServer::serve() {
  for (;;) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      log_error("http_poll_failed").kv("error", std::strerror(errno));
      return;
    }
    if (fds[1].revents) return;
    if (!(fds[0].revents & POLLIN)) continue;
    const int connection = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (connection < 0) continue;
    try {
      answer(connection);
    } catch (const std::exception& e) {
      log_warn("http_request_failed").kv("error", e.what());
    }
    ::close(connection);
  }
}

void HttpServer::answer(int connection) {
  std::string request;
  char buffer[2048];
  const auto started = std::chrono::steady_clock::now();
  while (request.find("\r\n\r\n") == std::string::npos) {
    if (request.size() > kMaxRequest) return;
    const int left = kRequestTimeoutMs - int(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 std::chrono::steady_clock::now() - started)
                                                 .count());
    pollfd p{connection, POLLIN, 0};
    if (left <= 0 || ::poll(&p, 1, left) <= 0) return;
    const ssize_t n = ::recv(connection, buffer, sizeof buffer, 0);
    if (n <= 0) return;
    request.append(buffer, size_t(n));
  }
  // Request line: METHOD SP target SP version.
  const auto line_end = request.find("\r\n");
  const std::string line = request.substr(0, line_end);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string::npos ? sp1 : line.find(' ', sp1 + 1);
  HttpResponse response;
  std::string method;
  if (sp2 == std::string::npos) {
    response = {400, "text/plain; charset=utf-8", "malformed request line\n"};
  } else {
    method = line.substr(0, sp1);
    std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
    if (method != "GET" && method != "HEAD") {
      response = {405, "text/plain; charset=utf-8", "only GET and HEAD\n"};
    } else {
      response = handler_(path);
    }
  }
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " + reason(response.status) +
                     "\r\nContent-Type: " + response.content_type +
                     "\r\nContent-Length: " + std::to_string(response.body.size()) +
                     "\r\nConnection: close\r\n";
  if (response.status == 405) head += "Allow: GET, HEAD\r\n";
  head += "\r\n";
  write_all(connection, method == "HEAD" ? head : head + response.body);
}

}  // namespace cuzk::service
