#pragma once
// The fields of BN254 (alt_bn128, "bn128" in snarkjs): base field Fp and scalar field Fr, both
// 254 bits. Data from EIP-196/197; all else is derived in ff::Field.

#include "ff/field.hpp"
#include "ff/fp2.hpp"

namespace cuzk::bn254 {

struct FpData {
  static constexpr size_t kLimbs = 4;
  static constexpr const char* kModulusHex =
      "30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47";
  static constexpr uint64_t kSmallestNonResidue = 3;
};

struct FrData {
  static constexpr size_t kLimbs = 4;
  static constexpr const char* kModulusHex =
      "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001";
  static constexpr uint64_t kSmallestNonResidue = 5;  // its powers give snarkjs's roots of unity
};

using Fp = ff::Field<FpData>;
using Fr = ff::Field<FrData>;
using Fp2 = ff::Fp2<Fp>;

static_assert(Fp::kBits == 254 && Fp::kTwoAdicity == 1 && Fp::constants_are_consistent());
static_assert(Fr::kBits == 254 && Fr::kTwoAdicity == 28 && Fr::constants_are_consistent());

}  // namespace cuzk::bn254
