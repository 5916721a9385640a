#pragma once
// The optimal ate pairing of BN254 (optimal_ate.hpp): e: G1 × G2 → GT ⊂ Fp12, computed as
// (f_{6x+2,Q}(P)·l_{T,π(Q)}(P)·l_{T+π(Q),−π²(Q)}(P))^((p¹² − 1)/r) with x = 4965661367192848881
// and the D-type twist E': y² = x³ + 3/(9 + u) (EIP-197's pairing up to its exponent: EIP-197
// only tests products against 1). Compiled once into cuzk_core (pairing.cpp).

#include <span>
#include <utility>

#include "curves/bn254.hpp"
#include "pairing/bn254_tower.hpp"
#include "pairing/optimal_ate.hpp"

namespace cuzk::bn254 {

struct PairingData {
  using G1Curve = bn254::G1Curve;
  using G2Curve = bn254::G2Curve;
  using Tower = TowerData;
  static constexpr ::cuzk::pairing::Family kFamily = ::cuzk::pairing::Family::kBn;
  static constexpr ::cuzk::pairing::Twist kTwist = ::cuzk::pairing::Twist::kDType;
  static constexpr uint64_t kAbsX = kParamX;
  static constexpr bool kXIsNegative = false;
};

}  // namespace cuzk::bn254

namespace cuzk::pairing {
extern template class OptimalAte<bn254::PairingData>;
}  // namespace cuzk::pairing

namespace cuzk::bn254 {

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

}  // namespace cuzk::bn254
