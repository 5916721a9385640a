// ntt_stage_overlap: can an SM overlap the NTT stages' shared-memory work with their products
// when different warps do them? A timing bound for a candidate shape of the pass kernel (warps
// specialized within a block, src/gpu/ntt/README.md), not a transform: the values are random,
// the results are not checked, and the two groups of warps of the split modes touch the same
// slots without ordering between them.
//
//   ntt_stage_overlap [--json FILE] [--runs N] [--stages S] [--waves W]
//
// Each block holds a tile of 1024 elements in shared memory (two planes of 16-byte words, as the
// pass kernel stores them), 256 threads, 4 blocks an SM (W waves of them), and runs S stages on
// it. Every stage has the same work in every mode but pass_like, 512 products and 512 butterfly
// sums (u + t, u − t) a block, split differently:
//   mixed:          each thread runs two butterflies with a product (load u, v; t = v·w; store
//                   u + t, u − t), as every warp of the pass kernel does;
//   products:       only the products, each thread two (load v, store v·w);
//   sums:           only the sums, each thread two butterflies without a product;
//   split:          warps 0-3 run the products (four a thread), warps 4-7 the sums (four a
//                   thread), with a block barrier after every stage, the hand-over a
//                   specialized kernel needs;
//   split_unsynced: the same without the block barriers (the overlap's upper bound);
//   mixed_global_table, mixed_shared_table: mixed, each butterfly with its own twiddle from a
//                   table of 512 (index (b << (stage mod 9)) mod 512, as a pass's column
//                   twiddles go), read from global memory through L1 as the pass kernel reads
//                   it, or from a copy in shared memory (16 KiB more a block);
//   pass_like:      mixed_global_table with the products a 2^27 transform with the full
//                   twiddle table has: in stage s mod 9 ≥ 4 the butterflies b < 2^(s+1),
//                   whole warps, have twiddle 1 and skip the product (as in a 9-stage pass),
//                   and two blocks of three multiply each element by a pass twiddle (one
//                   lookup in the table) as they store it, as two of three passes do. With
//                   S = 9 that is 12.6 products an element in all, the transform's count,
//                   without the pass kernel's index math and with contiguous tiles.
// If split comes close to products alone while mixed takes about products + sums, warps that
// only multiply can hide the stage work; if split takes as long as mixed, they cannot.
// A warp's butterflies move to other lanes' slots from stage to stage (a warp barrier between),
// so that every stage goes through shared memory. A block loads its tile from global memory
// before its stages and stores it after them: with S = 9, as many stages as a pass of 2^27 has,
// those accesses weigh as much as in a pass.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <variant>

#include "bench_json.hpp"
#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/ntt/pass.hpp"
#include "gpu/stream.hpp"
#include "random_fill.hpp"
#include "stream_timing.hpp"

namespace {

using namespace cuzk;

enum class Mode {
  kMixed,
  kMixedGlobalTable,
  kMixedSharedTable,
  kPassLike,
  kProducts,
  kSums,
  kSplit,
  kSplitUnsynced
};

constexpr unsigned kThreads = 256;
constexpr unsigned kSlots = 1024;
constexpr unsigned kTwiddles = 512;

// The tile as the pass kernel keeps it (gpu/ntt/pass.hpp, TileMemory): two planes of 16-byte
// words, here without a spread, since a quarter warp's accesses to 8 consecutive slots take
// every bank once already.
template <class Fr>
using Tile = gpu::ntt::TileMemory<Fr>;

// Butterfly b of 512 reads slots b and b + 512. Warp w owns butterflies w·32 + (0..31) and
// 256 + w·32 + (0..31) (for the split, the four warps of a group own their group's 512 / 4 per
// warp the same way); at stage s, lane l takes the one of index (l + s) mod 32.
__device__ uint32_t butterfly_of(uint32_t warp_base, uint32_t lane, uint32_t stage) {
  return warp_base + ((lane + stage) & 31);
}

template <class Fr>
__device__ void butterfly_with_product(const Tile<Fr>& tile, uint32_t b, const Fr& w) {
  const Fr u = tile.load(b), t = tile.load(b + kSlots / 2) * w;
  tile.store(b, u + t);
  tile.store(b + kSlots / 2, u - t);
}
template <class Fr>
__device__ void butterfly_sum(const Tile<Fr>& tile, uint32_t b) {
  const Fr u = tile.load(b), t = tile.load(b + kSlots / 2);
  tile.store(b, u + t);
  tile.store(b + kSlots / 2, u - t);
}
template <class Fr>
__device__ void product_in_place(const Tile<Fr>& tile, uint32_t slot, const Fr& w) {
  tile.store(slot, tile.load(slot) * w);
}

// The twiddle of butterfly b at `stage`: one element of the table for the whole block
// (broadcast), or its own one.
template <class Fr, Mode kMode>
__device__ Fr twiddle_of(const Fr* twiddles, const Fr* shared_twiddles, uint32_t b,
                         uint32_t stage) {
  const uint32_t index = (b << (stage % 9)) % kTwiddles;
  if constexpr (kMode == Mode::kMixedGlobalTable || kMode == Mode::kPassLike) {
    return gpu::ntt::load_element(twiddles + index);
  } else if constexpr (kMode == Mode::kMixedSharedTable) {
    return shared_twiddles[index];
  } else {
    return twiddles[stage % kTwiddles];
  }
}

constexpr bool uses_shared_table(Mode m) { return m == Mode::kMixedSharedTable; }
constexpr bool is_mixed(Mode m) {
  return m == Mode::kMixed || m == Mode::kMixedGlobalTable || m == Mode::kMixedSharedTable ||
         m == Mode::kPassLike;
}

// Whether butterfly b of `stage` has twiddle 1 in a pass-like block: stage s of a 9-stage DIF
// pass has 2^(s+1) of them, and the pass kernel skips their products where they fill whole
// warps (s ≥ 4).
__device__ bool pass_like_twiddle_one(uint32_t b, uint32_t stage) {
  const uint32_t s = stage % 9;
  return s >= 4 && b < (uint32_t(1) << (s + 1));
}

template <class Fr, Mode kMode>
__global__ void __launch_bounds__(kThreads, 4)
    stage_kernel(Fr* data, const Fr* twiddles, unsigned stages) {
  extern __shared__ uint4 shared_words[];
  const Tile<Fr> tile{shared_words, kSlots, gpu::ntt::SlotSpread{}};
  Fr* shared_twiddles = reinterpret_cast<Fr*>(shared_words + Tile<Fr>::kParts * kSlots);
  Fr* block_data = data + size_t(blockIdx.x) * kSlots;
  for (uint32_t s = threadIdx.x; s < kSlots; s += kThreads) tile.store(s, block_data[s]);
  if constexpr (uses_shared_table(kMode)) {
    for (uint32_t i = threadIdx.x; i < kTwiddles; i += kThreads) shared_twiddles[i] = twiddles[i];
  }
  __syncthreads();
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll 1
  for (uint32_t stage = 0; stage < stages; ++stage) {
    const Fr w = twiddles[stage % kTwiddles];
    if constexpr (is_mixed(kMode) || kMode == Mode::kSums || kMode == Mode::kProducts) {
#pragma unroll 1
      for (uint32_t half = 0; half < 2; ++half) {
        const uint32_t b = butterfly_of(half * 256 + warp * 32, lane, stage);
        if constexpr (kMode == Mode::kMixed) butterfly_with_product(tile, b, w);
        if constexpr (is_mixed(kMode) && kMode != Mode::kMixed) {  // a twiddle per butterfly
          if (kMode == Mode::kPassLike && pass_like_twiddle_one(b, stage)) {
            butterfly_sum(tile, b);
          } else {
            butterfly_with_product(tile, b,
                                   twiddle_of<Fr, kMode>(twiddles, shared_twiddles, b, stage));
          }
        }
        if constexpr (kMode == Mode::kSums) butterfly_sum(tile, b);
        if constexpr (kMode == Mode::kProducts) product_in_place(tile, b + kSlots / 2, w);
      }
      __syncwarp();
    } else {
      // Four warps a group: 128 threads, four butterflies (or products) each, 512 a stage.
      const uint32_t group_warp = warp % 4;
#pragma unroll 1
      for (uint32_t quarter = 0; quarter < 4; ++quarter) {
        const uint32_t b = butterfly_of(quarter * 128 + group_warp * 32, lane, stage);
        if (warp < 4) {
          product_in_place(tile, b + kSlots / 2, w);
        } else {
          butterfly_sum(tile, b);
        }
      }
      if constexpr (kMode == Mode::kSplit) {
        __syncthreads();
      } else {
        __syncwarp();
      }
    }
  }
  __syncthreads();
  const bool pass_twiddles = kMode == Mode::kPassLike && blockIdx.x % 3 != 2;
  for (uint32_t s = threadIdx.x; s < kSlots; s += kThreads) {
    Fr v = tile.load(s);
    if (pass_twiddles) v = v * gpu::ntt::load_element(twiddles + s % kTwiddles);
    block_data[s] = v;
  }
}

struct Options {
  std::string json_path;
  int runs = 7;
  unsigned stages = 64;
  unsigned waves = 16;  // blocks = waves · 4 · multiprocessors
};

std::variant<Options, int> parse(int argc, char** argv) {
  Options o;
  CLI::App app{"Overlap of the NTT stages' shared-memory work and products across warps"};
  app.add_option("--json", o.json_path, "write results in the bench/results shape");
  app.add_option("--runs", o.runs, "timed runs per mode")->check(CLI::Range(1, 1000));
  app.add_option("--stages", o.stages, "stages a block runs on its tile")
      ->check(CLI::Range(1u, 4096u));
  app.add_option("--waves", o.waves, "blocks per (4 blocks x multiprocessors)")
      ->check(CLI::Range(1u, 1024u));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return o;
}

template <class Fr, Mode kMode>
void time_mode(const char* mode, const std::string& curve, const Options& o, unsigned blocks,
               Fr* data, const Fr* twiddles, const gpu::Stream& stream, nlohmann::json& results) {
  constexpr size_t kShared =
      kSlots * sizeof(Fr) + (uses_shared_table(kMode) ? kTwiddles * sizeof(Fr) : 0);
  CUDA_CHECK(cudaFuncSetAttribute(stage_kernel<Fr, kMode>,
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, int(kShared)));
  const bench::Timing t = bench::time_on_stream(stream, o.runs, [&] {
    stage_kernel<Fr, kMode><<<blocks, kThreads, kShared, stream>>>(data, twiddles, o.stages);
    CUZK_CHECK_LAUNCH();
  });
  // 512 butterflies (or products, or sums) a block and stage in every mode: their rate.
  const double products_per_s = double(blocks) * o.stages * 512 / (t.median_ms * 1e-3);
  std::printf("%-18s %-10s %10.3f %10.3f %10.3f %12.2f\n", mode, curve.c_str(), t.median_ms,
              t.min_ms, t.max_ms, products_per_s * 1e-9);
  std::fflush(stdout);
  results.push_back({{"op", std::string("stage_overlap_") + mode},
                     {"curve", curve},
                     {"shape", "random"},
                     {"blocks", blocks},
                     {"stages", o.stages},
                     {"median_ms", t.median_ms},
                     {"min_ms", t.min_ms},
                     {"max_ms", t.max_ms},
                     {"runs", o.runs},
                     {"g_butterflies_per_s", products_per_s * 1e-9}});
}

template <class Fr>
void bench_curve(const std::string& curve, const Options& o, unsigned blocks,
                 nlohmann::json& results) {
  gpu::Stream stream;
  auto data = gpu::DeviceBuffer<Fr>::allocate_blocking(size_t(blocks) * kSlots);
  auto twiddles = gpu::DeviceBuffer<Fr>::allocate_blocking(kTwiddles);
  bench::fill_random(data, stream, 1);
  bench::fill_random(twiddles, stream, 2);
  time_mode<Fr, Mode::kMixed>("mixed", curve, o, blocks, data.data(), twiddles.data(), stream,
                              results);
  time_mode<Fr, Mode::kMixedGlobalTable>("mixed_global_table", curve, o, blocks, data.data(),
                                         twiddles.data(), stream, results);
  time_mode<Fr, Mode::kMixedSharedTable>("mixed_shared_table", curve, o, blocks, data.data(),
                                         twiddles.data(), stream, results);
  time_mode<Fr, Mode::kPassLike>("pass_like", curve, o, blocks, data.data(), twiddles.data(),
                                 stream, results);
  time_mode<Fr, Mode::kProducts>("products", curve, o, blocks, data.data(), twiddles.data(), stream,
                                 results);
  time_mode<Fr, Mode::kSums>("sums", curve, o, blocks, data.data(), twiddles.data(), stream,
                             results);
  time_mode<Fr, Mode::kSplit>("split", curve, o, blocks, data.data(), twiddles.data(), stream,
                              results);
  time_mode<Fr, Mode::kSplitUnsynced>("split_unsynced", curve, o, blocks, data.data(),
                                      twiddles.data(), stream, results);
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = parse(argc, argv);
  if (std::holds_alternative<int>(parsed)) return std::get<int>(parsed);
  const Options o = std::get<Options>(parsed);
  try {
    if (gpu::device_count() == 0) {
      std::fprintf(stderr, "ntt_stage_overlap: no CUDA device\n");
      return 1;
    }
    const gpu::DeviceInfo info = gpu::device_info(0);
    std::printf("device: %s\n", gpu::describe(info).c_str());
    const unsigned blocks = o.waves * 4 * unsigned(info.multiprocessors);
    std::printf("%u blocks of %u threads, %u stages each\n", blocks, kThreads, o.stages);
    std::printf("%-18s %-10s %10s %10s %10s %12s\n", "mode", "curve", "median_ms", "min_ms",
                "max_ms", "G bfly/s");
    nlohmann::json results = nlohmann::json::array();
    bench_curve<bls12_381::Fr>("bls12_381", o, blocks, results);
    bench_curve<bn254::Fr>("bn254", o, blocks, results);
    if (!o.json_path.empty()) bench::write_results(o.json_path, info.name, argc, argv, results);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ntt_stage_overlap: %s\n", e.what());
    return 1;
  }
  return 0;
}
