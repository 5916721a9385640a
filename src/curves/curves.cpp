// Explicit instantiation of the point types of the four groups: every member is compiled once
// into cuzk_core, so a mistake in any of them shows up at build time, not in the first caller.

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::ec {
template struct Affine<bls12_381::G1Curve>;
template struct Jacobian<bls12_381::G1Curve>;
template struct Xyzz<bls12_381::G1Curve>;
template struct Affine<bls12_381::G2Curve>;
template struct Jacobian<bls12_381::G2Curve>;
template struct Xyzz<bls12_381::G2Curve>;
template struct Affine<bn254::G1Curve>;
template struct Jacobian<bn254::G1Curve>;
template struct Xyzz<bn254::G1Curve>;
template struct Affine<bn254::G2Curve>;
template struct Jacobian<bn254::G2Curve>;
template struct Xyzz<bn254::G2Curve>;
}  // namespace cuzk::ec
