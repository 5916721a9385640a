#pragma once
// The parallel passes over a matrix's terms when it is built on the host (host_circuit.cpp,
// compact_matrix.cpp): their block size, and the search for the first term that is refused,
// so that a parallel check names the same term a serial one would.

#include <atomic>
#include <cstddef>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace cuzk::gpu::prover {

// Terms per block of the parallel passes.
inline constexpr size_t kBlockTerms = size_t(1) << 20;

// The least i < n with bad(i), or n when there is none; blocks are searched in parallel.
template <class Bad>
size_t first_bad_index(size_t n, Bad&& bad) {
  std::atomic<size_t> first{n};
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n, kBlockTerms),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t i = range.begin(); i != range.end(); ++i) {
                        if (!bad(i)) continue;
                        size_t seen = first.load();
                        while (i < seen && !first.compare_exchange_weak(seen, i)) {
                        }
                        return;
                      }
                    });
  return first.load();
}

}  // namespace cuzk::gpu::prover
