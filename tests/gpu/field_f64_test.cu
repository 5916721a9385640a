// The FP64 Montgomery product (ff/mont_f64.hpp) on the device: bit for bit against the host's
// Field::operator* on edge and random pairs, then its throughput next to the integer product
// (ptx::mont_mul through Field::operator*) in the same chains of dependent products as
// field_throughput_test.cu. The throughput half is informational: it passes whatever the
// speed and records both rates as test properties.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "ff/mont_f64.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"
#include "tests/gpu/gpu_test_support.cuh"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::test {
namespace {

using Fp = bls12_381::Fp;

CUZK_HD Fp f64_product(const Fp& a, const Fp& b) {
  const auto wa = ff::detail::words_of(std::bit_cast<ff::BigInt<Fp::kLimbs>>(a));
  const auto wb = ff::detail::words_of(std::bit_cast<ff::BigInt<Fp::kLimbs>>(b));
  ff::detail::DeviceWords<ff::f64::kWords> r{};
  ff::f64::mont_mul<Fp>(r.w, wa.w, wb.w);
  Fp out;
  for (size_t k = 0; k < Fp::kLimbs; ++k) {
    out.mont[k] = r.w[2 * k] | (uint64_t(r.w[2 * k + 1]) << 32);
  }
  return out;
}

struct F64MulOp {
  CUZK_HD Fp operator()(const Fp& a, const Fp& b) const { return f64_product(a, b); }
};

TEST(FieldF64, ProductsEqualTheHostsProducts) {
  CUZK_SKIP_WITHOUT_GPU();
  auto gen = cuzk::test::rng("gpu-f64-products");
  std::vector<Fp> a, b;
  const std::vector<Fp> edges = {Fp::zero(), Fp::one(), -Fp::one(), Fp::one() + Fp::one()};
  for (const Fp& x : edges) {
    for (const Fp& y : edges) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  const size_t n = cuzk::test::scaled(size_t(1) << 18);
  while (a.size() < n) {
    a.push_back(Fp::random(gen));
    b.push_back(Fp::random(gen));
  }
  std::vector<Fp> expected(a.size());
  for (size_t i = 0; i < a.size(); ++i) expected[i] = a[i] * b[i];
  const auto actual = map_on_device(F64MulOp{}, a, b);
  EXPECT_EQ(compare_and_report("bls12_381.Fp", "f64 mul", expected, actual), 0u);
}

constexpr int kRounds = 256;
constexpr int kRuns = 5;

template <bool kF64, int kMinBlocks = 1>
__global__ void __launch_bounds__(256, kMinBlocks) chain_kernel(Fp* x, const Fp* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Fp acc = x[i];
  const Fp factor = y[i];
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) acc = kF64 ? f64_product(acc, factor) : acc * factor;
  x[i] = acc;
}

template <bool kF64, int kMinBlocks = 1>
double products_per_second(const Stream& stream, DeviceBuffer<Fp>& x, const DeviceBuffer<Fp>& y) {
  const size_t n = x.size();
  constexpr unsigned kThreads = 256;
  const unsigned blocks = unsigned((n + kThreads - 1) / kThreads);
  Event start(true), stop(true);
  float best_ms = 0;
  for (int run = 0; run <= kRuns; ++run) {  // run 0 warms up
    start.record(stream);
    chain_kernel<kF64, kMinBlocks><<<blocks, kThreads, 0, stream>>>(x.data(), y.data(), n);
    CUZK_CHECK_LAUNCH();
    stop.record(stream);
    stop.synchronize();
    const float ms = Event::elapsed_ms(start, stop);
    if (run == 1 || (run > 1 && ms < best_ms)) best_ms = ms;
  }
  return double(n) * kRounds / (best_ms * 1e-3);
}

template <bool kWithIntegers>
__global__ void dfma_kernel(double* out, uint64_t* iout, double y, double z) {
  double a[8];
  uint64_t u[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    a[k] = threadIdx.x + k;
    u[k] = threadIdx.x * k;
  }
#pragma unroll 1
  for (int r = 0; r < 1024; ++r) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      a[k] = __fma_rn(a[k], y, z);
      if (kWithIntegers) u[k] += uint64_t(__double_as_longlong(a[k]));
    }
  }
  double s = 0;
  uint64_t t = 0;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    s += a[k];
    t += u[k];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (kWithIntegers) iout[blockIdx.x * blockDim.x + threadIdx.x] = t;
}

template <bool kWithIntegers>
double dfma_rate() {
  Stream stream;
  const unsigned blocks = 132 * 8, threads = 256;
  DeviceBuffer<double> out(size_t(blocks) * threads, stream);
  DeviceBuffer<uint64_t> iout(size_t(blocks) * threads, stream);
  Event start(true), stop(true);
  float best_ms = 0;
  for (int run = 0; run <= kRuns; ++run) {
    start.record(stream);
    dfma_kernel<kWithIntegers><<<blocks, threads, 0, stream>>>(out.data(), iout.data(), 0.999, 1e-3);
    CUZK_CHECK_LAUNCH();
    stop.record(stream);
    stop.synchronize();
    const float ms = Event::elapsed_ms(start, stop);
    if (run == 1 || (run > 1 && ms < best_ms)) best_ms = ms;
  }
  return double(blocks) * threads * 1024 * 8 / (best_ms * 1e-3);
}

TEST(FieldF64, Throughput) {
  CUZK_SKIP_WITHOUT_GPU();
  const size_t n = size_t(1) << 20;
  auto gen = cuzk::test::rng("gpu-f64-throughput");
  std::vector<Fp> host(n);
  for (auto& v : host) v = Fp::random(gen);
  Stream stream;
  DeviceBuffer<Fp> x(n, stream), y(n, stream);
  x.upload(host, stream);
  y.upload(host, stream);
  // Alternating, twice, so that clock changes show as disagreement between the rounds.
  for (int round = 0; round < 2; ++round) {
    const double integer = products_per_second<false>(stream, x, y);
    const double f64 = products_per_second<true>(stream, x, y);
    std::printf("[gpu-throughput] bls12_381.Fp mul: integer %7.2f G/s   f64 %7.2f G/s   (%.3fx)\n",
                integer * 1e-9, f64 * 1e-9, f64 / integer);
    std::printf("[gpu-throughput] f64 at 3 blocks %7.2f, 4 blocks %7.2f G/s\n",
                products_per_second<true, 3>(stream, x, y) * 1e-9,
                products_per_second<true, 4>(stream, x, y) * 1e-9);
    std::printf("[gpu-throughput] dfma %7.2f G/s, dfma+iadd %7.2f G/s\n", dfma_rate<false>() * 1e-9,
                dfma_rate<true>() * 1e-9);
    std::fflush(stdout);
    const std::string suffix = round == 0 ? "" : ".again";
    ::testing::Test::RecordProperty("integer_per_s" + suffix, std::to_string(integer));
    ::testing::Test::RecordProperty("f64_per_s" + suffix, std::to_string(f64));
  }
  // The chains' results agree, or the comparison would be between different work.
  std::vector<Fp> a(n), b(n);
  DeviceBuffer<Fp> x2(n, stream);
  x.upload(host, stream);
  x2.upload(host, stream);
  chain_kernel<false><<<unsigned(n / 256), 256, 0, stream>>>(x.data(), y.data(), n);
  CUZK_CHECK_LAUNCH();
  chain_kernel<true><<<unsigned(n / 256), 256, 0, stream>>>(x2.data(), y.data(), n);
  CUZK_CHECK_LAUNCH();
  x.download(a, stream);
  x2.download(b, stream);
  stream.synchronize();
  EXPECT_EQ(compare_and_report("bls12_381.Fp", "f64 chain", a, b), 0u);
}

}  // namespace
}  // namespace cuzk::gpu::test
