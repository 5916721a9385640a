#pragma once
// Error checks for CUDA runtime calls: every failure becomes a cuzk::Error of kind kCuda that
// names the call, CUDA's description and the source position. Kernel launches report their
// errors through cudaGetLastError, so CUZK_CHECK_LAUNCH() follows every launch.
//
// Host-only; usable from .cpp and .cu files alike.

#include <cuda_runtime_api.h>

#include <string>

#include "util/error.hpp"

namespace cuzk::gpu {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw Error(ErrorKind::kCuda,
              std::string(call) + " failed: " + cudaGetErrorString(status) + " (" +
                  cudaGetErrorName(status) + ")",
              file, line);
}

}  // namespace cuzk::gpu

#define CUDA_CHECK(expr)                                                           \
  do {                                                                             \
    const cudaError_t cuzk_cuda_status_ = (expr);                                  \
    if (cuzk_cuda_status_ != cudaSuccess) {                                        \
      ::cuzk::gpu::throw_cuda_error(cuzk_cuda_status_, #expr, __FILE__, __LINE__); \
    }                                                                              \
  } while (0)

// After a <<<...>>> launch: configuration errors (too many threads, too much shared memory,
// no kernel image for this device) surface here; faults inside the kernel surface at the next
// synchronizing call.
#define CUZK_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
