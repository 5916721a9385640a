#pragma once
// How one GPU MSM is cut into chunks, passes and launches, and where each of its buffers lies
// in the caller's workspace. Host code only and free of CUDA calls, so that the plan and the
// layout are unit-tested on machines without a GPU; the sizes CUB asks for are inputs.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "gpu/msm/digits.hpp"
#include "gpu/msm/tuning.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::msm {

inline size_t div_up(size_t a, size_t b) { return (a + b - 1) / b; }

struct MsmPlan {
  size_t n = 0;             // points
  size_t chunk_points = 0;  // points per chunk: n when the bases are on the device
  size_t chunks = 0;
  unsigned c = 0;                 // window width
  // Shifted bases: the odd factor of the radix odd·2^c (digits.hpp); 1 for powers of two.
  uint32_t odd = 1;
  unsigned windows = 0;           // ⌊scalar_bits/c⌋ + 1; radix_window_count for odd radices
  unsigned windows_per_pass = 0;  // windows sorted together
  unsigned passes = 0;
  bool shifted = false;  // bases pre-shifted per window (msm_shifted)
  // Shifted bases: the table's rows, at most `windows`; fewer (a partial table) group the
  // windows by rows, each group with its own bucket set (digits.hpp).
  unsigned table_rows = 0;
  // Buckets outlive a pass (shared by all windows, or revisited by every chunk): each pass
  // accumulates into separate run sums, merged into the buckets after it (thread_work.hpp).
  bool merged_passes = false;
  unsigned bucket_sets = 0;        // windows, or ⌈windows/table_rows⌉ with shifted bases
  size_t buckets_per_window = 0;   // 2^(c−1), odd·2^(c−1) for an odd radix
  size_t segment_buckets = 0;      // buckets per reduction segment (a set's last may have fewer)
  size_t segments_per_window = 0;  // ⌈buckets_per_window / segment_buckets⌉
  size_t max_entries = 0;          // sort entries of the largest pass (a counted plan's: its
                                   // compact pairs at most, fewer than its windows' pairs)
  size_t entries_per_thread = 0;   // accumulation: sorted entries per thread
  size_t max_accumulate_threads = 0;
  // The threads an accumulation launch aims at: the request's, in whole waves (whole_waves).
  size_t aimed_accumulate_threads = 0;
  size_t partials_per_thread = 0;  // combining levels: partials summed per thread

  size_t entries(size_t chunk_size, unsigned windows_in_pass) const {
    return chunk_size * windows_in_pass;
  }
  // Buckets one pass can touch: its windows' sets, or its group's shared set.
  size_t pass_buckets() const {
    return (shifted ? size_t(1) : size_t(windows_per_pass)) * buckets_per_window;
  }
  // Sort passes per group of table rows (shifted bases; a pass never spans two groups).
  unsigned passes_per_set() const { return (table_rows + windows_per_pass - 1) / windows_per_pass; }
  // The windows of a pass: [first, first + count); count is 0 for a pass of a partial table's
  // last group that has no windows left.
  struct PassWindows {
    unsigned first = 0;
    unsigned count = 0;
  };
  PassWindows pass_windows(unsigned pass) const {
    if (!shifted) {
      const unsigned first = pass * windows_per_pass;
      return {first, std::min(windows_per_pass, windows - first)};
    }
    const unsigned set = pass / passes_per_set();
    const unsigned first = set * table_rows + pass % passes_per_set() * windows_per_pass;
    const unsigned end = std::min(windows, (set + 1) * table_rows);
    return {first, first < end ? std::min(windows_per_pass, end - first) : 0};
  }
  // The bucket set a window adds into: its own, or its group's with a shifted table.
  unsigned set_of(unsigned window) const { return shifted ? window / table_rows : window; }
  // The key layout of a pass over `windows_in_pass` windows from first_window.
  KeyLayout key_layout(unsigned first_window, unsigned windows_in_pass) const {
    return {c, windows_in_pass, shifted ? uint32_t(n) : 0u,
            shifted ? set_of(first_window) * table_rows : 0u, OddDivisor::of(odd)};
  }
  // Consecutive bucket sets weigh B^R apart in the final Horner step (B^1 for plain bases, one
  // set per window): set_shift() doublings and set_odd_multiplications() multiplications by odd
  // (one at a time: odd^R need not fit 64 bits).
  unsigned set_shift() const { return shifted ? c * table_rows : c; }
  unsigned set_odd_multiplications() const { return odd == 1 ? 0 : table_rows; }
  size_t accumulate_threads(size_t entries_count) const {
    return (entries_count + entries_per_thread - 1) / entries_per_thread;
  }
  // Entries per thread for a pass of fewer entries than planned (compact pairs, from
  // MsmConfig::scalar_counts): spread over about `aimed_threads` threads again, never more
  // threads than the planned partial slots hold.
  size_t entries_per_thread_for(size_t entries_count, size_t aimed_threads) const {
    return std::max({kMinEntriesPerThread,
                     div_up(entries_count, std::max<size_t>(1, aimed_threads)),
                     div_up(entries_count, std::max<size_t>(1, max_accumulate_threads))});
  }
};

// What the caller asks of a plan (MsmConfig's knobs, resolved).
struct PlanRequest {
  unsigned window_bits = 0;  // 0: the tuning table
  size_t chunk_points = 0;   // bases staged in chunks of this many points; 0: all at once
  size_t sort_entries_per_pass = kSortEntriesPerPass;
  // The bases are a table of windows × n pre-shifted points (msm_shifted), on the device, and
  // every window adds into one shared bucket set; with table_rows (0: every window's) fewer
  // than the windows, each group of table_rows windows into one set of its own.
  bool shifted = false;
  unsigned table_rows = 0;
  // Shifted bases of an odd radix odd·2^window_bits (odd > 1): its odd factor and its windows
  // (radix_window_count, from the scalar field's modulus). 1 and 0 for powers of two.
  uint32_t radix_odd = 1;
  unsigned radix_windows = 0;
  size_t accumulate_threads = kAccumulateThreads;   // aimed-at threads per accumulation launch
  // Threads of the accumulation kernel resident on the device at once (0: unknown); the aim is
  // rounded to a whole number of such waves.
  size_t resident_threads = 0;
  size_t partials_per_thread = kPartialsPerThread;  // at least 2
  size_t segment_buckets = 0;  // at least 1; 0: segment_buckets_for (tuning.hpp), up to one wave
  // Threads of the bucket reduction kernel resident on the device at once (0: unknown); the
  // tuned segment length grows until one wave of them holds the segments
  // (one_wave_segment_buckets).
  size_t reduction_resident_threads = 0;
  Group group = Group::kG1;    // with density, picks the window table
  ScalarDensity density = ScalarDensity::kDense;
  // msm with MsmConfig::scalar_counts (plain bases in one chunk): a pass then sorts only the
  // pairs the counts allow (compact pairs), so it takes as many windows as keep them within
  // the entries the plan without counts sorts at once (the same workspace) and within
  // kCompactPairsShare of the pass's pairs (so that they are written compact).
  std::optional<ScalarCounts> counts = std::nullopt;
};

// The pairs a counted pass over `size` scalars and `windows` windows writes: window 0's for
// each one (in the pass that holds window 0), every window's for each other, at least one slot
// and at most the pass's size·windows pairs.
inline size_t compact_pairs(ScalarCounts counts, size_t size, bool holds_window_0,
                            unsigned windows) {
  const uint64_t ones = std::min<uint64_t>(counts.ones, size);
  const uint64_t others = std::min<uint64_t>(counts.others, size);
  return std::clamp<size_t>((holds_window_0 ? ones : 0) + others * windows, 1, size * windows);
}
// A pass writes its compact pairs only where they are at most kCompactPairsShare of all its
// pairs (else the prefix sum costs more than it saves, and it writes them all).
inline bool writes_compact(size_t compact, size_t all) {
  return double(compact) <= kCompactPairsShare * double(all);
}

// The windows a counted pass can take (PlanRequest::counts): at least `windows_per_pass` (the
// plan's without counts, whose passes sort up to `capacity` pairs of `size` scalars), more
// while the pairs of the largest pass (the first: its ones add window 0's pair) stay within
// the capacity and compact. A PoRep witness (90% zeros and ones) takes every window in one
// pass.
inline unsigned counted_windows_per_pass(size_t size, unsigned windows, unsigned windows_per_pass,
                                         size_t capacity, ScalarCounts counts) {
  const auto fits = [&](unsigned w) {
    const size_t pairs = compact_pairs(counts, size, true, w);
    return pairs <= capacity && writes_compact(pairs, size * w);
  };
  unsigned w = windows_per_pass;
  while (w < windows && fits(w + 1)) ++w;
  return w;
}

inline MsmPlan plan_msm(size_t n, unsigned scalar_bits, const PlanRequest& request) {
  const unsigned window_bits = request.window_bits;
  const size_t chunk_points = request.chunk_points;
  const size_t sort_entries_per_pass = request.sort_entries_per_pass;
  const bool shifted = request.shifted;
  if (n > kMaxPoints) {
    CUZK_INVALID_INPUT("gpu msm: " + std::to_string(n) + " points; at most " +
                       std::to_string(kMaxPoints) + " are supported");
  }
  MsmPlan plan;
  plan.n = n;
  plan.shifted = shifted;
  plan.c = window_bits != 0 ? window_bits
           : shifted        ? shifted_window_bits_for(n, scalar_bits, request.table_rows)
                            : window_bits_for(n, request.group, request.density);
  const unsigned max_bits = shifted ? kMaxShiftedWindowBits : kMaxWindowBits;
  if (plan.c < kMinWindowBits || plan.c > max_bits) {
    CUZK_INVALID_INPUT("gpu msm: window of " + std::to_string(plan.c) + " bits; supported are " +
                       std::to_string(kMinWindowBits) + ".." + std::to_string(max_bits));
  }
  plan.chunk_points = std::max<size_t>(1, chunk_points == 0 ? n : std::min(chunk_points, n));
  plan.chunks = n == 0 ? 0 : (n + plan.chunk_points - 1) / plan.chunk_points;
  if (request.radix_odd != 1) {
    if (!shifted || !radix_supported(plan.c, request.radix_odd) || request.radix_windows == 0) {
      CUZK_INVALID_INPUT("gpu msm: a radix of " + std::to_string(request.radix_odd) + "·2^" +
                         std::to_string(plan.c) +
                         "; odd radices are for shifted tables, with an odd factor below 2^8 "
                         "and at most 2^" + std::to_string(kMaxShiftedWindowBits));
    }
    plan.odd = request.radix_odd;
  }
  plan.windows = plan.odd != 1 ? request.radix_windows : window_count(scalar_bits, plan.c);
  if (shifted) {
    plan.table_rows =
        request.table_rows == 0 ? plan.windows : std::min(request.table_rows, plan.windows);
  }
  if (shifted && size_t(plan.table_rows) * n > kMaxPoints) {
    CUZK_INVALID_INPUT("gpu msm: a shifted table of " + std::to_string(plan.table_rows) + " x " +
                       std::to_string(n) + " points; at most " + std::to_string(kMaxPoints) +
                       " are supported (take a wider window or fewer rows)");
  }
  plan.bucket_sets = shifted ? unsigned(div_up(plan.windows, plan.table_rows)) : plan.windows;
  plan.windows_per_pass = unsigned(std::clamp<size_t>(sort_entries_per_pass / plan.chunk_points, 1,
                                                      shifted ? plan.table_rows : plan.windows));
  plan.max_entries = plan.entries(plan.chunk_points, plan.windows_per_pass);
  if (request.counts && !shifted && plan.chunks == 1) {
    plan.windows_per_pass = counted_windows_per_pass(plan.chunk_points, plan.windows,
                                                     plan.windows_per_pass, plan.max_entries,
                                                     *request.counts);
  }
  plan.passes = shifted ? plan.bucket_sets * plan.passes_per_set()
                        : (plan.windows + plan.windows_per_pass - 1) / plan.windows_per_pass;
  plan.merged_passes = plan.chunks > 1 || (shifted && plan.passes_per_set() > 1);
  plan.buckets_per_window = size_t(plan.odd) << (plan.c - 1);
  size_t segment_buckets =
      request.segment_buckets != 0 ? request.segment_buckets : segment_buckets_for(request.group);
  if (request.segment_buckets == 0) {
    const size_t buckets = plan.bucket_sets * plan.buckets_per_window;
    while (segment_buckets > kMinSegmentBuckets && buckets / segment_buckets < kMinReductionThreads) {
      segment_buckets /= 2;
    }
    segment_buckets = one_wave_segment_buckets(segment_buckets, plan.bucket_sets,
                                               plan.buckets_per_window,
                                               request.reduction_resident_threads);
  }
  plan.segment_buckets = std::min(segment_buckets, plan.buckets_per_window);
  plan.segments_per_window = div_up(plan.buckets_per_window, plan.segment_buckets);
  plan.aimed_accumulate_threads = whole_waves(request.accumulate_threads, request.resident_threads);
  plan.entries_per_thread =
      std::max(kMinEntriesPerThread,
               div_up(plan.max_entries, std::max<size_t>(1, plan.aimed_accumulate_threads)));
  plan.max_accumulate_threads = plan.accumulate_threads(plan.max_entries);
  if (request.partials_per_thread < 2) {
    CUZK_INVALID_INPUT("gpu msm: " + std::to_string(request.partials_per_thread) +
                       " partials per combining thread; at least 2 are needed");
  }
  plan.partials_per_thread = request.partials_per_thread;
  return plan;
}

// A byte range of the workspace.
struct Region {
  size_t offset = 0;
  size_t bytes = 0;
};

// Hands out consecutive 256-byte-aligned regions (CUB and coalesced loads like the alignment).
class LayoutBuilder {
 public:
  static constexpr size_t kAlignment = 256;
  Region take(size_t bytes) {
    Region r{total_, bytes};
    total_ += (bytes + kAlignment - 1) / kAlignment * kAlignment;
    return r;
  }
  size_t total() const { return total_; }

 private:
  size_t total_ = 0;
};

// Sizes of the element types, so that the layout needs no curve types.
struct PointSizes {
  size_t affine;
  size_t xyzz;
};

struct MsmLayout {
  Region canonical;                     // n canonical scalars (Montgomery input only)
  Region keys[2], values[2];            // sort input and output
  Region nonzero;                       // one uint32: sorted entries before the zero digits
  Region sort_temp;                     // CUB radix sort
  Region buckets;                       // bucket_sets × buckets_per_window XYZZ
  Region run_sums;                      // one pass's buckets (merged_passes only)
  Region partial_keys[2], partials[2];  // bucket pieces cut between threads, two levels
  Region segment_sums[2];               // bucket reduction rounds
  Region staging[2];                    // pinned bases: chunks in flight
  size_t total = 0;
};

inline MsmLayout layout_msm(const MsmPlan& plan, PointSizes sizes, size_t sort_temp_bytes,
                            bool montgomery_scalars, bool staged_bases, LayoutBuilder& builder) {
  MsmLayout l;
  if (montgomery_scalars) l.canonical = builder.take(plan.n * 32);
  for (int i = 0; i < 2; ++i) {
    l.keys[i] = builder.take(plan.max_entries * 4);
    l.values[i] = builder.take(plan.max_entries * 4);
  }
  l.nonzero = builder.take(4);
  l.sort_temp = builder.take(sort_temp_bytes);
  l.buckets = builder.take(size_t(plan.bucket_sets) * plan.buckets_per_window * sizes.xyzz);
  if (plan.merged_passes) l.run_sums = builder.take(plan.pass_buckets() * sizes.xyzz);
  const size_t level_sizes[2] = {plan.max_accumulate_threads,
                                 div_up(plan.max_accumulate_threads, plan.partials_per_thread)};
  for (int i = 0; i < 2; ++i) {
    l.partial_keys[i] = builder.take(level_sizes[i] * 4);
    l.partials[i] = builder.take(level_sizes[i] * sizes.xyzz);
  }
  l.segment_sums[0] = builder.take(plan.bucket_sets * plan.segments_per_window * sizes.xyzz);
  l.segment_sums[1] =
      builder.take(plan.bucket_sets * div_up(plan.segments_per_window, kSumGroup) * sizes.xyzz);
  if (staged_bases) {
    for (int i = 0; i < 2; ++i) l.staging[i] = builder.take(plan.chunk_points * sizes.affine);
  }
  l.total = builder.total();
  return l;
}

// sum_selected: per-thread partial sums, then rounds of kSumGroup.
struct SelectionLayout {
  size_t chunk_points = 0;  // multiple of kPointsPerSelectionThread
  size_t threads = 0;       // first-round partials
  Region partials[2];
  Region staging[2];
  size_t total = 0;
};

inline SelectionLayout layout_selection(size_t n, PointSizes sizes, bool staged_bases,
                                        size_t chunk_points, LayoutBuilder& builder) {
  SelectionLayout l;
  const size_t wanted = chunk_points == 0 ? kDefaultChunkPoints : chunk_points;
  l.chunk_points = std::max<size_t>(1, div_up(std::min(wanted, std::max<size_t>(n, 1)),
                                              kPointsPerSelectionThread)) *
                   kPointsPerSelectionThread;
  l.threads = std::max<size_t>(1, div_up(n, kPointsPerSelectionThread));
  l.partials[0] = builder.take(l.threads * sizes.xyzz);
  l.partials[1] = builder.take(div_up(l.threads, kSumGroup) * sizes.xyzz);
  if (staged_bases) {
    for (int i = 0; i < 2; ++i) l.staging[i] = builder.take(l.chunk_points * sizes.affine);
  }
  l.total = builder.total();
  return l;
}

}  // namespace cuzk::gpu::msm
