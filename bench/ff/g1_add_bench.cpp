// G1 mixed addition (Jacobian + affine, madd-2007-bl: 7M + 4S) for both curves: the inner
// operation of bucket accumulation in an MSM, and the first consumer of the field
// multiplication. One dependent chain P ← P + Q, so the time per iteration is the latency.

#include <benchmark/benchmark.h>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::bench {
namespace {

template <class Jacobian>
void g1_add_mixed(benchmark::State& state) {
  using Affine = typename Jacobian::AffinePoint;
  // P = G and Q = 2G in affine form: distinct, so the chain G, 3G, 5G, ... never meets the
  // doubling or infinity branches of the formula.
  Jacobian p = Jacobian::generator();
  Affine q = Jacobian::generator().dbl().to_affine();
  for (auto _ : state) p = p + q;
  benchmark::DoNotOptimize(p);
}

}  // namespace

void register_g1_benchmarks() {
  benchmark::RegisterBenchmark("g1_add_mixed/bls12_381", g1_add_mixed<bls12_381::G1Jacobian>);
  benchmark::RegisterBenchmark("g1_add_mixed/bn254", g1_add_mixed<bn254::G1Jacobian>);
}

}  // namespace cuzk::bench
