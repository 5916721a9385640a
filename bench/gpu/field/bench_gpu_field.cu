// bench_gpu_field: throughput of BLS12-381 Fp products on the device, by the integer
// multiply-add pipe (ptx::mont_mul, the field's product) and by the FP64 pipe
// (ff/mont_f64.cuh), alone and mixed in one kernel.
//
//   bench_gpu_field [--runs N] [--json FILE] [--commit HASH]
//
// Chains of 256 dependent products x ← x·y over 2^20 threads (enough warps to hide every
// chain's latency), placed two ways:
//   thread  each thread runs `int` independent integer chains and `f64` FP64 chains;
//   warp    each thread runs one chain, of its warp's kind: `int` integer warps, then `f64`
//           FP64 warps, repeating over a block (each warp on one pipe, registers for one chain).
// A mix shows how much FP64 work fits beside the integer product. Chain 0 of every kind starts
// from the same element, so all kinds must agree at the end: the benchmark checks it against
// the integer-only mix and fails if not. One warm-up launch, then --runs timed launches (CUDA
// events); medians.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench_json.hpp"
#include "curves/bls12_381_fields.hpp"
#include "ff/mont_f64.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"

namespace {

using namespace cuzk;
using Fp = bls12_381::Fp;
using Int = Fp::Int;
constexpr size_t kN = Fp::kLimbs;
constexpr int kRounds = 256;
constexpr size_t kThreads = size_t(1) << 20;

// kInt integer chains and kF64 FP64 chains per thread; chain c of either kind starts from
// x[(i + c) mod n] (distinct starts, so that the compiler cannot merge chains). Results go to
// out_int[c·n + i] and out_f64[c·n + i] (the latter lazily reduced, < 2p).
template <int kInt, int kF64>
__global__ void __launch_bounds__(256) chains_kernel(Fp* out_int, Int* out_f64, const Fp* x,
                                                     const Fp* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr ff::f64::Modulus<kN> m = ff::f64::Modulus<kN>::make(Fp::kModulus, Fp::kInv);
  const Fp factor = y[i];
  Fp acc[kInt > 0 ? kInt : 1];
  double f[kF64 > 0 ? kF64 : 1][m.L], g[m.L];
#pragma unroll
  for (int c = 0; c < kInt; ++c) acc[c] = x[(i + c) % n];
  ff::f64::to_limbs<kN>(g, factor.mont);
#pragma unroll
  for (int c = 0; c < kF64; ++c) ff::f64::to_limbs<kN>(f[c], x[(i + c) % n].mont);
#pragma unroll 1
  for (int r = 0; r < kRounds; ++r) {
#pragma unroll
    for (int c = 0; c < kInt; ++c) acc[c] = acc[c] * factor;
#pragma unroll
    for (int c = 0; c < kF64; ++c) ff::f64::mont_mul<kN>(f[c], f[c], g, m);
  }
#pragma unroll
  for (int c = 0; c < kInt; ++c) out_int[c * n + i] = acc[c];
#pragma unroll
  for (int c = 0; c < kF64; ++c) ff::f64::from_limbs<kN>(out_f64[c * n + i].limb, f[c]);
}

// One chain per thread, of the kind of its warp: of every kIntWarps + kF64Warps warps of a
// block, the first kIntWarps run integer products, the others FP64 ones. Each warp keeps to
// one pipe, and each thread needs only one product's registers. Results as chains_kernel's
// chain 0 (thread i's goes to out_int[i] or out_f64[i]).
template <int kIntWarps, int kF64Warps>
__global__ void __launch_bounds__(256) split_warps_kernel(Fp* out_int, Int* out_f64, const Fp* x,
                                                          const Fp* y, size_t n) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Fp factor = y[i];
  if ((threadIdx.x / 32) % (kIntWarps + kF64Warps) < kIntWarps) {
    Fp acc = x[i];
#pragma unroll 1
    for (int r = 0; r < kRounds; ++r) acc = acc * factor;
    out_int[i] = acc;
  } else {
    constexpr ff::f64::Modulus<kN> m = ff::f64::Modulus<kN>::make(Fp::kModulus, Fp::kInv);
    double f[m.L], g[m.L];
    ff::f64::to_limbs<kN>(g, factor.mont);
    ff::f64::to_limbs<kN>(f, x[i].mont);
#pragma unroll 1
    for (int r = 0; r < kRounds; ++r) ff::f64::mont_mul<kN>(f, f, g, m);
    ff::f64::from_limbs<kN>(out_f64[i].limb, f);
  }
}

struct Mix {
  const char* placement;  // "thread": chains of both kinds in each thread; "warp": split_warps
  int int_chains, f64_chains;  // per thread, or warps per group for "warp"
  void (*kernel)(Fp*, Int*, const Fp*, const Fp*, size_t);
};

const Mix kMixes[] = {
    {"thread", 1, 0, chains_kernel<1, 0>},   {"thread", 2, 0, chains_kernel<2, 0>},
    {"thread", 0, 1, chains_kernel<0, 1>},   {"thread", 0, 2, chains_kernel<0, 2>},
    {"thread", 1, 1, chains_kernel<1, 1>},   {"thread", 2, 1, chains_kernel<2, 1>},
    {"thread", 1, 2, chains_kernel<1, 2>},   {"warp", 1, 1, split_warps_kernel<1, 1>},
    {"warp", 2, 1, split_warps_kernel<2, 1>}, {"warp", 3, 1, split_warps_kernel<3, 1>},
};

// The residue of a lazily reduced value (< 2p).
Int reduced(Int v) {
  if (compare(v, Fp::kModulus) >= 0) sub_in_place(v, Fp::kModulus);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::string json_path, commit = bench::bench_commit();
  CLI::App app{"GPU field product throughput: integer and FP64 pipes"};
  app.add_option("--runs", runs, "timed runs per mix (at least 5 for results)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--json", json_path, "write results in the bench/results shape");
  app.add_option("--commit", commit, "commit recorded in the JSON");
  CLI11_PARSE(app, argc, argv);
  if (gpu::device_count() == 0) {
    std::fprintf(stderr, "bench_gpu_field: no CUDA device\n");
    return 2;
  }
  const gpu::DeviceInfo info = gpu::device_info(0);
  std::printf("# %s\n", gpu::describe(info).c_str());

  std::mt19937_64 rng(20261203);
  std::vector<Fp> host(kThreads);
  for (auto& v : host) v = Fp::random(rng);
  gpu::Stream stream;
  gpu::DeviceBuffer<Fp> x(kThreads, stream), y(kThreads, stream), out_int(2 * kThreads, stream);
  gpu::DeviceBuffer<Int> out_f64(2 * kThreads, stream);
  x.upload(host, stream);
  std::shuffle(host.begin(), host.end(), rng);
  y.upload(host, stream);

  std::vector<Fp> reference(kThreads);  // chain 0 of the integer-only mix
  nlohmann::json results = nlohmann::json::array();
  std::printf("%-7s %-5s %-5s %12s %10s %6s\n", "mix", "int", "f64", "G products/s", "median_ms",
              "regs");
  bool agree = true;
  for (const Mix& mix : kMixes) {
    cudaFuncAttributes attributes{};
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, mix.kernel));
    gpu::Event start(true), stop(true);
    std::vector<double> ms;
    for (int run = 0; run <= runs; ++run) {  // run 0 warms up
      start.record(stream);
      mix.kernel<<<unsigned(kThreads / 256), 256, 0, stream>>>(out_int.data(), out_f64.data(),
                                                               x.data(), y.data(), kThreads);
      CUZK_CHECK_LAUNCH();
      stop.record(stream);
      stop.synchronize();
      if (run > 0) ms.push_back(gpu::Event::elapsed_ms(start, stop));
    }
    const double median_ms = bench::median(ms);
    const bool split = std::string(mix.placement) == "warp";
    const int products = split ? 1 : mix.int_chains + mix.f64_chains;
    const double rate = double(kThreads) * kRounds * products / (median_ms * 1e-3);

    // Chain 0 of every kind against chain 0 of the integer-only mix (the first one).
    std::vector<Fp> ints(out_int.size());
    std::vector<Int> f64s(out_f64.size());
    out_int.download(ints, stream);
    out_f64.download(f64s, stream);
    stream.synchronize();
    if (&mix == &kMixes[0]) reference.assign(ints.begin(), ints.begin() + kThreads);
    size_t mismatches = 0;
    for (size_t i = 0; i < kThreads; ++i) {
      const bool int_warp = (i % 256 / 32) % (mix.int_chains + mix.f64_chains) < size_t(mix.int_chains);
      const bool check_int = split ? int_warp : mix.int_chains > 0;
      const bool check_f64 = split ? !int_warp : mix.f64_chains > 0;
      if (check_int && ints[i] != reference[i]) ++mismatches;
      if (check_f64 && reduced(f64s[i]) != reference[i].as_int()) ++mismatches;
    }
    agree = agree && mismatches == 0;
    std::printf("%-7s %-5d %-5d %12.2f %10.3f %6d%s\n", mix.placement, mix.int_chains,
                mix.f64_chains, rate * 1e-9, median_ms, attributes.numRegs,
                mismatches ? "  RESULTS DIFFER" : "");
    results.push_back({{"op", "fp_product_chains"},
                       {"curve", "bls12_381"},
                       {"field", "Fp"},
                       {"placement", mix.placement},
                       {"int_chains", mix.int_chains},
                       {"f64_chains", mix.f64_chains},
                       {"threads", kThreads},
                       {"steps", kRounds},
                       {"runs", runs},
                       {"median_ms", median_ms},
                       {"products_per_s", rate},
                       {"registers", attributes.numRegs},
                       {"results_agree", mismatches == 0}});
  }
  if (!json_path.empty()) bench::write_results(json_path, info.name, argc, argv, results, commit);
  if (!agree) {
    std::fprintf(stderr, "bench_gpu_field: the FP64 and integer products disagree\n");
    return 1;
  }
  return 0;
}
