#pragma once
// Tuning of the CPU MSM: window sizes by input size, and how work is cut into parallel tiles.
//
// Cost model of one Pippenger MSM of n points with c-bit signed windows (W = ⌊255/c⌋ + 1):
//   accumulation  W·n mixed additions into buckets (XYZZ, 8M + 2S)
//   reduction     W·2·2^(c−1) full additions (running sums, XYZZ, 12M + 2S)
// so c grows with log2(n) while 2^c stays well below n. The table below holds the optimum, with
// the measurements behind it.

#include <bit>
#include <cstddef>

namespace cuzk::msm {

inline constexpr unsigned kMaxWindowBits = 16;

struct WindowTuningEntry {
  unsigned max_log_size;  // applies to n ≤ 2^max_log_size
  unsigned window_bits;
};

// The table follows the cost model above (the c minimizing W·(n + 1.4·2^c), 1.4 being a full
// addition in mixed additions, (12M + 2S)/(8M + 2S)) and was checked against a sweep of the window,
// `bench_msm --tune --threads=1` (single-thread CPU time, best of 2-3 runs, on a 2-core x86-64
// machine shared with other builds, so about ±5% noise):
//   BLS12-381 G1  2^8:  c = 5..8 → 8.7, 8.8, 7.9, 9.0 ms
//                 2^10: c = 6..10 → 28.1, 25.0, 23.8, 26.6, 29.0 ms
//                 2^12: c = 8..12 → 86.8, 80.8, 79.8, 83.6, 98.7 ms
//                 2^14: c = 9..13 → 294, 290, 292, 303, 306 ms
//                 2^16: c = 10..15 → 1145, 963, 956, 964, 1110, 1169 ms
//                 2^18: c = 11..16 → 4448, 4040, 4007, 3870, 4025, 4118 ms
//   BN254 G1      2^16: c = 10..14 → 713, 644, 638, 684, 745 ms
//   BLS12-381 G2  2^12: c = 7..11 → 447, 358, 320, 316, 322 ms
//                 2^14: c = 9..13 → 1374, 1266, 1157, 1136, 1167 ms
// The optimum is flat (±1 bit costs 1-5%). Where the sweep beat the model's choice by more than
// its noise, the table takes the sweep: 2^8 → 7 (model 6), 2^16 → 12 (model 13). Beyond 2^18 the
// model asks for more than 16 bits (at 2^26, 19 bits would save about 12%), but each tile then
// holds 2^18 buckets or more (48 MiB for G1 of BLS12-381, twice that for G2): the width stops at
// kMaxWindowBits.
inline constexpr WindowTuningEntry kWindowTable[] = {
    {2, 2},
    {4, 3},
    {6, 4},
    {7, 5},
    {9, 7},
    {11, 8},
    {12, 9},
    {13, 10},
    {14, 11},
    {16, 12},
    {17, 13},
    {18, 14},
    {64, kMaxWindowBits},
};

// The window width for n points, from kWindowTable.
constexpr unsigned window_bits_for(size_t n) {
  const unsigned log_n = n <= 1 ? 0 : unsigned(std::bit_width(n - 1));  // ⌈log2 n⌉
  for (const WindowTuningEntry& entry : kWindowTable) {
    if (log_n <= entry.max_log_size) return entry.window_bits;
  }
  return kMaxWindowBits;
}

// Parallel tiles. A tile is one window over one chunk of points: it owns 2^(c−1) buckets and
// ends with their reduction, so every extra chunk repeats the reduction (≈ 2.8·2^(c−1)
// mixed-addition equivalents). A chunk therefore holds at least kMinPointsPerBucket points per
// bucket, bounding that overhead near 2.8/64 ≈ 4%; chunks are added only until there are about
// kTargetTiles tiles, enough to balance 16 threads. Both depend on n alone, never on the
// thread count, so the result is the same bit pattern on any machine.
inline constexpr size_t kMinPointsPerBucket = 64;
inline constexpr size_t kTargetTiles = 64;

// Below this many points an MSM runs on the calling thread: the whole computation is then a
// few hundred microseconds at most and task scheduling would be a visible share of it.
inline constexpr size_t kMinParallelPoints = 128;

// sum_selected: bases per parallel chunk (the result does not depend on the thread count
// either), and the smallest batch-affine round. A round of p pairs costs one inversion plus
// p·(5M + 1S) and leaves p points; skipping it leaves 2p points for Jacobian mixed additions
// (7M + 4S each). It pays when p·(7M + 4S) > I + p·(5M + 1S), i.e. p > I/(2M + 3S) ≈ I/5M.
// Measured on the host build: an Fp inversion of BLS12-381 (binary Euclid) costs 11.6 µs, about
// 200 multiplications of 58 ns, so p > 40.
inline constexpr size_t kSumChunkPoints = size_t(1) << 14;
inline constexpr size_t kMinBatchAffinePairs = 40;

// Batch-affine bucket accumulation (affine_buckets.hpp): from this window width on, and with
// batches of batch_affine_size(c) additions. A batch holds each bucket at most once, so it must
// stay a fraction of the 2^(c−1) buckets, or points would mostly wait in the queue; and it must
// be long enough that its one inversion (about 300 multiplications with binary Euclid) is a
// small share of it.
inline constexpr unsigned kBatchAffineMinWindowBits = 9;

// Lanes of the batch-affine bucket reduction (AffineBuckets::weighted_sum) for 2^(c−1)
// buckets: each of the 2^(c−1)/S steps pays an inversion, each lane about three XYZZ additions
// at the end, so S ≈ √(2^(c−1)·inversion/XYZZ addition); 0 (XYZZ running sums) below
// kMinReductionLanes lanes, where the batches are too short.
inline constexpr size_t kMinReductionLanes = 32;
constexpr size_t reduction_lanes(unsigned c) {
  const size_t lanes = size_t(1) << ((c - 1 + 1) / 2 + 1);  // 2^(⌈(c−1)/2⌉ + 1)
  return c >= 2 && lanes >= kMinReductionLanes ? lanes : 0;
}
inline constexpr size_t kMaxBatchAffineSize = 1024;
constexpr size_t batch_affine_size(unsigned c) {
  const size_t quarter_of_buckets = c >= 3 ? size_t(1) << (c - 3) : 1;
  return quarter_of_buckets < kMaxBatchAffineSize ? quarter_of_buckets : kMaxBatchAffineSize;
}

}  // namespace cuzk::msm
