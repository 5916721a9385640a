#pragma once
// Tuning of the GPU MSM: window width by size, and the launch shapes of its kernels.
//
// Cost model (n points, c-bit signed windows, W = ⌊bits/c⌋ + 1 windows):
//   accumulation  W·n XYZZ mixed additions (8M + 2S), spread evenly over threads
//   reduction     W·2^(c−1)·2 full additions (12M + 2S) in parallel segments
//   sorting       W·n (key, value) pairs of 32 + 32 bits, radix over ⌈log2 W⌉ + c + 1 bits
// At 2^24 and c = 16 (16 windows of 2^15 buckets): 2.7·10^8 mixed additions against 10^6 for the
// reduction. The table follows the model (c ≈ log2 n − 8, the reduction 1/100 of the
// accumulation) below 2^22; from 2^22 up it is measured on the H200 (BLS12-381, random
// scalars, c = 12..18; bench/results/2026-11-29_h200_7dee10c_msm_window_sweep.json): G1 is
// fastest at c = 16 for 2^22, 2^24 and 2^26 (c = 15 costs 5%, 17 1-4%, 12 up to 36%); G2 at
// 2^22 at c = 17 (193 ms; 196 at c = 16, 211 at c = 15). One table serves both groups.

#include <bit>
#include <cstddef>

namespace cuzk::gpu::msm {

inline constexpr unsigned kMinWindowBits = 2;
inline constexpr unsigned kMaxWindowBits = 20;  // keys: ⌈log2 W⌉ + c + 1 ≤ 32 bits

struct WindowTuningEntry {
  unsigned max_log_size;  // applies to n ≤ 2^max_log_size
  unsigned window_bits;
};

inline constexpr WindowTuningEntry kWindowTable[] = {
    {4, 3}, {8, 5}, {10, 7}, {12, 8}, {14, 9}, {16, 10}, {18, 11}, {20, 13}, {64, 16},
};

// The window width for n points, from kWindowTable.
constexpr unsigned window_bits_for(size_t n) {
  const unsigned log_n = n <= 1 ? 0 : unsigned(std::bit_width(n - 1));  // ⌈log2 n⌉
  for (const WindowTuningEntry& entry : kWindowTable) {
    if (log_n <= entry.max_log_size) return entry.window_bits;
  }
  return 16;
}

// Threads per block of every MSM kernel: the point kernels hold an XYZZ accumulator and an
// affine point in registers (≈ 100-200 registers for G1, more for G2), so blocks stay small.
inline constexpr unsigned kThreadsPerBlock = 128;

// At most this many (scalar, window) pairs are sorted at once; more windows go to further
// passes. 2^28 pairs take 4 GiB of keys and values (double-buffered).
inline constexpr size_t kSortEntriesPerPass = size_t(1) << 28;

// Accumulation: every thread adds the same number of consecutive sorted entries, whatever the
// buckets' lengths (a bucket holding half the points is split over many threads, so skewed
// scalars do not serialize). The count aims at about kAccumulateThreads threads (several waves
// of an H200 at the occupancy of the G1 kernel), with at least kMinEntriesPerThread each.
inline constexpr size_t kAccumulateThreads = size_t(1) << 17;
inline constexpr size_t kMinEntriesPerThread = 32;

// Partial sums of buckets cut between threads are combined in levels: each level's thread adds
// kPartialsPerThread consecutive partials (one level per factor of 32 in the thread count).
inline constexpr size_t kPartialsPerThread = 32;

// Bucket reduction: each thread reduces a segment of kSegmentBuckets buckets of one window
// (2·kSegmentBuckets full additions plus a small-scalar multiplication); the segment results
// are then summed kSumGroup at a time.
inline constexpr size_t kSegmentBuckets = 32;
inline constexpr size_t kSumGroup = 32;

// Batch addition of selected bases: each thread sums the bases of kSelectionWordsPerThread
// bitmap words (64 bases each).
inline constexpr size_t kSelectionWordsPerThread = 4;
inline constexpr size_t kPointsPerSelectionThread = 64 * kSelectionWordsPerThread;

// Bases in pinned host memory are staged in chunks of this many points (two staging buffers).
inline constexpr size_t kDefaultChunkPoints = size_t(1) << 22;

// Sort values carry a base index in 31 bits.
inline constexpr size_t kMaxPoints = (size_t(1) << 31) - 1;

}  // namespace cuzk::gpu::msm
