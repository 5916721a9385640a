#pragma once
// Tuning of the CPU MSM: window sizes by input size, the choice between XYZZ and batch-affine
// buckets, and how work is cut into parallel tiles.
//
// Cost model of one Pippenger MSM of n points with c-bit signed windows (W = ⌊255/c⌋ + 1):
//   accumulation  W·n additions into buckets: XYZZ mixed additions (8M + 2S), or batch-affine
//                 ones (5M + 1S, plus an inversion per batch)
//   reduction     W·2·2^(c−1) additions (running sums: XYZZ 12M + 2S and 8M + 2S, or
//                 batch-affine lanes, 2·(5M + 1S) plus an inversion per lane step)
// so c grows with log2(n) while 2^c stays well below n. The groups differ in the price of an
// inversion: binary Euclid in Fp cost about 300 multiplications of Fp when these tables were
// measured (7.8 µs on BN254, 16-20 µs on BLS12-381; the binary GCD of ff/binary_gcd.hpp takes
// about 4.4 and 7.9 µs, and the tables have not been swept again since), while an Fp2 inversion
// goes through the norm to one Fp inversion, about 70 multiplications of Fp2. Batch-affine
// arithmetic therefore pays on G2 from 2^(c−1) = 64 buckets on, on G1 only from 512, and each group
// has its own table of widths, measured.

#include <bit>
#include <cstddef>
#include <span>

namespace cuzk::msm {

inline constexpr unsigned kMaxWindowBits = 16;

// The field of a group's coordinates: Fp for G1, Fp2 for G2.
enum class CoordinateField { kPrime, kQuadratic };

struct WindowTuningEntry {
  unsigned max_log_size;  // applies to n ≤ 2^max_log_size
  unsigned window_bits;
};

// Window widths from `bench_msm --tune --threads=1` (the default accumulation at each width,
// CPU time of one thread), one table per group. The tables are indexed by the number of points
// the buckets see: 2n after the GLV split that every group here takes (pippenger.hpp). The
// optimum is flat (±1 bit costs 1-10%); where the curves disagree by less than the noise, the
// table takes the width better for both on the sum. With the AVX-512 IFMA additions
// (affine_batch_simd.hpp) wider windows pay from 2^14 points on. G2 beyond 2^17 points follows
// G1's steps unmeasured. Every doubling of the buckets doubles their memory, and beyond the
// core's L2 cache (512 KiB: 2^13 affine buckets of BN254 G1) each addition waits on a miss,
// which is why the width grows slower than the cost model asks; it stops at kMaxWindowBits.
// The sweeps are in docs/experiments/cpu-msm.md.
inline constexpr WindowTuningEntry kWindowTableG1[] = {
    {2, 2},
    {4, 3},
    {6, 4},
    {7, 5},
    {9, 7},
    {11, 8},
    {12, 10},
    {13, 11},
    {14, 12},
    {17, 13},
    {18, 14},
    {20, 15},
    {64, kMaxWindowBits},
};
inline constexpr WindowTuningEntry kWindowTableG2[] = {
    {2, 2},
    {4, 3},
    {6, 4},
    {7, 5},
    {9, 6},
    {11, 8},
    {12, 9},
    {13, 10},
    {14, 11},
    {17, 13},
    {18, 14},
    {20, 15},
    {64, kMaxWindowBits},
};

// The window width for n points in a group whose coordinates lie in `field`.
constexpr unsigned window_bits_for(size_t n, CoordinateField field = CoordinateField::kPrime) {
  const unsigned log_n = n <= 1 ? 0 : unsigned(std::bit_width(n - 1));  // ⌈log2 n⌉
  const std::span<const WindowTuningEntry> table =
      field == CoordinateField::kPrime ? std::span<const WindowTuningEntry>(kWindowTableG1)
                                       : std::span<const WindowTuningEntry>(kWindowTableG2);
  for (const WindowTuningEntry& entry : table) {
    if (log_n <= entry.max_log_size) return entry.window_bits;
  }
  return kMaxWindowBits;
}

// Batch-affine bucket accumulation (affine_buckets.hpp) from this window width on (XYZZ below):
// 2^(c−1) buckets must fill batches long enough to carry an inversion. The same width both ways
// (a scratch sweep through PippengerOptions, CPU ms of one thread, XYZZ against batch-affine):
//   BN254 G1 2^10: c = 9 → 17.2 / 18.2, c = 10 → 18.2 / 21.4;  2^12: c = 10 → 51.1 / 49.2
//   BLS12-381 G1 2^10: c = 9 → 31.6 / 36.9, c = 10 → 31.0 / 33.0;  2^12: c = 10 → 89.0 / 92.3
//   BN254 G2 2^8: c = 6 → 22.8 / 26.7, c = 7 → 24.7 / 25.1;  2^10: c = 7 → 75.5 / 58.9
//   BLS12-381 G2 2^8: c = 6 → 38.4 / 46.6, c = 7 → 40.6 / 41.8;  2^10: c = 7 → 125.1 / 99.8
// and from c = 11 on batch-affine wins everywhere (BN254 G1 2^16, c = 12: 570-610 against
// 450-500 ms).
constexpr unsigned batch_affine_min_window_bits(CoordinateField field) {
  return field == CoordinateField::kPrime ? 10 : 7;
}

// Additions per batch: a batch holds each bucket at most once, so it stays a fraction of the
// 2^(c−1) buckets (a quarter: about one point in eight waits in the queue), and at most
// kMaxBatchAffineSize, where the inversion is already below 3% of the batch.
inline constexpr size_t kMaxBatchAffineSize = 1024;
constexpr size_t batch_affine_size(unsigned c) {
  const size_t quarter_of_buckets = c >= 3 ? size_t(1) << (c - 3) : 1;
  return quarter_of_buckets < kMaxBatchAffineSize ? quarter_of_buckets : kMaxBatchAffineSize;
}

// Lanes S of the batch-affine bucket reduction (AffineBuckets::weighted_sum), 0 for XYZZ
// running sums. Each of the 2^(c−1)/S lane steps pays two inversions and each lane about three
// XYZZ additions at the end, so S ≈ √(2^(c−1)·inversion/XYZZ addition): 2^(⌈(c−1)/2⌉ + 1). It
// is used from 64 lanes on (c ≥ 10), where the batches carry their inversions on G1 too.
// BN254 at 2^16, c = 12: G1 568 → 494 ms (S = 64: 516, 256: 467), G2 1661 → 1404 ms (S = 64:
// 1415, 256: 1568).
inline constexpr size_t kMinReductionLanes = 64;
constexpr size_t reduction_lanes(unsigned c) {
  const size_t lanes = size_t(1) << (c / 2 + 1);  // c / 2 = ⌈(c − 1)/2⌉
  return lanes >= kMinReductionLanes ? lanes : 0;
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

}  // namespace cuzk::msm
