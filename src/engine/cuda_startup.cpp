// The start-up and shutdown half of the cuda backend (cuda_backend.hpp): the only engine file
// allowed device allocation and device-wide queries (DESIGN.md §2.1; the rule is checked by
// tests/engine/no_device_sync_test.cpp). Everything here runs while no partition is in flight:
// when the engine is created (devices, arenas) and after its workers stopped (freeing).

#include <cuda_runtime_api.h>

#include <algorithm>

#include "engine/cuda_backend.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"

namespace cuzk::engine {

std::unique_ptr<CudaBackend> CudaBackend::create(const CudaOptions& options) {
  int count = gpu::device_count();
  if (options.max_devices > 0) count = std::min(count, options.max_devices);
  if (count == 0) {
    CUZK_THROW(ErrorKind::kNotFound,
               "cuda backend: no CUDA device is usable here (none present, or no driver)");
  }
  std::unique_ptr<CudaBackend> backend(new CudaBackend(options));
  for (int d = 0; d < count; ++d) {
    const gpu::DeviceInfo info = gpu::device_info(d);
    backend->devices_.push_back({{gpu::describe(info), info.global_memory_bytes}, nullptr, 0});
  }
  return backend;
}

CudaBackend::~CudaBackend() {
  for (size_t d = 0; d < devices_.size(); ++d) {
    if (devices_[d].arena == nullptr) continue;
    // Destruction cannot report errors; a failure leaves a sticky error for the next call.
    cudaSetDevice(int(d));
    cudaFree(devices_[d].arena);
  }
}

DeviceDescription CudaBackend::describe(int device) const {
  return devices_.at(size_t(device)).description;
}

void CudaBackend::carve_vram_arena(int device, uint64_t bytes) {
  Device& d = devices_.at(size_t(device));
  if (d.arena != nullptr) CUZK_THROW(ErrorKind::kInternal, "cuda backend: the arena is carved");
  CUDA_CHECK(cudaSetDevice(device));
  void* base = nullptr;
  const cudaError_t status = cudaMalloc(&base, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear it: the engine reports the failure and may try a smaller arena
    CUZK_THROW(ErrorKind::kResourceExhausted,
               "cuda backend: cannot carve a partition arena of " + std::to_string(bytes >> 20) +
                   " MiB on GPU " + std::to_string(device) + " (" + cudaGetErrorString(status) +
                   "); lower vram_arena_bytes or the VRAM key budget");
  }
  d.arena = static_cast<std::byte*>(base);
  d.arena_bytes = bytes;
}

}  // namespace cuzk::engine
