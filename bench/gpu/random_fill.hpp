#pragma once
// Device buffers of random field elements for the GPU benchmarks: 2^16 drawn and repeated over
// the buffer, since the values do not change the timing and drawing hundreds of millions on
// the host would take longer than the benchmark.

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"

namespace cuzk::bench {

template <class Fr>
void fill_random(gpu::DeviceBuffer<Fr>& buffer, const gpu::Stream& stream, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> host(buffer.size());
  const size_t distinct = std::min<size_t>(host.size(), size_t(1) << 16);
  for (size_t i = 0; i < distinct; ++i) host[i] = Fr::random(rng);
  for (size_t i = distinct; i < host.size(); ++i) host[i] = host[i % distinct];
  buffer.upload(host, stream);
  stream.synchronize();
}

}  // namespace cuzk::bench
