#pragma once
// BLS12-381: the groups G1 ⊂ E(Fp), E: y² = x³ + 4, and G2 ⊂ E'(Fp2), E': y² = x³ + 4(1 + u)
// (the M-type sextic twist), both of prime order r = |Fr|.
//
// Constants from draft-irtf-cfrg-pairing-friendly-curves-11 §4.2.1 (the zcash parameters):
// generators, cofactors and the curve parameter x = -0xd201000000010000; each was compared
// with @noble/curves 2.4.0 (src/bls12-381.ts). The endomorphism constants are derived in the
// comments above them and recomputed from their definitions in tests/ec.

#include <cstdint>

#include "curves/bls12_381_fields.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"
#include "ec/xyzz.hpp"
#include "ff/bigint.hpp"
#include "util/host_device.hpp"

namespace cuzk::bls12_381 {

namespace detail {
consteval Fp fp_hex(const char* hex) { return Fp::from_int(ff::parse_hex<Fp::kLimbs>(hex)); }
consteval Fp2 fp2_hex(const char* c0, const char* c1) { return {fp_hex(c0), fp_hex(c1)}; }
}  // namespace detail

// |x| for the curve parameter x = -0xd201000000010000 (negative; 6 bits set).
inline constexpr uint64_t kParamXAbs = 0xd201000000010000;

struct G1Curve {
  using Base = Fp;
  using Scalar = Fr;
  static constexpr const char* kName = "bls12_381_g1";
  // h = (x − 1)²/3; #E(Fp) = h·r.
  static constexpr ff::BigInt<2> kCofactor = ff::parse_hex<2>("396c8c005555e1568c00aaab0000aaab");

  CUZK_HD static constexpr Fp b() {
    constexpr Fp v = Fp::from_u64(4);
    return v;
  }
  CUZK_HD static constexpr Fp generator_x() {
    constexpr Fp v = detail::fp_hex(
        "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb"
        "22c6bb");
    return v;
  }
  CUZK_HD static constexpr Fp generator_y() {
    constexpr Fp v = detail::fp_hex(
        "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946"
        "c5e7e1");
    return v;
  }
};

struct G2Curve {
  using Base = Fp2;
  using Scalar = Fr;
  static constexpr const char* kName = "bls12_381_g2";
  // h = (x⁸ − 4x⁷ + 5x⁶ − 4x⁴ + 6x³ − 4x² − 4x + 13)/9; #E'(Fp2) = h·r.
  static constexpr ff::BigInt<8> kCofactor = ff::parse_hex<8>(
      "5d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6"
      "691ae1616ec6e786f0c70cf1c38e31c7238e5");

  CUZK_HD static constexpr Fp2 b() {
    constexpr Fp2 v = {Fp::from_u64(4), Fp::from_u64(4)};
    return v;
  }
  CUZK_HD static constexpr Fp2 generator_x() {
    constexpr Fp2 v = detail::fp2_hex(
        "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c1"
        "21bdb8",
        "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d"
        "042b7e");
    return v;
  }
  CUZK_HD static constexpr Fp2 generator_y() {
    constexpr Fp2 v = detail::fp2_hex(
        "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608"
        "b82801",
        "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff0"
        "5f79be");
    return v;
  }
};

using G1Affine = ec::Affine<G1Curve>;
using G1Jacobian = ec::Jacobian<G1Curve>;
using G1Xyzz = ec::Xyzz<G1Curve>;
using G2Affine = ec::Affine<G2Curve>;
using G2Jacobian = ec::Jacobian<G2Curve>;
using G2Xyzz = ec::Xyzz<G2Curve>;

// φ(x, y) = (β·x, y), β a primitive cube root of unity in Fp: an automorphism of E (since
// (βx)³ = x³). On G1 it acts as multiplication by an eigenvalue λ with λ² + λ + 1 ≡ 0 (mod r);
// this β is the one for which λ = −x² (the choice of @noble/curves and of Scott 2021).
// 1M.
CUZK_HD constexpr G1Affine phi(const G1Affine& p) {
  constexpr Fp beta = detail::fp_hex(
      "5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
  return {p.x * beta, p.y};
}

// ψ = (untwist ∘ Frobenius ∘ twist) on E'. With the M-type untwisting (x, y) ↦ (x/w², y/w³),
// w⁶ = ξ = 1 + u, Frobenius gives w^(−2p) = w⁻²·ξ^(−(p−1)/3), so
//   ψ(x, y) = (x̄·ξ^(−(p−1)/3), ȳ·ξ^(−(p−1)/2)), x̄ the conjugate (= x^p in Fp2).
// On G2, ψ acts as multiplication by p ≡ x (mod r). It commutes with the Jacobian scaling
// (the Frobenius is a field automorphism), so it applies coordinate-wise there too.
// 2M (Fp2).
namespace detail {
inline constexpr Fp2 kPsiX = fp2_hex("0",
                                     "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85"
                                     "f9b409427eb4f49fffd8bfd00000000aaad");
inline constexpr Fp2 kPsiY = fp2_hex(
    "135203e60180a68ee2e9c448d77a2cd91c3dedd930b1cf60ef396489f61eb45e304466cf3e67fa0af1ee7b04121bde"
    "a2",
    "06af0e0437ff400b6831e36d6bd17ffe48395dabc2d3435e77f76e17009241c5ee67992f72ec05f4c81084fbede3cc"
    "09");
}  // namespace detail

CUZK_HD constexpr G2Affine psi(const G2Affine& p) {
  constexpr Fp2 cx = detail::kPsiX, cy = detail::kPsiY;
  return {p.x.conjugate() * cx, p.y.conjugate() * cy};
}
CUZK_HD constexpr G2Jacobian psi(const G2Jacobian& p) {
  constexpr Fp2 cx = detail::kPsiX, cy = detail::kPsiY;
  return {p.X.conjugate() * cx, p.Y.conjugate() * cy, p.Z.conjugate()};
}

// Subgroup membership for a point already known to be on the curve.
//
// G1 (Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly
// curves", ePrint 2021/1130, §3): P ∈ G1 ⇔ φ(P) = −x²·P. Two multiplications by the 64-bit
// |x| (126 doublings, 10 additions) instead of one by the 255-bit r.
CUZK_HD_NOINLINE constexpr bool is_in_subgroup(const G1Affine& p) {
  if (p.is_infinity()) return true;
  constexpr ff::BigInt<1> x_abs = {{kParamXAbs}};
  G1Jacobian x2p = ec::scalar_mul_binary(ec::scalar_mul_binary(p, x_abs), x_abs);  // x²·P
  return x2p == -phi(p);
}

// G2 (same paper, §4): P ∈ G2 ⇔ ψ(P) = x·P = −|x|·P: 63 doublings and 5 mixed additions.
CUZK_HD_NOINLINE constexpr bool is_in_subgroup(const G2Affine& p) {
  if (p.is_infinity()) return true;
  constexpr ff::BigInt<1> x_abs = {{kParamXAbs}};
  return ec::scalar_mul_binary(p, x_abs) == -psi(p);
}

// Maps any curve point into G1 by the effective cofactor 1 − x = |x| + 1 (RFC 9380 §8.8.1:
// h_eff = 0xd201000000010001), which is cheaper than h and lands in G1 as well.
CUZK_HD_NOINLINE constexpr G1Jacobian clear_cofactor(const G1Affine& p) {
  constexpr ff::BigInt<1> x_abs = {{kParamXAbs}};
  return ec::scalar_mul_binary(p, x_abs) + p;
}

// Maps any point of E'(Fp2) into G2 (Budroni–Pintore, ePrint 2017/419; the
// clear_cofactor_bls12381_g2 of RFC 9380 Appendix G.3):
//   [x² − x − 1]P + [x − 1]ψ(P) + ψ²(2P)
// evaluated as ψ²(2P) − ψ(P) + x·(x·P + ψ(P)) − x·P − P: two multiplications by |x|.
CUZK_HD_NOINLINE constexpr G2Jacobian clear_cofactor(const G2Affine& p) {
  constexpr ff::BigInt<1> x_abs = {{kParamXAbs}};
  G2Jacobian pj = G2Jacobian::from_affine(p);
  G2Jacobian xp = -ec::scalar_mul_binary(p, x_abs);  // x·P (x < 0)
  G2Jacobian psi_p = psi(pj);
  G2Jacobian sum = psi(psi(pj.dbl())) - psi_p;
  sum += -ec::scalar_mul_binary(xp + psi_p, x_abs);  // x·(x·P + ψ(P))
  return sum - xp - pj;
}

}  // namespace cuzk::bls12_381
