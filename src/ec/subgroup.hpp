#pragma once
// Membership in the prime-order subgroup, the generic way, and cofactor clearing.
//
// A point on the curve lies in the subgroup of order r exactly when r·P = O. That costs a full
// 255-bit multiplication; each curve header offers a faster endomorphism-based is_in_subgroup
// for its groups, and the tests check it against this one. The curve record supplies
// kCofactor, the integer h with #E = h·r.

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "util/host_device.hpp"

namespace cuzk::ec {

// r·P = O, for a point already known to be on the curve.
template <class Curve>
CUZK_HD_NOINLINE constexpr bool is_torsion_free_generic(const Affine<Curve>& p) {
  constexpr auto r = Curve::Scalar::kModulus;  // a local copy: device code may not odr-use it
  return scalar_mul(p, r).is_infinity();
}

// h·P: lands in the subgroup for every curve point P. Since gcd(h, r) = 1 the group is the
// direct product of its subgroup of order r and a part of order h, which h·P annihilates.
template <class Curve>
CUZK_HD_NOINLINE constexpr Jacobian<Curve> clear_cofactor_generic(const Affine<Curve>& p) {
  constexpr auto h = Curve::kCofactor;
  return scalar_mul(p, h);
}

}  // namespace cuzk::ec
