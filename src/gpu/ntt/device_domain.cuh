#pragma once
// Definitions of DeviceDomain (ntt.hpp): construction (tables, kernel attributes), the
// launcher of a step schedule, and the four transforms as schedules. Included by the
// per-curve instantiation files only.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/ntt/kernels.cuh"
#include "gpu/ntt/ntt.hpp"
#include "gpu/stream.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::ntt {

namespace detail {

inline unsigned checked_log_size(unsigned log_size) {
  if (log_size > Tuning::kMaxLogSize) {
    CUZK_INVALID_INPUT("gpu::ntt::DeviceDomain: size 2^" + std::to_string(log_size) +
                       " exceeds the largest GPU domain, 2^" + std::to_string(Tuning::kMaxLogSize));
  }
  return log_size;
}

// Grid of a grid-stride elementwise kernel over n elements.
inline unsigned elementwise_blocks(size_t n, unsigned threads) {
  return unsigned(std::clamp<size_t>((n + threads - 1) / threads, 1, size_t(1) << 16));
}

// The full table only pays where some pass lies beyond the fine table.
inline bool has_half_twiddles(unsigned log_size, TwiddleTables twiddles) {
  return twiddles == TwiddleTables::kFull && log_size > kFineTwiddleLog;
}

}  // namespace detail

template <class Fr>
size_t DeviceDomain<Fr>::device_bytes(unsigned log_size, TwiddleTables twiddles) {
  const size_t half = detail::has_half_twiddles(detail::checked_log_size(log_size), twiddles)
                          ? half_twiddle_count(log_size)
                          : 0;
  return (table_layout(log_size).total + half) * sizeof(Fr);
}

template <class Fr>
DeviceDomain<Fr>::DeviceDomain(unsigned log_size, Convention convention, TwiddleTables twiddles)
    : host_(detail::checked_log_size(log_size), convention), tables_(build_tables(host_)) {
  device_tables_ = DeviceBuffer<Fr>::allocate_blocking(tables_.values.size());
  CUDA_CHECK(cudaMemcpy(device_tables_.data(), tables_.values.data(), device_tables_.bytes(),
                        cudaMemcpyHostToDevice));
  if (detail::has_half_twiddles(log_size, twiddles)) {
    const uint32_t count = uint32_t(half_twiddle_count(log_size));
    half_twiddles_ = DeviceBuffer<Fr>::allocate_blocking(count);
    // On a stream of its own, waited for here: the table is whole before the constructor
    // returns, and other workers' streams are not held up.
    const Stream stream;
    constexpr unsigned threads = Tuning::kElementwiseThreadsPerBlock;
    fill_powers_kernel<Fr><<<detail::elementwise_blocks(count, threads), threads, 0, stream>>>(
        half_twiddles_.data(), tables_.root_pair(device_tables_.data(), false), count);
    CUZK_CHECK_LAUNCH();
    stream.synchronize();
  }
  // Tiles above 48 KiB of shared memory need the opt-in (per kernel, process-wide, cheap).
  const int shared_bytes = int(sizeof(Fr)) << Tuning::kLogTileElements;
  CUDA_CHECK(cudaFuncSetAttribute(pass_kernel<Fr, true>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
  CUDA_CHECK(cudaFuncSetAttribute(pass_kernel<Fr, false>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes));
}

template <class Fr>
void DeviceDomain<Fr>::check_buffer(std::span<const Fr> values, const char* operation) const {
  if (values.size() != size()) {
    CUZK_INVALID_INPUT(std::string("gpu::ntt::") + operation + ": " +
                       std::to_string(values.size()) + " values for a domain of size " +
                       std::to_string(size()));
  }
  if (reinterpret_cast<uintptr_t>(values.data()) % 16 != 0) {
    CUZK_INVALID_INPUT(std::string("gpu::ntt::") + operation +
                       ": the device buffer is not 16-byte aligned");
  }
}

template <class Fr>
void DeviceDomain<Fr>::run(std::span<const Step<Fr>> steps, Fr* values, cudaStream_t stream) const {
  for (const Step<Fr>& step : steps) {
    if (step.kind == Step<Fr>::kBitReverse) {
      if (ReversalTiles::applies(log_size())) {
        const ReversalTiles tiles{log_size()};
        bit_reverse_tiles_kernel<Fr>
            <<<tiles.tiles(), ReversalTiles::kElements, 0, stream>>>(values, tiles);
      } else {
        constexpr unsigned threads = Tuning::kPermuteThreadsPerBlock;
        bit_reverse_kernel<Fr><<<detail::elementwise_blocks(size(), threads), threads, 0, stream>>>(
            values, log_size());
      }
      CUZK_CHECK_LAUNCH();
      continue;
    }
    const PassArgs<Fr> args =
        pass_args(tables_, device_tables_.data(), step, values, half_twiddles_.data());
    const unsigned threads =
        std::clamp<unsigned>(step.shape.butterflies_per_stage(), 32, Tuning::kThreadsPerBlock);
    const size_t shared_bytes = size_t(step.shape.tile_elements()) * sizeof(Fr);
    if (step.kind == Step<Fr>::kDifPass) {
      pass_kernel<Fr, true><<<step.shape.tiles(), threads, shared_bytes, stream>>>(args);
    } else {
      pass_kernel<Fr, false><<<step.shape.tiles(), threads, shared_bytes, stream>>>(args);
    }
    CUZK_CHECK_LAUNCH();
  }
}

template <class Fr>
void DeviceDomain<Fr>::combine(Fr* a, const Fr* b, const Fr* c, const Fr& factor,
                               cudaStream_t stream) const {
  constexpr unsigned threads = Tuning::kElementwiseThreadsPerBlock;
  combine_kernel<Fr><<<detail::elementwise_blocks(size(), threads), threads, 0, stream>>>(
      a, b, c, factor, factor != Fr::one(), uint32_t(size()));
  CUZK_CHECK_LAUNCH();
}

template <class Fr>
void DeviceDomain<Fr>::forward(std::span<Fr> values, const NttConfig& config) const {
  check_buffer(values, "forward");
  run(forward_steps<Fr>(log_size(), config.input_order, config.output_order, config.coset,
                        config.inputs_montgomery),
      values.data(), config.stream);
}

template <class Fr>
void DeviceDomain<Fr>::inverse(std::span<Fr> values, const NttConfig& config) const {
  check_buffer(values, "inverse");
  run(inverse_steps<Fr>(log_size(), config.input_order, config.output_order, config.coset,
                        config.inputs_montgomery, host_.size_inv()),
      values.data(), config.stream);
}

}  // namespace cuzk::gpu::ntt
