#pragma once
// Tuning of the GPU MSM: window width by size, and the launch shapes of its kernels. Every
// constant here was chosen by measurement on the H200; the sweeps behind them are in
// docs/experiments/msm.md, and the current timings in src/gpu/msm/README.md.
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
// model (c ≈ log2 n − 8); above, each entry is the fastest width of a sweep on the H200:
// dense bench/results/msm/2026-11-30_h200_c7be5f7_msm_dense_window_sweep.json (to 2^25) and
// bench/results/msm/2026-12-01_h200_064d1da_msm_dense_wide_windows.json (c = 22 from 2^27 on:
// 12 windows instead of 13); sparse (porep-like: 40% zeros, 40% ones)
// bench/results/msm/2026-11-30_h200_f9f5964_msm_wide_windows.json; 2^25 lies between measured
// sizes and takes 19.

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
// The factor 2 is fitted to the H200: with it the model orders every measured pair of c = 22
// against 24 at 2^26 and 2^27 (3 rows, 4 rows, the whole table) and predicts each gap within
// 0.5% (bench/results/msm/2026-12-03_h200_8ebe43e_msm_table_windows_2p27.json). Sorting a
// group's windows in several passes instead of one, to save workspace, costs more than the wider
// window saves, so the shifted sort runs in one pass (kShiftedSortEntriesPerPass).
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
// 1.3% at 2^26 on BLS12-381 G1 (bench/results/msm/2026-12-04_h200_4a15173_msm_odd_radix.json),
// nothing for BN254 G1 2^26 (src/gpu/msm/README.md, "Odd radices"). Like shifted_cost it counts
// dense scalars.
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
// caller gives MsmConfig::scalar_counts (then zero scalars have no pairs). A counting sort of the
// non-zero digits alone was slower on the H200 even for PoRep scalars, whose pairs are six in
// seven zero: its scatter's atomics cost more than sorting every pair
// (bench/results/msm/2026-11-30_h200_7df7aa6_msm_sort_kernels.txt). What the zeros cost is their
// share of the radix sort, which the scalar counts take away.
inline constexpr size_t kSortEntriesPerPass = size_t(1) << 28;

// msm_shifted sorts up to this many pairs at once. Its windows share one bucket set, so every
// pass after the first needs run sums of its own and a kernel that adds them into the buckets
// (merge_run_sums); one pass needs neither. At 2^26 points (BLS12-381 G1, c = 24, 11 windows:
// 738M pairs) passes of 2^28 / 2^29 / 2^30 pairs took 355.0 / 347.3 / 329.2 ms
// (bench/results/msm/2026-12-01_h200_42fbd72_msm_shifted_passes.txt). The price is 12 GiB more
// workspace than 2^28 pairs, beside a table of 66 GiB.
inline constexpr size_t kShiftedSortEntriesPerPass = size_t(1) << 30;

// MsmConfig::scalar_counts: a pass writes and sorts only the pairs the counts allow when they
// are at most this share of its pairs; above it, every pair as without counts (the prefix sum
// of the pair counts and the filler cost more than the sort saves): porep scalars (share 0.23)
// gain 3-15%, random ones (share 1) would lose 1-2% on the compact path
// (bench/results/msm/2026-11-30_h200_77e54ae_msm_counted.json).
inline constexpr double kCompactPairsShare = 2.0 / 3.0;

// Accumulation: every thread adds the same number of consecutive sorted entries, whatever the
// buckets' lengths (a bucket holding half the points is split over many threads, so skewed
// scalars do not serialize). The count aims at about kAccumulateThreads threads, with at least
// kMinEntriesPerThread each: many waves, so that the last, partly filled wave is a small part
// of the launch (2^20 threads: 8% faster than 2^17 at 2^24 on BLS12-381 G1;
// bench/results/msm/2026-11-29_h200_3f129d4_msm_accumulate_threads.json).
inline constexpr size_t kAccumulateThreads = size_t(1) << 20;
inline constexpr size_t kMinEntriesPerThread = 32;

// An accumulation launch's threads all get the same number of entries, so they run in waves of
// equal length, as many at once as the device holds (`resident`: SMs × blocks per SM × block
// size; 0 when unknown). A last wave only partly filled costs a whole wave's time with the SMs
// partly idle: 2^20 threads of the BLS12-381 G1 kernel (4 blocks of 128 per SM, 132 SMs) are
// 15.5 waves. So an aim of at least one wave is rounded down to whole waves, and the entries
// are spread over them. (Down, never up: a plan made without the device, as a workspace query
// may be, then never has fewer partial slots than one made with it.) On the H200 that is
// 0.6-1.0% faster for BLS12-381 G1 random scalars from 2^24, within 3% either way elsewhere
// (bench/results/msm/2026-12-03_h200_ee6d0c6_msm.json); other aims (2^21, 2^22 threads) won
// nowhere by more than the spread.
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

// 4 blocks per SM: G1 2.5% faster than unbounded at 2^24 (5 blocks: the spills cost more than
// the occupancy gains; bench/results/msm/2026-11-29_h200_5e1b8a8_msm_min_blocks.json), G2 of
// BLS12-381 15% faster, BN254 G2 within 2%
// (bench/results/msm/2026-11-29_h200_fea5cbf_msm_min_blocks.json).
inline constexpr unsigned kAccumulateMinBlocksDefault = 4;

// Whether the accumulation asks each entry's base into L2 one addition ahead (work::accumulate):
// G1 0.2-0.3% faster, G2 0.3-0.6% slower, its bases spanning three cache lines and its kernel
// holding more registers (bench/results/msm/2026-12-03_h200_bfd4a38_msm_prefetch_bases.txt).
constexpr bool prefetches_bases(Group group) { return group == Group::kG1; }

// Where the accumulation keeps each thread's running bucket sum: shared memory (kernels.cuh
// SharedSum), or registers.
enum class SumStorage { kShared, kRegisters };

constexpr const char* sum_storage_name(SumStorage storage) {
  return storage == SumStorage::kShared ? "shared" : "registers";
}

// Shared sums are the faster for all four groups, by 2-6%
// (bench/results/msm/2026-11-30_h200_03e96e6_msm_sums.json); BLS12-381 G2 (384-byte points,
// 48 KiB of sums per block) only since its products are outlined (ff/field.hpp
// kOutlinedDeviceProducts): 2^24 350.5 against 371.6 ms
// (bench/results/msm/2026-11-30_h200_da63575_msm_g2_shared.json).
inline constexpr SumStorage kDefaultSumStorage = SumStorage::kShared;

// Partial sums of buckets cut between threads are combined in levels: each level's thread adds
// kPartialsPerThread consecutive partials (one level per factor of it in the thread count). A
// level's threads add their partials one after another, so a small fan-in means more threads
// and shorter chains. Fan-in 8 beat 16 and 32, and 4 beat 8 in every case measured, by 0.2-3%
// (bench/results/msm/2026-12-02_h200_b059dd8_msm_partials{4,8}.json).
inline constexpr size_t kPartialsPerThread = 4;

// Bucket reduction: each thread reduces a segment of L buckets of one window (2L full additions
// plus a small-scalar multiplication by the segment's first bucket number, ~c doublings and c/2
// additions); the segment results are then summed kSumGroup at a time. A longer segment spreads
// the small multiplication over more buckets but leaves fewer threads: L = 64 is the fastest for
// G1, 32 for G2, whose additions cost ~3 G1 ones (BLS12-381, L = 32 to 256;
// bench/results/msm/2026-12-01_h200_91870bd_msm_segment_sweep.json).
constexpr size_t segment_buckets_for(Group group) { return group == Group::kG2 ? 32 : 64; }
// Those lengths assume buckets enough for many threads. Where the buckets are few (narrow
// windows: a sparse PoRep query at c = 16 has 16 sets of 2^15 buckets, 8192 segments of 64)
// each thread's chain of 2L additions is the whole time and most of the GPU idles, so the
// segments are halved, down to kMinSegmentBuckets, until there are kMinReductionThreads: G1
// 2^24 porep (c = 16, L = 16) 31.62 → 30.59 ms
// (bench/results/msm/2026-12-03_h200_4dba1fc_msm_porep_g1.json).
inline constexpr size_t kMinReductionThreads = size_t(1) << 15;
inline constexpr size_t kMinSegmentBuckets = 8;

// The reduction in one wave. A segment's thread pays a small multiple (its segment total times
// the segment's first bucket number: ~c doublings and additions) on top of its 2L additions, so
// the fewer the segments, the less work, as long as they keep every SM busy. Where the tuned
// length `tuned` gives more segments than one wave of the reduction kernel holds (`resident`
// threads at once; 0 when unknown), the length grows to the shortest that fits them in one wave.
// Never more segments than the tuned length gives, so a workspace sized without the device
// holds them. A partly filled last wave costs little (its few blocks run at low occupancy), a
// longer segment's small multiple costs more, so the count of segments, not whole waves,
// decides (bench/results/msm/2026-12-03_h200_ba5aca8_msm.json).
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
