#pragma once
// Tuning of the GPU MSM: window width by size, and the launch shapes of its kernels.
//
// Cost model (n points, c-bit signed windows, W = ⌊bits/c⌋ + 1 windows):
//   accumulation  W·n XYZZ mixed additions (8M + 2S), spread evenly over threads
//   reduction     W·2^(c−1)·2 full additions (12M + 2S) in parallel segments
//   sorting       W·n (key, value) pairs of 32 + 32 bits, radix over ⌈log2 W⌉ + c + 1 bits
// W falls only at some widths (255-bit scalars: 16 windows for c = 16 and 17, 15 for 18, 14 for
// 19, 13 for 20 and 21, 12 for 22 and 23), and the reduction grows as 2^c, a bucket costing a
// few mixed additions. How many additions the accumulation has depends on the scalars, so G1
// has two tables: dense scalars (random, full width: W non-zero digits each) and sparse ones
// (mostly 0 and 1, a PoRep witness: few non-zero digits, so the per-bucket costs weigh more
// and narrower windows pay).
// An msm takes the sparse table when the caller's MsmConfig::scalar_counts say that at most half
// of the scalars are neither 0 nor 1, the dense one otherwise (and without counts). G2 keeps one
// table (c = 16 from 2^22 on): dense G2 scalars would gain 5-6% at c = 20 from 2^24 on, but a
// workspace sized for either table (msm_workspace_bytes without counts, as a prover sizes its
// partitions) would then hold 2^19 buckets of 384 bytes per window, 1.3 GB more at 2^24 (1.6 GB
// in a 2^27 porep partition, whose G2 scalars are sparse). Below 2^21 the tables follow the
// model (c ≈ log2 n − 8). Measured on the H200:
//   dense (bench/results/2026-11-30_h200_c7be5f7_msm_dense_window_sweep.json, random scalars,
//   c = 14..20, after the buckets' fill became 16-byte stores: 0.4 ms instead of 3.9 at c = 20):
//     G1 BLS12-381 2^21 c = 16 20.1 ms (17: 20.4, 20: 26.3); 2^22 c = 16 34.3 (17: 34.0);
//        2^23 c = 19 60.6 (16: 62.5, 20: 61.4); 2^24 c = 20 107.8 (16: 119.0, 19: 110.2);
//        2^25 c = 20 201.1 (19: 210.2); BN254 2^22 c = 16 16.4 (20: 19.0), 2^24 c = 20 52.6
//        (16: 56.2); 2^26 c = 20 (BLS12-381 447.2 against 481.9 at 16, ..._03e96e6_msm_window_
//        sweep.json); wider (..._064d1da_msm_dense_wide_windows.json, c = 20 / 22 / 23 / 24):
//        BLS12-381 2^25 200.0 / 214.9 / 242.9 / 283.5, 2^26 388.8 / 388.9 / 417.4 / 445.8,
//        2^27 766.3 / 733.0 / 767.6 / 775.9; BN254 2^25 97.0 / 105.9, 2^26 186.8 / 191.4,
//        2^27 366.8 / 356.3: c = 22 from 2^27 on (12 windows instead of 13, 2^21 buckets each)
//     G2 BLS12-381 2^22 c = 16 102.3 (18: 106.8, 20: 118.1); 2^24 c = 20 330.2 (16: 350.0);
//        BN254 2^22 c = 16 57.8 (20: 66.3), 2^24 c = 20 178.7 (16: 188.0); 2^26 c = 20 (2034
//        against 2328 ms at 16): not taken, see above
//   sparse (porep-like: 40% zeros, 40% ones; bench/results/2026-11-30_h200_03e96e6_msm_window_
//   sweep.json and ..._f9f5964_msm_wide_windows.json):
//     G1 2^22 c = 16; 2^24 c = 16 (40.0 ms against 48.1 at 20); 2^26 c = 20 (BLS12-381 138.2
//        against 144.2, BN254 70.5 against 73.9); 2^27 c = 20 (261.4 against 277.6 at 18);
//        2^25 lies between measured sizes and takes 19
//     G2 c = 16 from 2^22 on (2^26: 593.1 ms against 609.7 at 20)

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "gpu/msm/digits.hpp"

namespace cuzk::gpu::msm {

inline constexpr unsigned kMinWindowBits = 2;
// Keys take ⌈log2 W⌉ + c + 1 ≤ 32 bits; the bound keeps the buckets (W·2^(c−1) XYZZ points:
// 17 GB for BLS12-381 G1 at c = 24) within reason.
inline constexpr unsigned kMaxWindowBits = 24;
// Shifted bases: keys are c bits; the bound keeps the shared buckets (2^(c−1) XYZZ points)
// within a few GB.
inline constexpr unsigned kMaxShiftedWindowBits = 26;

// Windows of c bits for scalars of `scalar_bits` bits, with the final carry (signed digits).
constexpr unsigned window_count(unsigned scalar_bits, unsigned c) { return scalar_bits / c + 1; }

struct WindowTuningEntry {
  unsigned max_log_size;  // applies to n ≤ 2^max_log_size
  unsigned window_bits;
};

// The group of an MSM: coordinates in Fp (G1) or in Fp2 (G2), whose additions cost about 2.8
// to 4.9 times as much, which moves the balance between accumulation and reduction.
enum class Group { kG1, kG2 };

// Which table a plain msm's window comes from (see the top of this file).
enum class ScalarDensity { kDense, kSparse };

// Among an MSM's scalars, how many equal 1 and how many are neither 0 nor 1 (count_scalars
// counts them on the device; MsmConfig::scalar_counts passes them in).
struct ScalarCounts {
  uint64_t ones = 0;
  uint64_t others = 0;
};

inline constexpr WindowTuningEntry kWindowTableG1Dense[] = {
    {4, 3},   {8, 5},   {10, 7},  {12, 8},  {14, 9},  {16, 10},
    {18, 11}, {20, 13}, {22, 16}, {23, 19}, {26, 20}, {64, 22},
};
inline constexpr WindowTuningEntry kWindowTableG1Sparse[] = {
    {4, 3},   {8, 5},   {10, 7},  {12, 8},  {14, 9},  {16, 10},
    {18, 11}, {20, 13}, {22, 16}, {24, 16}, {25, 19}, {64, 20},
};
// G2 has one table for both densities (see the top of this file).
inline constexpr WindowTuningEntry kWindowTableG2[] = {
    {4, 3}, {8, 5}, {10, 7}, {12, 8}, {14, 9}, {16, 10}, {18, 11}, {20, 13}, {64, 16},
};

// The table of an msm whose caller counted `others` scalars neither 0 nor 1 among n.
constexpr ScalarDensity density_for(size_t n, uint64_t others) {
  return 2 * others <= n ? ScalarDensity::kSparse : ScalarDensity::kDense;
}

// The window width for n points of `group` with scalars of `density`, from its table.
constexpr unsigned window_bits_for(size_t n, Group group, ScalarDensity density) {
  const unsigned log_n = n <= 1 ? 0 : unsigned(std::bit_width(n - 1));  // ⌈log2 n⌉
  const bool dense = density == ScalarDensity::kDense;
  const std::span<const WindowTuningEntry> table =
      group == Group::kG2 ? std::span<const WindowTuningEntry>(kWindowTableG2)
      : dense             ? std::span<const WindowTuningEntry>(kWindowTableG1Dense)
                          : std::span<const WindowTuningEntry>(kWindowTableG1Sparse);
  for (const WindowTuningEntry& entry : table) {
    if (log_n <= entry.max_log_size) return entry.window_bits;
  }
  return kMaxWindowBits;
}

// The window width for n points with shifted bases (msm_shifted). All windows share one set of
// buckets, so the reduction (2^(c−1) buckets: two full additions each plus the segments' small
// multiples) is paid once instead of once per window and the window can be much wider: the
// width minimizing W(c)·n + 2·2^c, the accumulation's mixed additions plus the reduction in
// mixed additions' worth. At 2^24 that is c = 22 (12 windows instead of 16), at 2^26 c = 24 (11
// windows); the table then holds W(c)·n points, which the caller must afford.
//
// A partial table of R rows (when VRAM holds fewer than W(c) rows) has ⌈W(c)/R⌉ bucket sets,
// each reduced: the cost is W(c)·n + ⌈W(c)/R⌉·2·2^c, and R = 1 is the plain MSM's. At 2^27
// (BLS12-381) that gives c = 22 for R = 1 and 2 and c = 24 from R = 3.
//
// The factor 2 is fitted to the H200 (bench/results/2026-12-03_h200_8ebe43e_msm_table_windows_
// 2p2{6,7}.json, BLS12-381 G1, random scalars, c = 22 against 24, ms): 2^27 with 3 rows 663.8
// against 652.0 and with 4 rows 657.8 against 635.8; 2^26 with 3 rows 342.5 against 354.8, with
// 4 rows 337.2 against 340.5 and the whole table 324.4 against 309.0. The model with 2 orders
// all five pairs and predicts each gap within 0.5% (the time is 0.40 ns per unit in every
// case); the factor 3 it had before chose c = 22 for 3 rows at 2^27. It also moved two whole
// tables, confirmed (..._8c19b45_msm_whole_table_windows_2p23_2p25.json, c = 20 / 22 / 24):
// 2^23 now c = 22, 47.55 / 45.28 / 51.51 ms, and 2^25 c = 24, 177.10 / 165.02 / 162.45.
// (Sorting a group's windows in several passes instead of one, to save workspace, costs more
// than the wider window saves: 676-708 ms at 2^27 with passes of 2^28 pairs,
// ..._2p27_split_passes.json.)
//
// The same for any radix B of `windows` windows (B/2 buckets a set): W·n + ⌈W/R⌉·2·B.
constexpr double shifted_radix_cost(size_t n, unsigned windows, uint64_t radix,
                                    unsigned max_rows) {
  const unsigned rows = max_rows == 0 || max_rows > windows ? windows : max_rows;
  const unsigned sets = (windows + rows - 1) / rows;
  return double(windows) * double(n) + 2.0 * double(sets) * double(radix);
}
constexpr double shifted_cost(size_t n, unsigned scalar_bits, unsigned c, unsigned max_rows) {
  return shifted_radix_cost(n, window_count(scalar_bits, c), uint64_t(1) << c, max_rows);
}

// The best window for a table of at most max_rows rows (0: no limit).
constexpr unsigned shifted_window_bits_for(size_t n, unsigned scalar_bits, unsigned max_rows = 0) {
  unsigned best = kMinWindowBits;
  double best_cost = 0;
  for (unsigned c = kMinWindowBits; c <= kMaxShiftedWindowBits; ++c) {
    const double cost = shifted_cost(n, scalar_bits, c, max_rows);
    if (c == kMinWindowBits || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}

// The radix of a shifted table, odd·2^c (digits.hpp, "Odd radices"); odd = 1 for 2^c.
struct ShiftedRadix {
  unsigned c = 0;
  uint32_t odd = 1;
};

// Whether shifted tables take the radix odd·2^c: a power of two (odd = 1), or an odd factor the
// digits divide by (below kRadixOddBound) with the radix at most 2^kMaxShiftedWindowBits (its B/2
// buckets, like 2^(c−1)'s, within a few GB).
constexpr bool radix_supported(unsigned c, uint32_t odd) {
  if (odd == 1) return true;
  return odd % 2 == 1 && odd < kRadixOddBound && c <= kMaxShiftedWindowBits &&
         (uint64_t(odd) << c) <= (uint64_t(1) << kMaxShiftedWindowBits);
}

// The best radix for a table of at most max_rows rows (0: no limit), by shifted_radix_cost's
// model, over powers of two and every supported odd·2^c (odd factors cost the digits kernel the
// same, whichever they are). `windows` gives W(B) for (c, odd)
// (msm::shifted_windows). For BLS12-381 at 2^26 this is 9·2^20: 11 windows as c = 24 gives,
// with B/2 = 4.72 M buckets instead of 8.39 M. The model leaves out what the odd radix costs
// the digits kernel (its divisions: 0.68 → 1.08 ms at 2^24), so it promises more than it gives:
// on the H200 (bench/results/2026-12-04_h200_4a15173_msm_odd_radix.json) BLS12-381 G1 2^26
// 305.2 → 301.1 ms, 2^24 84.1 → 82.5 (9·2^20 against 2^22); BN254 G1 2^26 is even (gpu/msm
// README, "Odd radices"). Like shifted_cost it counts dense scalars.
template <class WindowsOf>
ShiftedRadix shifted_radix_for(size_t n, unsigned max_rows, WindowsOf windows) {
  ShiftedRadix best;
  double best_cost = 0;
  for (unsigned c = kMinWindowBits; c <= kMaxShiftedWindowBits; ++c) {
    for (uint32_t odd = 1; radix_supported(c, odd); odd += 2) {
      const double cost = shifted_radix_cost(n, windows(c, odd), uint64_t(odd) << c, max_rows);
      if (best.c == 0 || cost < best_cost) {
        best = {c, odd};
        best_cost = cost;
      }
    }
  }
  return best;
}

// Threads per block of every MSM kernel: the point kernels hold an XYZZ accumulator and an
// affine point in registers (≈ 100-200 registers for G1, more for G2), so blocks stay small.
inline constexpr unsigned kThreadsPerBlock = 128;

// At most this many (scalar, window) pairs are sorted at once; more windows go to further
// passes. 2^28 pairs take 4 GiB of keys and values (double-buffered).
//
// Every pair is sorted, zero digits included (they sort last), by CUB's radix sort, unless the
// caller gives MsmConfig::scalar_counts (then zero scalars have no pairs). A counting
// sort of the non-zero digits alone (per-key counts by warp-aggregated atomics, a prefix sum,
// a scatter to each key's next free slot) was measured slower on the H200 although PoRep
// scalars leave six pairs in seven zero: BLS12-381 G1 2^24 porep 37.6 against 36.2 ms, random
// 147.3 against 119.2 (2^26: 144.2 / 128.5 and 501.1 / 393.4). Under ncu (G1 2^24) the
// accumulation took the same time with either order (24.4 ms porep, 106.4 random), but the
// scatter alone took 6.0 and 29.7 ms (atomics whose result each write waits for) where the
// digits and the radix sort of every pair take 5.6 and 6.0 (bench/results/
// 2026-11-30_h200_7df7aa6_msm_sort_{kernels.txt,radix.json,counting.json}). What the zeros
// cost is their share of the radix sort: 77% of its pairs for the bench's porep scalars, about
// 4.3 of 36.2 ms at 2^24, which the scalar counts take away.
inline constexpr size_t kSortEntriesPerPass = size_t(1) << 28;

// msm_shifted sorts up to this many pairs at once. Its windows share one bucket set, so every
// pass after the first needs run sums of its own and a kernel that adds them into the buckets
// (merge_run_sums); one pass needs neither. At 2^26 points (BLS12-381 G1, c = 24, 11 windows:
// 738M pairs) passes of 2^28 / 2^29 / 2^30 pairs took 355.0 / 347.3 / 329.2 ms, the merges alone
// 19.3 ms of the first under ncu (bench/results/2026-12-01_h200_42fbd72_msm_shifted_passes.txt).
// The price is 12 GiB more workspace than 2^28 pairs, beside a table of 66 GiB.
inline constexpr size_t kShiftedSortEntriesPerPass = size_t(1) << 30;

// MsmConfig::scalar_counts: a pass writes and sorts only the pairs the counts allow when they
// are at most this share of its pairs; above it, every pair as without counts (the prefix sum
// of the pair counts and the filler cost more than the sort saves). Measured on the H200
// (bench/results/2026-11-30_h200_77e54ae_msm_counted.json, the compact path on every pass):
// porep scalars (the pairs' share 0.23) BLS12-381 G1 2^26 128.2 → 114.6 ms, BN254 70.3 → 59.7,
// G2 2^24 99.9 → 97.0; random scalars (share 1) G1 2^26 393.1 → 400.8, G2 2^24 350.2 → 355.7.
inline constexpr double kCompactPairsShare = 2.0 / 3.0;

// Accumulation: every thread adds the same number of consecutive sorted entries, whatever the
// buckets' lengths (a bucket holding half the points is split over many threads, so skewed
// scalars do not serialize). The count aims at about kAccumulateThreads threads, with at least
// kMinEntriesPerThread each: many waves, so that the last, partly filled wave is a small part
// of the launch. Measured on the H200 (BLS12-381 G1, random scalars, unbounded kernel;
// bench/results/2026-11-29_h200_3f129d4_msm_accumulate_threads.json): 2^17 threads (2.6 waves)
// 145.0 ms at 2^24 and 518.6 at 2^26; 2^19 133.5 and 507.6; 2^20 132.9 and 504.6.
inline constexpr size_t kAccumulateThreads = size_t(1) << 20;
inline constexpr size_t kMinEntriesPerThread = 32;

// An accumulation launch's threads all get the same number of entries, so they run in waves of
// equal length, as many at once as the device holds (`resident`: SMs × blocks per SM × block
// size; 0 when unknown). A last wave only partly filled costs a whole wave's time with the SMs
// partly idle: 2^20 threads of the BLS12-381 G1 kernel (4 blocks of 128 per SM, 132 SMs) are
// 15.5 waves. So an aim of at least one wave is rounded down to whole waves, and the entries
// are spread over them. (Down, never up: a plan made without the device, as a workspace query
// may be, then never has fewer partial slots than one made with it.) Measured on the H200
// against the unrounded 2^20 (medians of 5; bench/results/2026-12-03_h200_ee6d0c6_msm.json
// against ..._6127a35_msm.json): BLS12-381 G1 random 0.6-1.0% faster from 2^24 (2^24 shifted
// 84.95 → 84.24 ms, 2^26 shifted 309.09 → 306.13, 2^26 364.73 → 361.04), porep classified
// 1.6-2.1%; but porep shifted 2^26 2.7% slower (98.03 → 100.72; BN254 2.3%), BN254 G1 random
// 0.3-0.7% slower, G2 within 0.7% either way. Aims other than 2^20, unrounded
// (..._ee6a83d_msm_accumulate_threads_2p21.json, ..._2p22.json): 2^21 threads gave G1 2^26
// shifted 306.60 and porep shifted 97.13, but G2 2^22 1-2.5% slower; 2^21 in whole waves for
// G1 (..._b2a2434_msm_g1_accumulate_threads_2p21_waves.json): 2^26 shifted 305.48, porep
// shifted 97.41, but 2^26 plain 363.65 against 361.04 and 2^24 shifted 84.51 against 84.24.
constexpr size_t whole_waves(size_t aimed, size_t resident) {
  if (resident == 0 || aimed < resident) return aimed;
  return aimed / resident * resident;
}

// Occupancy of the accumulation kernel: the blocks per SM its registers must allow (a
// __launch_bounds__ minimum; 0: no bound). Unbounded, ptxas gives G1 of BLS12-381 168
// registers (3 blocks of 128 threads per SM, 19% occupancy) and G2 255 (2 blocks); bounded,
// G1 fits 128 registers at 4 blocks and 96 at 5, G2 168 at 3 blocks, each with about 100
// bytes of spills (ptxas -v, CUDA 13.0). The kernel is compiled for each value below;
// MsmConfig::accumulate_min_blocks picks one for sweeps, and kAccumulateMinBlocksDefault is
// the measured choice.
inline constexpr unsigned kAccumulateOccupancies[] = {0, 3, 4, 5};
static_assert(kAccumulateOccupancies[0] == 0, "the first variant is the unbounded one");

// Measured on the H200 (random scalars, medians of 5;
// bench/results/2026-11-29_h200_5e1b8a8_msm_min_blocks.json and ..._fea5cbf_msm_min_blocks.json):
// G1, 4 blocks against unbounded, BLS12-381 2^24 141.2 vs 145.0 ms, BN254 2^24 62.1 vs 63.7,
// 2^26 241.1 vs 247.2 (5 blocks: BLS12-381 2^26 544.9 against 518.9, the spills cost more
// than the occupancy gains; 3 blocks: 1.5% better for BLS12-381, 3% worse for BN254). G2 at
// 2^22: BLS12-381 171.1 ms at 4 blocks, 179.7 at 3, 200.5 unbounded; BN254 63.6, 64.2, 62.6.
inline constexpr unsigned kAccumulateMinBlocksDefault = 4;

// Whether the accumulation asks each entry's base into L2 one addition ahead (work::accumulate).
// Measured on the H200 (2026-12-03, BLS12-381, random and porep scalars, two alternating rounds
// of medians of 5; bench/results/2026-12-03_h200_bfd4a38_msm_prefetch_bases.txt): G1 faster by
// 0.2-0.3% (2^24 shifted 84.14 → 83.92 ms, 2^26 shifted 305.2 → 304.4, 2^26 plain 361.0 →
// 360.1), G2 slower by 0.3-0.6% (2^22 98.5 → 99.0, shifted 78.6 → 79.0): its bases span three
// cache lines and its kernel holds more registers.
constexpr bool prefetches_bases(Group group) { return group == Group::kG1; }

// Where the accumulation keeps each thread's running bucket sum: shared memory (kernels.cuh
// SharedSum), or registers.
enum class SumStorage { kShared, kRegisters };

constexpr const char* sum_storage_name(SumStorage storage) {
  return storage == SumStorage::kShared ? "shared" : "registers";
}

// Shared sums are the faster for all four groups. Measured on the H200 (random scalars, 4
// blocks per SM; bench/results/2026-11-30_h200_03e96e6_msm_sums.json), shared against
// registers: BLS12-381 G1 (192-byte XYZZ points) 2^26 481.2 against 498.9 ms, 2^24 129.3
// against 132.3; BN254 G1 (128) 217.5 against 225.7, 55.9 against 58.2; BN254 G2 (256) 2^24
// 188.3 against 196.1. BLS12-381 G2 (384 bytes, 48 KiB of sums per block) was erratic with
// shared sums while its products were inlined (runs up to 60 ms apart: warps waiting for
// instructions, see ff/field.hpp kOutlinedDeviceProducts); with outlined products
// (bench/results/2026-11-30_h200_da63575_msm.json and ..._msm_g2_shared.json) shared sums
// take 2^22 102.6 ms against 109.4, 2^24 350.5 against 371.6, porep-like 100.1 against 106.4,
// runs within 0.3 ms.
inline constexpr SumStorage kDefaultSumStorage = SumStorage::kShared;

// Partial sums of buckets cut between threads are combined in levels: each level's thread adds
// kPartialsPerThread consecutive partials (one level per factor of it in the thread count). A
// level's threads add their partials one after another, so a small fan-in means more threads
// and shorter chains; the first level of 2^20 partials with 32 a thread ran on 2^15 threads,
// a quarter of one wave. Measured on the H200 (BLS12-381, bench_gpu_msm --partials-per-thread,
// 2026-11-30), fan-in 8 against 32: G1 2^26 random 503.6 against 507.9 ms, porep 147.8 against
// 153.0; G2 2^22 porep 59.2 against 65.0, 2^24 random 610.5 against 616.5 (16: in between).
// Fan-in 4 against 8 (2026-12-02, b059dd8, bench/results/..._b059dd8_msm_partials{4,8}.json):
// faster in every case, G1 2^24 shifted 85.16 against 85.36 ms, porep counted 31.58 against
// 31.93, 2^26 porep counted 104.07 against 104.78, G2 2^22 porep 34.41 against 35.48.
inline constexpr size_t kPartialsPerThread = 4;

// Bucket reduction: each thread reduces a segment of L buckets of one window (2L full additions
// plus a small-scalar multiplication by the segment's first bucket number, ~c doublings and c/2
// additions); the segment results are then summed kSumGroup at a time. A longer segment spreads
// the small multiplication over more buckets but leaves fewer threads. Measured on the H200
// (BLS12-381, random scalars, L = 32 / 64 / 128 / 256, ms; bench/results/2026-12-01_h200_
// 91870bd_msm_segment_sweep.json): G1 2^24 107.7 / 106.7 / 106.7 / 108.7, 2^26 389.5 / 388.5 /
// 388.5 / 390.5, shifted 2^24 92.7 / 91.5 / 92.5 / 96.3; G2 2^22 102.1 / 104.5 / 110.3 / 122.3,
// 2^24 349.9 / 352.2 / 358.0 / 370.0 (G2, whose additions cost ~3 G1 ones, presumably feels
// the longer per-thread chains first).
constexpr size_t segment_buckets_for(Group group) { return group == Group::kG2 ? 32 : 64; }
// Those lengths assume buckets enough for many threads. Where the buckets are few (narrow
// windows: a sparse PoRep query at c = 16 has 16 sets of 2^15 buckets, 8192 segments of 64)
// each thread's chain of 2L additions is the whole time and most of the GPU idles, so the
// segments are halved, down to kMinSegmentBuckets, until there are kMinReductionThreads.
// Measured on the H200 (2026-12-03, 4dba1fc, porep scalars, counted, fixed lengths against
// this rule; bench/results/..._4dba1fc_msm_porep_{g1,g2}{,_segments64,_segments32}.json):
// G1 2^24 (c = 16: L = 16) 31.62 → 30.59 ms, G2 2^22 34.34 → 33.82, 2^24 93.27 → 92.75; G1
// 2^26 (c = 20, L stays 64) 99.24 / 99.25. (A shifted 2^24 MSM has exactly 2^15 segments of
// 64, where 32 measured slower: 92.7 against 91.5 ms, above.)
inline constexpr size_t kMinReductionThreads = size_t(1) << 15;
inline constexpr size_t kMinSegmentBuckets = 8;

// The reduction in one wave. A segment's thread pays a small multiple (its segment total times
// the segment's first bucket number: ~c doublings and additions) on top of its 2L additions, so
// the fewer the segments, the less work, as long as they keep every SM busy. Where the tuned
// length `tuned` gives more segments than one wave of the reduction kernel holds (`resident`
// threads at once; 0 when unknown), the length grows to the shortest that fits them in one wave.
// Never more segments than the tuned length gives, so a workspace sized without the device
// holds them. Measured on the H200 (2026-12-03, ec4655c against ee6d0c6; the reduction kernel of
// BLS12-381 G1 holds 3 blocks of 128 threads per SM, 50,688 threads): lengthening segments until
// they fill whole waves (2 of them for G1 shifted 2^26: 64 → 83 buckets) was faster where the
// length grew much (G2 2^24 shifted, 32 → 63, one wave: 273.2 → 271.3 ms; BN254 porep 45.6 →
// 43.3; G1 2^26 shifted 306.13 → 305.52) but slower where it grew little (G1 plain c = 20, 13
// sets: 64 → 68, 2.1 waves to 2: 99.50 → 100.05 ms at 2^24): a partly filled last wave costs
// little (its few blocks run at low occupancy, fast), a longer segment's small multiple of a
// number with fewer trailing zeros costs more. So the count of segments, not the waves, decides.
// One wave, against 64 a segment in one run (ba5aca8, bench/results/..._ba5aca8_msm
// .json and ..._msm_reduction_segments64.json): G1 2^26 shifted (166) 304.54 against 305.03 ms;
// G1 plain at c = 20 (135) 99.54 against 99.24 at 2^24 and 360.21 against 359.82 at 2^26, where
// 64 stays 0.3% faster although the longer segments do fewer doublings and additions in all.
constexpr size_t one_wave_segment_buckets(size_t tuned, size_t sets, size_t per_set,
                                          size_t resident) {
  const auto segments = [&](size_t length) { return sets * ((per_set + length - 1) / length); };
  if (resident == 0 || segments(tuned) <= resident) return tuned;
  size_t length = (sets * per_set + resident - 1) / resident;
  if (length < tuned) length = tuned;
  while (segments(length) > resident) ++length;
  return length;
}

inline constexpr size_t kSumGroup = 32;  // a warp's lanes (kernels.cuh sum_groups)

// Batch addition of selected bases: each thread sums the bases of kSelectionWordsPerThread
// bitmap words (64 bases each).
inline constexpr size_t kSelectionWordsPerThread = 4;
inline constexpr size_t kPointsPerSelectionThread = 64 * kSelectionWordsPerThread;

// Shifted tables: each thread of a row shifts this many consecutive points with one inversion
// (c doublings per point cost ≈ 9c multiplications; the inversion ≈ 500, shared), and a row is
// made in chunks of kShiftChunkPoints (the Jacobian scratch is one chunk).
inline constexpr size_t kShiftPointsPerThread = 16;
inline constexpr size_t kShiftChunkPoints = size_t(1) << 21;

// Bases in pinned host memory are staged in chunks of this many points (two staging buffers).
inline constexpr size_t kDefaultChunkPoints = size_t(1) << 22;

// Sort values carry a base index in 31 bits.
inline constexpr size_t kMaxPoints = (size_t(1) << 31) - 1;

}  // namespace cuzk::gpu::msm
