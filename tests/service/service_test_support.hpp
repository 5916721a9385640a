#pragma once
// Shared helpers of the service tests: a daemon on a temporary unix socket (and optionally
// TCP and HTTP on 127.0.0.1 with ports picked by the kernel), a client for it, an HTTP GET,
// and the sim configuration whose partitions take a chosen wall time.

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "service/client.hpp"
#include "service/config.hpp"
#include "service/daemon.hpp"

namespace cuzk::service::test {

namespace fs = std::filesystem;

// A fresh folder and socket path per call (short: a unix socket path has ~107 bytes).
inline fs::path scratch_dir() {
  static std::atomic<int> counter{0};
  const fs::path dir = fs::temp_directory_path() /
                       ("cuzk-svc-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// sim: one GPU, one worker, partitions of `constraints` whose kernels take
// kernel_ns · constraints (1,000,000 constraints at 1,000 ns: one second per partition).
inline DaemonConfig sim_config(const fs::path& dir, double partition_ms = 1.0) {
  DaemonConfig c;
  c.backend = "sim";
  c.socket = (dir / "d.sock").string();
  c.http_address = "";
  c.log_level = "warn";
  c.sim.gpus = 1;
  c.engine.workers_per_gpu = 1;
  c.engine.host_bytes = uint64_t(8) << 30;
  c.sim.kernel_ns_per_constraint = partition_ms * 1e6 / 1'000'000;
  c.sim.key_load_bytes_per_us = 1e9;  // keys load at once
  c.sim_keys["slow"] = 1'000'000;
  return c;
}

inline ClientOptions unix_client(const DaemonConfig& c) {
  ClientOptions o;
  o.socket = c.socket;
  o.call_timeout = std::chrono::seconds(30);
  return o;
}

inline v1::SubmitProofRequest sim_job(const std::string& key, int partitions,
                                      const std::string& witness = "witness") {
  v1::SubmitProofRequest r;
  r.set_key_id(key);
  for (int p = 0; p < partitions; ++p) r.add_partitions()->set_wtns(witness + std::to_string(p));
  return r;
}

// The gRPC code of what `call` throws (OK if it throws nothing).
template <class Call>
grpc::StatusCode code_of(Call&& call, std::string* message = nullptr) {
  try {
    call();
  } catch (const ClientError& e) {
    if (message) *message = e.what();
    return e.code();
  }
  return grpc::StatusCode::OK;
}

// One HTTP/1.1 request to 127.0.0.1:port; the whole response (status line, headers, body).
inline std::string http_request(int port, const std::string& method, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(uint16_t(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string request = method + " " + path +
                              " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" +
                              (method == "POST" ? "Content-Length: 0\r\n\r\n" : "\r\n");
  [[maybe_unused]] ssize_t sent = ::send(fd, request.data(), request.size(), 0);
  std::string response;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) response.append(buffer, n);
  ::close(fd);
  return response;
}

}  // namespace cuzk::service::test
