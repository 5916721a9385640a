// NTT benchmarks: forward transforms at 2^16, 2^20, 2^22 and the full H evaluations of both
// provers at 2^16 and 2^20, for both scalar fields. JSON with --benchmark_out=<file>.
//
// Arguments: log2 of the size. ntt_forward_radix2_baseline is the textbook layout the four-step
// split replaces, to measure what the split buys: log2(n) stages, each one parallel loop over
// all n/2 butterflies of the vector, twiddles from one table of n/2 powers.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ntt/instances.hpp"

namespace cuzk::ntt {
namespace {

template <class Fr>
std::vector<Fr> random_values(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

template <class Fr>
void forward(benchmark::State& state) {
  const Domain<Fr> domain(unsigned(state.range(0)), Convention::kSnarkjs);
  std::vector<Fr> values = random_values<Fr>(domain.size(), 1);
  for (auto _ : state) {
    domain.forward(values, Order::kNatural, Order::kBitReversed);
    benchmark::DoNotOptimize(values.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(domain.size()));
}

// DIF, natural in, bit-reversed out; powers[i] = ω^i for i < n/2. Stage h pairs x[i] and x[i+h]
// within blocks of 2h, twiddle ω^((n/2h)·j).
template <class Fr>
void radix2_stages(std::span<Fr> x, std::span<const Fr> powers) {
  const size_t n = x.size();
  for (size_t h = n / 2; h >= 1; h /= 2) {
    const size_t stride = n / (2 * h);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n / 2, 4096),
                      [&](const tbb::blocked_range<size_t>& range) {
                        for (size_t b = range.begin(); b != range.end(); ++b) {
                          const size_t j = b % h, i = (b / h) * 2 * h + j;
                          const Fr u = x[i], v = x[i + h];
                          x[i] = u + v;
                          x[i + h] = (u - v) * powers[j * stride];
                        }
                      });
  }
}

template <class Fr>
void forward_radix2_baseline(benchmark::State& state) {
  const Domain<Fr> domain(unsigned(state.range(0)), Convention::kSnarkjs);
  std::vector<Fr> powers(domain.size() / 2);
  fill_powers(std::span<Fr>(powers), domain.omega());
  std::vector<Fr> values = random_values<Fr>(domain.size(), 1);
  std::vector<Fr> reference = values;
  domain.forward(reference, Order::kNatural, Order::kBitReversed);
  radix2_stages<Fr>(values, powers);
  if (values != reference) state.SkipWithError("the baseline disagrees with Domain::forward");
  for (auto _ : state) {
    radix2_stages<Fr>(values, powers);
    benchmark::DoNotOptimize(values.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(domain.size()));
}

// The inputs are copied back before each run (outside the timing): the evaluation consumes them.
template <class Fr, bool kSnarkjs>
void h_evaluation(benchmark::State& state) {
  const Domain<Fr> domain(unsigned(state.range(0)),
                          kSnarkjs ? Convention::kSnarkjs : Convention::kBellman);
  const std::vector<Fr> a = random_values<Fr>(domain.size(), 2);
  const std::vector<Fr> b = random_values<Fr>(domain.size(), 3);
  std::vector<Fr> c(domain.size());
  for (size_t i = 0; i < c.size(); ++i) c[i] = a[i] * b[i];
  std::vector<Fr> wa, wb, wc;
  for (auto _ : state) {
    state.PauseTiming();
    wa = a;
    wb = b;
    wc = c;
    state.ResumeTiming();
    if constexpr (kSnarkjs) {
      snarkjs_h_scalars<Fr>(domain, wa, wb, wc);
    } else {
      bellman_h_coefficients<Fr>(domain, wa, wb, wc);
    }
    benchmark::DoNotOptimize(wa.data());
  }
}

using bls12_381::Fr;
using Bn254Fr = bn254::Fr;

BENCHMARK(forward<Fr>)
    ->Name("ntt_forward/bls12_381")
    ->Arg(16)
    ->Arg(20)
    ->Arg(22)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(forward<Bn254Fr>)
    ->Name("ntt_forward/bn254")
    ->Arg(16)
    ->Arg(20)
    ->Arg(22)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(forward_radix2_baseline<Fr>)
    ->Name("ntt_forward_radix2_baseline/bls12_381")
    ->Arg(16)
    ->Arg(20)
    ->Arg(22)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(h_evaluation<Fr, true>)
    ->Name("h_snarkjs/bls12_381")
    ->Arg(16)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(h_evaluation<Bn254Fr, true>)
    ->Name("h_snarkjs/bn254")
    ->Arg(16)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(h_evaluation<Fr, false>)
    ->Name("h_bellman/bls12_381")
    ->Arg(16)
    ->Arg(20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace cuzk::ntt

BENCHMARK_MAIN();
