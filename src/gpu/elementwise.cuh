#pragma once
// out[i] = op(in[i]...) over host vectors, on the device or on the host: the machinery of the
// differential checks (the GPU tests and `cuzk selftest`). The functors are CUZK_HD, so the
// same source line runs on both sides: the device takes field.hpp's PTX branches, the host the
// 64-bit code, and the results must agree bit for bit.
//
// These helpers allocate and synchronize their own stream: they are for checks and tools, never
// for the proving path (DESIGN.md §2.1).

#include <algorithm>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"
#include "util/error.hpp"

namespace cuzk::gpu {

template <class Op, class Out, class... In>
__global__ void map_kernel(Op op, size_t n, Out* out, const In*... in) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = op(in[i]...);
  }
}

template <class Op, class... In>
auto map_on_device(Op op, const std::vector<In>&... in) {
  using Out = std::invoke_result_t<Op, const In&...>;
  const size_t n = std::get<0>(std::tie(in...)).size();
  if (((in.size() != n) || ...)) CUZK_INVALID_INPUT("map_on_device: inputs differ in length");
  Stream stream;
  std::tuple<DeviceBuffer<In>...> device_in{DeviceBuffer<In>(n, stream)...};
  std::apply([&](auto&... buffer) { (buffer.upload(in, stream), ...); }, device_in);
  DeviceBuffer<Out> device_out(n, stream);
  constexpr unsigned kThreads = 128;
  const unsigned blocks = unsigned(std::min<size_t>((n + kThreads - 1) / kThreads, 1u << 16));
  std::apply(
      [&](auto&... buffer) {
        map_kernel<<<blocks, kThreads, 0, stream>>>(op, n, device_out.data(), buffer.data()...);
      },
      device_in);
  CUZK_CHECK_LAUNCH();
  std::vector<Out> out(n);
  device_out.download(out, stream);
  stream.synchronize();
  return out;
}

template <class Op, class... In>
auto map_on_host(Op op, const std::vector<In>&... in) {
  using Out = std::invoke_result_t<Op, const In&...>;
  const size_t n = std::get<0>(std::tie(in...)).size();
  std::vector<Out> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = op(in[i]...);
  return out;
}

}  // namespace cuzk::gpu
