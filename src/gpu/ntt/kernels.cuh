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
// last stage ride on the load and store phases (pass.hpp, pass_phases), so a pass of K stages
// has K − 1 barriers.
template <class Fr, bool kDif>
__global__ void __launch_bounds__(Tuning::kThreadsPerBlock, Tuning::kPassBlocksPerSm)
    pass_kernel(const PassArgs<Fr> args) {
  extern __shared__ uint4 shared_words[];
  const PassShape& shape = args.shape;
  const uint32_t tile = blockIdx.x;
  const uint32_t elements = shape.tile_elements();
  const TileMemory<Fr> shared{shared_words, elements, SlotSpread::of(shape.log_lanes)};
  const PassPhases phases = pass_phases(shape);
  if (phases.load_pairs) {
    const StageMap stage =
        stage_map(shape, stage_log_half(kDif, shape.stages, 0), args.column_table_log);
    for (uint32_t q = threadIdx.x; q < elements / 2; q += blockDim.x) {
      pass_load_pair<Fr, kDif>(args, shared, stage, tile, q);
    }
  } else {
    for (uint32_t e = threadIdx.x; e < elements; e += blockDim.x) {
      pass_load<Fr, kDif>(args, shared, tile, e);
    }
  }
  const uint32_t butterflies = shape.butterflies_per_stage();
  for (unsigned i = phases.shared_first; i < phases.shared_end; ++i) {
    __syncthreads();
    const StageMap stage =
        stage_map(shape, stage_log_half(kDif, shape.stages, i), args.column_table_log);
    for (uint32_t b = threadIdx.x; b < butterflies; b += blockDim.x) {
      pass_butterfly<Fr, kDif>(args, shared, stage, b);
    }
  }
  __syncthreads();
  if (phases.store_pairs) {
    const StageMap stage = stage_map(shape, stage_log_half(kDif, shape.stages, shape.stages - 1),
                                     args.column_table_log);
    for (uint32_t q = threadIdx.x; q < elements / 2; q += blockDim.x) {
      pass_store_pair<Fr, kDif>(args, shared, stage, tile, q);
    }
  } else {
    for (uint32_t e = threadIdx.x; e < elements; e += blockDim.x) {
      pass_store<Fr, kDif>(args, shared, tile, e);
    }
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
