#pragma once
// Large arrays on transparent huge pages. Filling a fresh array faults its memory in one page
// at a time; with 4 KiB pages that is 256 faults per MiB, each a hypervisor exit in a VM (the
// copy of a 2^16 BN254 .zkey's points into memory took most of `cuzk prove`'s read time on 2
// cores). Kernels in madvise mode (the common default) give 2 MiB pages to ranges that ask.

#include <cstddef>
#include <cstdint>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace cuzk::util {

// Asks for huge pages on the 2 MiB-aligned part of [p, p + bytes), before it is touched. A
// hint: without it (or where the kernel declines) the memory works the same.
inline void advise_huge_pages(void* p, size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > begin) (void)::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

// v.resize(n) for an empty vector, its new storage advised onto huge pages first.
template <class T>
void resize_on_huge_pages(std::vector<T>& v, size_t n) {
  if (v.capacity() < n) {
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

}  // namespace cuzk::util
