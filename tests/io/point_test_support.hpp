#pragma once
// Helpers shared by the point codec tests: random group elements and curve points outside the
// prime-order subgroup; EXPECT_INVALID_INPUT (tests/support) checks the decoders' errors.

#include <gtest/gtest.h>

#include <string>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "io/point_common.hpp"
#include "tests/support/error_messages.hpp"
#include "util/error.hpp"

namespace cuzk::io::test_support {

template <class Point>
using CurveT = typename CurveOf<Point>::type;

// k·G for a uniformly random scalar k.
template <class Point, class Rng>
Point random_point(Rng& rng) {
  using Curve = CurveT<Point>;
  return ec::mul_generator<Curve>(Curve::Scalar::random(rng)).to_affine();
}

// The first x = 1, 2, ... whose curve point lies outside the subgroup (a cofactor-1 group has
// none: the caller must not ask).
template <class Point>
Point point_outside_subgroup() {
  using Field = typename Point::Field;
  for (uint64_t i = 1;; ++i) {
    Field x;
    if constexpr (QuadraticExtension<Field>) {
      x = {Field::Base::from_u64(i), Field::Base::one()};
    } else {
      x = Field::from_u64(i);
    }
    auto p = Point::from_x(x);
    if (p && !is_in_subgroup(*p)) return *p;
  }
}

}  // namespace cuzk::io::test_support
