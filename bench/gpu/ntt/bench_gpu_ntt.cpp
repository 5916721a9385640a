// bench_gpu_ntt: device time of the forward NTT (natural → bit-reversed, the prover's form;
// ntt_natural: natural → natural, the same passes and a bit reversal) and of both H
// evaluations, for both curves, data resident on the device. Each measurement is one warm-up
// run, then --runs timed runs, each between two CUDA events on one stream.
// Prints a table and, with --json <file>, writes results in the shape of DESIGN.md §6.
//
//   bench_gpu_ntt [--json FILE] [--runs N] [--no-h] [--twiddles compact,full] [LOG_N ...]
//
// Default sizes 20 24 27 (2^1..2^28); --help lists the options. --twiddles: the domains' twiddle
// tables (gpu/ntt/ntt.hpp, TwiddleTables), each measured in turn; default compact. Operations on
// full tables are named with the suffix _full_twiddles.
//
// The commit and date in the JSON come from CUZK_BENCH_COMMIT and CUZK_BENCH_DATE
// (scripts/gpu-bench.sh sets both), or "unknown" and today's UTC date.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_json.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/ntt/ntt.hpp"
#include "gpu/stream.hpp"
#include "random_fill.hpp"
#include "stream_timing.hpp"
#include "util/error.hpp"

namespace {

using namespace cuzk;
using bench::time_on_stream;
using bench::Timing;
using gpu::ntt::Convention;
using gpu::ntt::DeviceDomain;

struct Options {
  std::string json_path;
  int runs = 5;
  bool h = true;
  std::vector<gpu::ntt::TwiddleTables> twiddles{gpu::ntt::TwiddleTables::kCompact};
  std::vector<unsigned> log_sizes{20, 24, 27};
};

// The options, or the exit status of a --help or a refused command line.
std::variant<Options, int> parse(int argc, char** argv) {
  Options o;
  CLI::App app{"GPU NTT and H evaluation benchmark (device-resident data)"};
  app.add_option("log_sizes", o.log_sizes, "log2 domain sizes (default 20 24 27)")
      ->check(CLI::Range(1u, 28u));
  app.add_option("--json", o.json_path, "write results in the bench/results shape");
  app.add_option("--runs", o.runs, "timed runs per case (at least 5 for results)")
      ->check(CLI::Range(1, 1000));
  bool no_h = false;
  app.add_flag("--no-h", no_h, "skip the H evaluations");
  app.add_option("--twiddles", o.twiddles, "twiddle tables, each measured in turn: compact, full")
      ->delimiter(',')
      ->allow_extra_args(false)  // the sizes may follow
      ->transform(CLI::CheckedTransformer(std::map<std::string, gpu::ntt::TwiddleTables>{
          {"compact", gpu::ntt::TwiddleTables::kCompact},
          {"full", gpu::ntt::TwiddleTables::kFull}}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  o.h = !no_h;
  return o;
}

template <class Fr>
void bench_curve(const std::string& curve, const Options& o, nlohmann::json& results) {
  gpu::Stream stream;
  for (unsigned log_n : o.log_sizes) {
    // The vectors once per size, for every table kind (their values do not change timing).
    const size_t n = size_t(1) << log_n;
    auto a = gpu::DeviceBuffer<Fr>::allocate_blocking(n);
    bench::fill_random(a, stream, 1);
    gpu::DeviceBuffer<Fr> b, c;
    if (o.h) {
      b = gpu::DeviceBuffer<Fr>::allocate_blocking(n);
      c = gpu::DeviceBuffer<Fr>::allocate_blocking(n);
      bench::fill_random(b, stream, 2);
      bench::fill_random(c, stream, 3);
    }
    for (gpu::ntt::TwiddleTables twiddles : o.twiddles) {
      const std::string suffix = twiddles == gpu::ntt::TwiddleTables::kFull ? "_full_twiddles" : "";
      auto add = [&](const std::string& op_base, const Timing& t) {
        const std::string op = op_base + suffix;
        std::printf("%-24s %-10s 2^%-3u %10.3f %10.3f %10.3f %5d\n", op.c_str(), curve.c_str(),
                    log_n, t.median_ms, t.min_ms, t.max_ms, o.runs);
        std::fflush(stdout);
        results.push_back({{"op", op},
                           {"curve", curve},
                           {"log_n", log_n},
                           {"shape", "random"},
                           {"median_ms", t.median_ms},
                           {"min_ms", t.min_ms},
                           {"max_ms", t.max_ms},
                           {"runs", o.runs}});
      };
      {
        const DeviceDomain<Fr> domain(log_n, Convention::kSnarkjs, twiddles);
        gpu::ntt::NttConfig config;
        config.stream = stream;
        config.output_order = gpu::ntt::Order::kBitReversed;
        add("ntt", time_on_stream(stream, o.runs, [&] { domain.forward({a.data(), n}, config); }));
        config.output_order = gpu::ntt::Order::kNatural;  // the same and a bit reversal
        add("ntt_natural", time_on_stream(stream, o.runs, [&] {
              domain.forward({a.data(), n}, config);
            }));
      }
      if (!o.h) continue;
      for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
        const DeviceDomain<Fr> domain(log_n, convention, twiddles);
        const bool snarkjs = convention == Convention::kSnarkjs;
        add(snarkjs ? "h_snarkjs" : "h_bellman", time_on_stream(stream, o.runs, [&] {
              if (snarkjs) {
                gpu::ntt::snarkjs_h_scalars<Fr>(domain, {a.data(), n}, {b.data(), n}, {c.data(), n},
                                                stream);
              } else {
                gpu::ntt::bellman_h_coefficients<Fr>(domain, {a.data(), n}, {b.data(), n},
                                                     {c.data(), n}, stream);
              }
            }));
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) try {
  const auto parsed = parse(argc, argv);
  if (const int* status = std::get_if<int>(&parsed)) return *status;
  const Options& o = std::get<Options>(parsed);
  if (gpu::device_count() == 0) {
    std::fprintf(stderr, "bench_gpu_ntt: no CUDA device\n");
    return 1;
  }
  const gpu::DeviceInfo info = gpu::device_info(0);
  std::printf("device: %s\n", gpu::describe(info).c_str());
  std::printf("%-24s %-10s %-5s %10s %10s %10s %5s\n", "op", "curve", "size", "median_ms", "min_ms",
              "max_ms", "runs");
  nlohmann::json results = nlohmann::json::array();
  bench_curve<bls12_381::Fr>("bls12_381", o, results);
  bench_curve<bn254::Fr>("bn254", o, results);

  if (!o.json_path.empty()) bench::write_results(o.json_path, info.name, argc, argv, results);
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_gpu_ntt: %s\n", e.what());
  return 1;
}
