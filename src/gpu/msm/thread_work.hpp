#pragma once
// The work of one thread of each MSM kernel, as CUZK_HD templates over the point types, so that
// the kernels (kernels.cuh) are thin wrappers and a host test can run the very same index
// logic over a stand-in group (tests/gpu/msm_host_test.cu emulates the whole pipeline with
// integers mod r as "points" and checks every bucket and the final sum exactly).
//
// Point types: Bucket has infinity(), add(Base) (mixed), operator+(Bucket), dbl(); Base has
// unary minus. For the device these are ec::Xyzz<Curve> and ec::Affine<Curve>.

#include <bit>
#include <cstddef>
#include <cstdint>

#include "gpu/msm/digits.hpp"
#include "gpu/msm/tuning.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::msm::work {

// Scalar i of a pass (the integer `limbs`, paired with base `index`): its key and value for
// each window of the pass, window-major with stride `count`. Dead entries (past a device-side
// count) get zero digits.
CUZK_HD void digits(const uint64_t* limbs, unsigned limbs_per_scalar, size_t count, size_t i,
                    bool live, uint32_t index, const KeyLayout& layout, unsigned first_window,
                    uint32_t* keys, uint32_t* values) {
  for (unsigned w = 0; w < layout.windows_in_pass; ++w) {
    const int32_t d = live ? signed_digit(limbs, limbs_per_scalar, layout.c, first_window + w) : 0;
    keys[w * count + i] = layout.key(d, w);
    values[w * count + i] = KeyLayout::value(layout.base_index(index, first_window, w), d);
  }
}

// The same for shifted bases of an odd radix (KeyLayout::divisor.m > 1): the digits come in order
// from window 0 (digits.hpp: RadixDigits), so a pass makes those below its first window too and
// drops them. `modulus` is r, `scalar_bits` its bit length.
template <unsigned kLimbs>
CUZK_HD void radix_digits(const uint64_t* limbs, const uint64_t* modulus, unsigned scalar_bits,
                          size_t count, size_t i, bool live, uint32_t index,
                          const KeyLayout& layout, unsigned first_window, uint32_t* keys,
                          uint32_t* values) {
  RadixDigits<kLimbs> digits(limbs, modulus, layout.c, layout.divisor);
  size_t at = i;  // the slot of window first_window + local: local·count + i
  uint32_t base = layout.base_index(index, first_window, 0);
  const uint32_t sentinel = layout.sentinel();
  auto emit = [&](unsigned w, int32_t d) {
    if (w < first_window) return;
    const int32_t digit = live ? d : 0;
    keys[at] = KeyLayout::magnitude_key(digit, sentinel);  // odd radices: shifted bases only
    values[at] = KeyLayout::value(base, digit);
    at += count;
    base += layout.shifted_stride;
  };
  digits.each(first_window + layout.windows_in_pass, scalar_bits, emit);
}

// Compact pairs (MsmConfig::scalar_counts): the pairs a canonical scalar has in a pass of
// `windows_in_pass` windows from `first_window`: none for a zero, window 0's alone for a one
// (its other digits are zero), one per window for any other scalar.
CUZK_HD uint32_t pass_pairs(const uint64_t* limbs, unsigned limb_count, unsigned first_window,
                            unsigned windows_in_pass) {
  uint64_t high = 0;
  for (unsigned k = 1; k < limb_count; ++k) high |= limbs[k];
  if (high == 0 && limbs[0] <= 1) return limbs[0] == 0 || first_window != 0 ? 0 : 1;
  return windows_in_pass;
}

// Scalar i's pass_pairs pairs, as `digits` makes them, into slots [first, first + pairs), none
// at or past `bound` (the sorted range, from the caller's counts).
CUZK_HD void compact_digits(const uint64_t* scalars, unsigned limbs_per_scalar, size_t i,
                            uint32_t first, size_t bound, const KeyLayout& layout,
                            unsigned first_window, uint32_t* keys, uint32_t* values) {
  const uint64_t* limbs = scalars + i * limbs_per_scalar;
  const uint32_t pairs = pass_pairs(limbs, limbs_per_scalar, first_window, layout.windows_in_pass);
  for (unsigned w = 0; w < pairs && size_t(first) + w < bound; ++w) {
    const int32_t d = signed_digit(limbs, limbs_per_scalar, layout.c, first_window + w);
    keys[first + w] = layout.key(d, w);
    values[first + w] = KeyLayout::value(layout.base_index(uint32_t(i), first_window, w), d);
  }
}

// The first position of non-decreasing `keys` holding a key ≥ sentinel.
CUZK_HD size_t first_at_least(const uint32_t* keys, size_t count, uint32_t sentinel) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < sentinel) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Where a finished run of equal keys goes: into its bucket, or into the thread's partial slot
// when it continues a run of earlier threads (only a thread's first run can, and only when the
// entry or slot just before the thread's range holds the same key). Each thread writes its
// partial slot once: the continuing run's sum, or kNoKey (`no_partial`). `buckets` are the
// pass's run sums (msm_impl.cuh), indexed with `first_window`.
//
// A run begins in exactly one thread of a launch: that thread writes the bucket and the threads
// the run continues into leave partials, so a bucket is written at most once per launch. A
// combining level hands on only the runs that still continue across its threads' ranges, so
// after the first level almost every slot holds kNoKey and the later levels (one launch per
// factor of the fan-in, down to one thread) add almost nothing. They used to carry every
// thread's first run, complete or not, through all of them: a chain of additions per level,
// latency-bound, ~60 µs a level for BLS12-381 G1.
//
// The accumulation launch *stores* into the bucket (`store`): a bucket's run begins in one
// thread only, so that thread writes first, and the run sums start each pass at infinity.
// Storing matters for speed, not correctness: a warp whose lanes end runs at different
// iterations executes every lane's emit in turn, and with short runs (wide windows, shifted
// bases: ~32 entries a run) some lane ends a run nearly every iteration; a store (no read, no
// full addition) keeps that divergent path short. The combining launches, which add the rest
// of a run cut between threads, read-modify-write.
template <class Bucket>
struct RunSink {
  Bucket* buckets;
  KeyLayout layout;
  unsigned first_set;  // the bucket set of the pass's first window (KeyLayout::bucket)
  uint32_t* partial_keys;
  Bucket* partials;
  size_t slot;
  bool last_level;  // a single thread: even a continuing run is complete
  bool store;       // the accumulation launch: the bucket holds nothing of this pass yet

  // continues: the run continues one of earlier threads (the thread's first run, at most).
  CUZK_HD void emit(bool continues, uint32_t key, const Bucket& sum) const {
    if (continues && !last_level) {
      partial_keys[slot] = key;
      partials[slot] = sum;
    } else {
      Bucket& bucket = buckets[layout.bucket(key, first_set)];
      bucket = store ? sum : bucket + sum;
    }
  }
  // The thread leaves no partial: its first run began in its range, or it had no entries.
  CUZK_HD void no_partial() const {
    if (!last_level) partial_keys[slot] = kNoKey;
  }
};

// The running sum of an accumulation thread, in registers. The device may keep it elsewhere
// (kernels.cuh: SharedSum keeps it in shared memory) behind the same three operations.
template <class Bucket>
struct RegisterSum {
  Bucket acc;
  CUZK_HD void reset() { acc = Bucket::infinity(); }
  template <class Base>
  CUZK_HD void add(const Base& base) {
    acc = acc.add(base);
  }
  CUZK_HD Bucket value() const { return acc; }
};

// Asks the device to bring *p's cache lines into L2 (no effect on the host).
template <class T>
CUZK_HD void prefetch_l2(const T* p) {
#if defined(__CUDA_ARCH__)
  // A line (128 bytes) at a time from the first byte, and the line of the last byte.
  const char* bytes = reinterpret_cast<const char*>(p);
  for (size_t offset = 0; offset < sizeof(T); offset += 128) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(bytes + offset));
  }
  asm volatile("prefetch.global.L2 [%0];" ::"l"(bytes + sizeof(T) - 1));
#else
  (void)p;
#endif
}

// Accumulation thread: sorted entries [begin, min(begin + per_thread, live_end)), each adding
// its base (negated for a negative digit) to the sum of its run. kPrefetchBases: each entry's
// base is asked into L2 one addition ahead (tuning.hpp: prefetches_bases).
template <class Bucket, class Base, class Sum = RegisterSum<Bucket>, bool kPrefetchBases = false>
CUZK_HD void accumulate(size_t begin, size_t per_thread, size_t live_end, const uint32_t* keys,
                        const uint32_t* values, const Base* bases, const RunSink<Bucket>& sink,
                        Sum sum = {}) {
  if (begin >= live_end) {
    sink.no_partial();
    return;
  }
  const size_t end = begin + per_thread < live_end ? begin + per_thread : live_end;
  uint32_t key = keys[begin];
  sum.reset();
  bool continues = begin > 0 && keys[begin - 1] == key;
  if (!continues) sink.no_partial();
  // The value of the next entry is read an iteration ahead (and, with kPrefetchBases, its base
  // is asked into L2 before this entry's addition): the addition hides the latencies.
  uint32_t v = values[begin];
  uint32_t v_next = begin + 1 < end ? values[begin + 1] : 0;
  for (size_t p = begin; p < end; ++p) {
    const uint32_t k = keys[p];
    if (k != key) {
      sink.emit(continues, key, sum.value());
      continues = false;
      key = k;
      sum.reset();
    }
    Base base = bases[v & kMaxBaseIndex];
    if (kPrefetchBases && p + 1 < end) prefetch_l2(bases + (v_next & kMaxBaseIndex));
    const uint32_t v_after = p + 2 < end ? values[p + 2] : 0;
    if (v & kNegativeFlag) base = -base;
    sum.add(base);
    v = v_next;
    v_next = v_after;
  }
  sink.emit(continues, key, sum.value());
}

// One level of partials: slots [begin, min(begin + per_thread, count)) by runs of equal keys,
// skipping kNoKey slots. The keys of the other slots are non-decreasing, and a key's slots are
// consecutive (a run that continues into several threads leaves a partial in each of them), so
// the first run continues one of earlier threads only if it starts at `begin` and the slot
// before holds its key.
template <class Bucket>
CUZK_HD void combine_partials(size_t begin, size_t per_thread, size_t count,
                              const uint32_t* in_keys, const Bucket* in,
                              const RunSink<Bucket>& sink) {
  const size_t end = begin + per_thread < count ? begin + per_thread : count;
  size_t p = begin;
  while (p < end && in_keys[p] == kNoKey) ++p;
  if (p >= end) {  // no slots (begin ≥ count) or none holding a key
    sink.no_partial();
    return;
  }
  uint32_t key = in_keys[p];
  bool continues = p == begin && begin > 0 && in_keys[begin - 1] == key;
  if (!continues) sink.no_partial();
  Bucket acc = Bucket::infinity();
  for (; p < end; ++p) {
    const uint32_t k = in_keys[p];
    if (k == kNoKey) continue;
    if (k != key) {
      sink.emit(continues, key, acc);
      continues = false;
      key = k;
      acc = Bucket::infinity();
    }
    acc = acc + in[p];
  }
  sink.emit(continues, key, acc);
}

// Folds one pass's run sum into its bucket and resets the run sum to infinity for the next
// pass (passes whose buckets were touched before: shifted bases, staged chunks).
template <class Bucket>
CUZK_HD void merge_run_sum(Bucket& bucket, Bucket& run_sum) {
  bucket = bucket + run_sum;
  run_sum = Bucket::infinity();
}

// k·p for a small k by double-and-add from the top bit.
template <class Bucket>
CUZK_HD Bucket small_multiple(const Bucket& p, uint64_t k) {
  Bucket acc = Bucket::infinity();
  int top = 63;
  while (top > 0 && ((k >> top) & 1) == 0) --top;
  for (int bit = top; bit >= 0; --bit) {
    acc = acc.dbl();
    if ((k >> bit) & 1) acc = acc + p;
  }
  return acc;
}

// The segment of a window's buckets [a, a + L) (`segment` points at bucket a) contributes
//   Σ_(j<L) (a + j + 1)·B_(a+j) = Σ_(j<L) R_j + a·R_0,  R_j = B_(a+L−1) + ... + B_(a+j):
// running sums from the top (2L full additions) plus a small multiple (a < 2^(c−1)).
template <class Bucket>
CUZK_HD Bucket reduce_segment(const Bucket* segment, size_t length, size_t a) {
  Bucket running = Bucket::infinity();
  Bucket sum = Bucket::infinity();
  for (size_t j = length; j-- > 0;) {
    running = running + segment[j];
    sum = sum + running;
  }
  return sum + small_multiple(running, uint64_t(a));
}

// The segment a reduction thread takes: thread t reduces segment t mod S of set ⌊t/S⌋ (S
// segments of L buckets per set; the last of a set holds what is left).
struct SegmentOf {
  size_t first;   // bucket index in the whole array
  size_t length;  // buckets
  size_t offset;  // the first bucket's index within its set (a above)
};
CUZK_HD SegmentOf segment_of(size_t t, size_t buckets_per_set, size_t segments_per_set,
                             size_t segment_buckets) {
  const size_t set = t / segments_per_set;
  const size_t offset = t % segments_per_set * segment_buckets;
  const size_t left = buckets_per_set - offset;
  return {set * buckets_per_set + offset, left < segment_buckets ? left : segment_buckets, offset};
}

// Σ of the selected bases among kSelectionWordsPerThread bitmap words from base `first` (a
// multiple of 64); `bases` holds the bases from `bases_first` on; bits at or past n are ignored.
// One loop over the thread's set bits, whichever word they are in: a warp runs as many
// additions as its lane with the most set bits has, where a loop per word would run, word after
// word, as many as the fullest lane of that word (for 40% ones, about 35 of 64 per word against
// about 26 on average).
template <class Bucket, class Base>
CUZK_HD Bucket sum_selected_words(const Base* bases, size_t bases_first, size_t first, size_t n,
                                  const uint64_t* selection) {
  // The bits of word w, those at or past n cleared.
  const auto word_bits = [&](size_t w) -> uint64_t {
    const size_t word_base = first + 64 * w;
    if (word_base >= n) return 0;
    const uint64_t bits = selection[word_base / 64];
    return n - word_base < 64 ? bits & ((uint64_t(1) << (n - word_base)) - 1) : bits;
  };
  Bucket acc = Bucket::infinity();
  size_t word = 0;
  uint64_t bits = word_bits(0);
  for (;;) {
    while (bits == 0) {
      if (++word >= kSelectionWordsPerThread) return acc;
      bits = word_bits(word);
    }
#if defined(__CUDA_ARCH__)
    const unsigned b = unsigned(__ffsll(static_cast<long long>(bits)) - 1);
#else
    const unsigned b = unsigned(std::countr_zero(bits));
#endif
    bits &= bits - 1;
    acc = acc.add(bases[first + 64 * word - bases_first + b]);
  }
}

}  // namespace cuzk::gpu::msm::work
