#pragma once
// MSM over witness-shaped scalars: most Groth16 witness values of bit-decomposed circuits are
// 0 or 1 (Filecoin PoRep). Zeros cost nothing, ones are plain additions (sum_selected, about
// 5M + 1S each), and only the rest pays for Pippenger's W additions per point:
//   Σ k_i·P_i = Σ_(k_i = 1) P_i + Σ_(k_i ∉ {0, 1}) k_i·P_i.
//
// Thread-safety: stateless; runs on the calling thread and oneTBB workers.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "msm/batch_addition.hpp"
#include "msm/pippenger.hpp"
#include "util/huge_pages.hpp"

namespace cuzk::msm {

// The split of a scalar vector: the ones as a selection bitmap (for sum_selected), the others
// as ascending indices, and how many were zero.
struct ScalarClasses {
  std::vector<uint64_t> ones;
  std::vector<size_t> others;
  size_t zeros = 0;
};

// Classifies Montgomery-form scalars in parallel blocks of whole bitmap words; the block
// results are concatenated in order, so `others` is ascending.
template <class Fr>
ScalarClasses classify_scalars(std::span<const Fr> scalars) {
  constexpr size_t kBlockWords = 64;  // 4096 scalars per block
  const size_t n = scalars.size();
  const Fr one = Fr::one();
  ScalarClasses classes;
  classes.ones.assign(selection_words(n), 0);
  const size_t blocks = (classes.ones.size() + kBlockWords - 1) / kBlockWords;
  std::vector<std::vector<size_t>> block_others(blocks);
  std::vector<size_t> block_zeros(blocks, 0);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, blocks, 1),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t block = r.begin(); block != r.end(); ++block) {
                        const size_t begin = block * kBlockWords * 64;
                        const size_t end = std::min(n, begin + kBlockWords * 64);
                        for (size_t i = begin; i < end; ++i) {
                          if (scalars[i].is_zero()) {
                            ++block_zeros[block];
                          } else if (scalars[i] == one) {
                            classes.ones[i / 64] |= uint64_t(1) << (i % 64);
                          } else {
                            block_others[block].push_back(i);
                          }
                        }
                      }
                    });
  size_t others = 0;
  for (size_t block = 0; block < blocks; ++block) others += block_others[block].size();
  classes.others.reserve(others);
  for (size_t block = 0; block < blocks; ++block) {
    classes.others.insert(classes.others.end(), block_others[block].begin(),
                          block_others[block].end());
    classes.zeros += block_zeros[block];
  }
  return classes;
}

// Σ k_i·P_i as sum_selected over the ones plus Pippenger over the others (options apply to the
// latter). Throws kInvalidInput if the lengths differ or options.window_bits is too large.
template <class Curve>
ec::Jacobian<Curve> msm_with_classification(std::span<const ec::Affine<Curve>> bases,
                                            std::span<const typename Curve::Scalar> scalars,
                                            const PippengerOptions& options = {}) {
  using AffinePoint = ec::Affine<Curve>;
  detail::check_lengths("msm_with_classification", bases.size(), scalars.size());
  const ScalarClasses classes = classify_scalars(scalars);
  const ec::Jacobian<Curve> ones_sum = sum_selected<Curve>(bases, classes.ones);

  const size_t m = classes.others.size();
  std::vector<AffinePoint> other_bases;
  std::vector<ScalarInt<Curve>> other_scalars;
  util::resize_on_huge_pages(other_bases, m);
  util::resize_on_huge_pages(other_scalars, m);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, m, 4096),
                    [&](const tbb::blocked_range<size_t>& r) {
                      for (size_t j = r.begin(); j != r.end(); ++j) {
                        other_bases[j] = bases[classes.others[j]];
                        other_scalars[j] = scalars[classes.others[j]].to_int();
                      }
                    });
  return ones_sum + detail::pippenger_canonical<Curve>(other_bases, other_scalars, options);
}

}  // namespace cuzk::msm
