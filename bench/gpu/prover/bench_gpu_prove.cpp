// bench_gpu_prove: one porep-like partition proved on the GPU, per stage.
//
//   bench_gpu_prove [--json FILE] [--runs N] [--curve bls12_381|bn254] [--key-memory vram|host]
//                   [--key-format zkey|params] [--h-table] [LOG_N ...]   (default 20)
//
// --key-memory host keeps the key in pinned host memory, streamed into every MSM
// (device_proving_key.hpp); the default is VRAM. --key-format: a snarkjs .zkey (the default:
// A, B1, B2 points for every wire, at infinity where a real key of the circuit has them, which
// the upload drops; H on the odd coset) or a bellman .params (BLS12-381 only; Filecoin's
// format: A and B points only for the wires of the circuit's A and B densities, so a porep
// partition's B MSMs cover the quarter of the wires that are in B; H in the coefficient basis,
// one more transform). --h-table gives the key (in VRAM) the fastest H table that fits the VRAM
// left beside two partitions' buffers (resident_circuit.hpp: fastest_fitting_h_table): the
// whole table at 2^24 and 2^26, a partial one at 2^27 on an H200; its build time is reported
// apart (once per key in a prover).
//
// For each log size: a synthetic porep-shaped circuit filling the domain 2^LOG_N
// (src/circuits), its matrices uploaded in compact form, a proving key, then one warm-up and
// --runs timed partitions on one stream (the same buffers each time, as a worker reuses its
// slot). Prints per-stage GPU times (CUDA events), the host's critical-path time (the wall time
// the GPU did not cover; the time inside the enqueue calls, which can overlap the GPU, apart),
// wall time per partition, and VRAM: circuit, key, partition buffers and the
// device's peak use (total − free, sampled after the runs). Then two partitions in flight at
// once (a second set of buffers, both proved concurrently): whether they fit next to the key,
// the device's use with both, that both proofs equal the timed runs' proof, and the host memory
// the second partition adds (resident set growth; the issue asks ≤ 1.5× the witness).
//
// THE KEY IS NOT A REAL KEY (random_key.hpp): its points are random, so the proofs do not
// verify: self-verification is off here, and correctness is covered by
// tests/gpu/prover_prove_test.cu (GPU proof = CPU proof, byte for byte). The JSON says so
// ("key": "random points, proofs not verified").

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "bench_json.hpp"
#include "circuits/synthetic.hpp"
#include "gpu/device_info.hpp"
#include "gpu/ntt/ntt.hpp"
#include "gpu/prover/partition.hpp"
#include "gpu/prover/resident_circuit.hpp"
#include "random_key.hpp"
#include "util/error.hpp"

namespace {

using namespace cuzk;
using bench::median;
using bench::peak_rss_bytes;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string json_path;
  int runs = 5;
  gpu::prover::KeyResidency key_residency = gpu::prover::KeyResidency::kDevice;
  std::string curve = "bls12_381";
  bool bellman = false;  // --key-format params
  bool h_table = false;  // --h-table: the key's H query as a table of shifted bases
  std::vector<unsigned> log_sizes{20};
};

// The options, or the exit status of a --help or a refused command line.
std::variant<Options, int> parse(int argc, char** argv) {
  Options o;
  CLI::App app{"GPU prover benchmark: one porep-like partition per size, per stage"};
  app.add_option("log_sizes", o.log_sizes, "log2 domain sizes (default 20)")
      ->check(CLI::Range(1u, 28u));
  app.add_option("--json", o.json_path, "write results in the bench/results shape");
  app.add_option("--runs", o.runs, "timed partitions per size (at least 5 for results)")
      ->check(CLI::Range(1, 1000));
  app.add_option("--curve", o.curve, "bls12_381 or bn254")
      ->check(CLI::IsMember({"bls12_381", "bn254"}));
  app.add_option("--key-memory", o.key_residency,
                 "where the key lives: vram (default) or host (pinned, streamed)")
      ->transform(CLI::CheckedTransformer(std::map<std::string, gpu::prover::KeyResidency>{
          {"vram", gpu::prover::KeyResidency::kDevice},
          {"host", gpu::prover::KeyResidency::kStreamed}}));
  std::string key_format = "zkey";
  app.add_option("--key-format", key_format, "zkey (default) or params (bellman, BLS12-381)")
      ->check(CLI::IsMember({"zkey", "params"}));
  app.add_flag("--h-table", o.h_table, "the key's H query as a table of shifted bases (VRAM)");
  try {
    app.parse(argc, argv);
    o.bellman = key_format == "params";
    if (o.bellman && o.curve != "bls12_381") {
      throw CLI::ValidationError("--key-format params", "bellman keys are BLS12-381 only");
    }
    if (o.h_table && o.key_residency != gpu::prover::KeyResidency::kDevice) {
      throw CLI::ValidationError("--h-table", "the table goes next to a key in VRAM");
    }
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return o;
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Two partitions in flight at once, as the engine holds them with K = 2 workers: a second
// partition's buffers next to the first, both enqueued on their own streams before either is
// waited for (their kernels may interleave). Reports whether the second allocation fits next to the
// key, the device's use with both, the wall time of the pair, and whether both gave the same proof
// as the timed runs (same witness and blinding: they must).
template <class Curve>
nlohmann::json two_partitions(const gpu::prover::DeviceCircuit<typename Curve::Fr>& circuit,
                              const gpu::prover::DeviceProvingKey<Curve>& key,
                              const gpu::ntt::DeviceDomain<typename Curve::Fr>& domain,
                              const gpu::prover::PinnedWitness<typename Curve::Fr>& witness,
                              gpu::prover::PartitionBuffers<Curve>& first,
                              const gpu::prover::GpuProveOptions<Curve>& options, unsigned log_n) {
  using Fr = typename Curve::Fr;
  const size_t rss_before = bench::current_rss_bytes();
  std::optional<gpu::prover::PartitionBuffers<Curve>> second;
  try {
    second.emplace(gpu::prover::PartitionBuffers<Curve>::allocate(first.shape()));
  } catch (const Error& e) {
    std::printf("2^%u: a second partition does not fit: %s\n", log_n, e.what());
    return {{"fits", false}, {"error", e.what()}};
  }
  // The second partition's own witness in pinned memory, as a worker holds one per partition.
  gpu::prover::PinnedWitness<Fr> second_witness(witness.capacity());
  second_witness.assign_montgomery(std::span<const Fr>(witness.data(), witness.size()));
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const gpu::Stream stream_a, stream_b;
  const auto expected = gpu::prover::prove(circuit, key, domain, witness, first, stream_a, options);
  const auto start = Clock::now();
  gpu::prover::check_partition(circuit, key, domain, witness, first);
  gpu::prover::check_partition(circuit, key, domain, second_witness, *second);
  gpu::prover::enqueue_stage(witness, first, stream_a);
  gpu::prover::enqueue_compute(circuit, key, domain, first, stream_a);
  gpu::prover::enqueue_stage(second_witness, *second, stream_b);
  gpu::prover::enqueue_compute(circuit, key, domain, *second, stream_b);
  // Everything the second partition holds on the host is allocated by now (the buffers and the
  // witness up front; the enqueue calls allocate nothing), and it stays until it finishes.
  const size_t rss_in_flight = bench::current_rss_bytes();
  stream_a.synchronize();
  const auto result_a = gpu::prover::finish_partition(key, witness, first, options);
  stream_b.synchronize();
  const auto result_b = gpu::prover::finish_partition(key, second_witness, *second, options);
  const double wall = ms_since(start);
  const size_t witness_bytes = witness.size() * sizeof(Fr);
  const size_t host_bytes = rss_in_flight > rss_before ? rss_in_flight - rss_before : 0;
  const bool equal = result_a.proof == expected.proof && result_b.proof == expected.proof;
  std::printf(
      "2^%u: two partitions in flight: device in use %zu bytes, both in %.1f ms, proofs %s; "
      "host memory of the second %zu bytes (%.2f x its witness of %zu bytes)\n",
      log_n, total_bytes - free_bytes, wall, equal ? "equal" : "DIFFER", host_bytes,
      double(host_bytes) / double(witness_bytes), witness_bytes);
  if (!equal) CUZK_THROW(ErrorKind::kInternal, "two concurrent partitions gave different proofs");
  return {{"fits", true},
          {"peak_vram_bytes", total_bytes - free_bytes},
          {"device_vram_bytes", total_bytes},
          {"wall_ms_both", wall},
          {"proofs_equal", equal},
          // Growth of the resident set from before the second partition existed to while both
          // were in flight: its pinned witness, the host side of its buffers and of the CUDA
          // allocations, i.e. the host memory one more partition in flight costs.
          {"host_bytes_per_partition", host_bytes},
          {"witness_bytes", witness_bytes},
          {"host_bytes_per_witness_byte", double(host_bytes) / double(witness_bytes)}};
}

template <class Curve>
nlohmann::json run_size(const std::string& curve_name, unsigned log_n, int runs,
                        gpu::prover::KeyResidency residency, bool bellman, bool h_table) {
  using Fr = typename Curve::Fr;
  std::mt19937_64 rng(log_n);
  const uint32_t public_inputs = 1;
  const uint32_t n = uint32_t(1) << log_n;

  // Host data lives only until it is uploaded: at 2^27 the key's points alone are 77 GB.
  auto t = Clock::now();
  std::optional<gpu::prover::DeviceCircuit<Fr>> device_circuit_slot;
  std::optional<gpu::prover::DeviceProvingKey<Curve>> device_key_slot;
  std::optional<gpu::prover::PinnedWitness<Fr>> witness_slot;
  formats::R1csHeader header;
  // The circuit's A and B densities: a real key's points at infinity (zkey) or the lengths of
  // its a and b queries (params).
  std::vector<uint32_t> a_wires, b_wires;
  {
    circuits::SyntheticSpec spec;
    spec.shape = circuits::Shape::kPorep;
    spec.constraints = n - public_inputs - 1;  // the binding rows fill the domain exactly
    spec.public_inputs = public_inputs;
    spec.seed = log_n;
    const auto circuit = circuits::generate_circuit<Curve>(spec);
    std::printf("2^%u: circuit generated in %.0f ms\n", log_n, ms_since(t));
    t = Clock::now();
    {
      // zkey: A (with binding rows) and B; c = a∘b. params: A, B and C, and the densities.
      // (A .zkey source has no density lists: its key's points at infinity say the same.)
      auto host = gpu::prover::host_circuit_from_r1cs(circuit.r1cs);
      a_wires = host.a_wires;
      b_wires = host.b_wires;
      if (!bellman) {
        host.c.reset();
        host.a_wires.clear();
        host.b_wires.clear();
      }
      device_circuit_slot.emplace(gpu::prover::DeviceCircuit<Fr>::upload(host));
    }
    witness_slot.emplace(circuit.witness.size());
    witness_slot->assign_montgomery(circuit.witness);
    header = circuit.r1cs.header;
  }
  if (!bellman) {
    const auto key = bench::random_zkey<Curve>(header, rng, &a_wires, &b_wires);
    std::printf("2^%u: random key in %.0f ms\n", log_n, ms_since(t));
    device_key_slot.emplace(gpu::prover::DeviceProvingKey<Curve>::upload(key, residency));
  } else if constexpr (std::is_same_v<Curve, formats::Bls12_381>) {
    const auto params = bench::random_params(header.n_wires, header.n_public(), n, a_wires.size(),
                                             b_wires.size(), rng);
    std::printf("2^%u: random .params in %.0f ms (A %zu, B %zu of %u wires)\n", log_n, ms_since(t),
                a_wires.size(), b_wires.size(), header.n_wires);
    device_key_slot.emplace(gpu::prover::DeviceProvingKey<Curve>::upload(params, residency));
  }
  double h_table_build_ms = 0;
  if (h_table) {
    // Beside the key already uploaded: the table's rows, two partitions' buffers (the pair
    // measured below) and the domain's tables.
    const size_t h_points = device_key_slot->footprint().h;
    const size_t free_bytes = gpu::free_device_memory();
    const auto shape =
        gpu::prover::fastest_fitting_h_table<Curve>(h_points, 0, [&](gpu::prover::HTableShape s) {
          const size_t partition = gpu::prover::PartitionBuffers<Curve>::bytes_for(
              gpu::prover::partition_shape(*device_circuit_slot, residency, s));
          return gpu::prover::h_table_fits(
              gpu::prover::h_table_bytes<Curve>(h_points, s) + gpu::prover::kDomainBytesBound,
              partition, 2, free_bytes);
        });
    if (!shape) CUZK_INVALID_INPUT("--h-table: no H table worth making fits the VRAM left");
    t = Clock::now();
    device_key_slot->add_h_table(shape);
    h_table_build_ms = ms_since(t);
    std::printf("2^%u: H table (c = %u, %u of %u rows) built in %.0f ms\n", log_n, shape.c,
                shape.rows, gpu::prover::h_table_shape<Curve>(h_points).rows, h_table_build_ms);
  }
  const auto& device_circuit = *device_circuit_slot;
  const auto& device_key = *device_key_slot;
  const auto& witness = *witness_slot;
  t = Clock::now();
  const gpu::ntt::DeviceDomain<Fr> domain(
      log_n, bellman ? gpu::ntt::Convention::kBellman : gpu::ntt::Convention::kSnarkjs);
  auto buffers = gpu::prover::PartitionBuffers<Curve>::allocate(
      gpu::prover::partition_shape(device_circuit, residency, device_key.h_table_shape()));
  gpu::Stream stream;
  std::printf("2^%u: domain and buffers in %.0f ms\n%s", log_n, ms_since(t),
              device_circuit.describe().c_str());

  gpu::prover::GpuProveOptions<Curve> options;
  options.self_verify = false;
  options.blinding = groth16::Blinding<Curve>{Fr::random(rng), Fr::random(rng)};
  gpu::prover::GpuStageTimes times;
  gpu::prover::prove(device_circuit, device_key, domain, witness, buffers, stream,
                     options);  // warm
  std::vector<double> wall, gpu_total, host_critical, host_enqueue, upload, synthesis, h, a, b1, b2,
      c, hq;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    gpu::prover::prove(device_circuit, device_key, domain, witness, buffers, stream, options,
                       &times);
    wall.push_back(ms_since(start));
    gpu_total.push_back(times.gpu_total_ms);
    host_critical.push_back(times.host_critical_ms);
    host_enqueue.push_back(times.host_enqueue_ms);
    upload.push_back(times.stage_ms);
    synthesis.push_back(times.synthesis_ms);
    h.push_back(times.h_ms);
    a.push_back(times.msm_a_ms);
    b1.push_back(times.msm_b1_ms);
    b2.push_back(times.msm_b2_ms);
    c.push_back(times.msm_c_ms);
    hq.push_back(times.msm_h_ms);
  }
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const nlohmann::json pair =
      two_partitions(device_circuit, device_key, domain, witness, buffers, options, log_n);

  const double med = median(wall);
  std::printf(
      "2^%u %s: wall %.2f ms (min %.2f, max %.2f), GPU %.2f ms, host critical %.3f ms "
      "(enqueue %.3f ms)\n"
      "  upload %.2f, synthesis %.2f, H %.2f, MSM A %.2f B1 %.2f B2 %.2f C %.2f H %.2f (ms)\n"
      "  VRAM: circuit %zu, key %zu, partition %zu, device in use %zu bytes\n",
      log_n, curve_name.c_str(), med, *std::min_element(wall.begin(), wall.end()),
      *std::max_element(wall.begin(), wall.end()), median(gpu_total), median(host_critical),
      median(host_enqueue), median(upload), median(synthesis), median(h), median(a), median(b1),
      median(b2), median(c), median(hq), device_circuit.bytes(), device_key.device_bytes(),
      buffers.bytes(), total_bytes - free_bytes);
  return {{"op", "prove_partition"},
          {"curve", curve_name},
          {"log_n", log_n},
          {"shape", "porep"},
          {"backend", "cuda"},
          {"median_ms", med},
          {"min_ms", *std::min_element(wall.begin(), wall.end())},
          {"max_ms", *std::max_element(wall.begin(), wall.end())},
          {"runs", runs},
          {"gpu_ms", median(gpu_total)},
          {"host_critical_ms", median(host_critical)},
          {"host_enqueue_ms", median(host_enqueue)},
          {"stages_ms",
           {{"witness_upload", median(upload)},
            {"synthesis", median(synthesis)},
            {"ntt", median(h)},
            {"msm_a", median(a)},
            {"msm_b1", median(b1)},
            {"msm_b2", median(b2)},
            {"msm_c", median(c)},
            {"msm_h", median(hq)}}},
          {"circuit_vram_bytes", device_circuit.bytes()},
          {"key_vram_bytes", device_key.device_bytes()},
          {"key_memory", residency == gpu::prover::KeyResidency::kStreamed
                             ? "pinned host memory, streamed into every MSM"
                             : "vram"},
          {"partition_vram_bytes", buffers.bytes()},
          // All device memory is allocated before the runs and prove() allocates none, so the
          // use after the runs is the peak (it includes the CUDA context).
          {"peak_vram_bytes", total_bytes - free_bytes},
          // Of the whole process so far: circuit generation and the key dominate it.
          {"peak_host_rss_bytes", peak_rss_bytes()},
          {"two_partitions", pair},
          {"key", "random points, proofs not verified"},
          {"key_format", bellman ? "params" : "zkey"},
          {"h_table_bits", device_key.h_table_shape().c},
          {"h_table_rows", device_key.h_table_shape().rows},
          {"h_table_build_ms", h_table_build_ms},
          {"key_points",
           {{"a", device_key.footprint().a},
            {"b", device_key.footprint().b1},
            {"c", device_key.footprint().c},
            {"h", device_key.footprint().h}}}};
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto parsed = parse(argc, argv);
    if (const int* status = std::get_if<int>(&parsed)) return *status;
    const Options& o = std::get<Options>(parsed);
    if (gpu::device_count() == 0) {
      std::fprintf(stderr, "bench_gpu_prove: no CUDA device\n");
      return 1;
    }
    nlohmann::json results = nlohmann::json::array();
    for (unsigned log_n : o.log_sizes) {
      results.push_back(o.curve == "bn254"
                            ? run_size<formats::Bn254>(o.curve, log_n, o.runs, o.key_residency,
                                                       o.bellman, o.h_table)
                            : run_size<formats::Bls12_381>(o.curve, log_n, o.runs, o.key_residency,
                                                           o.bellman, o.h_table));
    }
    if (!o.json_path.empty()) {
      bench::write_results(o.json_path, gpu::device_info(0).name, argc, argv, results);
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gpu_prove: %s\n", e.what());
    return 1;
  }
}
