// The curve-specific constants, recomputed from their definitions: cofactors from the curve
// parameter, the endomorphism constants from the twist's non-residue, and the eigenvalues the
// subgroup checks rely on.

#include <gtest/gtest.h>

#include <cstdint>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/bigint.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

using u128 = unsigned __int128;

// a / d for a small divisor d, with the remainder (schoolbook long division by limbs).
template <size_t N>
ff::BigInt<N> div_small(const ff::BigInt<N>& a, uint64_t d, uint64_t* remainder) {
  ff::BigInt<N> q{};
  u128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    u128 cur = (rem << 64) | a.limb[i];
    q.limb[i] = uint64_t(cur / d);
    rem = cur % d;
  }
  *remainder = uint64_t(rem);
  return q;
}

// (p − 1)/d, checking that d divides p − 1.
template <class Fp>
ff::BigInt<Fp::kLimbs> p_minus_1_over(uint64_t d) {
  auto m = Fp::kModulus;
  m.limb[0] -= 1;
  uint64_t rem = 0;
  auto q = div_small(m, d, &rem);
  EXPECT_EQ(rem, 0u);
  return q;
}

TEST(Bls12381Constants, G1CofactorIsXMinusOneSquaredOverThree) {
  // x = −|x|, so (x − 1)² = (|x| + 1)², which fits 128 bits.
  u128 t = u128(bls12_381::kParamXAbs) + 1;
  u128 h = t * t / 3;
  EXPECT_EQ(t * t % 3, 0u);
  auto c = bls12_381::G1Curve::kCofactor;
  EXPECT_EQ(c.limb[0], uint64_t(h));
  EXPECT_EQ(c.limb[1], uint64_t(h >> 64));
}

TEST(Bls12381Constants, BetaIsANonTrivialCubeRootOfUnity) {
  using bls12_381::Fp;
  Fp beta = bls12_381::phi(bls12_381::G1Affine{Fp::one(), Fp::one()}).x;
  EXPECT_NE(beta, Fp::one());
  EXPECT_EQ(beta.sqr() * beta, Fp::one());
}

TEST(Bls12381Constants, PsiConstantsAreXiPowers) {
  using bls12_381::Fp;
  using bls12_381::Fp2;
  // M-type twist: ξ = 1 + u, ψ multiplies by ξ^(−(p−1)/3) and ξ^(−(p−1)/2).
  Fp2 xi_inv = Fp2{Fp::one(), Fp::one()}.inverse();
  EXPECT_EQ(bls12_381::detail::kPsiX, xi_inv.pow(p_minus_1_over<Fp>(3)));
  EXPECT_EQ(bls12_381::detail::kPsiY, xi_inv.pow(p_minus_1_over<Fp>(2)));
}

TEST(Bn254Constants, G2CofactorIsTwoPMinusR) {
  ff::BigInt<4> h = bn254::Fp::kModulus;
  ff::add_in_place(h, bn254::Fp::kModulus);
  ff::sub_in_place(h, bn254::Fr::kModulus);
  EXPECT_EQ(h, bn254::G2Curve::kCofactor);
}

TEST(Bn254Constants, TwistCoefficientIsThreeOverXi) {
  using bn254::Fp;
  using bn254::Fp2;
  Fp2 xi = {Fp::from_u64(9), Fp::one()};
  EXPECT_EQ(bn254::G2Curve::b() * xi, (Fp2{Fp::from_u64(3), Fp::zero()}));
}

TEST(Bn254Constants, PsiConstantsAreXiPowers) {
  using bn254::Fp;
  using bn254::Fp2;
  // D-type twist: ξ = 9 + u, ψ multiplies by ξ^((p−1)/3) and ξ^((p−1)/2).
  Fp2 xi = {Fp::from_u64(9), Fp::one()};
  EXPECT_EQ(bn254::detail::kPsiX, xi.pow(p_minus_1_over<Fp>(3)));
  EXPECT_EQ(bn254::detail::kPsiY, xi.pow(p_minus_1_over<Fp>(2)));
}

// On G2, ψ is the p-power Frobenius seen through the twist, so it multiplies by p; on BLS12-381
// G1, φ multiplies by −x² (the eigenvalue the subgroup check uses).
TEST(Endomorphisms, EigenvaluesOnTheSubgroups) {
  auto rng = test::rng("ec/eigenvalues");
  for (size_t i = 0; i < scaled(3); ++i) {
    auto q = ec::mul_generator<bls12_381::G2Curve>(bls12_381::Fr::random(rng)).to_affine();
    EXPECT_EQ(ec::scalar_mul(q, bls12_381::Fp::kModulus), bls12_381::psi(q));
    auto qj = ec::Jacobian<bls12_381::G2Curve>::from_affine(q).dbl();
    EXPECT_EQ(bls12_381::psi(qj).to_affine(), bls12_381::psi(qj.to_affine()));

    auto b = ec::mul_generator<bn254::G2Curve>(bn254::Fr::random(rng)).to_affine();
    EXPECT_EQ(ec::scalar_mul(b, bn254::Fp::kModulus), bn254::psi(b));

    auto p = ec::mul_generator<bls12_381::G1Curve>(bls12_381::Fr::random(rng)).to_affine();
    constexpr ff::BigInt<1> x_abs = {{bls12_381::kParamXAbs}};
    auto x2p = ec::scalar_mul_binary(ec::scalar_mul_binary(p, x_abs), x_abs);
    EXPECT_EQ(-x2p, bls12_381::phi(p));
    EXPECT_TRUE(bls12_381::phi(p).is_on_curve());
  }
}

// RFC 9380 §8.8.2 gives the effective cofactor h_eff of BLS12-381 G2 (the value is also in
// @noble/curves 2.4.0, src/bls12-381.ts): clear_cofactor must equal multiplication by it.
TEST(Bls12381Constants, G2ClearCofactorIsMultiplicationByHEff) {
  constexpr auto h_eff = ff::parse_hex<10>(
      "0bc69f08f2ee75b3584c6a0ea91b352888e2a8e9145ad7689986ff031508ffe1329c2f178731db956d82bf01"
      "5d1212b02ec0ec69d7477c1ae954cbc06689f6a359894c0adebbf6b4e8020005aaa95551");
  auto rng = test::rng("ec/h_eff");
  for (size_t i = 0; i < scaled(2); ++i) {
    std::optional<bls12_381::G2Affine> p;
    while (!(p = bls12_381::G2Affine::from_x(bls12_381::Fp2::random(rng)))) {
    }
    EXPECT_EQ(bls12_381::clear_cofactor(*p), ec::scalar_mul(*p, h_eff));
  }
}

}  // namespace
}  // namespace cuzk::test
