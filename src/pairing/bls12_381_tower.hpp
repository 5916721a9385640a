#pragma once
// The pairing tower of BLS12-381: Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v) with
// ξ = 1 + u (draft-irtf-cfrg-pairing-friendly-curves-11, §4.2.2; the tower of zcash's
// bls12_381 crate and of @noble/curves). Frobenius coefficients are derived in ff/fp6.hpp.

#include "curves/bls12_381_fields.hpp"
#include "ff/fp12.hpp"
#include "ff/fp6.hpp"

namespace cuzk::bls12_381 {

struct TowerData {
  using Fp2 = bls12_381::Fp2;
  static constexpr uint64_t kXiC0 = 1;  // ξ = 1 + u
  static constexpr uint64_t kXiC1 = 1;
};

using Fp6 = ff::Fp6<TowerData>;
using Fp12 = ff::Fp12<TowerData>;

}  // namespace cuzk::bls12_381

namespace cuzk::ff {
extern template struct Fp6<bls12_381::TowerData>;  // instantiated in pairing/pairing.cpp
extern template struct Fp12<bls12_381::TowerData>;
}  // namespace cuzk::ff
