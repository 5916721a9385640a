#pragma once
// Device time of work enqueued on one stream: one warm-up, then timed runs, each between two
// CUDA events; the median, the fastest and the slowest.

#include <algorithm>
#include <vector>

#include "gpu/stream.hpp"

namespace cuzk::bench {

struct Timing {
  double median_ms, min_ms, max_ms;
};

// One warm-up, then `runs` timed runs of `work` (which enqueues on `stream`).
template <class Work>
Timing time_on_stream(const gpu::Stream& stream, int runs, Work work) {
  work();
  stream.synchronize();
  gpu::Event start(true), end(true);
  std::vector<double> ms;
  for (int r = 0; r < runs; ++r) {
    start.record(stream);
    work();
    end.record(stream);
    end.synchronize();
    ms.push_back(gpu::Event::elapsed_ms(start, end));
  }
  std::sort(ms.begin(), ms.end());
  const size_t m = ms.size();
  const double median = m % 2 == 1 ? ms[m / 2] : (ms[m / 2 - 1] + ms[m / 2]) / 2;
  return {median, ms.front(), ms.back()};
}

}  // namespace cuzk::bench
