#pragma once
// Which CUDA devices this process can use, and what they are.
//
// device_count() is the one question that must work on machines without a GPU or without a
// driver (CI, the sim backend, CPU-only deployments): there it returns 0 instead of throwing,
// so callers fall back to the CPU and GPU tests skip. Thread-safe (plain runtime queries).

#include <cstddef>
#include <string>

namespace cuzk::gpu {

// Number of usable CUDA devices; 0 when there is no device or no (new enough) driver. Other
// failures throw cuzk::Error (kCuda).
int device_count();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  size_t global_memory_bytes = 0;
  size_t l2_cache_bytes = 0;
  int driver_version = 0;   // CUDA version the driver supports, e.g. 13000
  int runtime_version = 0;  // CUDA runtime linked into this binary
};

// Properties of device `ordinal` (throws kCuda if it does not exist).
DeviceInfo device_info(int ordinal);

// Free memory of the calling thread's current device (cudaMemGetInfo, which may synchronize the
// device: start-up decisions only, e.g. whether a key fits in VRAM).
size_t free_device_memory();

// One line for logs: "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB, driver 13.0, runtime 13.0)".
std::string describe(const DeviceInfo& info);

}  // namespace cuzk::gpu
