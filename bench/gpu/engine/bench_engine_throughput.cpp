// bench_engine_throughput: the engine on the cuda backend in steady state, K = 1..4 workers per
// GPU, porep-like partitions, with the GPU's busy fraction from the engine's timeline.
//
//   bench_engine_throughput [--json FILE] [--timeline-dir DIR] [--curve bls12_381|bn254]
//                           [--partitions P] [--workers 1,2,3,4] [--key-tier vram|pinned]
//                           [--no-prepare-ahead] [--h-tables] [--dir TMP] [LOG_N ...]
//
// Every visible GPU is used (the key resident on each); CUDA_VISIBLE_DEVICES picks them, so the
// scaling from one GPU to two is two runs. --key-tier pinned sizes the VRAM budget for the
// matrices alone, so the key's points go to pinned host memory and every MSM streams them.
// --h-tables loads the key with its H table (engine::CudaOptions::h_tables).
//
// For each log size: a synthetic porep-shaped circuit filling the domain 2^LOG_N, a .zkey of
// random points for it written to TMP (random_key.hpp: THE KEY IS NOT A REAL KEY, so the
// backend's proof verification is off and the JSON says so), and its witness as .wtns bytes.
// For each K: a fresh engine with every GPU's memory (the key in the tier asked for, the rest
// the partition arena), the key preloaded, one warm-up job of K partitions, then one job of P
// partitions submitted at once. Reported per K: the wall time of the job, partitions per
// second, the GPU busy fraction over the steady part (from the first partition's start of
// compute to the last one's end, so the ramp-up of the first upload is not counted), the
// per-partition stage times, the arena's peak use, and the host memory the engine still holds
// once the measured job is done (its partitions' witnesses are separate by-value copies). The
// timeline of every run is written to DIR as timeline_<curve>_2p<N>_<g>gpu_K<k>.jsonl
// (tools/plot_timeline.py draws it).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_json.hpp"
#include "engine/cuda_backend.hpp"
#include "engine/engine.hpp"
#include "gpu/device_info.hpp"
#include "porep_bench_files.hpp"
#include "util/error.hpp"

namespace {

using namespace cuzk;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string json_path, timeline_dir, curve = "bls12_381", key_tier = "vram";
  fs::path dir = fs::temp_directory_path() / "cuzk_bench_engine";
  int partitions = 16;
  std::vector<int> workers = {1, 2, 3, 4};
  std::vector<unsigned> log_sizes{20};
  bool prepare_ahead = true;  // EngineOptions::prepare_ahead
  bool h_tables = false;      // CudaOptions::h_tables
};

// The options, or the exit status of a --help or a refused command line.
std::variant<Options, int> parse(int argc, char** argv) {
  Options o;
  CLI::App app{"the engine on the cuda backend in steady state, K workers per GPU"};
  app.add_option("log_sizes", o.log_sizes, "log2 domain sizes (default 20)")
      ->check(CLI::Range(1u, 28u));
  app.add_option("--json", o.json_path, "write results in the bench/results shape");
  app.add_option("--timeline-dir", o.timeline_dir, "write each run's timeline here");
  app.add_option("--curve", o.curve, "bls12_381 or bn254")
      ->check(CLI::IsMember({"bls12_381", "bn254"}));
  app.add_option("--partitions", o.partitions, "partitions of the measured job")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--workers", o.workers, "workers per GPU, each measured in turn (1..4)")
      ->delimiter(',')
      ->allow_extra_args(false)  // the sizes may follow
      ->check(CLI::Range(1, 4));
  app.add_option("--key-tier", o.key_tier, "vram or pinned")
      ->check(CLI::IsMember({"vram", "pinned"}));
  bool no_prepare_ahead = false;
  app.add_flag("--no-prepare-ahead", no_prepare_ahead, "EngineOptions::prepare_ahead off");
  app.add_flag("--h-tables", o.h_tables, "load the key with its H table");
  app.add_option("--dir", o.dir, "where the key and witness files are written");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  o.prepare_ahead = !no_prepare_ahead;
  return o;
}

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

engine::JobSpec job_of(int partitions, const std::shared_ptr<const std::vector<uint8_t>>& wtns) {
  engine::JobSpec spec;
  spec.key_id = "bench";
  for (int p = 0; p < partitions; ++p) spec.partitions.push_back({wtns});
  return spec;
}

nlohmann::json run_workers(const Options& o, const fs::path& zkey, unsigned log_n, int k,
                           const std::shared_ptr<const std::vector<uint8_t>>& wtns) {
  engine::EngineOptions options;
  options.workers_per_gpu = k;
  options.prepare_ahead = o.prepare_ahead;
  engine::CudaOptions cuda;
  cuda.verify_proofs = false;  // random key: its proofs cannot verify
  cuda.staging_per_device = options.partitions_held_per_gpu();
  cuda.h_tables = o.h_tables;
  cuda.partitions_per_device = k;
  auto backend = engine::CudaBackend::create(cuda);
  const engine::KeyTier tier =
      o.key_tier == "pinned" ? engine::KeyTier::kPinned : engine::KeyTier::kVram;
  engine::TierBytes charges = backend->key_charges({zkey}, tier);
  const uint64_t key_vram_bytes = charges[engine::KeyTier::kVram];
  const uint64_t key_pinned_bytes = charges[engine::KeyTier::kPinned];
  const uint64_t slot_bytes = backend->partition_vram_bytes({zkey});
  // Room for exactly one placement: with --key-tier pinned the VRAM budget is below the whole
  // key, so the store takes its second tier.
  options.keys.budgets = {{engine::KeyTier::kVram, key_vram_bytes + (uint64_t(256) << 20)}};
  if (tier == engine::KeyTier::kPinned) options.keys.budgets[tier] = key_pinned_bytes;
  auto eng = engine::Engine::create(options, std::move(backend));
  eng->register_key("bench", {zkey});
  auto t = Clock::now();
  eng->preload_key("bench");
  const double preload_ms = ms_between(t, Clock::now());
  for (const auto& key : eng->status().keys) {
    if (key.tier != tier) {
      CUZK_THROW(ErrorKind::kInternal, "the key went to the " +
                                           std::string(engine::key_tier_name(key.tier)) +
                                           " tier, not " + o.key_tier);
    }
  }

  const engine::JobResult warm = eng->await(eng->submit(job_of(k, wtns)), 600s);
  if (warm.state != engine::JobState::kSucceeded) {
    CUZK_THROW(ErrorKind::kInternal, "warm-up job: " + warm.error_message);
  }
  const size_t warm_records = eng->timeline().snapshot().size();

  // The measured job's partitions each get their own copy of the witness bytes, as separate
  // clients' submissions would, and only the engine holds them: what it still holds once the
  // job is done (and retained for its result) is the resident-set growth that remains.
  const size_t rss_before_copies = bench::current_rss_bytes();
  engine::JobSpec measured;
  measured.key_id = "bench";
  for (int p = 0; p < o.partitions; ++p) {
    measured.partitions.push_back({std::make_shared<const std::vector<uint8_t>>(*wtns)});
  }
  t = Clock::now();
  const engine::JobResult r = eng->await(eng->submit(std::move(measured)), 3600s);
  const double wall_ms = ms_between(t, Clock::now());
  if (r.state != engine::JobState::kSucceeded) {
    CUZK_THROW(ErrorKind::kInternal, "measured job: " + r.error_message);
  }
  const int64_t retained_bytes = int64_t(bench::current_rss_bytes()) - int64_t(rss_before_copies);

  // The steady part: from the first measured partition's start of compute to the last end.
  const auto records = eng->timeline().snapshot();
  Clock::time_point first = Clock::time_point::max(), last = Clock::time_point::min();
  std::vector<double> gpu_ms;
  for (size_t i = warm_records; i < records.size(); ++i) {
    first = std::min(first, records[i].compute_begin);
    last = std::max(last, records[i].gpu_done);
    gpu_ms.push_back(ms_between(records[i].compute_begin, records[i].gpu_done));
  }
  const double steady_ms = ms_between(first, last);
  const engine::EngineStatus status = eng->status();
  const int gpus = int(status.gpus.size());
  nlohmann::json busy_per_gpu = nlohmann::json::array();
  double busy = 0;
  for (int d = 0; d < gpus; ++d) {
    const double b = eng->timeline().gpu_busy_fraction(d, first, last);
    busy_per_gpu.push_back(b);
    busy += b / gpus;
  }

  if (!o.timeline_dir.empty()) {
    fs::create_directories(o.timeline_dir);
    const fs::path path =
        fs::path(o.timeline_dir) / ("timeline_" + o.curve + "_2p" + std::to_string(log_n) + "_" +
                                    std::to_string(gpus) + "gpu_K" + std::to_string(k) + ".jsonl");
    std::ofstream(path) << eng->timeline().to_json_lines(t);
  }
  eng->shutdown(engine::ShutdownMode::kDrain);

  const double p = o.partitions;
  const auto& sum = r.timings.sum;
  std::printf(
      "2^%u %s %d GPU(s), K=%d%s: %d partitions in %.0f ms: %.2f partitions/s, %.1f ms each; "
      "steady %.0f ms, GPU busy %.1f%% (mean); per partition: prepare %.1f, stage %.1f, gpu %.1f, "
      "epilogue %.1f ms\n",
      log_n, o.curve.c_str(), gpus, k, o.prepare_ahead ? "" : " (no preparation ahead)",
      o.partitions, wall_ms, 1e3 * p / wall_ms, wall_ms / p, steady_ms, 100 * busy,
      sum.synthesis_ms / p, sum.stage_ms / p, sum.gpu_ms / p, sum.epilogue_ms / p);
  return {{"op", "engine_throughput"},
          {"curve", o.curve},
          {"log_n", log_n},
          {"shape", "porep"},
          {"backend", "cuda"},
          {"workers_per_gpu", k},
          {"prepare_ahead", o.prepare_ahead},
          {"gpus", gpus},
          {"partitions", o.partitions},
          {"wall_ms", wall_ms},
          {"partitions_per_s", 1e3 * p / wall_ms},
          {"ms_per_partition", wall_ms / p},
          {"steady_ms", steady_ms},
          {"steady_ms_per_partition", steady_ms / p},
          {"gpu_busy_fraction", busy},
          {"gpu_busy_fraction_per_gpu", busy_per_gpu},
          {"median_compute_ms", bench::median(gpu_ms)},
          {"per_partition_ms",
           {{"queue", sum.queue_ms / p},
            {"prepare", sum.synthesis_ms / p},
            {"stage", sum.stage_ms / p},
            {"gpu", sum.gpu_ms / p},
            {"epilogue", sum.epilogue_ms / p}}},
          {"preload_ms", preload_ms},
          {"key_tier", o.key_tier},
          {"h_tables", o.h_tables},
          {"key_vram_bytes", key_vram_bytes},
          {"key_pinned_bytes", key_pinned_bytes},
          {"slot_vram_bytes", slot_bytes},
          {"arena_bytes", status.gpus.at(0).arena_bytes},
          {"arena_peak_bytes", status.gpus.at(0).arena_peak},
          {"host_peak_bytes", status.host_peak},
          {"witness_bytes", wtns->size()},
          {"submitted_witness_bytes", wtns->size() * size_t(o.partitions)},
          {"host_bytes_held_after_job", retained_bytes},
          {"key", "random points, proofs not verified"}};
}

template <class Curve>
nlohmann::json run_size(const Options& o, unsigned log_n) {
  auto t = Clock::now();
  auto files = bench::write_porep_bench_files<Curve>(o.dir, o.curve, log_n);
  const fs::path zkey = files.zkey;
  const auto wtns = std::make_shared<const std::vector<uint8_t>>(std::move(files.wtns));
  std::printf("2^%u: circuit, random key (%.1f GB file) and witness in %.0f ms\n", log_n,
              double(fs::file_size(zkey)) / 1e9, ms_between(t, Clock::now()));
  nlohmann::json results = nlohmann::json::array();
  for (int k : o.workers) results.push_back(run_workers(o, zkey, log_n, k, wtns));
  fs::remove(zkey);
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto parsed = parse(argc, argv);
    if (const int* status = std::get_if<int>(&parsed)) return *status;
    const Options& o = std::get<Options>(parsed);
    if (gpu::device_count() == 0) {
      std::fprintf(stderr, "bench_engine_throughput: no CUDA device\n");
      return 1;
    }
    nlohmann::json results = nlohmann::json::array();
    for (unsigned log_n : o.log_sizes) {
      const auto runs = o.curve == "bn254" ? run_size<formats::Bn254>(o, log_n)
                                           : run_size<formats::Bls12_381>(o, log_n);
      for (const auto& r : runs) results.push_back(r);
      if (!o.json_path.empty()) {  // after every size: a later failure keeps the earlier ones
        bench::write_results(o.json_path, gpu::device_info(0).name, argc, argv, results);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_engine_throughput: %s\n", e.what());
    return 1;
  }
}
