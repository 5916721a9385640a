// Host field arithmetic of the four prime fields, next to a GMP (mpn) Montgomery baseline for
// the same moduli and representation.
//
// Each benchmark runs one chain of dependent operations (x = x·y, x = x², ...): an iteration
// cannot start before the previous one finished, so the time per iteration is the latency of
// one operation. The *_x4 variants run four independent chains, which a superscalar core
// overlaps: their time per operation (items_per_second) is the throughput. The chain's value
// stays in registers; DoNotOptimize after the loop keeps the chain alive without a store and a
// reload per iteration (which would add store-forwarding latency to every operation).

#include <benchmark/benchmark.h>
#include <gmp.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "bench/ff/gmp_montgomery.hpp"
#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"

namespace cuzk::bench {
namespace {

template <class F>
struct Operands {
  F x, y;
  explicit Operands(uint64_t salt) {
    std::mt19937_64 rng(0x5eed0000 + salt);  // fixed: runs are comparable
    x = F::random(rng);
    y = F::random(rng);
  }
};

template <class F>
void field_mul(benchmark::State& state) {
  auto [x, y] = Operands<F>(1);
  for (auto _ : state) x = x * y;
  benchmark::DoNotOptimize(x);
}

template <class F>
void field_mul_x4(benchmark::State& state) {
  auto [x, y] = Operands<F>(2);
  F x1 = x + y, x2 = x1 + y, x3 = x2 + y;
  for (auto _ : state) {
    x = x * y;
    x1 = x1 * y;
    x2 = x2 * y;
    x3 = x3 * y;
  }
  benchmark::DoNotOptimize(x);
  benchmark::DoNotOptimize(x1);
  benchmark::DoNotOptimize(x2);
  benchmark::DoNotOptimize(x3);
  state.SetItemsProcessed(state.iterations() * 4);
}

template <class F>
void field_sqr(benchmark::State& state) {
  auto [x, y] = Operands<F>(3);
  for (auto _ : state) x = x.sqr();
  benchmark::DoNotOptimize(x);
}

template <class F>
void field_add(benchmark::State& state) {
  auto [x, y] = Operands<F>(4);
  for (auto _ : state) x = x + y;
  benchmark::DoNotOptimize(x);
}

template <class F>
void field_inverse(benchmark::State& state) {
  auto [x, y] = Operands<F>(5);
  // x + y keeps the chain from alternating between two values; it never reaches zero in
  // practice (probability about iterations/p).
  for (auto _ : state) x = (x + y).inverse();
  benchmark::DoNotOptimize(x);
}

template <class F>
void gmp_mul(benchmark::State& state) {
  auto [x, y] = Operands<F>(1);
  for (auto _ : state) GmpMontgomery<F>::mul(x.mont, x.mont, y.mont);
  benchmark::DoNotOptimize(x);
}

template <class F>
void gmp_sqr(benchmark::State& state) {
  auto [x, y] = Operands<F>(3);
  for (auto _ : state) GmpMontgomery<F>::sqr(x.mont, x.mont);
  benchmark::DoNotOptimize(x);
}

template <class F>
void gmp_add(benchmark::State& state) {
  auto [x, y] = Operands<F>(4);
  for (auto _ : state) GmpMontgomery<F>::add(x.mont, x.mont, y.mont);
  benchmark::DoNotOptimize(x);
}

// mpz_invert on the canonical values: what a GMP user would call.
template <class F>
void gmp_inverse(benchmark::State& state) {
  auto [x, y] = Operands<F>(5);
  mpz_t vx, vy, p;
  mpz_inits(vx, vy, p, nullptr);
  mpz_import(vx, F::kLimbs, -1, 8, 0, 0, x.to_int().limb);
  mpz_import(vy, F::kLimbs, -1, 8, 0, 0, y.to_int().limb);
  mpz_import(p, F::kLimbs, -1, 8, 0, 0, F::kModulus.limb);
  for (auto _ : state) {
    mpz_add(vx, vx, vy);
    if (mpz_cmp(vx, p) >= 0) mpz_sub(vx, vx, p);
    mpz_invert(vx, vx, p);
  }
  benchmark::DoNotOptimize(mpz_getlimbn(vx, 0));
  mpz_clears(vx, vy, p, nullptr);
}

// Fp2 (the coordinates of G2): the same dependent chains.
template <class F2>
void fp2_mul(benchmark::State& state) {
  std::mt19937_64 rng(0x5eed0010);
  F2 x = F2::random(rng), y = F2::random(rng);
  for (auto _ : state) x = x * y;
  benchmark::DoNotOptimize(x);
}

template <class F2>
void fp2_sqr(benchmark::State& state) {
  std::mt19937_64 rng(0x5eed0011);
  F2 x = F2::random(rng);
  for (auto _ : state) x = x.sqr();
  benchmark::DoNotOptimize(x);
}

// The baseline must compute the same function as the field, or the comparison means nothing.
template <class F>
bool baseline_agrees(const char* name) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    F a = F::random(rng), b = F::random(rng), r;
    GmpMontgomery<F>::mul(r.mont, a.mont, b.mont);
    bool ok = r == a * b;
    GmpMontgomery<F>::sqr(r.mont, a.mont);
    ok = ok && r == a.sqr();
    GmpMontgomery<F>::add(r.mont, a.mont, b.mont);
    ok = ok && r == a + b;
    if (!ok) {
      std::fprintf(stderr, "GMP baseline disagrees with the field for %s\n", name);
      return false;
    }
  }
  return true;
}

template <class F>
bool register_field(const std::string& name) {
  benchmark::RegisterBenchmark(("ff_mul/" + name).c_str(), field_mul<F>);
  benchmark::RegisterBenchmark(("ff_mul_gmp/" + name).c_str(), gmp_mul<F>);
  benchmark::RegisterBenchmark(("ff_mul_x4/" + name).c_str(), field_mul_x4<F>);
  benchmark::RegisterBenchmark(("ff_sqr/" + name).c_str(), field_sqr<F>);
  benchmark::RegisterBenchmark(("ff_sqr_gmp/" + name).c_str(), gmp_sqr<F>);
  benchmark::RegisterBenchmark(("ff_add/" + name).c_str(), field_add<F>);
  benchmark::RegisterBenchmark(("ff_add_gmp/" + name).c_str(), gmp_add<F>);
  benchmark::RegisterBenchmark(("ff_inverse/" + name).c_str(), field_inverse<F>);
  benchmark::RegisterBenchmark(("ff_inverse_gmp/" + name).c_str(), gmp_inverse<F>);
  return baseline_agrees<F>(name.c_str());
}

}  // namespace

// Called from main (bench_main.cpp); false if a baseline is wrong.
bool register_field_benchmarks() {
  bool ok = register_field<bls12_381::Fp>("bls12_381_fp");
  ok = register_field<bls12_381::Fr>("bls12_381_fr") && ok;
  ok = register_field<bn254::Fp>("bn254_fp") && ok;
  ok = register_field<bn254::Fr>("bn254_fr") && ok;
  benchmark::RegisterBenchmark("ff_fp2_mul/bls12_381_fp2", fp2_mul<bls12_381::Fp2>);
  benchmark::RegisterBenchmark("ff_fp2_sqr/bls12_381_fp2", fp2_sqr<bls12_381::Fp2>);
  benchmark::RegisterBenchmark("ff_fp2_mul/bn254_fp2", fp2_mul<bn254::Fp2>);
  benchmark::RegisterBenchmark("ff_fp2_sqr/bn254_fp2", fp2_sqr<bn254::Fp2>);
  return ok;
}

}  // namespace cuzk::bench
