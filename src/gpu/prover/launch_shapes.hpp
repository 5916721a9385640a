#pragma once
// Launch shapes and split thresholds of the GPU prover's kernels, in one place.
//
// Not swept on a GPU yet: these are starting values chosen from the shape of the work, to be
// replaced by a sweep on the H200 (bench/gpu/prover).
//   - Synthesis, light rows: one thread per row; PoRep rows have 1–3 terms (DESIGN.md §1), so a
//     warp per row would idle 29 of 32 lanes. 256 threads per block is the usual occupancy
//     sweet spot for kernels with ~100 registers.
//   - Heavy rows: beyond 1024 terms a single thread would hold its warp for as long as a
//     thousand light rows; segments of 4096 terms give a warp 128 terms per lane.

#include <cstdint>

namespace cuzk::gpu::prover::tuning {

inline constexpr unsigned kRowThreads = 256;          // light-row kernel, threads per block
inline constexpr unsigned kSegmentWarpsPerBlock = 8;  // heavy-segment kernel
inline constexpr unsigned kElementwiseThreads = 256;  // a∘b, witness conversion
inline constexpr unsigned kMaxBlocks = 1u << 16;      // grid-stride loops cap the grid here

inline constexpr uint32_t kHeavyRowTerms = 1024;
inline constexpr uint32_t kSegmentTerms = 4096;

}  // namespace cuzk::gpu::prover::tuning
