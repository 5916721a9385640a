#include "service/http.hpp"

#include <httplib.h>

#include "service/log.hpp"
#include "util/error.hpp"

namespace cuzk::service {

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

std::unique_ptr<HttpServer> HttpServer::start(const std::string& address, Handler handler,
                                              const HttpOptions& options) {
  const auto [host, port] = split_host_port(address);
  std::unique_ptr<HttpServer> http(new HttpServer());
  http->server_ = std::make_unique<httplib::Server>();
  auto& server = *http->server_;
  const int threads = options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  server.set_read_timeout(options.timeout);
  server.set_write_timeout(options.timeout);
  // A connection holds one of the pool's threads while it is open: idle ones are let go soon.
  server.set_keep_alive_timeout(1);
  server.set_keep_alive_max_count(100);
  server.set_payload_max_length(8192);
  const auto answer = [handler = std::move(handler)](const httplib::Request& request,
                                                     httplib::Response& response) {
    HttpResponse r;
    try {
      r = handler(request.path);
    } catch (const std::exception& e) {
      log_warn("http_request_failed").kv("path", request.path).kv("error", e.what());
      r = {500, "text/plain; charset=utf-8", "internal error\n"};
    }
    response.status = r.status;
    response.set_content(r.body, r.content_type.c_str());
  };
  server.Get(".*", answer);  // HEAD is answered by the GET handler without the body
  const auto refuse = [](const httplib::Request&, httplib::Response& response) {
    response.status = 405;
    response.set_header("Allow", "GET, HEAD");
    response.set_content("only GET and HEAD\n", "text/plain; charset=utf-8");
  };
  server.Post(".*", refuse);
  server.Put(".*", refuse);
  server.Patch(".*", refuse);
  server.Delete(".*", refuse);
  server.Options(".*", refuse);
  server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
    if (response.body.empty()) {
      response.set_content("error " + std::to_string(response.status) + "\n",
                           "text/plain; charset=utf-8");
    }
  });
  http->port_ =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (http->port_ <= 0) CUZK_THROW(ErrorKind::kInternal, "http: cannot listen on " + address);
  http->thread_ = std::thread([s = http->server_.get()] { s->listen_after_bind(); });
  return http;
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::stop() {
  if (!thread_.joinable()) return;
  server_->stop();
  thread_.join();
}

}  // namespace cuzk::service
