#pragma once
// Affine addition in two steps, so that the slope's denominator can be inverted together with
// many others (Montgomery's trick): the building block of batch-affine addition
// (msm/batch_addition.hpp, msm/affine_buckets.hpp).
//
// On y² = x³ + b the line through a and b (the tangent when a = b) meets the curve a third time
// at −(a + b):
//   λ = (y_b − y_a)/(x_b − x_a)    chord, x_a ≠ x_b
//   λ = 3x_a²/(2y_a)               tangent, a = b (2y_a ≠ 0: none of the supported curves has a
//                                  point of order 2, their group orders being odd)
//   x3 = λ² − x_a − x_b,  y3 = λ(x_a − x3) − y_a
// and a = −b (equal x, opposite y) sums to infinity.
//   1. affine_sum_denominator(a, b): x_b − x_a, 2y_a, or 1 when the sum is infinity (a
//      placeholder that keeps a batch of denominators invertible);
//   2. affine_sum(a, b, inverse of that denominator): 2M + 1S for a chord (3M + 2S for a
//      tangent), plus the denominator's share of the batch inversion (3M for Fp).
//      affine_sum_two does two independent sums with their products interleaved.
// Neither input may be the point at infinity: callers handle it before (it costs nothing).

#include "ec/affine.hpp"
#include "util/host_device.hpp"

namespace cuzk::ec {

template <class Curve>
CUZK_HD constexpr typename Curve::Base affine_sum_denominator(const Affine<Curve>& a,
                                                              const Affine<Curve>& b) {
  using Field = typename Curve::Base;
  if (a.x != b.x) return b.x - a.x;
  if (a.y == b.y) return a.y.dbl();
  return Field::one();
}

template <class Curve>
CUZK_HD constexpr Affine<Curve> affine_sum(const Affine<Curve>& a, const Affine<Curve>& b,
                                           const typename Curve::Base& denominator_inverse) {
  using Field = typename Curve::Base;
  Field lambda;
  if (a.x != b.x) {
    lambda = (b.y - a.y) * denominator_inverse;
  } else if (a.y == b.y) {
    const Field x_sq = a.x.sqr();
    lambda = (x_sq.dbl() + x_sq) * denominator_inverse;
  } else {
    return Affine<Curve>::infinity();
  }
  const Field x3 = lambda.sqr() - a.x - b.x;
  return {x3, lambda * (a.x - x3) - a.y};
}

// a0 ← a0 + b0 and a1 ← a1 + b1 (a0 and a1 distinct objects). A chord's three products
// depend on each other, so one sum waits for each product in turn; two sums with their
// products alternating keep the multiplier busy (on the development host a BN254 G1 MSM spent
// 43% of its time in affine_sum, latency-bound). Tangents and opposite points take
// affine_sum.
template <class Curve>
CUZK_HD constexpr void affine_sum_two(Affine<Curve>& a0, const Affine<Curve>& b0,
                                      const typename Curve::Base& inverse0, Affine<Curve>& a1,
                                      const Affine<Curve>& b1,
                                      const typename Curve::Base& inverse1) {
  using Field = typename Curve::Base;
  if (a0.x == b0.x || a1.x == b1.x) {
    a0 = affine_sum(a0, b0, inverse0);
    a1 = affine_sum(a1, b1, inverse1);
    return;
  }
  const Field lambda0 = (b0.y - a0.y) * inverse0;
  const Field lambda1 = (b1.y - a1.y) * inverse1;
  const Field x0 = lambda0.sqr() - a0.x - b0.x;
  const Field x1 = lambda1.sqr() - a1.x - b1.x;
  const Field y0 = lambda0 * (a0.x - x0) - a0.y;
  const Field y1 = lambda1 * (a1.x - x1) - a1.y;
  a0 = {x0, y0};
  a1 = {x1, y1};
}

}  // namespace cuzk::ec
