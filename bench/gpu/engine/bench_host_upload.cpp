// bench_host_upload: the ways a partition's input in the caller's pageable memory can reach the
// GPU, for the host CPU time and wall time they cost (a bellman assignment's a, b, c and
// assignments: 2 GiB at 2^24, 8 GiB at 2^26):
//   pageable     cudaMemcpyAsync from the caller's memory (CUDA copies it through its own
//                pinned buffers on the calling thread), as the assignment stage does now
//   registered   cudaHostRegister of the caller's memory, one DMA, cudaHostUnregister
//   staged       the caller's memory copied by T threads into two pinned buffers of
//                --chunk bytes, each sent by DMA while the other fills
// Each is timed over --runs runs (medians): wall seconds and the process's CPU seconds
// (getrusage: user and system, every thread). The memory is touched before the runs.
//
//   bench_host_upload [--bytes 2GiB] [--chunk 64MiB] [--threads 8] [--runs 5] [--json FILE]

#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "bench_json.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"

namespace cuzk {
namespace {

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Sample {
  double wall_s = 0, cpu_s = 0;
};

template <class F>
Sample timed(F&& f) {
  const double cpu0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  f();
  Sample s;
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.cpu_s = cpu_seconds() - cpu0;
  return s;
}

// The caller's bytes sent through two pinned buffers: `threads` threads fill one while the
// other's DMA runs.
void staged_upload(const std::byte* host, std::byte* device, size_t bytes,
                   std::span<std::byte* const> pinned, size_t chunk, int threads,
                   gpu::Stream& stream, gpu::Event (&sent)[2]) {
  const size_t chunks = (bytes + chunk - 1) / chunk;
  for (size_t k = 0; k < chunks; ++k) {
    const size_t slot = k % 2, first = k * chunk, size = std::min(chunk, bytes - first);
    if (k >= 2) sent[slot].synchronize();
    std::vector<std::thread> pool;
    const size_t part = (size + size_t(threads) - 1) / size_t(threads);
    for (int t = 0; t < threads; ++t) {
      const size_t from = size_t(t) * part;
      if (from >= size) break;
      pool.emplace_back([&, from] {
        std::memcpy(pinned[slot] + from, host + first + from, std::min(part, size - from));
      });
    }
    for (auto& th : pool) th.join();
    CUDA_CHECK(
        cudaMemcpyAsync(device + first, pinned[slot], size, cudaMemcpyHostToDevice, stream.get()));
    sent[slot].record(stream);
  }
  stream.synchronize();
}

int run(int argc, char** argv) {
  size_t bytes = size_t(2) << 30, chunk = size_t(64) << 20;
  std::string json_path;
  int threads = 8, runs = 5;
  CLI::App app{"host-to-device upload of pageable memory: pageable, registered, staged"};
  app.add_option("--bytes", bytes, "bytes to send (e.g. 2GiB)")
      ->transform(CLI::AsSizeValue(true))
      ->check(CLI::PositiveNumber);
  app.add_option("--chunk", chunk, "staged: bytes per pinned buffer")
      ->transform(CLI::AsSizeValue(true))
      ->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "staged: copying threads")->check(CLI::Range(1, 256));
  app.add_option("--runs", runs, "runs of each way (medians)")->check(CLI::Range(1, 1000));
  app.add_option("--json", json_path, "results file (DESIGN.md §6 shape)");
  CLI11_PARSE(app, argc, argv);

  std::vector<std::byte> host(bytes);
  for (size_t i = 0; i < bytes; i += 4096) host[i] = std::byte(i >> 12);
  auto device = gpu::DeviceBuffer<std::byte>::allocate_blocking(bytes);
  gpu::PinnedBuffer<std::byte> pinned0(chunk), pinned1(chunk);
  std::byte* const pinned[2] = {pinned0.data(), pinned1.data()};
  gpu::Stream stream;
  gpu::Event sent[2];

  std::vector<double> wall[3], cpu[3], register_s, unregister_s;
  for (int r = 0; r < runs; ++r) {
    const Sample pageable = timed([&] {
      CUDA_CHECK(
          cudaMemcpyAsync(device.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
      stream.synchronize();
    });
    Sample reg_part, unreg_part;
    const Sample registered = timed([&] {
      reg_part = timed([&] { CUDA_CHECK(cudaHostRegister(host.data(), bytes, 0)); });
      CUDA_CHECK(
          cudaMemcpyAsync(device.data(), host.data(), bytes, cudaMemcpyHostToDevice, stream.get()));
      stream.synchronize();
      unreg_part = timed([&] { CUDA_CHECK(cudaHostUnregister(host.data())); });
    });
    const Sample staged = timed([&] {
      staged_upload(host.data(), device.data(), bytes, pinned, chunk, threads, stream, sent);
    });
    const Sample all[3] = {pageable, registered, staged};
    for (int w = 0; w < 3; ++w) {
      wall[w].push_back(all[w].wall_s);
      cpu[w].push_back(all[w].cpu_s);
    }
    register_s.push_back(reg_part.wall_s);
    unregister_s.push_back(unreg_part.wall_s);
  }

  const char* names[3] = {"pageable", "registered", "staged"};
  nlohmann::json results = nlohmann::json::array();
  for (int w = 0; w < 3; ++w) {
    nlohmann::json e = {{"op", "host_upload"},
                        {"way", names[w]},
                        {"bytes", bytes},
                        {"runs", runs},
                        {"wall_s", bench::median(wall[w])},
                        {"host_cpu_s", bench::median(cpu[w])},
                        {"gb_per_s", double(bytes) / 1e9 / bench::median(wall[w])}};
    if (w == 1) {
      e["register_s"] = bench::median(register_s);
      e["unregister_s"] = bench::median(unregister_s);
    }
    if (w == 2) {
      e["chunk_bytes"] = chunk;
      e["threads"] = threads;
    }
    std::printf("%-10s %.3f s wall, %.3f s CPU, %.1f GB/s\n", names[w], bench::median(wall[w]),
                bench::median(cpu[w]), double(bytes) / 1e9 / bench::median(wall[w]));
    results.push_back(e);
  }
  if (!json_path.empty()) {
    bench::write_results(json_path, gpu::device_info(0).name, argc, argv, results);
  }
  return 0;
}

}  // namespace
}  // namespace cuzk

int main(int argc, char** argv) {
  try {
    return cuzk::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_host_upload: %s\n", e.what());
    return 1;
  }
}
