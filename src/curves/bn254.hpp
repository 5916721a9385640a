#pragma once
// BN254 (alt_bn128, "bn128" in snarkjs): G1 = E(Fp), E: y² = x³ + 3, of prime order r
// (cofactor 1), and G2 ⊂ E'(Fp2), E': y² = x³ + 3/(9 + u) (the D-type sextic twist).
//
// Constants from EIP-196 (G1) and EIP-197 (G2 generator, twist); the curve parameter
// x = 4965661367192848881 and the G2 cofactor h = 2p − r from the BN construction
// (Barreto–Naehrig 2005); each was compared with @noble/curves 2.4.0 (src/bn254.ts). The
// endomorphism constants are derived in the comments above them and recomputed from their
// definitions in tests/ec.

#include <cstdint>

#include "curves/bn254_fields.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"
#include "ec/xyzz.hpp"
#include "ff/bigint.hpp"
#include "util/host_device.hpp"

namespace cuzk::bn254 {

namespace detail {
consteval Fp fp_hex(const char* hex) { return Fp::from_int(ff::parse_hex<Fp::kLimbs>(hex)); }
consteval Fp2 fp2_hex(const char* c0, const char* c1) { return {fp_hex(c0), fp_hex(c1)}; }
}  // namespace detail

struct G1Curve {
  using Base = Fp;
  using Scalar = Fr;
  static constexpr const char* kName = "bn254_g1";
  static constexpr ff::BigInt<1> kCofactor = {{1}};

  CUZK_HD static constexpr Fp b() {
    constexpr Fp v = Fp::from_u64(3);
    return v;
  }
  CUZK_HD static constexpr Fp generator_x() {
    constexpr Fp v = Fp::from_u64(1);
    return v;
  }
  CUZK_HD static constexpr Fp generator_y() {
    constexpr Fp v = Fp::from_u64(2);
    return v;
  }
};

struct G2Curve {
  using Base = Fp2;
  using Scalar = Fr;
  static constexpr const char* kName = "bn254_g2";
  // h = 2p − r; #E'(Fp2) = h·r.
  static constexpr ff::BigInt<4> kCofactor =
      ff::parse_hex<4>("30644e72e131a029b85045b68181585e06ceecda572a2489345f2299c0f9fa8d");

  // b' = 3/(9 + u).
  CUZK_HD static constexpr Fp2 b() {
    constexpr Fp2 v =
        detail::fp2_hex("2b149d40ceb8aaae81be18991be06ac3b5b4c5e559dbefa33267e6dc24a138e5",
                        "009713b03af0fed4cd2cafadeed8fdf4a74fa084e52d1852e4a2bd0685c315d2");
    return v;
  }
  CUZK_HD static constexpr Fp2 generator_x() {
    constexpr Fp2 v =
        detail::fp2_hex("1800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed",
                        "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2");
    return v;
  }
  CUZK_HD static constexpr Fp2 generator_y() {
    constexpr Fp2 v =
        detail::fp2_hex("12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6cc0166fa7daa",
                        "090689d0585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b");
    return v;
  }
};

using G1Affine = ec::Affine<G1Curve>;
using G1Jacobian = ec::Jacobian<G1Curve>;
using G1Xyzz = ec::Xyzz<G1Curve>;
using G2Affine = ec::Affine<G2Curve>;
using G2Jacobian = ec::Jacobian<G2Curve>;
using G2Xyzz = ec::Xyzz<G2Curve>;

// The curve parameter x (positive for BN254).
inline constexpr uint64_t kParamX = 4965661367192848881;

// ψ = (untwist ∘ Frobenius ∘ twist) on E'. With the D-type untwisting (x, y) ↦ (x·w², y·w³),
// w⁶ = ξ = 9 + u, Frobenius gives w^(2p) = w²·ξ^((p−1)/3), so
//   ψ(x, y) = (x̄·ξ^((p−1)/3), ȳ·ξ^((p−1)/2)), x̄ the conjugate (= x^p in Fp2).
// On G2, ψ acts as multiplication by p ≡ 6x² (mod r) (the trace is t = 6x² + 1).
// 2M (Fp2).
namespace detail {
inline constexpr Fp2 kPsiX =
    fp2_hex("2fb347984f7911f74c0bec3cf559b143b78cc310c2c3330c99e39557176f553d",
            "16c9e55061ebae204ba4cc8bd75a079432ae2a1d0b7c9dce1665d51c640fcba2");
inline constexpr Fp2 kPsiY =
    fp2_hex("063cf305489af5dcdc5ec698b6e2f9b9dbaae0eda9c95998dc54014671a0135a",
            "07c03cbcac41049a0704b5a7ec796f2b21807dc98fa25bd282d37f632623b0e3");
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
// G1 has cofactor 1: every curve point is in it.
CUZK_HD constexpr bool is_in_subgroup(const G1Affine&) { return true; }

// G2 (El Housni, Guillevic, Piellard, "Co-factor clearing and subgroup membership testing on
// pairing-friendly curves", ePrint 2022/352, §6 for BN curves): P ∈ G2 ⇔ ψ(P) = [6x²]P.
// 6x² has 127 bits: about half the cost of the generic r·P test.
CUZK_HD_NOINLINE constexpr bool is_in_subgroup(const G2Affine& p) {
  if (p.is_infinity()) return true;
  constexpr unsigned __int128 six_x_squared_u128 = (unsigned __int128)kParamX * kParamX * 6;
  constexpr ff::BigInt<2> six_x_squared = {
      {uint64_t(six_x_squared_u128), uint64_t(six_x_squared_u128 >> 64)}};
  return ec::scalar_mul(p, six_x_squared) == psi(p);
}

// Maps any curve point into the subgroup: the identity on G1; h·P on G2.
CUZK_HD constexpr G1Jacobian clear_cofactor(const G1Affine& p) {
  return G1Jacobian::from_affine(p);
}
CUZK_HD_NOINLINE constexpr G2Jacobian clear_cofactor(const G2Affine& p) {
  return ec::clear_cofactor_generic(p);
}

}  // namespace cuzk::bn254
