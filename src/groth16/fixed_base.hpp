#pragma once
// Many multiples k_i·G of one point G: the setup's work (every key point is a multiple of a
// group generator).
//
// Method: fixed-base windows. With w-bit windows and W = ⌈bits(r)/w⌉ of them, the table holds
// d·2^(w·j)·G for every window j and digit d = 1..2^w − 1, affine. Then
//   k·G = Σ_j table[j][k_j],  k_j the j-th w-bit digit of k,
// is at most W − 1 mixed additions (madd-2007-bl, 7M + 4S) and no doubling, against about
// bits(r) doublings and bits(r)/6 additions for a single variable-base multiplication. The
// table costs W·(2^w − 1) additions and one batch normalization, so w grows with the number of
// multiples: fixed_base_window_bits() minimizes n·W + W·2^w.
//
// The results are normalized to affine in chunks, one field inversion per chunk
// (ec::batch_to_affine). Runs in time that depends on the scalars: for setups, whose secrets
// exist only in this process for its duration.
//
// Thread-safety: a table is immutable after construction; fixed_base_mul runs on the calling
// thread and oneTBB workers.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

// Windows wider than this make the table (W·2^w points) outgrow the L2 caches it is read from
// at random: 22·4095 BLS12-381 G1 points are 8.6 MB at 12 bits.
inline constexpr unsigned kMaxFixedBaseWindowBits = 12;

// The w in [1, kMaxFixedBaseWindowBits] with the least additions n·W + W·2^w.
template <size_t ScalarBits>
constexpr unsigned fixed_base_window_bits(size_t n) {
  unsigned best = 1;
  double best_cost = 0;
  for (unsigned w = 1; w <= kMaxFixedBaseWindowBits; ++w) {
    const double windows = double((ScalarBits + w - 1) / w);
    const double cost = double(n) * windows + windows * double(size_t(1) << w);
    if (w == 1 || cost < best_cost) {
      best = w;
      best_cost = cost;
    }
  }
  return best;
}

template <class PointCurve>
class FixedBaseTable {
 public:
  using Affine = ec::Affine<PointCurve>;
  using Jacobian = ec::Jacobian<PointCurve>;
  using ScalarInt = typename PointCurve::Scalar::Int;
  static constexpr size_t kScalarBits = PointCurve::Scalar::kBits;

  FixedBaseTable(const Affine& base, unsigned window_bits)
      : window_bits_(window_bits),
        windows_((unsigned(kScalarBits) + window_bits - 1) / window_bits),
        digits_((size_t(1) << window_bits) - 1) {
    if (window_bits == 0 || window_bits > kMaxFixedBaseWindowBits) {
      CUZK_INVALID_INPUT("FixedBaseTable: window of " + std::to_string(window_bits) +
                         " bits; 1 to " + std::to_string(kMaxFixedBaseWindowBits) +
                         " are supported");
    }
    // Window bases 2^(w·j)·G: w doublings apart.
    std::vector<Jacobian> window_base(windows_);
    window_base[0] = Jacobian::from_affine(base);
    for (unsigned j = 1; j < windows_; ++j) {
      Jacobian p = window_base[j - 1];
      for (unsigned i = 0; i < window_bits_; ++i) p = p.dbl();
      window_base[j] = p;
    }
    std::vector<Jacobian> multiples(size_t(windows_) * digits_);
    tbb::parallel_for(tbb::blocked_range<unsigned>(0, windows_),
                      [&](const tbb::blocked_range<unsigned>& range) {
                        for (unsigned j = range.begin(); j != range.end(); ++j) {
                          Jacobian* row = multiples.data() + size_t(j) * digits_;
                          row[0] = window_base[j];
                          for (size_t d = 1; d < digits_; ++d) row[d] = row[d - 1] + window_base[j];
                        }
                      });
    table_.resize(multiples.size());
    ec::batch_to_affine<PointCurve>(multiples, table_);
  }

  unsigned window_bits() const { return window_bits_; }

  // k·G for a canonical integer k < 2^(w·W).
  Jacobian mul(const ScalarInt& k) const {
    Jacobian acc = Jacobian::infinity();
    for (unsigned j = 0; j < windows_; ++j) {
      const size_t digit = window_digit(k, j);
      if (digit != 0) acc += table_[size_t(j) * digits_ + digit - 1];
    }
    return acc;
  }

 private:
  // Bits [w·j, w·j + w) of k; a window may straddle two limbs.
  size_t window_digit(const ScalarInt& k, unsigned j) const {
    const size_t bit = size_t(j) * window_bits_;
    const size_t limb = bit / 64, shift = bit % 64;
    uint64_t value = k.limb[limb] >> shift;
    if (shift + window_bits_ > 64 && limb + 1 < std::size(k.limb)) {
      value |= k.limb[limb + 1] << (64 - shift);
    }
    return size_t(value & digits_);
  }

  unsigned window_bits_, windows_;
  size_t digits_;  // 2^w − 1 table entries per window
  std::vector<Affine> table_;
};

// out[i] = scalars[i]·G for the table's G, affine. Throws kInvalidInput if the spans differ in
// length.
template <class PointCurve>
void fixed_base_mul(const FixedBaseTable<PointCurve>& table,
                    std::span<const typename PointCurve::Scalar> scalars,
                    std::span<ec::Affine<PointCurve>> out) {
  if (scalars.size() != out.size()) {
    CUZK_INVALID_INPUT("fixed_base_mul: " + std::to_string(scalars.size()) +
                       " scalars but room for " + std::to_string(out.size()) + " points");
  }
  // A chunk shares one inversion in batch_to_affine; 1024 multiples are ~2·10^4 mixed
  // additions, next to which one inversion is noise.
  constexpr size_t kChunk = 1024;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, (scalars.size() + kChunk - 1) / kChunk, 1),
                    [&](const tbb::blocked_range<size_t>& range) {
                      std::vector<ec::Jacobian<PointCurve>> chunk;
                      for (size_t c = range.begin(); c != range.end(); ++c) {
                        const size_t begin = c * kChunk,
                                     end = std::min(scalars.size(), begin + kChunk);
                        chunk.resize(end - begin);
                        for (size_t i = begin; i < end; ++i)
                          chunk[i - begin] = table.mul(scalars[i].to_int());
                        ec::batch_to_affine<PointCurve>(chunk, out.subspan(begin, end - begin));
                      }
                    });
}

}  // namespace cuzk::groth16
