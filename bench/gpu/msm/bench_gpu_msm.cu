// bench_gpu_msm: GPU MSM timings on device-resident inputs, in the bench/results shape.
//
//   bench_gpu_msm [--g1 20,22,24,26] [--g2 22,24] [--curves bls12_381,bn254]
//                 [--shapes random,porep] [--runs 5] [--window c]
//                 [--shifted 0,22,24 | --no-shifted] [--table-rows 0,4]
//                 [--radix pow2,tuned,9x20]
//                 [--accumulate-threads t]
//                 [--accumulate-min-blocks b] [--sort-entries-per-pass e] [--segment-buckets L]
//                 [--pinned-chunks 20,22,24] [--json out.json] [--commit abc1234] (default:
//                 $CUZK_BENCH_COMMIT)
//
// Per (curve, group, log n, shape): inputs made on the device (bench_inputs.cuh), one warm-up
// run, then --runs timed runs between CUDA events on one stream; median, min and max. Shape
// "random" runs msm (signed-digit Pippenger over every scalar), method "pippenger", and msm
// given the scalars' counts (MsmConfig::scalar_counts, counted once before the runs: the
// prover's path), method "counted"; "porep" (40% zeros, 40% ones) runs both and also
// msm_with_classification, method "classified".
// --shifted c,... (default 0): also msm_shifted on a table of shifted bases made for each window
// c (0: the tuned window; --no-shifted skips them; a table that does not fit the free VRAM is
// skipped), method "shifted" with the table's size and the time shift_bases took to make it
// (once per key in a prover, so it is reported apart, not in the MSM's time). --table-rows
// R,... (default 0: a row for every window) also makes partial tables of R rows, method
// "shifted/R", with the window the tuning model picks for R rows when --shifted is 0.
// --radix pow2,tuned,ODDxC (default pow2,tuned): the tables' radices; pow2 takes the windows of
// --shifted, tuned the model's best radix (odd factors included), ODDxC the radix ODD·2^C;
// method "shifted_odd" (and "shifted_odd/R") where the radix is not a power of two.
// --pinned-chunks k,...: also msm with the bases in pinned host memory (a streamed key's MSM),
// staged in chunks of 2^k points (0: the default chunk), method "pinned_2^k", and the plain
// host-to-device copy of all the bases, method "copy_only" (the bound a streamed MSM cannot
// beat).
// Prints the workspace bytes of each size. Needs a GPU; exits 2 without one.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_inputs.cuh"
#include "bench_json.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/tuning.hpp"
#include "gpu/stream.hpp"

namespace {

using namespace cuzk;
namespace gm = cuzk::gpu::msm;

struct Options {
  std::vector<unsigned> g1_logs = {20, 22, 24, 26};
  std::vector<unsigned> g2_logs = {22, 24};
  std::vector<std::string> curves = {"bls12_381", "bn254"};
  std::vector<std::string> shapes = {"random", "porep"};
  unsigned runs = 5;
  unsigned window = 0;
  std::vector<unsigned> shifted = {0};     // windows of the shifted tables (0: tuned)
  std::vector<unsigned> table_rows = {0};  // rows of the shifted tables (0: every window's)
  std::vector<std::string> radices = {"pow2", "tuned"};  // the shifted tables' radices
  size_t accumulate_threads = 0;           // MsmConfig::accumulate_threads (0: tuning.hpp)
  unsigned accumulate_min_blocks = 0;      // MsmConfig::accumulate_min_blocks (0: tuning.hpp)
  size_t sort_entries_per_pass = 0;        // MsmConfig::sort_entries_per_pass (0: tuning.hpp)
  size_t partials_per_thread = 0;          // MsmConfig::partials_per_thread (0: tuning.hpp)
  size_t segment_buckets = 0;              // MsmConfig::segment_buckets (0: tuning.hpp)
  gm::SumStorage accumulate_sums = gm::kDefaultSumStorage;  // MsmConfig::accumulate_sums
  std::vector<unsigned> pinned_chunk_logs;  // streamed bases, chunks of 2^k points (0: default)
};

// The MSM configuration with the options' tuning overrides.
gm::MsmConfig tuned_config(const Options& options, cudaStream_t stream) {
  gm::MsmConfig config;
  config.stream = stream;
  config.accumulate_threads = options.accumulate_threads;
  config.accumulate_min_blocks = options.accumulate_min_blocks;
  config.sort_entries_per_pass = options.sort_entries_per_pass;
  config.partials_per_thread = options.partials_per_thread;
  config.segment_buckets = options.segment_buckets;
  config.accumulate_sums = options.accumulate_sums;
  return config;
}

struct Timing {
  double median, min, max;
};

Timing summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t k = ms.size();
  const double median = k % 2 == 1 ? ms[k / 2] : (ms[k / 2 - 1] + ms[k / 2]) / 2;
  return {median, ms.front(), ms.back()};
}

// One warm-up, then `runs` timed runs of `run` between events on `stream`.
template <class Run>
Timing time_runs(unsigned runs, gpu::Stream& stream, Run&& run) {
  run();
  stream.synchronize();
  std::vector<double> ms;
  for (unsigned r = 0; r < runs; ++r) {
    gpu::Event start(true), stop(true);
    start.record(stream);
    run();
    stop.record(stream);
    stop.synchronize();
    ms.push_back(gpu::Event::elapsed_ms(start, stop));
  }
  return summarize(std::move(ms));
}

void print_row(const char* curve, const char* op, unsigned log_n, const std::string& shape,
               const char* method, const Timing& t, unsigned runs, size_t workspace) {
  std::printf("%-10s %-7s %5u  %-7s %-11s %10.2f %10.2f %10.2f %5u %14zu\n", curve, op, log_n,
              shape.c_str(), method, t.median, t.min, t.max, runs, workspace);
  std::fflush(stdout);
}

nlohmann::json result_row(const char* curve, const char* op, unsigned log_n,
                          const std::string& shape, const char* method, const Timing& t,
                          const Options& options, unsigned window, size_t workspace) {
  const unsigned runs = options.runs;
  nlohmann::json row = {{"op", op},
                        {"curve", curve},
                        {"log_n", log_n},
                        {"shape", shape},
                        {"method", method},
                        {"median_ms", t.median},
                        {"min_ms", t.min},
                        {"max_ms", t.max},
                        {"runs", runs},
                        {"window_bits", window},
                        {"workspace_bytes", workspace}};
  if (options.accumulate_threads != 0) row["accumulate_threads"] = options.accumulate_threads;
  if (options.accumulate_min_blocks != 0) {
    row["accumulate_min_blocks"] = options.accumulate_min_blocks;
  }
  if (options.sort_entries_per_pass != 0) {
    row["sort_entries_per_pass"] = options.sort_entries_per_pass;
  }
  if (options.partials_per_thread != 0) row["partials_per_thread"] = options.partials_per_thread;
  if (options.segment_buckets != 0) row["segment_buckets"] = options.segment_buckets;
  row["accumulate_sums"] = gm::sum_storage_name(options.accumulate_sums);
  return row;
}

// The radices of the shifted tables: per --radix entry, "pow2" gives 2^c for each window of
// --shifted (0: the tuned window), "tuned" the model's best radix (tuning.hpp:
// shifted_radix_for), "ODDxC" the radix ODD·2^C.
template <class Curve>
std::vector<gm::ShiftedRadix> shifted_radices(size_t n, unsigned rows, const Options& options) {
  using Fr = typename Curve::Scalar;
  std::vector<gm::ShiftedRadix> out;
  for (const std::string& spec : options.radices) {
    if (spec == "pow2") {
      for (unsigned wanted : options.shifted) {
        out.push_back({wanted != 0 ? wanted : gm::shifted_window_bits_for(n, Fr::kBits, rows), 1});
      }
    } else if (spec == "tuned") {
      out.push_back(gm::shifted_radix_for(n, rows, [](unsigned c, uint32_t odd) {
        return gm::shifted_windows<Curve>(c, odd);
      }));
    } else {
      const size_t x = spec.find('x');
      if (x == std::string::npos) throw std::invalid_argument("--radix " + spec);
      out.push_back(
          {unsigned(std::stoul(spec.substr(x + 1))), uint32_t(std::stoul(spec.substr(0, x)))});
    }
  }
  return out;
}

// msm_shifted for each radix (shifted_radices): the table made once per radix (timed), then
// every shape.
template <class Curve>
void bench_shifted(const char* curve, const char* op, unsigned log_n, const Options& options,
                   std::span<const ec::Affine<Curve>> bases, typename Curve::Scalar* scalars,
                   ec::Jacobian<Curve>* result, gpu::Stream& stream, nlohmann::json& results) {
  using AffinePoint = ec::Affine<Curve>;
  const size_t n = bases.size();
  for (unsigned wanted_rows : options.table_rows) {
    for (const gm::ShiftedRadix radix : shifted_radices<Curve>(n, wanted_rows, options)) {
      const unsigned c = radix.c;
      const unsigned windows = gm::shifted_windows<Curve>(c, radix.odd);
      const unsigned rows = gm::table_rows<Curve>(c, wanted_rows, radix.odd);
      gm::MsmConfig config = tuned_config(options, stream);
      const size_t bytes = gm::msm_shifted_workspace_bytes<Curve>(n, c, config, rows, radix.odd);
      const size_t table_bytes = size_t(rows) * n * sizeof(AffinePoint);
      const size_t needed = table_bytes + bytes + gm::shift_bases_workspace_bytes<Curve>(n);
      if (needed + (size_t(1) << 30) > gpu::free_device_memory()) {
        std::printf(
            "# %s %s 2^%u shifted radix %u·2^%u rows=%u: skipped, the table and workspace need "
            "%.1f GiB\n",
            curve, op, log_n, radix.odd, c, rows, double(needed) / (1u << 30));
        continue;
      }
      auto table = gpu::DeviceBuffer<AffinePoint>::allocate_blocking(size_t(rows) * n);
      auto shift_ws = gpu::DeviceBuffer<std::byte>::allocate_blocking(
          gm::shift_bases_workspace_bytes<Curve>(n));
      gpu::Event start(true), stop(true);
      start.record(stream);
      gm::shift_bases<Curve>(bases, c, {table.data(), table.size()},
                             {shift_ws.data(), shift_ws.size()}, stream, rows, radix.odd);
      stop.record(stream);
      stop.synchronize();
      const double shift_ms = gpu::Event::elapsed_ms(start, stop);
      shift_ws = {};
      auto workspace = gpu::DeviceBuffer<std::byte>::allocate_blocking(bytes);
      std::printf(
          "# %s %s 2^%u shifted radix %u·2^%u: %u of %u rows, table %.2f GiB made in %.0f ms\n",
          curve, op, log_n, radix.odd, c, rows, windows,
          double(table.size() * sizeof(AffinePoint)) / (1u << 30), shift_ms);
      const gm::ShiftedBases<Curve> shifted{{table.data(), table.size()}, n, c, rows, radix.odd};
      // "shifted" for powers of two, "shifted_odd" for odd radices; "/R" for partial tables.
      const std::string method = std::string(radix.odd == 1 ? "shifted" : "shifted_odd") +
                                 (rows < windows ? "/" + std::to_string(rows) : "");
      for (const std::string& shape : options.shapes) {
        bench::make_device_scalars<Curve>(
            scalars, n, shape == "porep" ? bench::ScalarShape::kPorep : bench::ScalarShape::kRandom,
            0xabc0 + log_n, stream);
        const Timing t = time_runs(options.runs, stream, [&] {
          gm::msm_shifted<Curve>(shifted, {scalars, n}, result, {workspace.data(), bytes}, config);
        });
        print_row(curve, op, log_n, shape, method.c_str(), t, options.runs, bytes);
        nlohmann::json row =
            result_row(curve, op, log_n, shape, method.c_str(), t, options, c, bytes);
        row["radix_odd"] = radix.odd;
        row["table_bytes"] = table.size() * sizeof(AffinePoint);
        row["table_rows"] = rows;
        row["shift_bases_ms"] = shift_ms;
        results.push_back(row);
      }
    }
  }
}

// msm with the bases in pinned host memory, staged in chunks (options.pinned_chunk_logs), for
// each shape, and the plain copy of all the bases to the device as the bound.
template <class Curve>
void bench_pinned(const char* curve, const char* op, unsigned log_n, const Options& options,
                  gm::MsmConfig config, const ec::Affine<Curve>* device_bases,
                  typename Curve::Scalar* scalars, ec::Jacobian<Curve>* result, gpu::Stream& stream,
                  nlohmann::json& results) {
  using AffinePoint = ec::Affine<Curve>;
  const size_t n = size_t(1) << log_n;
  gpu::PinnedBuffer<AffinePoint> host(n);
  CUDA_CHECK(
      cudaMemcpy(host.data(), device_bases, n * sizeof(AffinePoint), cudaMemcpyDeviceToHost));
  auto staged = gpu::DeviceBuffer<AffinePoint>::allocate_blocking(n);
  const Timing copy = time_runs(options.runs, stream, [&] {
    CUDA_CHECK(cudaMemcpyAsync(staged.data(), host.data(), n * sizeof(AffinePoint),
                               cudaMemcpyHostToDevice, stream));
  });
  staged = {};
  std::printf("# %s %s 2^%u: %.2f GB of bases copied in %.2f ms (%.1f GB/s)\n", curve, op, log_n,
              double(n * sizeof(AffinePoint)) / 1e9, copy.median,
              double(n * sizeof(AffinePoint)) / 1e6 / copy.median);
  print_row(curve, op, log_n, "-", "copy_only", copy, options.runs, 0);
  results.push_back(result_row(curve, op, log_n, "-", "copy_only", copy, options, 0, 0));
  gpu::Stream copy_stream;
  config.bases = gm::Location::kPinnedHost;
  config.copy_stream = copy_stream;
  const std::span<const AffinePoint> base_span{host.data(), n};
  const std::span<const typename Curve::Scalar> scalar_span{scalars, n};
  for (const std::string& shape : options.shapes) {
    bench::make_device_scalars<Curve>(
        scalars, n, shape == "porep" ? bench::ScalarShape::kPorep : bench::ScalarShape::kRandom,
        0xabc0 + log_n, stream);
    for (unsigned chunk_log : options.pinned_chunk_logs) {
      config.chunk_points = chunk_log == 0 ? 0 : size_t(1) << chunk_log;
      const size_t bytes = gm::msm_workspace_bytes<Curve>(n, config);
      auto workspace = gpu::DeviceBuffer<std::byte>::allocate_blocking(bytes);
      const Timing t = time_runs(options.runs, stream, [&] {
        gm::msm<Curve>(base_span, scalar_span, result, {workspace.data(), bytes}, config);
      });
      const size_t chunk = config.chunk_points == 0 ? gm::kDefaultChunkPoints : config.chunk_points;
      const std::string method = "pinned_2^" + std::to_string(std::countr_zero(chunk));
      print_row(curve, op, log_n, shape, method.c_str(), t, options.runs, bytes);
      auto row =
          result_row(curve, op, log_n, shape, method.c_str(), t, options, options.window, bytes);
      row["chunk_points"] = chunk;
      results.push_back(std::move(row));
    }
  }
}

template <class Curve>
void bench_group(const char* curve, const char* op, unsigned log_n, const Options& options,
                 nlohmann::json& results) {
  using Fr = typename Curve::Scalar;
  using AffinePoint = ec::Affine<Curve>;
  const size_t n = size_t(1) << log_n;
  gpu::Stream stream;
  auto bases = gpu::DeviceBuffer<AffinePoint>::allocate_blocking(n);
  auto scalars = gpu::DeviceBuffer<Fr>::allocate_blocking(n);
  auto result = gpu::DeviceBuffer<ec::Jacobian<Curve>>::allocate_blocking(1);
  const auto t0 = std::chrono::steady_clock::now();
  bench::make_device_bases<Curve>(bases.data(), n, 0x5eed0000 + log_n, stream);
  const double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gm::MsmConfig config = tuned_config(options, stream);
  config.window_bits = options.window;
  const size_t plain_bytes = gm::msm_workspace_bytes<Curve>(n, config);
  const size_t classified_bytes = gm::classified_msm_workspace_bytes<Curve>(n, config);
  std::printf(
      "# %s %s 2^%u: bases made on the device in %.1f s; workspace %.3f GiB (msm), "
      "%.3f GiB (classified)\n",
      curve, op, log_n, gen_s, double(plain_bytes) / (1u << 30),
      double(classified_bytes) / (1u << 30));
  auto workspace =
      gpu::DeviceBuffer<std::byte>::allocate_blocking(std::max(plain_bytes, classified_bytes));
  const std::span<std::byte> ws{workspace.data(), workspace.size()};
  const std::span<const AffinePoint> base_span{bases.data(), n};
  const std::span<const Fr> scalar_span{scalars.data(), n};

  for (const std::string& shape : options.shapes) {
    const bool porep = shape == "porep";
    bench::make_device_scalars<Curve>(
        scalars.data(), n, porep ? bench::ScalarShape::kPorep : bench::ScalarShape::kRandom,
        0xabc0 + log_n, stream);
    // "counted": msm given the scalars' counts (MsmConfig::scalar_counts), counted on the
    // device once before the runs, as the prover does once per partition.
    gpu::DeviceBuffer<gm::ScalarCounts> device_counts =
        gpu::DeviceBuffer<gm::ScalarCounts>::allocate_blocking(1);
    gpu::Event count_start(true), count_stop(true);
    count_start.record(stream);
    gm::count_scalars<Fr>(scalar_span, config.scalars, nullptr, n, device_counts.data(), stream);
    count_stop.record(stream);
    std::vector<gm::ScalarCounts> counts(1);
    device_counts.download(counts, stream);
    stream.synchronize();
    std::printf("# %s %s 2^%u %s: %llu ones, %llu others, counted in %.2f ms\n", curve, op, log_n,
                shape.c_str(), (unsigned long long)counts[0].ones,
                (unsigned long long)counts[0].others,
                double(gpu::Event::elapsed_ms(count_start, count_stop)));
    gm::MsmConfig counted_config = config;
    counted_config.scalar_counts = counts[0];
    for (const char* method : {"pippenger", "counted", "classified"}) {
      const bool classified = std::string(method) == "classified";
      const bool counted = std::string(method) == "counted";
      if (classified && !porep) continue;
      const Timing t = time_runs(options.runs, stream, [&] {
        if (classified) {
          gm::msm_with_classification<Curve>(base_span, scalar_span, result.data(), ws, config);
        } else {
          gm::msm<Curve>(base_span, scalar_span, result.data(), ws,
                         counted ? counted_config : config);
        }
      });
      const size_t bytes = classified ? classified_bytes : plain_bytes;
      print_row(curve, op, log_n, shape, method, t, options.runs, bytes);
      results.push_back(
          result_row(curve, op, log_n, shape, method, t, options, options.window, bytes));
    }
  }
  if (!options.pinned_chunk_logs.empty()) {
    workspace = {};
    bench_pinned<Curve>(curve, op, log_n, options, config, bases.data(), scalars.data(),
                        result.data(), stream, results);
  }
  if (!options.shifted.empty()) {
    workspace = {};  // the table needs the room
    bench_shifted<Curve>(curve, op, log_n, options, base_span, scalars.data(), result.data(),
                         stream, results);
  }
}

template <class G1, class G2>
void bench_curve(const char* curve, const Options& options, nlohmann::json& results) {
  for (unsigned log_n : options.g1_logs) bench_group<G1>(curve, "msm_g1", log_n, options, results);
  for (unsigned log_n : options.g2_logs) bench_group<G2>(curve, "msm_g2", log_n, options, results);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  std::string json_path, commit = bench::bench_commit();
  CLI::App app{"GPU MSM benchmark (device-resident inputs)"};
  // A bare --g1 (or --g1 "") skips G1, likewise G2; sizes are 2^1..2^31.
  app.add_option("--g1", options.g1_logs, "log2 sizes of the G1 MSMs (none: skip G1)")
      ->delimiter(',')
      ->expected(0, CLI::detail::expected_max_vector_size)
      ->check(CLI::Range(1u, 31u));
  app.add_option("--g2", options.g2_logs, "log2 sizes of the G2 MSMs (none: skip G2)")
      ->delimiter(',')
      ->expected(0, CLI::detail::expected_max_vector_size)
      ->check(CLI::Range(1u, 31u));
  app.add_option("--curves", options.curves, "bls12_381, bn254")->delimiter(',');
  app.add_option("--shapes", options.shapes, "random, porep")->delimiter(',');
  app.add_option("--runs", options.runs, "timed runs per case (at least 5 for results)");
  app.add_option("--window", options.window, "window width override (0: tuning table)");
  app.add_option("--shifted", options.shifted,
                 "msm_shifted with tables for these windows (0: tuned; default 0)")
      ->delimiter(',');
  app.add_option("--table-rows", options.table_rows,
                 "rows of the shifted tables: fewer than their windows make partial tables, "
                 "method shifted/R (0: every window's; default 0)")
      ->delimiter(',');
  app.add_option("--radix", options.radices,
                 "radices of the shifted tables: pow2 (2^c for each --shifted window), tuned "
                 "(the model's best, odd factors included), ODDxC (ODD·2^C); default pow2,tuned")
      ->delimiter(',');
  app.add_option("--accumulate-threads", options.accumulate_threads,
                 "threads per accumulation launch (0: tuning table)");
  app.add_option("--accumulate-min-blocks", options.accumulate_min_blocks,
                 "occupancy bound of the G1 accumulation kernel (0: tuning table)");
  app.add_option("--sort-entries-per-pass", options.sort_entries_per_pass,
                 "(scalar, window) pairs sorted at once (0: tuning table)");
  app.add_option("--partials-per-thread", options.partials_per_thread,
                 "partial sums per combining thread (0: tuning table)");
  app.add_option("--segment-buckets", options.segment_buckets,
                 "buckets per thread of the bucket reduction, a power of two (0: tuning table)");
  app.add_option("--accumulate-sums", options.accumulate_sums,
                 "where accumulation keeps its running sums: shared (default), registers")
      ->transform(CLI::CheckedTransformer(std::map<std::string, gm::SumStorage>{
          {"registers", gm::SumStorage::kRegisters}, {"shared", gm::SumStorage::kShared}}));
  app.add_option("--pinned-chunks", options.pinned_chunk_logs,
                 "also msm on bases in pinned host memory, chunks of 2^k points (0: default)")
      ->delimiter(',');
  bool no_shifted = false;
  app.add_flag("--no-shifted", no_shifted, "skip msm_shifted");
  app.add_option("--json", json_path, "write results in the bench/results shape");
  app.add_option("--commit", commit, "commit recorded in the JSON");
  CLI11_PARSE(app, argc, argv);
  // An empty list (--g2 "") reaches the vector as one 0, past the range check: it means none.
  std::erase(options.g1_logs, 0u);
  std::erase(options.g2_logs, 0u);
  if (no_shifted) options.shifted.clear();
  if (gpu::device_count() == 0) {
    std::fprintf(stderr, "bench_gpu_msm: no CUDA device\n");
    return 2;
  }
  const gpu::DeviceInfo info = gpu::device_info(0);
  std::printf("# %s\n", gpu::describe(info).c_str());
  std::printf("%-10s %-7s %5s  %-7s %-11s %10s %10s %10s %5s %14s\n", "curve", "op", "log_n",
              "shape", "method", "median_ms", "min_ms", "max_ms", "runs", "workspace_B");
  nlohmann::json results = nlohmann::json::array();
  for (const std::string& curve : options.curves) {
    if (curve == "bls12_381") {
      bench_curve<bls12_381::G1Curve, bls12_381::G2Curve>("bls12_381", options, results);
    } else if (curve == "bn254") {
      bench_curve<bn254::G1Curve, bn254::G2Curve>("bn254", options, results);
    } else {
      std::fprintf(stderr, "bench_gpu_msm: unknown curve %s\n", curve.c_str());
      return 1;
    }
  }
  if (!json_path.empty()) {
    bench::write_results(json_path, info.name, argc, argv, results, commit);
  }
  return 0;
}
