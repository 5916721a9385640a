// CPU MSM benchmarks: G1 and G2 at 2^12, 2^16, 2^18, both curves, with random
// scalars (Pippenger) and PoRep-shaped scalars (70% zero, 25% one, 5% random; the classified
// MSM), plus the ones-only batch addition. JSON with --benchmark_out=<file>.
//
// `bench_msm --tune [benchmark flags]` instead sweeps the window width at each size, the
// measurement behind msm/cpu_tuning.hpp's table. `--threads=N` caps oneTBB at N threads (with N = 1
// the CPU column is the whole cost, a measure that holds up on a busy machine).
//
// Bases are a random walk over the group (as in the tests): distinct points, built once per
// group and shared by all sizes.

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "msm/instances.hpp"

namespace cuzk::msm {
namespace {

template <class Curve>
std::span<const ec::Affine<Curve>> bases(size_t n) {
  static std::vector<ec::Affine<Curve>> cache;
  if (cache.size() < n) {
    using Jacobian = ec::Jacobian<Curve>;
    using Fr = typename Curve::Scalar;
    std::mt19937_64 rng(1);
    std::vector<Jacobian> steps_jacobian(16);
    for (auto& s : steps_jacobian) s = ec::mul_generator<Curve>(Fr::random(rng));
    std::vector<ec::Affine<Curve>> steps(steps_jacobian.size());
    ec::batch_to_affine<Curve>(steps_jacobian, steps);
    std::vector<Jacobian> walk(n);
    Jacobian p = ec::mul_generator<Curve>(Fr::random(rng));
    for (auto& w : walk) {
      p += steps[rng() % steps.size()];
      w = p;
    }
    cache.resize(n);
    ec::batch_to_affine<Curve>(walk, cache);
  }
  return {cache.data(), n};
}

enum class Shape { kRandom, kPorep };

template <class Fr>
std::vector<Fr> scalars(size_t n, Shape shape) {
  std::mt19937_64 rng(2);
  std::vector<Fr> v(n);
  for (auto& k : v) {
    const unsigned roll = unsigned(rng() % 100);
    k = shape == Shape::kRandom ? Fr::random(rng)
        : roll < 70             ? Fr::zero()
        : roll < 95             ? Fr::one()
                                : Fr::random(rng);
  }
  return v;
}

template <class Curve>
void random_msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<Curve>(n);
  const auto k = scalars<typename Curve::Scalar>(n, Shape::kRandom);
  for (auto _ : state) benchmark::DoNotOptimize(pippenger<Curve>(b, k));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}

template <class Curve>
void porep_msm(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<Curve>(n);
  const auto k = scalars<typename Curve::Scalar>(n, Shape::kPorep);
  for (auto _ : state) benchmark::DoNotOptimize(msm_with_classification<Curve>(b, k));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n));
}

// Σ of a random quarter of the bases: the batch-addition path alone.
template <class Curve>
void quarter_sum(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<Curve>(n);
  std::mt19937_64 rng(3);
  std::vector<uint64_t> selection(selection_words(n));
  for (auto& word : selection) word = rng() & rng();
  for (auto _ : state) benchmark::DoNotOptimize(sum_selected<Curve>(b, selection));
  state.SetItemsProcessed(int64_t(state.iterations()) * int64_t(n / 4));
}

// Random scalars at n = 2^range(0) with the window fixed to range(1) bits.
template <class Curve>
void window_sweep(benchmark::State& state) {
  const size_t n = size_t(1) << state.range(0);
  const auto b = bases<Curve>(n);
  const auto k =
      to_canonical<typename Curve::Scalar>(scalars<typename Curve::Scalar>(n, Shape::kRandom));
  const PippengerOptions options = {.window_bits = unsigned(state.range(1))};
  for (auto _ : state) benchmark::DoNotOptimize(pippenger<Curve>(b, k, options));
}

template <class Curve>
void register_group(const std::string& op, const std::string& curve, std::vector<int> log_sizes) {
  auto configure = [&](benchmark::internal::Benchmark* bench) {
    for (int log_n : log_sizes) bench->Arg(log_n);
    bench->Unit(benchmark::kMillisecond)->UseRealTime();
  };
  configure(
      benchmark::RegisterBenchmark((op + "/" + curve + "/random").c_str(), random_msm<Curve>));
  configure(benchmark::RegisterBenchmark((op + "/" + curve + "/porep").c_str(), porep_msm<Curve>));
  configure(
      benchmark::RegisterBenchmark((op + "_quarter_sum/" + curve).c_str(), quarter_sum<Curve>));
}

template <class Curve>
void register_sweep(const std::string& name, int max_log_n) {
  auto* bench = benchmark::RegisterBenchmark(("tune/" + name).c_str(), window_sweep<Curve>);
  for (int log_n = 8; log_n <= max_log_n; log_n += 2) {
    const int best = int(window_bits_for(size_t(1) << log_n, coordinate_field<Curve>()));
    for (int c = std::max(2, best - 3); c <= std::min<int>(kMaxWindowBits, best + 3); ++c) {
      bench->Args({log_n, c});
    }
  }
  bench->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace
}  // namespace cuzk::msm

int main(int argc, char** argv) {
  using namespace cuzk;
  bool tune = false;
  size_t threads = 0;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--tune") == 0) {
      tune = true;
    } else if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads = std::strtoul(argv[i] + 10, nullptr, 10);
    } else {
      args.push_back(argv[i]);
    }
  }
  std::optional<tbb::global_control> thread_limit;
  if (threads != 0) thread_limit.emplace(tbb::global_control::max_allowed_parallelism, threads);
  if (tune) {
    msm::register_sweep<bls12_381::G1Curve>("bls12_381_g1", 20);
    msm::register_sweep<bn254::G1Curve>("bn254_g1", 20);
    msm::register_sweep<bls12_381::G2Curve>("bls12_381_g2", 16);
    msm::register_sweep<bn254::G2Curve>("bn254_g2", 16);
  } else {
    msm::register_group<bls12_381::G1Curve>("msm_g1", "bls12_381", {12, 16, 18});
    msm::register_group<bn254::G1Curve>("msm_g1", "bn254", {12, 16, 18});
    msm::register_group<bls12_381::G2Curve>("msm_g2", "bls12_381", {12, 16, 18});
    msm::register_group<bn254::G2Curve>("msm_g2", "bn254", {12, 16, 18});
  }
  int count = int(args.size());
  benchmark::Initialize(&count, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
