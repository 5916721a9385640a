#include "gpu/device_info.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

int device_count() {
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    cudaGetLastError();  // clear the error so that it does not resurface in a later check
    return 0;
  }
  CUDA_CHECK(status);
  return count;
}

size_t free_device_memory() {
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return free_bytes;
}

DeviceInfo device_info(int ordinal) {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.compute_major = prop.major;
  info.compute_minor = prop.minor;
  info.multiprocessors = prop.multiProcessorCount;
  info.global_memory_bytes = prop.totalGlobalMem;
  info.l2_cache_bytes = size_t(prop.l2CacheSize);
  CUDA_CHECK(cudaDriverGetVersion(&info.driver_version));
  CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

std::string describe(const DeviceInfo& info) {
  char line[256];
  std::snprintf(line, sizeof line,
                "%s (sm_%d%d, %d SMs, %.1f GiB, %zu MiB L2, driver %d.%d, runtime %d.%d)",
                info.name.c_str(), info.compute_major, info.compute_minor, info.multiprocessors,
                double(info.global_memory_bytes) / double(1ull << 30), info.l2_cache_bytes >> 20,
                info.driver_version / 1000, info.driver_version % 1000 / 10,
                info.runtime_version / 1000, info.runtime_version % 1000 / 10);
  return line;
}

}  // namespace cuzk::gpu
