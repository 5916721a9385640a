#pragma once
// Many field inversions for the price of one (Montgomery's trick), the step that makes
// batch-affine point addition pay: batch_addition.hpp and affine_buckets.hpp invert one slope
// denominator per addition, a few hundred at a time.
//
// Prime fields: prefix products forward (1M each), one inversion, unwinding (2M each): 3M per
// element. Quadratic extensions (Fp2, the coordinates of G2) go down to the base field first:
// 1/z = z̄/N(z) with the norm N(z) = z·z̄ = c0² + c1² in Fp, so the trick runs on the norms in Fp
// and each element then costs 2S (norm) + 3M (trick) + 2M (z̄·N⁻¹) of Fp, about 7 Fp
// multiplications, against 3 multiplications of Fp2 (9 of Fp plus 15 additions) for the trick
// applied to Fp2 directly. A BN254 G2 MSM of 2^16 points on one thread of the development host:
// 1550-1639 ms this way, 1961-1994 ms with the trick in Fp2.
//
// Thread-safety: a BatchInverter holds scratch memory; use one per thread.

#include <concepts>
#include <cstddef>
#include <span>
#include <vector>

namespace cuzk::msm {

namespace detail {

// Fields that are quadratic extensions with a norm to a base field (ff::Fp2).
template <class Field>
concept QuadraticExtension = requires(const Field& z) {
  typename Field::Base;
  { z.norm() } -> std::same_as<typename Field::Base>;
  { z.conjugate() } -> std::same_as<Field>;
};

// The field Montgomery's trick runs in: the base field for quadratic extensions.
template <class Field>
struct TrickField {
  using type = Field;
};
template <QuadraticExtension Field>
struct TrickField<Field> {
  using type = typename Field::Base;
};

// Calls use_one(i, values[i]⁻¹) or use_two(i, values[i]⁻¹, j, values[j]⁻¹) once for every i,
// for non-zero values; `prefix` is scratch (resized). The trick runs as two chains, one over
// the even positions and one over the odd ones, advanced in turn: each chain's products
// depend on each other, the two chains' do not, so the core overlaps a product of one with a
// product of the other instead of waiting for each in turn (one dependent chain is bound by
// the product's latency, about 1.3 times its throughput on the development host). The inverses
// come in pairs, one of each chain, for the same reason: the caller interleaves the work it
// does with them (ec::affine_sum_two). Both chains end in one inversion: 2M more per call.
template <class Field, class UseOne, class UseTwo>
void for_each_inverse(std::span<const Field> values, std::vector<Field>& prefix, UseOne&& use_one,
                      UseTwo&& use_two) {
  const size_t n = values.size();
  if (n == 0) return;
  if (n == 1) {
    use_one(size_t(0), values[0].inverse());
    return;
  }
  prefix.resize(n);
  Field acc[2] = {values[0], values[1]};  // chain c: the product of values[c], values[c + 2], ...
  for (size_t i = 2; i + 1 < n; i += 2) {
    prefix[i] = acc[0];
    acc[0] *= values[i];
    prefix[i + 1] = acc[1];
    acc[1] *= values[i + 1];
  }
  if (n % 2 == 1) {
    prefix[n - 1] = acc[0];
    acc[0] *= values[n - 1];
  }
  const Field both_inv = (acc[0] * acc[1]).inverse();
  // inv[c]: the inverse of chain c's product up to the position being unwound.
  Field inv[2] = {both_inv * acc[1], both_inv * acc[0]};
  size_t i = n - 1 - (n % 2 == 0);  // the last even position
  if (n % 2 == 1 && i >= 2) {       // chain 0 is one longer: unwind its last alone
    const Field value_inv = inv[0] * prefix[i];
    inv[0] *= values[i];
    use_one(i, value_inv);
    i -= 2;
  }
  for (; i >= 2; i -= 2) {  // positions i (chain 0) and i + 1 (chain 1)
    const Field even_inv = inv[0] * prefix[i];
    const Field odd_inv = inv[1] * prefix[i + 1];
    inv[0] *= values[i];
    inv[1] *= values[i + 1];
    use_two(i, even_inv, i + 1, odd_inv);
  }
  use_two(size_t(0), inv[0], size_t(1), inv[1]);
}

}  // namespace detail

// Inverts spans of non-zero field elements, reusing its scratch between calls. A zero element
// gives garbage for the whole span (callers never pass one: they substitute a non-zero
// placeholder for additions that need no slope).
template <class Field>
class BatchInverter {
 public:
  // Calls use_one(i, values[i]⁻¹) or use_two(i, values[i]⁻¹, j, values[j]⁻¹) once for every i
  // (detail::for_each_inverse): the caller consumes each inverse as it appears instead of
  // storing it, and works on two at a time where it can.
  template <class UseOne, class UseTwo>
  void for_each_inverse(std::span<const Field> values, UseOne&& use_one, UseTwo&& use_two) {
    if constexpr (detail::QuadraticExtension<Field>) {
      norms_.resize(values.size());
      for (size_t i = 0; i < values.size(); ++i) norms_[i] = values[i].norm();
      detail::for_each_inverse<Scratch>(
          norms_, prefix_,
          [&](size_t i, const Scratch& norm_inv) { use_one(i, values[i].conjugate() * norm_inv); },
          [&](size_t i, const Scratch& norm_inv_i, size_t j, const Scratch& norm_inv_j) {
            const Field inv_i = values[i].conjugate() * norm_inv_i;
            const Field inv_j = values[j].conjugate() * norm_inv_j;
            use_two(i, inv_i, j, inv_j);
          });
    } else {
      detail::for_each_inverse<Field>(values, prefix_, use_one, use_two);
    }
  }

  // values[i] ← values[i]⁻¹.
  void invert(std::span<Field> values) {
    const auto store = [&](size_t i, const Field& inverse) { values[i] = inverse; };
    for_each_inverse(std::span<const Field>(values), store,
                     [&](size_t i, const Field& inverse_i, size_t j, const Field& inverse_j) {
                       store(i, inverse_i);
                       store(j, inverse_j);
                     });
  }

 private:
  using Scratch = typename detail::TrickField<Field>::type;
  std::vector<Scratch> norms_;  // used for extensions only
  std::vector<Scratch> prefix_;
};

}  // namespace cuzk::msm
