#pragma once
// The NTT kernels: one pass (pass.hpp's phases with block-wide barriers between them), the
// in-place bit-reversal permutation, and the elementwise combination of the H evaluations.
//
// Registers: the butterfly holds u, v and a twiddle (24 words) plus the product's
// accumulators; nothing is indexed at run time, so nothing goes to local memory (check with
// -Xptxas -v; the README records the counts).

#include <cstdint>

#include "gpu/ntt/pass.hpp"
#include "gpu/ntt/plan.hpp"

namespace cuzk::gpu::ntt {

// One tile per block: 2^(K + log_lanes) elements in dynamic shared memory. The first and the
// last stage ride on the load and store phases; before each later stage a warp barrier where
// the warps keep to their own slots, a block barrier where the placement moves them
// (plan.hpp, StagePlacement): two block barriers in a pass of 9 or 10 stages.
template <class Fr, bool kDif>
__global__ void __launch_bounds__(Tuning::kThreadsPerBlock, Tuning::kPassBlocksPerSm)
    pass_kernel(const PassArgs<Fr> args) {
  extern __shared__ uint4 shared_words[];
  const PassShape& shape = args.shape;
  const uint32_t tile = blockIdx.x;
  const TileMemory<Fr> shared{shared_words, shape.tile_elements(), SlotSpread::of(shape.log_lanes)};
  const unsigned k = shape.stages;
  if (k < 2) {  // transforms of 1 and 2 elements
    if (threadIdx.x == 0) pass_on_one_thread<Fr, kDif>(args, shared, tile);
    return;
  }
  const uint32_t warp = threadIdx.x >> kLogWarpThreads;
  const uint32_t lane = threadIdx.x & ((1u << kLogWarpThreads) - 1);
  const bool active = threadIdx.x < shape.butterflies_per_stage();  // all from 2^9 elements on
  const auto barrier = [](const StagePlacement& m) {
    if (m.new_phase) {
      __syncthreads();
    } else {
      __syncwarp();
    }
  };
  {
    const StagePlacement& m = args.placement[0];
    const uint32_t lo = lo_slot(m, warp, lane);
    for (uint32_t it = 0; active && it < m.iterations; ++it) {
      pass_load_pair<Fr, kDif>(args, shared, m, tile, lo + it * m.iteration_step);
    }
  }
  for (unsigned i = 1; i + 1 < k; ++i) {
    const StagePlacement& m = args.placement[i];
    barrier(m);
    const uint32_t lo = lo_slot(m, warp, lane);
    for (uint32_t it = 0; active && it < m.iterations; ++it) {
      pass_butterfly<Fr, kDif>(args, shared, m, lo + it * m.iteration_step);
    }
  }
  const StagePlacement& m = args.placement[k - 1];
  barrier(m);
  const uint32_t lo = lo_slot(m, warp, lane);
  for (uint32_t it = 0; active && it < m.iterations; ++it) {
    pass_store_pair<Fr, kDif>(args, shared, m, tile, lo + it * m.iteration_step);
  }
}

// values[i] ↔ values[rev(i)] for vectors of 2^8 elements and more (plan.hpp, ReversalTiles):
// block m swaps the tiles of middles m and rev(m) through shared memory, or transposes tile m
// in place when m = rev(m); the block of the larger middle of a pair has nothing to do. Only
// natural → natural and bit-reversed → bit-reversed transforms need the permutation, and the
// H evaluations use it once (bellman).
template <class Fr>
__global__ void __launch_bounds__(ReversalTiles::kElements)
    bit_reverse_tiles_kernel(Fr* values, const ReversalTiles tiles) {
  constexpr unsigned kParts = sizeof(Fr) / 16;
  static_assert(sizeof(Fr) % 16 == 0);
  __shared__ uint4 shared[2][kParts][ReversalTiles::kElements];
  const uint32_t middle = blockIdx.x;
  const uint32_t partner = tiles.partner(middle);
  if (partner < middle) return;
  const bool pair = partner != middle;
  const uint32_t row = threadIdx.x >> ReversalTiles::kLogSide;
  const uint32_t column = threadIdx.x & (ReversalTiles::kSide - 1);
  const uint32_t word = ReversalTiles::word(row, column);
  uint4* mine = reinterpret_cast<uint4*>(values + tiles.position(middle, row, column));
  uint4* theirs = reinterpret_cast<uint4*>(values + tiles.position(partner, row, column));
#pragma unroll
  for (unsigned k = 0; k < kParts; ++k) {
    shared[0][k][word] = mine[k];
    if (pair) shared[1][k][word] = theirs[k];
  }
  __syncthreads();
  // Element (row, middle, column) takes the one at (rev column, partner, rev row).
  const uint32_t from = ReversalTiles::word(reverse_low_bits(column, ReversalTiles::kLogSide),
                                            reverse_low_bits(row, ReversalTiles::kLogSide));
#pragma unroll
  for (unsigned k = 0; k < kParts; ++k) {
    mine[k] = shared[pair ? 1 : 0][k][from];
    if (pair) theirs[k] = shared[0][k][from];
  }
}

// values[i] ↔ values[rev(i)] for vectors below 2^8 elements: each pair swapped by the thread
// of its smaller index.
template <class Fr>
__global__ void __launch_bounds__(Tuning::kPermuteThreadsPerBlock)
    bit_reverse_kernel(Fr* values, unsigned log_n) {
  const uint32_t n = uint32_t(1) << log_n;
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint32_t j = reverse_low_bits(i, log_n);
    if (i < j) {
      const Fr x = load_element(values + i);
      const Fr y = load_element(values + j);
      store_element(values + i, y);
      store_element(values + j, x);
    }
  }
}

// The full twiddle table (TwiddleTables::kFull): out[j] = ω^j for j < count, from the two-level
// table of the same powers (start-up work, one product each).
template <class Fr>
__global__ void __launch_bounds__(Tuning::kElementwiseThreadsPerBlock)
    fill_powers_kernel(Fr* out, const PowerTablePair<Fr> powers, uint32_t count) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += stride) {
    store_element(out + j, table_power(powers, j));
  }
}

// a[i] = (a[i]·b[i] − c[i])·factor; scaled = false skips the multiplication by factor.
template <class Fr>
__global__ void __launch_bounds__(Tuning::kElementwiseThreadsPerBlock)
    combine_kernel(Fr* a, const Fr* b, const Fr* c, const Fr factor, bool scaled, uint32_t n) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    Fr v = load_element(a + i) * load_element(b + i) - load_element(c + i);
    if (scaled) v = v * factor;
    store_element(a + i, v);
  }
}

}  // namespace cuzk::gpu::ntt
