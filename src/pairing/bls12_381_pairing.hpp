#pragma once
// The optimal ate pairing of BLS12-381 (optimal_ate.hpp): e: G1 × G2 → GT ⊂ Fp12, computed as
// f_{x,Q}(P)^((p¹² − 1)/r) with x = −0xd201000000010000 and the M-type twist
// E': y² = x³ + 4(1 + u). Compiled once into cuzk_core (pairing.cpp).

#include <span>
#include <utility>

#include "curves/bls12_381.hpp"
#include "pairing/bls12_381_tower.hpp"
#include "pairing/optimal_ate.hpp"

namespace cuzk::bls12_381 {

struct PairingData {
  using G1Curve = bls12_381::G1Curve;
  using G2Curve = bls12_381::G2Curve;
  using Tower = TowerData;
  static constexpr ::cuzk::pairing::Family kFamily = ::cuzk::pairing::Family::kBls12;
  static constexpr ::cuzk::pairing::Twist kTwist = ::cuzk::pairing::Twist::kMType;
  static constexpr uint64_t kAbsX = kParamXAbs;
  static constexpr bool kXIsNegative = true;
};

}  // namespace cuzk::bls12_381

namespace cuzk::pairing {
extern template class OptimalAte<bls12_381::PairingData>;
}  // namespace cuzk::pairing

namespace cuzk::bls12_381 {

using OptimalAte = ::cuzk::pairing::OptimalAte<PairingData>;
using G1G2Pair = std::pair<G1Affine, G2Affine>;

inline Fp12 miller_loop(const G1Affine& p, const G2Affine& q) {
  return OptimalAte::miller_loop(p, q);
}
inline Fp12 multi_miller_loop(std::span<const G1G2Pair> pairs) {
  return OptimalAte::miller_loop(pairs);
}
inline Fp12 final_exponentiation(const Fp12& f) { return OptimalAte::final_exponentiation(f); }
inline Fp12 pairing(const G1Affine& p, const G2Affine& q) { return OptimalAte::pairing(p, q); }
inline Fp12 multi_pairing(std::span<const G1G2Pair> pairs) {
  return OptimalAte::multi_pairing(pairs);
}
inline bool pairing_product_is_one(std::span<const G1G2Pair> pairs) {
  return OptimalAte::pairing_product_is_one(pairs);
}

}  // namespace cuzk::bls12_381
