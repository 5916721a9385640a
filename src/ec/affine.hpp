#pragma once
// Affine points of a short Weierstrass curve y² = x³ + b (a = 0): the storage type.
//
// Keys, proofs and MSM bases are stored affine (2 coordinates, no redundancy); arithmetic
// happens in Jacobian or XYZZ coordinates (jacobian.hpp, xyzz.hpp). The point at infinity is
// stored as x = y = 0, which is never a curve point because b ≠ 0; this is the convention of
// snarkjs's zkey files and of Ethereum's precompiles, so buffers read from them need no
// translation.
//
// A curve record supplies the types and constants (see src/ec/README.md):
//   using Base = ...;    coordinate field (Fp for G1, Fp2 for G2)
//   using Scalar = ...;  the scalar field Fr (order r of the prime subgroup)
//   CUZK_HD static constexpr Base b();
//   CUZK_HD static constexpr Base generator_x(), generator_y();

#include <optional>

#include "util/host_device.hpp"

// The tests and the negation that every MSM bucket operation performs: always inlined on the
// host (an out-of-line is_infinity() was 4.5% of a BLS12-381 2^16 prove profile); nvcc's
// CUZK_HD already forces inlining.
#if defined(__CUDACC__)
#define CUZK_EC_HOT CUZK_HD
#else
#define CUZK_EC_HOT [[gnu::always_inline]] inline
#endif

namespace cuzk::ec {

template <class Curve>
struct Affine {
  using Field = typename Curve::Base;
  Field x, y;

  CUZK_HD static constexpr Affine infinity() { return {Field::zero(), Field::zero()}; }
  CUZK_HD static constexpr Affine generator() {
    return {Curve::generator_x(), Curve::generator_y()};
  }

  CUZK_EC_HOT constexpr bool is_infinity() const { return x.is_zero() && y.is_zero(); }

  // y² = x³ + b. The point at infinity counts as on the curve (it is the group's identity);
  // formats that forbid it (bellman's vectors) test is_infinity() separately.
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    return y.sqr() == x.sqr() * x + Curve::b();
  }

  CUZK_EC_HOT constexpr Affine operator-() const { return {x, -y}; }  // -O = (0, -0) = O

  // Affine coordinates are unique, and infinity has one encoding: field-wise equality.
  CUZK_HD constexpr bool operator==(const Affine& o) const { return x == o.x && y == o.y; }
  CUZK_HD constexpr bool operator!=(const Affine& o) const { return !(*this == o); }

  // A curve point with this x, if x³ + b is a square: either of the two y (callers that need
  // a particular sign, such as decoders of compressed points, negate as required). Host only.
  static std::optional<Affine> from_x(const Field& x) {
    auto y = (x.sqr() * x + Curve::b()).sqrt();
    if (!y) return std::nullopt;
    return Affine{x, *y};
  }
};

}  // namespace cuzk::ec
