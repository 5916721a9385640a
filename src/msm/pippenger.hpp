#pragma once
// Pippenger's multi-scalar multiplication Σ k_i·P_i on the CPU: the reference that the GPU MSM
// is checked against, and the fallback with no GPU.
//
// Method. Each scalar is cut into W signed c-bit digits (signed_digits.hpp). For window w the
// bases are dropped into 2^(c−1) buckets by |digit| (negated when the digit is negative); the
// buckets B_1..B_m combine as Σ j·B_j by running sums (R_j = B_m + ... + B_j, S = Σ R_j: 2m
// additions); the window sums S_w combine by Horner's rule, c doublings between windows, in
// Jacobian coordinates (dbl 2M + 5S).
//
// Bucket accumulation, the bulk of the work (W·n additions against W·2^c for the rest):
//   batch-affine (affine_buckets.hpp), for wide enough windows: affine buckets, slopes
//     inverted a batch at a time; 5M + 1S per addition; and the bucket reduction in lanes of
//     batch-affine additions;
//   XYZZ, for narrower windows, where the buckets are too few to fill a batch of independent
//     additions: mixed additions into XYZZ buckets, 8M + 2S.
// The choice, the window and the batch sizes come from cpu_tuning.hpp, by size and by coordinate
// field (G2's cheaper inversions make batch-affine pay earlier); PippengerOptions can force
// either.
//
// Parallelism: tiles of (window, chunk of points), run with oneTBB; each tile writes its sum to
// its own slot and the slots are added in a fixed order, so the result (its coordinates, not
// only the point) does not depend on the number of threads. See cpu_tuning.hpp for the sizes.
//
// Endomorphism (ec/glv.hpp): on groups with a GLV endomorphism φ (all four here) each scalar
// k is first split into k1 + k2·λ with |k1|, |k2| < 2^127, and the MSM runs over the 2n
// points ±P_i, ±φ(P_i) with half-length scalars: the same n·W additions at a window width, but
// half the windows, so the bucket reductions are paid half as often, and no nearly empty top
// window (BN254's 254-bit scalars left 3 bits to the last 12-bit window, whose few buckets sent
// most of its additions to the XYZZ spill). The split costs a few 64-bit products per scalar
// and φ one multiplication per base. 2^16 random scalars, one thread, best of 3, split against
// plain, each at its best width: BN254 G1 321 → 310 ms, G2 794 → 750 ms; BLS12-381 G1
// 692 → 636 ms, G2 1808 → 1631 ms (src/msm/README.md).
//
// Bases at infinity and zero digits are skipped. The bases are trusted (keys are validated
// when loaded): a point off the curve gives a meaningless result, not an error.
//
// Thread-safety: stateless; runs on the calling thread and oneTBB workers.

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ec/affine.hpp"
#include "ec/glv.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"
#include "ff/bigint.hpp"
#include "msm/affine_buckets.hpp"
#include "msm/batch_inversion.hpp"
#include "msm/signed_digits.hpp"
#include "msm/cpu_tuning.hpp"
#include "util/error.hpp"
#include "util/huge_pages.hpp"

namespace cuzk::msm {

// The canonical integer (< r) of a scalar of Curve.
template <class Curve>
using ScalarInt = typename Curve::Scalar::Int;

// How the buckets are filled (see the top of this file).
enum class BucketAccumulation {
  kAuto,         // batch-affine from batch_affine_min_window_bits (cpu_tuning.hpp) on
  kXyzz,         // mixed additions into XYZZ buckets
  kBatchAffine,  // batch-affine at any width
};

struct PippengerOptions {
  unsigned window_bits = 0;     // 1..kMaxWindowBits; 0: window_bits_for(n, field)
  size_t points_per_chunk = 0;  // 0: from n and the window (cpu_tuning.hpp)
  BucketAccumulation accumulation = BucketAccumulation::kAuto;
  size_t batch_size = 0;  // batch-affine additions per batch; 0: batch_affine_size(c)
  // Batch-affine reduction of the buckets (AffineBuckets::weighted_sum): 0: reduction_lanes(c);
  // 1: XYZZ running sums; S ≥ 2: S lanes.
  size_t reduction_lanes = 0;
  // Split the scalars with the group's GLV endomorphism where it has one (top of this file);
  // false: the plain method over n points of full-length scalars.
  bool endomorphism = true;
};

// How one MSM is cut into tiles, and how each tile fills its buckets.
struct PippengerPlan {
  unsigned window_bits;
  unsigned windows;
  size_t chunk_points;
  size_t chunks;
  size_t batch_size;       // 0: XYZZ buckets; else batch-affine with batches of this many additions
  size_t reduction_lanes;  // batch-affine only: see AffineBuckets::weighted_sum
};

// The coordinate field of a group, for the tuning tables.
template <class Curve>
constexpr CoordinateField coordinate_field() {
  return detail::QuadraticExtension<typename Curve::Base> ? CoordinateField::kQuadratic
                                                          : CoordinateField::kPrime;
}

// The plan for `terms` sums over n indices with scalars of `scalar_bits` bits (one sum for a
// plain MSM, two after a GLV split): the window and the chunking see terms·n points, chunks cut
// the index range, and each tile adds every term of its indices into one set of buckets.
template <class Curve>
PippengerPlan plan_pippenger(size_t n, const PippengerOptions& options,
                             size_t scalar_bits = Curve::Scalar::kBits, size_t terms = 1) {
  constexpr CoordinateField kField = coordinate_field<Curve>();
  const size_t points = n * terms;
  const unsigned c =
      options.window_bits != 0 ? options.window_bits : window_bits_for(points, kField);
  if (c > kMaxWindowBits) {
    CUZK_INVALID_INPUT("pippenger: window of " + std::to_string(c) + " bits; at most " +
                       std::to_string(kMaxWindowBits) + " are supported");
  }
  const unsigned windows = signed_window_count(scalar_bits, c);
  size_t chunks = 1;
  if (options.points_per_chunk != 0) {
    chunks = std::max<size_t>(1, (n + options.points_per_chunk - 1) / options.points_per_chunk);
  } else {
    const size_t buckets = size_t(1) << (c - 1);
    const size_t by_work = points / (kMinPointsPerBucket * buckets);
    const size_t by_balance = (kTargetTiles + windows - 1) / windows;
    chunks = std::clamp<size_t>(by_work, 1, by_balance);
  }
  const size_t chunk_points = n == 0 ? 0 : (n + chunks - 1) / chunks;
  if (chunk_points != 0) chunks = (n + chunk_points - 1) / chunk_points;
  const bool batch_affine = options.accumulation == BucketAccumulation::kBatchAffine ||
                            (options.accumulation == BucketAccumulation::kAuto &&
                             c >= batch_affine_min_window_bits(kField));
  const size_t batch_size = !batch_affine             ? 0
                            : options.batch_size != 0 ? options.batch_size
                                                      : batch_affine_size(c);
  const size_t lanes = options.reduction_lanes != 0 ? options.reduction_lanes : reduction_lanes(c);
  return {c, windows, chunk_points, chunks, batch_size, lanes};
}

namespace detail {

// One sum Σ_i k_i·P_i of an MSM over shared indices: a plain MSM is one term, a GLV split two
// (k1 with the bases, k2 with their images under φ), each with per-index signs.
template <class Curve, class Int>
struct MsmTerm {
  std::span<const ec::Affine<Curve>> bases;
  std::span<const Int> scalars;
  const uint8_t* negative = nullptr;  // negative[i] != 0: the term is −k_i·P_i; null: none
};

// Calls add(d, P) for the non-zero signed digits d of window w of every term's scalars at the
// indices [begin, end), P the base (skipped at infinity).
template <class Curve, class Int, class Add>
void for_each_digit(std::span<const MsmTerm<Curve, Int>> terms, unsigned c, unsigned w,
                    size_t begin, size_t end, Add&& add) {
  for (const MsmTerm<Curve, Int>& term : terms) {
    for (size_t i = begin; i < end; ++i) {
      int64_t digit = signed_digit(term.scalars[i], c, w);
      if (digit == 0 || term.bases[i].is_infinity()) continue;
      if (term.negative != nullptr && term.negative[i] != 0) digit = -digit;
      add(digit, term.bases[i]);
    }
  }
}

// Σ d_w·P over the terms at [begin, end) for one window w: XYZZ bucket accumulation and the
// running-sum reduction.
template <class Curve, class Int>
ec::Xyzz<Curve> window_tile_xyzz(std::span<const MsmTerm<Curve, Int>> terms, unsigned c,
                                 unsigned w, size_t begin, size_t end) {
  using Xyzz = ec::Xyzz<Curve>;
  std::vector<Xyzz> buckets(size_t(1) << (c - 1), Xyzz::infinity());  // buckets[j] ↔ |d| = j + 1
  for_each_digit(terms, c, w, begin, end, [&](int64_t digit, const ec::Affine<Curve>& base) {
    if (digit > 0) {
      buckets[size_t(digit - 1)] += base;
    } else {
      buckets[size_t(-digit - 1)] += -base;
    }
  });
  // Σ_j (j + 1)·B_j = Σ_j R_j with R_j = B_top + ... + B_j: two additions per bucket.
  Xyzz running = Xyzz::infinity();
  Xyzz sum = Xyzz::infinity();
  for (size_t j = buckets.size(); j-- > 0;) {
    running += buckets[j];
    sum += running;
  }
  return sum;
}

// The same with batch-affine accumulation (affine_buckets.hpp).
template <class Curve, class Int>
ec::Xyzz<Curve> window_tile_batch_affine(std::span<const MsmTerm<Curve, Int>> terms, unsigned c,
                                         unsigned w, size_t begin, size_t end, size_t batch_size,
                                         size_t lanes) {
  AffineBuckets<Curve> buckets(size_t(1) << (c - 1), batch_size,
                               std::min(batch_size, kMinBatchAffinePairs));
  for_each_digit(terms, c, w, begin, end, [&](int64_t digit, const ec::Affine<Curve>& base) {
    buckets.add(size_t(digit > 0 ? digit - 1 : -digit - 1), base, digit < 0);
  });
  buckets.finish();
  return buckets.weighted_sum(lanes);
}

// Σ of the terms over n indices, scalars of at most scalar_bits bits.
template <class Curve, class Int>
ec::Jacobian<Curve> pippenger_terms(std::span<const MsmTerm<Curve, Int>> terms, size_t n,
                                    size_t scalar_bits, const PippengerOptions& options) {
  using Jacobian = ec::Jacobian<Curve>;
  using Xyzz = ec::Xyzz<Curve>;
  const PippengerPlan plan = plan_pippenger<Curve>(n, options, scalar_bits, terms.size());
  if (n == 0) return Jacobian::infinity();

  // tile t = window·chunks + chunk
  const size_t tiles = size_t(plan.windows) * plan.chunks;
  std::vector<Xyzz> tile_sums(tiles);
  auto run_tiles = [&](size_t first, size_t last) {
    for (size_t t = first; t < last; ++t) {
      const unsigned w = unsigned(t / plan.chunks);
      const size_t begin = (t % plan.chunks) * plan.chunk_points;
      const size_t end = std::min(n, begin + plan.chunk_points);
      tile_sums[t] = plan.batch_size == 0
                         ? window_tile_xyzz<Curve, Int>(terms, plan.window_bits, w, begin, end)
                         : window_tile_batch_affine<Curve, Int>(terms, plan.window_bits, w, begin,
                                                                end, plan.batch_size,
                                                                plan.reduction_lanes);
    }
  };
  if (n * terms.size() < kMinParallelPoints) {
    run_tiles(0, tiles);
  } else {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, tiles, 1),
                      [&](const tbb::blocked_range<size_t>& r) { run_tiles(r.begin(), r.end()); });
  }

  // Horner over the windows, top first: acc = 2^c·acc + S_w.
  Jacobian acc = Jacobian::infinity();
  for (size_t w = plan.windows; w-- > 0;) {
    for (unsigned k = 0; k < plan.window_bits && !acc.is_infinity(); ++k) acc = acc.dbl();
    Xyzz window_sum = Xyzz::infinity();
    for (size_t chunk = 0; chunk < plan.chunks; ++chunk) {
      window_sum += tile_sums[w * plan.chunks + chunk];
    }
    acc += window_sum.to_jacobian();
  }
  return acc;
}

// The GLV split of every scalar and φ of every base (ec/glv.hpp), then Pippenger over both.
template <class Curve>
ec::Jacobian<Curve> pippenger_glv(std::span<const ec::Affine<Curve>> bases,
                                  std::span<const ScalarInt<Curve>> scalars,
                                  const PippengerOptions& options) {
  using Half = ff::BigInt<2>;
  const size_t n = bases.size();
  std::vector<Half> k1(n), k2(n);
  std::vector<uint8_t> k1_negative(n), k2_negative(n);
  std::vector<ec::Affine<Curve>> images;
  util::resize_on_huge_pages(images, n);  // the largest array of the MSM: fresh pages fault less
  auto split = [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      const ec::GlvScalar s = ec::glv_split(scalars[i], ec::Glv<Curve>::kLattice);
      k1[i] = s.k1;
      k2[i] = s.k2;
      k1_negative[i] = s.k1_negative;
      k2_negative[i] = s.k2_negative;
      images[i] = ec::glv_endomorphism(bases[i]);
    }
  };
  if (n < kMinParallelPoints) {
    split(0, n);
  } else {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 4096),
                      [&](const tbb::blocked_range<size_t>& r) { split(r.begin(), r.end()); });
  }
  const MsmTerm<Curve, Half> terms[] = {{bases, k1, k1_negative.data()},
                                        {images, k2, k2_negative.data()}};
  return pippenger_terms<Curve, Half>(terms, n, ec::kGlvScalarBits, options);
}

// The MSM proper, for scalars already known to be canonical and of the bases' length.
template <class Curve>
ec::Jacobian<Curve> pippenger_canonical(std::span<const ec::Affine<Curve>> bases,
                                        std::span<const ScalarInt<Curve>> scalars,
                                        const PippengerOptions& options) {
  if constexpr (ec::HasGlv<Curve>) {
    if (options.endomorphism) return pippenger_glv<Curve>(bases, scalars, options);
  }
  const MsmTerm<Curve, ScalarInt<Curve>> term[] = {{bases, scalars}};
  return pippenger_terms<Curve, ScalarInt<Curve>>(term, bases.size(), Curve::Scalar::kBits,
                                                  options);
}

inline void check_lengths(const char* what, size_t bases, size_t scalars) {
  if (bases != scalars) {
    CUZK_INVALID_INPUT(std::string(what) + ": " + std::to_string(bases) + " bases but " +
                       std::to_string(scalars) + " scalars");
  }
}

}  // namespace detail

// Σ k_i·P_i for canonical integers k_i < r. Throws kInvalidInput if the lengths differ, if a
// scalar is not below r, or if options.window_bits exceeds kMaxWindowBits.
template <class Curve>
ec::Jacobian<Curve> pippenger(std::span<const ec::Affine<Curve>> bases,
                              std::span<const ScalarInt<Curve>> scalars,
                              const PippengerOptions& options = {}) {
  detail::check_lengths("pippenger", bases.size(), scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) {
    if (ff::compare(scalars[i], Curve::Scalar::kModulus) >= 0) {
      CUZK_INVALID_INPUT("pippenger: scalar " + std::to_string(i) +
                         " is not below the group order r");
    }
  }
  return detail::pippenger_canonical<Curve>(bases, scalars, options);
}

// The canonical integers of Montgomery-form scalars (one multiplication each, in parallel).
template <class Fr>
std::vector<typename Fr::Int> to_canonical(std::span<const Fr> scalars) {
  std::vector<typename Fr::Int> ints(scalars.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, scalars.size(), 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t i = r.begin(); i != r.end(); ++i) ints[i] = scalars[i].to_int();
                    });
  return ints;
}

// Σ k_i·P_i for field elements k_i (Montgomery form). Throws kInvalidInput if the lengths
// differ or if options.window_bits exceeds kMaxWindowBits.
template <class Curve>
ec::Jacobian<Curve> pippenger(std::span<const ec::Affine<Curve>> bases,
                              std::span<const typename Curve::Scalar> scalars,
                              const PippengerOptions& options = {}) {
  detail::check_lengths("pippenger", bases.size(), scalars.size());
  const std::vector<ScalarInt<Curve>> ints = to_canonical(scalars);
  return detail::pippenger_canonical<Curve>(bases, ints, options);
}

}  // namespace cuzk::msm
