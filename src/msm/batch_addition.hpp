#pragma once
// Σ P_i over a selected subset of the bases: the MSM of scalars equal to one, which Groth16
// witnesses of bit-decomposed circuits (Filecoin PoRep) are full of.
//
// Method: batch-affine addition (eight at a time on CPUs with AVX-512 IFMA:
// affine_batch_simd.hpp). The selected points are added in pairs, round after round,
// each round halving their number; all the slope denominators of a round are inverted at once
// with Montgomery's trick, so an addition costs
//   3M (its share of the batch inversion) + 1M (slope) + 1S (x3) + 1M (y3) = 5M + 1S
// against 8M + 2S for an XYZZ mixed addition. Once a round would have fewer than
// kMinBatchAffinePairs pairs, the inversion no longer pays and the rest is added in Jacobian
// coordinates.
//
// Parallelism: fixed chunks of kSumChunkPoints bases, each summed on its own, and the chunk
// sums added in order: the result does not depend on the number of threads.
//
// Thread-safety: stateless; runs on the calling thread and oneTBB workers.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ec/affine.hpp"
#include "ec/affine_addition.hpp"
#include "ec/jacobian.hpp"
#include "msm/affine_batch_simd.hpp"
#include "msm/batch_inversion.hpp"
#include "msm/cpu_tuning.hpp"
#include "util/error.hpp"

namespace cuzk::msm {

// Selection bitmaps: bit i % 64 of word i / 64 selects element i; n elements take
// selection_words(n) words and the bits past n are clear.
constexpr size_t selection_words(size_t n) { return (n + 63) / 64; }

namespace detail {

// Σ points, consuming them (the vector is the working storage of the rounds). No point may be
// at infinity. Each round adds the second half of the points into the first, with one batch
// inversion (ec/affine_addition.hpp), and keeps the sums that are not the point at infinity (a
// pair of opposite points drops out). On the vector path (affine_batch_simd.hpp) a round runs
// in batches of kMaxBatchAffineSize, one inversion each; both paths pair the same points, so
// the result's coordinates do not depend on the CPU.
template <class Curve>
ec::Jacobian<Curve> batch_affine_sum(std::vector<ec::Affine<Curve>>& points) {
  using Field = typename Curve::Base;
  std::vector<Field> denominators;
  BatchInverter<Field> inverter;
  std::vector<simd::BatchAddition<Curve>> batch;
  while (points.size() >= 2 * kMinBatchAffinePairs) {
    const size_t pairs = points.size() / 2;
    bool in_lanes = false;
    if constexpr (simd::kHasAddBatch<Curve>) in_lanes = simd::enabled();
    if (in_lanes) {
      for (size_t first = 0; first < pairs; first += kMaxBatchAffineSize) {
        const size_t count = std::min(kMaxBatchAffineSize, pairs - first);
        batch.resize(count);
        for (size_t j = 0; j < count; ++j) {
          batch[j] = {uint32_t(j), false, &points[pairs + first + j]};
        }
        simd::add_batch<Curve>(std::span(points.data() + first, count), batch);
      }
    } else {
      denominators.resize(pairs);
      for (size_t j = 0; j < pairs; ++j) {
        denominators[j] = ec::affine_sum_denominator(points[j], points[pairs + j]);
      }
      inverter.invert(denominators);
      for (size_t j = 0; j < pairs; ++j) {
        points[j] = ec::affine_sum(points[j], points[pairs + j], denominators[j]);
      }
    }
    size_t out = 0;
    for (size_t j = 0; j < pairs; ++j) {
      if (!points[j].is_infinity()) points[out++] = points[j];
    }
    if (points.size() % 2 == 1) points[out++] = points.back();
    points.resize(out);
  }
  ec::Jacobian<Curve> sum = ec::Jacobian<Curve>::infinity();
  for (const ec::Affine<Curve>& p : points) sum += p;
  return sum;
}

}  // namespace detail

// Σ bases[i] over the i selected by the bitmap (see selection_words). Bases at infinity are
// skipped. Throws kInvalidInput if the bitmap has the wrong length or selects past the end.
template <class Curve>
ec::Jacobian<Curve> sum_selected(std::span<const ec::Affine<Curve>> bases,
                                 std::span<const uint64_t> selection) {
  using AffinePoint = ec::Affine<Curve>;
  using Jacobian = ec::Jacobian<Curve>;
  static_assert(kSumChunkPoints % 64 == 0, "chunks cover whole bitmap words");
  const size_t n = bases.size();
  if (selection.size() != selection_words(n)) {
    CUZK_INVALID_INPUT("sum_selected: a selection of " + std::to_string(n) + " bases takes " +
                       std::to_string(selection_words(n)) + " words, got " +
                       std::to_string(selection.size()));
  }
  if (n % 64 != 0 && (selection.back() >> (n % 64)) != 0) {
    CUZK_INVALID_INPUT("sum_selected: the selection has bits set past its " + std::to_string(n) +
                       " bases");
  }

  const size_t chunks = (n + kSumChunkPoints - 1) / kSumChunkPoints;
  std::vector<Jacobian> chunk_sums(chunks);
  auto sum_chunk = [&](size_t chunk) {
    const size_t first_word = chunk * (kSumChunkPoints / 64);
    const size_t last_word = std::min(selection.size(), first_word + kSumChunkPoints / 64);
    size_t selected = 0;
    for (size_t word = first_word; word < last_word; ++word) {
      selected += size_t(std::popcount(selection[word]));
    }
    std::vector<AffinePoint> points;
    points.reserve(selected);
    for (size_t word = first_word; word < last_word; ++word) {
      for (uint64_t bits = selection[word]; bits != 0; bits &= bits - 1) {
        const AffinePoint& p = bases[word * 64 + size_t(std::countr_zero(bits))];
        if (!p.is_infinity()) points.push_back(p);
      }
    }
    chunk_sums[chunk] = detail::batch_affine_sum<Curve>(points);
  };
  if (n < kMinParallelPoints) {
    for (size_t chunk = 0; chunk < chunks; ++chunk) sum_chunk(chunk);
  } else {
    tbb::parallel_for(tbb::blocked_range<size_t>(0, chunks, 1),
                      [&](const tbb::blocked_range<size_t>& r) {
                        for (size_t chunk = r.begin(); chunk != r.end(); ++chunk) sum_chunk(chunk);
                      });
  }
  Jacobian sum = Jacobian::infinity();
  for (const Jacobian& s : chunk_sums) sum += s;
  return sum;
}

}  // namespace cuzk::msm
