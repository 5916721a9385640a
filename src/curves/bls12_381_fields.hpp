#pragma once
// The fields of BLS12-381: the base field Fp (381 bits) with its quadratic extension, and the
// scalar field Fr (255 bits, the field of circuits and witnesses). Data from the curve's
// specification (draft-irtf-cfrg-pairing-friendly-curves); all else is derived in ff::Field.

#include "ff/field.hpp"
#include "ff/fp2.hpp"

namespace cuzk::bls12_381 {

struct FpData {
  static constexpr size_t kLimbs = 6;
  static constexpr const char* kModulusHex =
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
  static constexpr uint64_t kSmallestNonResidue = 2;
};

struct FrData {
  static constexpr size_t kLimbs = 4;
  static constexpr const char* kModulusHex =
      "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
  static constexpr uint64_t kSmallestNonResidue = 5;  // its powers give snarkjs's roots of unity
};

using Fp = ff::Field<FpData>;
using Fr = ff::Field<FrData>;
using Fp2 = ff::Fp2<Fp>;

static_assert(Fp::kBits == 381 && Fp::kTwoAdicity == 1 && Fp::constants_are_consistent());
static_assert(Fr::kBits == 255 && Fr::kTwoAdicity == 32 && Fr::constants_are_consistent());

}  // namespace cuzk::bls12_381
