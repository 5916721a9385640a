#pragma once
// The kernels of the GPU MSM (device code; included by msm_impl.cuh only). Each is a thin
// wrapper around the per-thread work of thread_work.hpp, which a host test runs too.
//
// Pipeline of one MSM (msm_impl.cuh enqueues it):
//   to_canonical     Montgomery scalars → integers, gathered through MsmConfig::scalar_index
//                    (skipped for canonical input without an index, and where digits makes
//                    the integers itself)
//   digits           per (scalar, window of the pass): sort key and value (digits.hpp)
//   CUB radix sort   by key: each bucket's entries become one contiguous run
//   count_nonzero    where the zero digits (sentinel keys) begin
//                    With MsmConfig::scalar_counts, `digits` is replaced by pass_pairs (each
//                    scalar's pairs: 0 for a zero, 1 for a one, W for the others), a CUB prefix
//                    sum (their first slots) and compact_digits, and the sort covers the pairs
//                    the counts allow, the rest of that range keeping the filler key 0xffffffff
//   accumulate       thread t adds sorted entries [tL, tL + L) into XYZZ sums, one per run of
//                    equal keys, whatever the buckets' lengths (skewed scalars do not
//                    serialize): runs that begin inside the range go into their bucket, the run
//                    the range begins with (possibly begun earlier) into a partial slot;
//                    accumulate_shared is the same with the running sums in shared memory
//   combine_partials the partial slots, the same way, 4 per thread, level after level, until
//                    one thread is left, whose first run goes into its bucket as well
//   merge_run_sums   when buckets outlive a pass (shifted bases, staged chunks): the pass's
//                    run sums (where the two steps above wrote) added into the buckets
//   reduce_segments  per (window, segment of L buckets): Σ_j (j + 1)·B_j by running sums
//   sum_groups       segment results summed 32 at a time (a warp's tree) down to one per window
//   horner           Σ_s B^s·S_s over the bucket sets (B = 2^c per window, the radix to the
//                    R-th power per group of a partial shifted table's R rows), plus an
//                    optional addend
// A bucket receives at most one read-modify-write per launch, from the thread in whose range
// its run (or run of partials) begins, so no atomics are needed; launches on one stream are
// ordered.

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"
#include "gpu/msm/digits.hpp"
#include "gpu/msm/thread_work.hpp"
#include "gpu/msm/tuning.hpp"

namespace cuzk::gpu::msm {

// G2's coordinates lie in Fp2, whose elements have components c0 and c1.
template <class Curve>
constexpr Group group_of() {
  constexpr bool quadratic = requires(typename Curve::Base f) { f.c0; };
  return quadratic ? Group::kG2 : Group::kG1;
}

}  // namespace cuzk::gpu::msm

namespace cuzk::gpu::msm::kernels {

inline unsigned blocks_for(size_t threads) {
  return unsigned((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

__device__ inline size_t thread_index() { return size_t(blockIdx.x) * blockDim.x + threadIdx.x; }

// out[i] = the integer of scalar index[i] (i without an index), from Montgomery form or
// copied from canonical input.
template <class Fr>
__global__ void to_canonical(const Fr* in, const uint32_t* index, bool montgomery,
                             typename Fr::Int* out, size_t n) {
  const size_t i = thread_index();
  if (i >= n) return;
  const size_t j = index != nullptr ? index[i] : i;
  out[i] = montgomery ? in[j].to_int() : reinterpret_cast<const typename Fr::Int*>(in)[j];
}

// points[0, count) = Point::infinity(), stored as Word-sized pieces of the point so that
// consecutive threads write consecutive words (a thread per point wrote 4- to 8-byte pieces a
// point apart: ~300 GB/s, 3.9 ms for the 2^19·13 buckets of a G1 MSM at c = 20). The launch's
// thread count must be a multiple of the words per point (fill_infinity in msm_impl.cuh), so
// that each thread stores the same word of every point it reaches.
template <class Point, class Word>
__global__ void fill_infinity_words(Point* points, size_t count) {
  static_assert(sizeof(Point) % sizeof(Word) == 0);
  constexpr size_t kWords = sizeof(Point) / sizeof(Word);
  const size_t first = thread_index();
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  const Point infinity = Point::infinity();
  const Word word = reinterpret_cast<const Word*>(&infinity)[first % kWords];
  Word* out = reinterpret_cast<Word*>(points);
  for (size_t i = first; i < count * kWords; i += stride) out[i] = word;
}

// With `device_count`, entries from *device_count on are zero digits; with `index_map`, entry
// i is scalar (and base) index_map[i]. Scalars are integers (Fr::Int, from to_canonical or
// canonical input), whose limbs the digits read where they lie (a copy in the thread's local
// memory cost 19% of the kernel: 0.639 → 0.760 ms at 2^24, H200), or Montgomery-form elements
// (Fr), each then made an integer here (one product), which spares to_canonical's kernel and
// pass over the scalars.
// Shifted tables of an odd radix (layout.divisor.m > 1) make their digits by division instead
// (work::radix_digits).
template <class Fr, size_t I>
inline constexpr uint64_t kScalarModulusLimb = Fr::kModulus.limb[I];

template <class Fr, size_t... I>
__device__ void radix_digits_of(const uint64_t* limbs, std::index_sequence<I...>, size_t count,
                                size_t i, bool live, uint32_t index, const KeyLayout& layout,
                                unsigned first_window, uint32_t* keys, uint32_t* values) {
  const uint64_t modulus[] = {kScalarModulusLimb<Fr, I>...};
  work::radix_digits<Fr::kLimbs>(limbs, modulus, unsigned(Fr::kBits), count, i, live, index,
                                 layout, first_window, keys, values);
}

template <class Fr, class Scalar>
__global__ void digits(const Scalar* scalars, size_t count, const uint32_t* device_count,
                       const uint32_t* index_map, KeyLayout layout, unsigned first_window,
                       uint32_t* keys, uint32_t* values) {
  const size_t i = thread_index();
  if (i >= count) return;
  const bool live = device_count == nullptr || i < *device_count;
  const uint32_t index = !live ? 0u : index_map != nullptr ? index_map[i] : uint32_t(i);
  const auto make = [&](const uint64_t* limbs) {
    if (layout.divisor.m > 1) {
      radix_digits_of<Fr>(limbs, std::make_index_sequence<Fr::kLimbs>{}, count, i, live, index,
                          layout, first_window, keys, values);
    } else {
      work::digits(limbs, Fr::kLimbs, count, i, live, index, layout, first_window, keys, values);
    }
  };
  if constexpr (std::is_same_v<Scalar, Fr>) {
    const typename Fr::Int k = live ? scalars[index].to_int() : typename Fr::Int{};
    make(k.limb);
  } else {
    make(scalars[index].limb);
  }
}

// Compact pairs (MsmConfig::scalar_counts), first step: each scalar's number of pairs in the
// pass, which a prefix sum turns into its first slot.
template <unsigned kLimbs>
__global__ void pass_pairs(const uint64_t* scalars, size_t count, unsigned first_window,
                           unsigned windows_in_pass, uint32_t* pairs) {
  const size_t i = thread_index();
  if (i >= count) return;
  pairs[i] = work::pass_pairs(scalars + i * kLimbs, kLimbs, first_window, windows_in_pass);
}

// Compact pairs, last step: the pairs of scalar i from slot first[i] on, below `bound`.
template <unsigned kLimbs>
__global__ void compact_digits(const uint64_t* scalars, size_t count, const uint32_t* first,
                               size_t bound, KeyLayout layout, unsigned first_window,
                               uint32_t* keys, uint32_t* values) {
  const size_t i = thread_index();
  if (i >= count) return;
  work::compact_digits(scalars, kLimbs, i, first[i], bound, layout, first_window, keys, values);
}

__global__ inline void count_nonzero(const uint32_t* keys, size_t count, uint32_t sentinel,
                                     uint32_t* out) {
  if (thread_index() == 0) *out = uint32_t(work::first_at_least(keys, count, sentinel));
}

// kMinBlocks: blocks per SM the registers must allow (0: no bound). See
// tuning.hpp: kAccumulateOccupancies.
template <class Curve, unsigned kMinBlocks>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocks)
    accumulate(const uint32_t* keys, const uint32_t* values, const uint32_t* nonzero,
               size_t per_thread, size_t threads, const ec::Affine<Curve>* bases,
               work::RunSink<ec::Xyzz<Curve>> sink) {
  const size_t t = thread_index();
  if (t >= threads) return;
  sink.slot = t;
  work::accumulate<ec::Xyzz<Curve>, ec::Affine<Curve>, work::RegisterSum<ec::Xyzz<Curve>>,
                   prefetches_bases(group_of<Curve>())>(t * per_thread, per_thread, *nonzero, keys,
                                                        values, bases, sink);
}

// An accumulation thread's running XYZZ sum in shared memory, word-major across the block
// (word i of thread t at i·kThreadsPerBlock + t, so a warp's accesses fall in distinct banks).
// ec::add_in_place (or, for G1 of BLS12-381, add_with_shared_operands) reads each coordinate
// where the formula needs it and writes it back when final; the volatile accesses keep the
// compiler from holding the coordinates in registers across the formula, which is the point:
// a BLS12-381 G2 sum is 96 registers, and with it held whole the addition spilled to local
// memory at every occupancy.
template <class Curve>
struct SharedSum {
  using Point = ec::Xyzz<Curve>;
  using Field = typename Curve::Base;
  static_assert(sizeof(Field) % sizeof(uint64_t) == 0);
  static constexpr unsigned kFieldWords = sizeof(Field) / sizeof(uint64_t);
  // Fields whose products are calls (ff::Field::kOutlinedDeviceProducts: BLS12-381 Fp, so
  // G1) pass those calls shared-memory operands (add_with_shared_operands), with four
  // temporaries of the formula beside the sum. (The stride in the test is any stride: the
  // question is whether the field has the function.)
  static constexpr bool kSharedOperands = requires(uint32_t a) {
    requires Field::kOutlinedDeviceProducts;
    Field::template product_of_shared<8>(a, a);
  };
  static constexpr unsigned kTemporaries = kSharedOperands ? 4 : 0;
  static constexpr unsigned kWords = (4 + kTemporaries) * kFieldWords;
  static constexpr unsigned kStride = kThreadsPerBlock * sizeof(uint64_t);

  volatile uint64_t* words;  // this thread's word 0

  __device__ Field get(unsigned first) const {
    Field f;
    auto* out = reinterpret_cast<uint64_t*>(&f);
    for (unsigned i = 0; i < kFieldWords; ++i) out[i] = words[(first + i) * kThreadsPerBlock];
    return f;
  }
  __device__ void put(unsigned first, const Field& f) const {
    const auto* in = reinterpret_cast<const uint64_t*>(&f);
    for (unsigned i = 0; i < kFieldWords; ++i) words[(first + i) * kThreadsPerBlock] = in[i];
  }
  __device__ Field x() const { return get(0); }
  __device__ Field y() const { return get(kFieldWords); }
  __device__ Field zz() const { return get(2 * kFieldWords); }
  __device__ Field zzz() const { return get(3 * kFieldWords); }
  __device__ void set_x(const Field& f) const { put(0, f); }
  __device__ void set_y(const Field& f) const { put(kFieldWords, f); }
  __device__ void set_zz(const Field& f) const { put(2 * kFieldWords, f); }
  __device__ void set_zzz(const Field& f) const { put(3 * kFieldWords, f); }
  __device__ Point load() const { return {x(), y(), zz(), zzz()}; }
  __device__ void store(const Point& p) const {
    set_x(p.X);
    set_y(p.Y);
    set_zz(p.ZZ);
    set_zzz(p.ZZZ);
  }

  // work::accumulate's running-sum operations.
  __device__ void reset() const { store(Point::infinity()); }
  __device__ void add(const ec::Affine<Curve>& base) {
    if constexpr (kSharedOperands) {
      add_with_shared_operands(base);
    } else {
      ec::add_in_place(*this, base);
    }
  }
  __device__ Point value() const { return load(); }

 private:
  // ec::add_in_place's madd-2008-s, each product's operands read by the called product from
  // the sum's coordinates and temporaries t0..t3 in shared memory: a call takes two to four
  // addresses instead of 12 words an operand moved into its argument registers, and no value
  // lives in registers across a call.
  __device__ uint32_t at(unsigned field) const {
    return uint32_t(__cvta_generic_to_shared(const_cast<uint64_t*>(words))) +
           field * kFieldWords * kStride;
  }
  __device__ Field get_field(unsigned field) const {
    return Field::template load_shared<kStride>(at(field));
  }
  __device__ void put_field(unsigned field, const Field& f) const {
    Field::template store_shared<kStride>(at(field), f);
  }
  __device__ void add_with_shared_operands(const ec::Affine<Curve>& q) {
    // The sum's coordinates, then the temporaries: t0 holds q.x, then P, then R² − PPP; t1
    // q.y, then R; t2 PP, then X·PP − X3; t3 PPP.
    enum : unsigned { kX, kY, kZz, kZzz, kT0, kT1, kT2, kT3 };
    if (q.is_infinity()) return;
    if (get_field(kZz).is_zero()) {
      store(Point::from_affine(q));
      return;
    }
    put_field(kT0, q.x);
    put_field(kT1, q.y);
    const Field p = Field::template product_of_shared<kStride>(at(kT0), at(kZz)) - get_field(kX);
    const bool p_is_zero = p.is_zero();
    put_field(kT0, p);
    const Field r = Field::template product_of_shared<kStride>(at(kT1), at(kZzz)) - get_field(kY);
    if (p_is_zero) {  // q is ± the sum
      store(r.is_zero() ? load().dbl() : Point::infinity());
      return;
    }
    put_field(kT1, r);
    put_field(kT2, Field::template square_of_shared<kStride>(at(kT0)));
    put_field(kT3, Field::template product_of_shared<kStride>(at(kT0), at(kT2)));
    put_field(kZz, Field::template product_of_shared<kStride>(at(kZz), at(kT2)));
    put_field(kZzz, Field::template product_of_shared<kStride>(at(kZzz), at(kT3)));
    put_field(kT0, Field::template square_of_shared<kStride>(at(kT1)) - get_field(kT3));
    const Field q_term = Field::template product_of_shared<kStride>(at(kX), at(kT2));
    const Field x3 = get_field(kT0) - q_term.dbl();
    put_field(kX, x3);
    put_field(kT2, q_term - x3);
    put_field(kY, Field::template difference_of_products_of_shared<kStride>(at(kT1), at(kT2),
                                                                            at(kY), at(kT3)));
  }
};

// accumulate with the running sums in shared memory (SharedSum).
template <class Curve, unsigned kMinBlocks>
__global__ void __launch_bounds__(kThreadsPerBlock, kMinBlocks)
    accumulate_shared(const uint32_t* keys, const uint32_t* values, const uint32_t* nonzero,
                      size_t per_thread, size_t threads, const ec::Affine<Curve>* bases,
                      work::RunSink<ec::Xyzz<Curve>> sink) {
  __shared__ uint64_t sums[SharedSum<Curve>::kWords * kThreadsPerBlock];
  const size_t t = thread_index();
  if (t >= threads) return;
  sink.slot = t;
  work::accumulate<ec::Xyzz<Curve>, ec::Affine<Curve>, SharedSum<Curve>,
                   prefetches_bases(group_of<Curve>())>(t * per_thread, per_thread, *nonzero, keys,
                                                        values, bases, sink,
                                                        SharedSum<Curve>{sums + threadIdx.x});
}

template <class Curve>
__global__ void __launch_bounds__(kThreadsPerBlock)
    combine_partials(const uint32_t* in_keys, const ec::Xyzz<Curve>* in, size_t count,
                     size_t per_thread, size_t threads, work::RunSink<ec::Xyzz<Curve>> sink) {
  const size_t t = thread_index();
  if (t >= threads) return;
  sink.slot = t;
  work::combine_partials<ec::Xyzz<Curve>>(t * per_thread, per_thread, count, in_keys, in, sink);
}

template <class Curve>
__global__ void __launch_bounds__(kThreadsPerBlock)
    merge_run_sums(ec::Xyzz<Curve>* buckets, ec::Xyzz<Curve>* run_sums, size_t count) {
  const size_t i = thread_index();
  if (i < count) work::merge_run_sum(buckets[i], run_sums[i]);
}

// Thread t = w·segments_per_set + s reduces segment s of set w (work::segment_of; the sets
// are contiguous in `buckets`).
template <class Curve>
__global__ void __launch_bounds__(kThreadsPerBlock)
    reduce_segments(const ec::Xyzz<Curve>* buckets, size_t buckets_per_set, size_t segments_per_set,
                    size_t segment_buckets, unsigned sets, ec::Xyzz<Curve>* out) {
  const size_t t = thread_index();
  if (t >= size_t(sets) * segments_per_set) return;
  const work::SegmentOf s = work::segment_of(t, buckets_per_set, segments_per_set, segment_buckets);
  out[t] = work::reduce_segment(buckets + s.first, s.length, s.offset);
}

// p's 64-bit words from the lane `offset` above in the warp (all 32 lanes take part).
template <class Point>
__device__ Point shuffle_down(const Point& p, unsigned offset) {
  static_assert(sizeof(Point) % sizeof(uint64_t) == 0);
  Point out;
  const auto* in = reinterpret_cast<const unsigned long long*>(&p);
  auto* words = reinterpret_cast<unsigned long long*>(&out);
  for (size_t i = 0; i < sizeof(Point) / sizeof(uint64_t); ++i) {
    words[i] = __shfl_down_sync(0xffffffffu, in[i], offset);
  }
  return out;
}

static_assert(kSumGroup <= 32, "sum_groups sums a group in one warp");
inline constexpr unsigned kSumGroupThreads = 32;  // a warp per group

// `in` holds `sets` sets of per_set elements, each summed in groups of `group` ≤ 32 (the last
// group of a set may be shorter): out[s·G + g] = Σ of group g of set s, G = ⌈per_set/group⌉, by
// one warp, one element a lane, added in a tree across the lanes (5 additions in sequence; a
// thread adding the group's elements one after another took group − 1, and these levels are
// latency-bound tails: few groups, one thread's chain of additions each).
template <class Point>
__global__ void __launch_bounds__(kThreadsPerBlock)
    sum_groups(const Point* in, size_t sets, size_t per_set, size_t group, Point* out) {
  static_assert(kThreadsPerBlock % 32 == 0, "whole warps: every lane takes part in the shuffles");
  const size_t g = thread_index() / 32;
  const unsigned lane = threadIdx.x % 32;
  const size_t groups_per_set = (per_set + group - 1) / group;
  if (g >= sets * groups_per_set) return;  // the whole warp: g is the same for its lanes
  const size_t i = g % groups_per_set * group + lane;  // within the set
  Point acc =
      lane < group && i < per_set ? in[g / groups_per_set * per_set + i] : Point::infinity();
  for (unsigned offset = 16; offset > 0; offset /= 2) acc = acc + shuffle_down(acc, offset);
  if (lane == 0) out[g] = acc;
}

// *result = Σ_w 2^(c·w)·window_sums[w] (+ *addend): Horner from the top window, doubling in
// Jacobian coordinates (2M + 5S). One thread: about W·c doublings in sequence.
template <class Curve>
__global__ void horner(const ec::Xyzz<Curve>* window_sums, unsigned windows, unsigned shift,
                       uint32_t odd, unsigned odd_multiplications, const ec::Xyzz<Curve>* addend,
                       ec::Jacobian<Curve>* result) {
  if (thread_index() != 0) return;
  ec::Jacobian<Curve> acc = ec::Jacobian<Curve>::infinity();
  for (unsigned w = windows; w-- > 0;) {
    if (!acc.is_infinity()) {
      for (unsigned k = 0; k < odd_multiplications; ++k) acc = work::small_multiple(acc, odd);
      for (unsigned k = 0; k < shift; ++k) acc = acc.dbl();
    }
    acc = acc + window_sums[w].to_jacobian();
  }
  if (addend != nullptr) acc = acc + addend->to_jacobian();
  *result = acc;
}

// Thread t of a chunk sums the selected bases of kSelectionWordsPerThread bitmap words from
// base chunk_first + t·kPointsPerSelectionThread; `bases` holds the chunk's bases.
// partials are indexed by the global thread number.
template <class Curve>
__global__ void __launch_bounds__(kThreadsPerBlock)
    selection_partials(const ec::Affine<Curve>* bases, size_t chunk_first, size_t chunk_size,
                       size_t n, const uint64_t* selection, ec::Xyzz<Curve>* partials) {
  const size_t local_first = thread_index() * kPointsPerSelectionThread;
  if (local_first >= chunk_size) return;
  const size_t first = chunk_first + local_first;
  partials[first / kPointsPerSelectionThread] =
      work::sum_selected_words<ec::Xyzz<Curve>, ec::Affine<Curve>>(bases, chunk_first, first, n,
                                                                   selection);
}

// One row of a shifted table: out[j] = B·in[j] for j < count, B = odd·2^c. Thread t takes
// kShiftPointsPerThread consecutive points: a multiplication by odd and c doublings each in
// Jacobian coordinates (kept in `scratch`), then one inversion for all of them
// (ec::batch_to_affine). Infinity stays infinity.
template <class Curve>
__global__ void __launch_bounds__(kThreadsPerBlock)
    shift_row(const ec::Affine<Curve>* in, size_t count, unsigned c, uint32_t odd,
              ec::Jacobian<Curve>* scratch, ec::Affine<Curve>* out) {
  const size_t first = thread_index() * kShiftPointsPerThread;
  if (first >= count) return;
  const size_t last = first + kShiftPointsPerThread < count ? first + kShiftPointsPerThread : count;
  for (size_t j = first; j < last; ++j) {
    ec::Jacobian<Curve> q = ec::Jacobian<Curve>::from_affine(in[j]);
    if (odd > 1) q = work::small_multiple(q, odd);
    for (unsigned k = 0; k < c; ++k) q = q.dbl();
    scratch[j] = q;
  }
  ec::batch_to_affine(scratch + first, out + first, last - first);
}

// Scalar classes: zero has zero words in either form; one is R (Montgomery) or 1 (canonical).
template <class Fr>
__device__ bool scalar_is_one(const Fr& s, bool montgomery) {
  if (montgomery) return s == Fr::one();
  bool one = s.mont[0] == 1;
  for (size_t i = 1; i < Fr::kLimbs; ++i) one = one && s.mont[i] == 0;
  return one;
}

template <class Fr>
struct IsOther {
  const Fr* scalars;
  bool montgomery;
  __device__ bool operator()(uint32_t i) const {
    const Fr s = scalars[i];
    return !s.is_zero() && !scalar_is_one(s, montgomery);
  }
};

// The bitmap of ones as 32-bit halves of the 64-bit words (little-endian: word w is halves 2w,
// 2w + 1), one warp ballot per half. Launched with whole warps over every half, so the bits
// past n come out clear.
template <class Fr>
__global__ void ones_bitmap(const Fr* scalars, size_t n, bool montgomery, uint32_t* halves,
                            size_t half_count) {
  const size_t i = thread_index();
  const bool one = i < n && scalar_is_one(scalars[i], montgomery);
  const unsigned mask = __ballot_sync(0xffffffffu, one);
  if ((threadIdx.x & 31) == 0 && i / 32 < half_count) halves[i / 32] = mask;
}

// count_scalars: each thread counts a grid-strided share, each warp sums its threads' counts
// and lane 0 adds them to the two totals. A bounded grid keeps the atomics on the two totals
// few (with one per warp of 32 scalars, the three counts of a 2^27 partition took 18 ms on the
// H200, waiting on the two addresses).
inline constexpr unsigned kCountBlocks = 2048;

template <class Fr>
__global__ void count_scalar_classes(const Fr* scalars, const uint32_t* index, size_t n,
                                     bool montgomery, unsigned long long* ones,
                                     unsigned long long* others) {
  uint32_t one_count = 0, other_count = 0;
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t i = thread_index(); i < n; i += stride) {
    const Fr s = scalars[index != nullptr ? index[i] : i];
    const bool one = scalar_is_one(s, montgomery);
    one_count += one;
    other_count += !one && !s.is_zero();
  }
  one_count = __reduce_add_sync(0xffffffffu, one_count);
  other_count = __reduce_add_sync(0xffffffffu, other_count);
  if ((threadIdx.x & 31) == 0) {
    if (one_count != 0) atomicAdd(ones, (unsigned long long)one_count);
    if (other_count != 0) atomicAdd(others, (unsigned long long)other_count);
  }
}

}  // namespace cuzk::gpu::msm::kernels
