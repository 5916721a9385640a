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
// inversion: binary Euclid in Fp costs about 300 multiplications of Fp (7.8 µs on BN254,
// 16 µs on BLS12-381 on the development host), while an Fp2 inversion goes through the norm to
// one Fp inversion, about 70 multiplications of Fp2. Batch-affine arithmetic therefore pays on
// G2 from 2^(c−1) = 64 buckets on, on G1 only from 512; and G2's reduction, which in XYZZ costs
// 4 times G1's (an Fp2 multiplication costs 4.3 of Fp here, not 3, see src/msm/README.md) while its
// accumulation got 2 times cheaper than XYZZ, wants narrower windows than G1.

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

// Window widths, from sweeps of c with `bench_msm --tune --threads=1` (and the same sweep of
// batch-affine and XYZZ side by side), CPU time of one thread, best of 2-3 runs, on the 2-core
// development host while other builds ran (±5-10% noise; the optimum is flat, ±1 bit costs
// 1-10%). Milliseconds, batch-affine accumulation unless marked x (XYZZ):
//   BN254 G1      2^8:  x c = 6, 7 → 5.6, 5.6; c = 7, 8 → 8.8, 9.5
//                 2^10: x c = 8 → 17.3; c = 9 → 14.2..21.8 (four runs)
//                 2^12: x c = 9 → 47..56; c = 9..11 → 45, 40..49, 42..57
//                 2^14: c = 10..13 → 139..154, 126..160, 126..144, 146..158
//                 2^16: x c = 12 → 570..610; c = 11..14 → 470..639, 455..499, 420..496, 491..525
//                 2^18: c = 12..16 → 1807..1920, 1743..1926, 1675..1968, 2000..2061, 2392
//   BLS12-381 G1  2^10: x c = 8 → 23.4; c = 8, 9 → 30.8, 30.8..34.4
//                 2^12: x c = 9 → 84.5; c = 9..11 → 82..102, 87, 81..114
//                 2^14: c = 10..13 → 256..276, 216..220, 224..250, 230..267
//                 2^16: c = 11..14 → 824..878, 727..887, 697..890, 806..956
//                 2^18: c = 12..15 → 3411..3440, 2971..3053, 3104..3427, 3111..3696
//   BN254 G2      2^8:  x c = 6, 7 → 24.6, 25.5; c = 6, 7 → 28.3, 28.0
//                 2^10: x c = 8 → 62..78; c = 7..9 → 47..68, 42..61, 46..64
//                 2^12: x c = 9 → 205..263; c = 8..11 → 130..187, 120..170, 125..171, 149..208
//                 2^14: c = 10..12 → 394..466, 440..460, 465..508
//                 2^16: x c = 12 → 2698; c = 11..14 → 1480..1539, 1390..1490, 1350..1545, 1753..1840
//                 2^18: c = 12..16 → 5374..5447, 4750..5290, 4953..5058, 4776..5111, 5833
//   BLS12-381 G2  2^8:  x c = 6 → 37.3; c = 6, 7 → 39.9, 43.1
//                 2^10: x c = 8 → 97.8; c = 7..9 → 79..88, 68..94, 73..88
//                 2^12: x c = 9 → 356; c = 8..10 → 214..285, 194..236, 198..262
//                 2^14: c = 10..12 → 693..696, 651..690, 694..706
//                 2^16: c = 11..13 → 2235..2607, 2144..2484, 2081..2393
//                 2^18: c = 12..14 → 9855..10354, 8470..8857, 8415..8861
// Beyond 2^18 the width grows slowly: every doubling of the buckets also doubles their memory,
// and past the core's L2 cache (512 KiB: 2^13 affine buckets of BN254 G1) each addition waits
// on a cache miss. It stops at kMaxWindowBits.
inline constexpr WindowTuningEntry kWindowTableG1[] = {
    {2, 2},  {4, 3},   {6, 4},   {7, 5},   {9, 7},   {11, 8},
    {12, 10}, {14, 11}, {16, 12}, {18, 13}, {20, 14}, {22, 15}, {64, kMaxWindowBits},
};
inline constexpr WindowTuningEntry kWindowTableG2[] = {
    {2, 2},  {4, 3},   {6, 4},   {7, 5},   {9, 6},   {11, 8},
    {12, 9}, {13, 10}, {14, 11}, {16, 12}, {18, 13}, {20, 14}, {22, 15}, {64, kMaxWindowBits},
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
// 2^(c−1) buckets must fill batches long enough to carry an inversion (see the sweeps above).
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
