#pragma once
// GLV endomorphism constants (ec/glv.hpp) of G1 and G2 for BN254 and BLS12-381.
//
// Derivation, for each curve: β is a primitive cube root of unity of Fp and λ the cube root of
// unity of Fr with (β·x, y) = λ·(x, y) on G1; on G2 (x in Fp2, β in Fp) the same λ goes with
// β², the other primitive root (the twist changes which one). The lattice basis comes from the
// extended Euclidean algorithm on (r, λ), stopped at the remainders around √r (GLV 2001, §4);
// the determinant a1·b2 − a2·b1 is r for both curves. g1 = round(2^256·b2/r),
// g2 = round(−2^256·b1/r). tests/ec/glv_test.cpp recomputes every relation: β³ = 1,
// λ³ = 1, φ = λ on both groups, a + b·λ ≡ 0 for both basis vectors, the determinant, the
// rounding constants, and the split's bound on random and extreme scalars.
// BLS12-381's β for G1 is the one of bls12_381::phi (its λ is −x², x the curve parameter).

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/glv.hpp"

namespace cuzk::ec {

namespace detail {

// What G1 and G2 of one curve share: the scalar field's λ and the lattice.
struct Bn254GlvScalars {
  static constexpr GlvLattice kLattice = {
      .a1 = signed_hex<2>("6f4d8248eeb859fc8211bbeb7d4f1128"),
      .b1 = signed_hex<2>("-89d3256894d213e3"),
      .a2 = signed_hex<2>("89d3256894d213e3"),
      .b2 = signed_hex<2>("6f4d8248eeb859fd0be4e1541221250b"),
      .g1 = signed_hex<3>("24ccef014a773d2d25398fd0300ff6565"),
      .g2 = signed_hex<3>("2d91d232ec7e0b3d7"),
  };
  static constexpr ff::BigInt<4> kLambda =
      ff::parse_hex<4>("30644e72e131a029048b6e193fd84104cc37a73fec2bc5e9b8ca0b2d36636f23");
};

struct Bls12381GlvScalars {
  static constexpr GlvLattice kLattice = {
      .a1 = signed_hex<2>("1"),
      .b1 = signed_hex<2>("-ac45a4010001a40200000000ffffffff"),
      .a2 = signed_hex<2>("ac45a4010001a4020000000100000000"),
      .b2 = signed_hex<2>("1"),
      .g1 = signed_hex<3>("2"),
      .g2 = signed_hex<3>("17c6becf1e01faadd63f6e522f6cfee2e"),
  };
  static constexpr ff::BigInt<4> kLambda =
      ff::parse_hex<4>("73eda753299d7d483339d80809a1d804a7780001fffcb7fcfffffffe00000001");
};

}  // namespace detail

// β per group (G2 takes β², the other primitive cube root, for the same λ).
template <>
struct Glv<bn254::G1Curve> : detail::Bn254GlvScalars {
  static constexpr bn254::Fp beta() {
    return bn254::detail::fp_hex("30644e72e131a0295e6dd9e7e0acccb0c28f069fbb966e3de4bd44e5607cfd48");
  }
};
template <>
struct Glv<bn254::G2Curve> : detail::Bn254GlvScalars {
  static constexpr bn254::Fp beta() {
    return bn254::detail::fp_hex("59e26bcea0d48bacd4f263f1acdb5c4f5763473177fffffe");
  }
};
template <>
struct Glv<bls12_381::G1Curve> : detail::Bls12381GlvScalars {
  static constexpr bls12_381::Fp beta() {
    return bls12_381::detail::fp_hex(
        "5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
  }
};
template <>
struct Glv<bls12_381::G2Curve> : detail::Bls12381GlvScalars {
  static constexpr bls12_381::Fp beta() {
    return bls12_381::detail::fp_hex(
        "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd"
        "00000000aaac");
  }
};

}  // namespace cuzk::ec
