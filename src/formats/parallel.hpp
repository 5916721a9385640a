#pragma once
// Splitting a decode over threads: the large sections (130M constraints, 10^9 key points)
// convert or validate every element, and each element is independent of the others.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace cuzk::formats::detail {

// Thread count for `requested` (0 = one per hardware thread), never more than the chunks.
inline unsigned worker_count(unsigned requested, size_t chunks) {
  unsigned n = requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<size_t>(n, std::max<size_t>(chunks, 1)));
}

// Calls fn(chunk) for chunk = 0..chunks-1 on `threads` threads (0 = all hardware threads).
// If calls throw, the exception of the lowest-numbered failing chunk is rethrown once all
// threads stopped, so a file with several defects reports the first one, as a sequential
// reader would, whatever the scheduling.
template <class Fn>
void for_each_chunk(size_t chunks, unsigned threads, Fn&& fn) {
  unsigned workers = worker_count(threads, chunks);
  if (workers <= 1) {
    for (size_t i = 0; i < chunks; ++i) fn(i);
    return;
  }
  std::atomic<size_t> next{0};
  std::mutex failure_mutex;
  size_t failed_chunk = chunks;
  std::exception_ptr failure;
  auto work = [&] {
    for (;;) {
      size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= chunks) return;
      {
        // Chunks above a known failure cannot change the report: skip them.
        std::lock_guard lock(failure_mutex);
        if (i > failed_chunk) return;
      }
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (i < failed_chunk) {
          failed_chunk = i;
          failure = std::current_exception();
        }
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers - 1);
  for (unsigned t = 1; t < workers; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // no more threads available: the ones running (and this one) finish the work
    }
  }
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace cuzk::formats::detail
