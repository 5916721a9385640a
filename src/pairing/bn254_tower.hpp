#pragma once
// The pairing tower of BN254: Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v) with ξ = 9 + u
// (EIP-197's alt_bn128 and the tower of go-ethereum, gnark and @noble/curves). Frobenius
// coefficients are derived in ff/fp6.hpp.

#include "curves/bn254_fields.hpp"
#include "ff/fp12.hpp"
#include "ff/fp6.hpp"

namespace cuzk::bn254 {

struct TowerData {
  using Fp2 = bn254::Fp2;
  static constexpr uint64_t kXiC0 = 9;  // ξ = 9 + u
  static constexpr uint64_t kXiC1 = 1;
};

using Fp6 = ff::Fp6<TowerData>;
using Fp12 = ff::Fp12<TowerData>;

}  // namespace cuzk::bn254

namespace cuzk::ff {
extern template struct Fp6<bn254::TowerData>;  // instantiated in pairing/pairing.cpp
extern template struct Fp12<bn254::TowerData>;
}  // namespace cuzk::ff
