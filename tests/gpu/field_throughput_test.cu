// Device throughput of field multiplication and squaring, for each of the four fields and the
// two quadratic extensions:
// informational (the test passes whatever the speed), printed one line per field and recorded
// as test properties, so that gtest's JSON output carries the numbers.
//
// Each thread runs a chain of kRounds dependent products x ← x·y (or x ← x²) on its own
// element; 2^20 threads keep every multiprocessor busy and hide the chain's latency. One
// warm-up launch, then the best of kRuns launches timed with CUDA events.

#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <string>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"
#include "tests/gpu/gpu_test_support.cuh"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::test {
namespace {

constexpr int kRounds = 256;
constexpr int kRuns = 5;

template <class F, bool kSquare>
__global__ void product_chain_kernel(F* x, const F* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F acc = x[i];
  const F factor = y[i];
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) acc = kSquare ? acc.sqr() : acc * factor;
  x[i] = acc;  // stored, so the chain is not optimized away
}

// The same chain of products through ptx::mont_mul's reduction rows for any modulus
// (ptx::reduce_row), with -p⁻¹ mod 2^32 as an immediate or from constant memory (as Field reads
// it, see Field::device_inv32). The comparisons that keep Field's choices measured: the
// inverse from constant memory, and for BLS12-381 Fr the rows without multiplications for the
// modulus's two low words (ptx::reduce_row_low_one_max).
template <class F>
__constant__ uint32_t kChainInverse32 = uint32_t(F::kInv);

template <class F, bool kImmediateInverse>
__global__ void generic_rows_chain_kernel(F* x, const F* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr size_t kWords = 2 * F::kLimbs;
  constexpr ff::detail::DeviceWords<kWords> p = ff::detail::words_of(F::kModulus);
  uint32_t inv;
  if constexpr (kImmediateInverse) {
    inv = uint32_t(F::kInv);
  } else {
    inv = kChainInverse32<F>;
  }
  auto acc = ff::detail::words_of(std::bit_cast<ff::BigInt<F::kLimbs>>(x[i]));
  const auto factor = ff::detail::words_of(std::bit_cast<ff::BigInt<F::kLimbs>>(y[i]));
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
    ff::ptx::mont_mul<kWords, false>(acc.w, acc.w, factor.w, p.w, inv);
  }
#pragma unroll
  for (size_t k = 0; k < F::kLimbs; ++k) {
    x[i].mont[k] = acc.w[2 * k] | (uint64_t(acc.w[2 * k + 1]) << 32);
  }
}

// x ← x·y − z·x, by Field::difference_of_products (one reduction on the device) or as two
// products and a subtraction: the comparison that keeps the former's use in the MSM's bucket
// additions measured. Counted as two products per step.
template <class F, bool kOneReduction>
__global__ void difference_of_products_chain_kernel(F* x, const F* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F acc = x[i];
  const F factor = y[i], other = y[n - 1 - i];
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
    acc = kOneReduction ? F::difference_of_products(acc, factor, other, acc)
                        : acc * factor - other * acc;
  }
  x[i] = acc;
}

// Fp2 products by the plain Karatsuba formula, three reduced Fp products: the comparison that
// keeps the lazy reduction of Fp2's device product (Field::fp2_mul) measured.
template <class F2>
__global__ void reduced_karatsuba_chain_kernel(F2* x, const F2* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  F2 acc = x[i];
  const F2 factor = y[i];
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
    const auto v0 = acc.c0 * factor.c0;
    const auto v1 = acc.c1 * factor.c1;
    acc = {v0 - v1, (acc.c0 + acc.c1) * (factor.c0 + factor.c1) - v0 - v1};
  }
  x[i] = acc;
}

enum class Chain {
  kMul,
  kSqr,
  kMulImmediateInverse,
  kMulGenericReduction,
  kReducedKaratsuba,
  kDifferenceOfProducts,
  kTwoProducts
};

// The chains that run two products per step (and are counted so).
constexpr bool two_products_per_step(Chain chain) {
  return chain == Chain::kDifferenceOfProducts || chain == Chain::kTwoProducts;
}

// Products per second of the best timed run.
template <class F, Chain kChain>
double measure(const Stream& stream, DeviceBuffer<F>& x, const DeviceBuffer<F>& y) {
  const size_t n = x.size();
  constexpr unsigned kThreads = 256;
  const unsigned blocks = unsigned((n + kThreads - 1) / kThreads);
  Event start(true), stop(true);
  float best_ms = 0;
  for (int run = 0; run <= kRuns; ++run) {  // run 0 warms up
    start.record(stream);
    if constexpr (kChain == Chain::kMulImmediateInverse || kChain == Chain::kMulGenericReduction) {
      generic_rows_chain_kernel<F, kChain == Chain::kMulImmediateInverse>
          <<<blocks, kThreads, 0, stream>>>(x.data(), y.data(), n);
    } else if constexpr (two_products_per_step(kChain)) {
      difference_of_products_chain_kernel<F, kChain == Chain::kDifferenceOfProducts>
          <<<blocks, kThreads, 0, stream>>>(x.data(), y.data(), n);
    } else if constexpr (kChain == Chain::kReducedKaratsuba) {
      reduced_karatsuba_chain_kernel<F><<<blocks, kThreads, 0, stream>>>(x.data(), y.data(), n);
    } else {
      product_chain_kernel<F, kChain == Chain::kSqr>
          <<<blocks, kThreads, 0, stream>>>(x.data(), y.data(), n);
    }
    CUZK_CHECK_LAUNCH();
    stop.record(stream);
    stop.synchronize();
    const float ms = Event::elapsed_ms(start, stop);
    if (run == 1 || (run > 1 && ms < best_ms)) best_ms = ms;
  }
  return double(n) * kRounds * (two_products_per_step(kChain) ? 2 : 1) / (best_ms * 1e-3);
}

template <class F>
F random_element(std::mt19937_64& rng) {
  if constexpr (requires { typename F::Base; }) {
    return F{F::Base::random(rng), F::Base::random(rng)};
  } else {
    return F::random(rng);
  }
}

// Products and squares per second, and the products of `kComparison` (the variant the field's
// choice is measured against, named `comparison`).
template <class F, Chain kComparison>
void report_throughput(const std::string& name, const char* comparison, const char* property) {
  const size_t n = size_t(1) << 20;
  auto rng = cuzk::test::rng("gpu-throughput-" + name);
  std::vector<F> host(n);
  for (auto& v : host) v = random_element<F>(rng);
  Stream stream;
  DeviceBuffer<F> x(n, stream), y(n, stream);
  x.upload(host, stream);
  y.upload(host, stream);
  const double mul_rate = measure<F, Chain::kMul>(stream, x, y);
  const double sqr_rate = measure<F, Chain::kSqr>(stream, x, y);
  const double comparison_rate = measure<F, kComparison>(stream, x, y);
  std::printf(
      "[gpu-throughput] %-14s mul %7.2f G/s   sqr %7.2f G/s   %s %7.2f G/s   (%zu threads x %d)\n",
      name.c_str(), mul_rate * 1e-9, sqr_rate * 1e-9, comparison, comparison_rate * 1e-9, n,
      kRounds);
  if constexpr (!requires { typename F::Base; }) {
    const double lazy_rate = measure<F, Chain::kDifferenceOfProducts>(stream, x, y);
    const double two_rate = measure<F, Chain::kTwoProducts>(stream, x, y);
    std::printf(
        "[gpu-throughput] %-14s a*b - c*d: one reduction %7.2f G products/s   two products %7.2f\n",
        name.c_str(), lazy_rate * 1e-9, two_rate * 1e-9);
    ::testing::Test::RecordProperty(name + ".difference_of_products_per_s",
                                    std::to_string(lazy_rate));
    ::testing::Test::RecordProperty(name + ".two_products_per_s", std::to_string(two_rate));
  }
  std::fflush(stdout);
  ::testing::Test::RecordProperty(name + ".mul_per_s", std::to_string(mul_rate));
  ::testing::Test::RecordProperty(name + ".sqr_per_s", std::to_string(sqr_rate));
  ::testing::Test::RecordProperty(name + "." + property, std::to_string(comparison_rate));
}

TEST(FieldThroughput, MulAndSqr) {
  CUZK_SKIP_WITHOUT_GPU();
  std::printf("[gpu-throughput] device: %s\n", describe(device_info(0)).c_str());
  constexpr Chain kImmediate = Chain::kMulImmediateInverse;
  constexpr const char* kImmediateName = "mul, -p^-1 as an immediate";
  report_throughput<bls12_381::Fp, kImmediate>("bls12_381.Fp", kImmediateName,
                                               "mul_immediate_inverse_per_s");
  // BLS12-381's r ≡ 2^64 − 2^32 + 1 mod 2^64: its products reduce without multiplications for
  // the two low words (Field::kModulusLowOneMax), measured against the rows of any modulus.
  report_throughput<bls12_381::Fr, Chain::kMulGenericReduction>(
      "bls12_381.Fr", "mul, generic reduction rows", "mul_generic_reduction_per_s");
  report_throughput<bn254::Fp, kImmediate>("bn254.Fp", kImmediateName,
                                           "mul_immediate_inverse_per_s");
  report_throughput<bn254::Fr, kImmediate>("bn254.Fr", kImmediateName,
                                           "mul_immediate_inverse_per_s");
  // Fp2's device product (lazy reduction for 4-limb fields, see ff/fp2.hpp) against three
  // reduced Fp products.
  constexpr Chain kReduced = Chain::kReducedKaratsuba;
  constexpr const char* kReducedName = "mul, three reduced products";
  report_throughput<bls12_381::Fp2, kReduced>("bls12_381.Fp2", kReducedName,
                                              "mul_reduced_karatsuba_per_s");
  report_throughput<bn254::Fp2, kReduced>("bn254.Fp2", kReducedName, "mul_reduced_karatsuba_per_s");
}

}  // namespace
}  // namespace cuzk::gpu::test
