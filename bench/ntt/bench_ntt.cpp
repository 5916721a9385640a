// NTT benchmarks: forward transforms at 2^16, 2^20, 2^22 and the full H evaluations of both
// provers at 2^16 and 2^20, for both scalar fields. JSON with --benchmark_out=<file>.
//
// Arguments: log2 of the size. The *_SinglePass variants force one radix-2 pass over the whole
// vector, the layout the four-step split replaces above 2^12, to measure what it buys.

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ntt/curves.hpp"

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
void forward(benchmark::State& state, DomainOptions options) {
  const Domain<Fr> domain(unsigned(state.range(0)), Convention::kSnarkjs, options);
  std::vector<Fr> values = random_values<Fr>(domain.size(), 1);
  for (auto _ : state) {
    domain.forward(values, Order::kNatural, Order::kBitReversed);
    benchmark::DoNotOptimize(values.data());
  }
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(domain.size()));
}

template <class Fr>
void forward_four_step(benchmark::State& state) {
  forward<Fr>(state, {});
}

template <class Fr>
void forward_single_pass(benchmark::State& state) {
  forward<Fr>(state, {.max_single_pass_log_size = 32});
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

BENCHMARK(forward_four_step<Fr>)
    ->Name("ntt_forward/bls12_381")
    ->Arg(16)
    ->Arg(20)
    ->Arg(22)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(forward_four_step<Bn254Fr>)
    ->Name("ntt_forward/bn254")
    ->Arg(16)
    ->Arg(20)
    ->Arg(22)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(forward_single_pass<Fr>)
    ->Name("ntt_forward_single_pass/bls12_381")
    ->Arg(16)
    ->Arg(20)
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
