#pragma once
// Many multiples k_i·G of one point G: the setup's work (every key point is a multiple of a
// group generator).
//
// Method: fixed-base windows. With w-bit windows and W = ⌈bits(r)/w⌉ of them, the table holds
// d·2^(w·j)·G for every window j and digit d = 1..2^w − 1, affine. Then
//   k·G = Σ_j table[j][k_j],  k_j the j-th w-bit digit of k,
// is at most W − 1 additions and no doubling, against about bits(r) doublings and bits(r)/6
// additions for a single variable-base multiplication. The table costs W·(2^w − 1) additions
// and one batch normalization, so w grows with the number of multiples:
// fixed_base_window_bits() minimizes n·W + W·2^w.
//
// fixed_base_mul keeps the sums affine and adds a whole chunk of them at once, window after
// window: the slopes' denominators of a chunk share one inversion (Montgomery's trick), so an
// addition costs 3M (its share of the batch inversion) + 1M (slope) + 1S (x3) + 1M (y3) =
// 5M + 1S, against 7M + 4S for a Jacobian mixed addition (madd-2007-bl) and a final
// normalization; and a chunk reads one window of the table at a time, which stays in cache.
// Measured on the shared 2-core machine (CPU time, BLS12-381 G1, 2^16 random scalars, w = 12):
// 25 µs per point with Jacobian mixed additions, 12 µs batch-affine.
//
// Runs in time that depends on the scalars: for setups, whose secrets exist only in this
// process for its duration.
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

// A chunk reads one window of the table at random: 2^w − 1 points, at 12 bits 393 KB on
// BLS12-381 G1 and 786 KB on G2, about an L2 cache. Wider windows save few additions (W goes
// from 22 to 19 at 14 bits) for 4× the table. Measured (CPU time, BLS12-381 G1, 2^16 scalars):
// 12.6, 11.4 and 11.6 µs per point at w = 8, 10, 12.
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
  unsigned windows() const { return windows_; }

  // d·2^(w·j)·G for 0 < digit < 2^w, or nullptr for digit 0 (contributes nothing).
  const Affine* entry(unsigned window, size_t digit) const {
    return digit == 0 ? nullptr : &table_[size_t(window) * digits_ + digit - 1];
  }

  // k·G for a canonical integer k < 2^(w·W).
  Jacobian mul(const ScalarInt& k) const {
    Jacobian acc = Jacobian::infinity();
    for (unsigned j = 0; j < windows_; ++j) {
      if (const Affine* point = entry(j, window_digit(k, j))) acc += *point;
    }
    return acc;
  }

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

 private:
  unsigned window_bits_, windows_;
  size_t digits_;  // 2^w − 1 table entries per window
  std::vector<Affine> table_;
};

namespace detail {

// Scratch of add_affine_batch, reused across calls.
template <class Field>
struct AffineBatchScratch {
  std::vector<size_t> pending;    // indices of the sums that take the batched formula
  std::vector<Field> difference;  // x_q − x_p of each
  std::vector<Field> prefix;      // difference[0] ··· difference[m − 1]
};

// sums[i] ← sums[i] + *addends[i] for every i with a non-null addend; the pairs of finite points
// with distinct x share one inversion.
template <class PointCurve>
void add_affine_batch(std::span<ec::Affine<PointCurve>> sums,
                      std::span<const ec::Affine<PointCurve>* const> addends,
                      AffineBatchScratch<typename PointCurve::Base>& scratch) {
  using Affine = ec::Affine<PointCurve>;
  using Field = typename PointCurve::Base;
  scratch.pending.clear();
  scratch.difference.clear();
  for (size_t i = 0; i < sums.size(); ++i) {
    const Affine* q = addends[i];
    if (q == nullptr) continue;
    Affine& p = sums[i];
    if (p.is_infinity()) {
      p = *q;
    } else if (p.x == q->x) {
      // P = ±Q: a tangent or a vertical chord, which the batched formula cannot take; the
      // Jacobian addition doubles or gives infinity. (fixed_base_mul never gets here: with
      // k < r, (k mod 2^(w·j))·G = ±d·2^(w·j)·G would make k ≡ 2·(k mod 2^(w·j)) or 0.)
      p = (ec::Jacobian<PointCurve>::from_affine(p) + *q).to_affine();
    } else {
      scratch.pending.push_back(i);
      scratch.difference.push_back(q->x - p.x);
    }
  }
  const size_t count = scratch.pending.size();
  if (count == 0) return;
  // Montgomery's trick: prefix products (1M each), one inversion, unwinding (2M each).
  scratch.prefix.resize(count);
  Field product = Field::one();
  for (size_t m = 0; m < count; ++m) {
    scratch.prefix[m] = product;
    product *= scratch.difference[m];
  }
  Field inverse = product.inverse();  // (difference[0] ··· difference[m])⁻¹ at step m below
  for (size_t m = count; m-- > 0;) {
    const Field difference_inverse = inverse * scratch.prefix[m];
    inverse *= scratch.difference[m];
    // λ = (y_q − y_p)/(x_q − x_p), x3 = λ² − x_p − x_q, y3 = λ(x_p − x3) − y_p: 2M + 1S.
    Affine& p = sums[scratch.pending[m]];
    const Affine& q = *addends[scratch.pending[m]];
    const Field lambda = (q.y - p.y) * difference_inverse;
    const Field x3 = lambda.sqr() - p.x - q.x;
    p.y = lambda * (p.x - x3) - p.y;
    p.x = x3;
  }
}

}  // namespace detail

// out[i] = scalars[i]·G for the table's G, affine. Throws kInvalidInput if the spans differ in
// length.
template <class PointCurve>
void fixed_base_mul(const FixedBaseTable<PointCurve>& table,
                    std::span<const typename PointCurve::Scalar> scalars,
                    std::span<ec::Affine<PointCurve>> out) {
  using Affine = ec::Affine<PointCurve>;
  if (scalars.size() != out.size()) {
    CUZK_INVALID_INPUT("fixed_base_mul: " + std::to_string(scalars.size()) +
                       " scalars but room for " + std::to_string(out.size()) + " points");
  }
  // One inversion per chunk and window, shared by up to 1024 additions: a few percent of
  // their cost.
  constexpr size_t kChunk = 1024;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, (scalars.size() + kChunk - 1) / kChunk, 1),
                    [&](const tbb::blocked_range<size_t>& range) {
                      std::vector<typename PointCurve::Scalar::Int> ints;
                      std::vector<const Affine*> addends;
                      detail::AffineBatchScratch<typename PointCurve::Base> scratch;
                      for (size_t c = range.begin(); c != range.end(); ++c) {
                        const size_t begin = c * kChunk,
                                     end = std::min(scalars.size(), begin + kChunk);
                        const std::span<Affine> sums = out.subspan(begin, end - begin);
                        ints.resize(sums.size());
                        addends.resize(sums.size());
                        for (size_t i = 0; i < sums.size(); ++i) {
                          ints[i] = scalars[begin + i].to_int();
                          sums[i] = Affine::infinity();
                        }
                        for (unsigned j = 0; j < table.windows(); ++j) {
                          for (size_t i = 0; i < sums.size(); ++i) {
                            addends[i] = table.entry(j, table.window_digit(ints[i], j));
                          }
                          detail::add_affine_batch<PointCurve>(sums, addends, scratch);
                        }
                      }
                    });
}

// The same into a new vector: scalars[i]·G for every i.
template <class PointCurve>
std::vector<ec::Affine<PointCurve>> fixed_base_mul(
    const FixedBaseTable<PointCurve>& table, std::span<const typename PointCurve::Scalar> scalars) {
  std::vector<ec::Affine<PointCurve>> out(scalars.size());
  fixed_base_mul(table, scalars, std::span(out));
  return out;
}

}  // namespace cuzk::groth16
