#pragma once
// Cache hints shared by the kernels (no effect on the host, where the same CUZK_HD code runs in
// the tests' emulations).

#include <cstddef>

#include "util/hd.hpp"

namespace cuzk::gpu {

// Asks the device to bring *p's cache lines into L2: a line (128 bytes) at a time from the first
// byte, and the line of the last byte.
template <class T>
CUZK_HD void prefetch_l2(const T* p) {
#if defined(__CUDA_ARCH__)
  const char* bytes = reinterpret_cast<const char*>(p);
  for (size_t offset = 0; offset < sizeof(T); offset += 128) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(bytes + offset));
  }
  asm volatile("prefetch.global.L2 [%0];" ::"l"(bytes + sizeof(T) - 1));
#else
  (void)p;
#endif
}

}  // namespace cuzk::gpu
