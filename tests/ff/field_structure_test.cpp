// The derived constants and the multiplicative structure of the four prime fields against
// GMP: R, R², R³, -p⁻¹, bit and byte sizes, the 2-adic decomposition, square roots, Legendre
// symbols and roots of unity (with the snarkjs convention for the scalar fields).

#include <gtest/gtest.h>

#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class F>
class FieldStructure : public ::testing::Test {
 protected:
  GmpField<F> gmp;
  std::mt19937_64 rng = test::rng(std::string("ff_structure/") + field_name<F>() + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Inputs<F> inputs{gmp, rng};
};

using PrimeFields = ::testing::Types<bls12_381::Fp, bls12_381::Fr, bn254::Fp, bn254::Fr>;
TYPED_TEST_SUITE(FieldStructure, PrimeFields, FieldNames);

// The scalar fields are where NTT domains live; their roots of unity must be snarkjs's.
template <class F>
constexpr bool is_scalar_field() {
  return std::is_same_v<F, bls12_381::Fr> || std::is_same_v<F, bn254::Fr>;
}

TYPED_TEST(FieldStructure, DerivedConstantsMatchGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  const Mpz& p = gmp.p;
  EXPECT_NE(mpz_probab_prime_p(p.get(), 40), 0) << "modulus is not prime: " << p;
  auto pow2_mod_p = [&](unsigned long k) {
    Mpz v;
    mpz_setbit(v.get(), k);
    return gmp.reduce(v);
  };
  const unsigned long bits = 64 * F::kLimbs;
  EXPECT_EQ(to_mpz(F::kR), pow2_mod_p(bits));
  EXPECT_EQ(to_mpz(F::kR2), pow2_mod_p(2 * bits));
  EXPECT_EQ(to_mpz(F::kR3), pow2_mod_p(3 * bits));
  // kInv = -p⁻¹ mod 2^64.
  Mpz two64, inv;
  mpz_setbit(two64.get(), 64);
  mpz_invert(inv.get(), p.get(), two64.get());
  mpz_sub(inv.get(), two64.get(), inv.get());
  EXPECT_EQ(Mpz(F::kInv), inv);
  EXPECT_EQ(F::kBits, mpz_sizeinbase(p.get(), 2));
  EXPECT_EQ(F::kBytes, (mpz_sizeinbase(p.get(), 2) + 7) / 8);
  // p − 1 = 2^s·t, t odd.
  Mpz p_minus_1;
  mpz_sub_ui(p_minus_1.get(), p.get(), 1);
  EXPECT_EQ(F::kTwoAdicity, mpz_scan1(p_minus_1.get(), 0));
  Mpz t;
  mpz_fdiv_q_2exp(t.get(), p_minus_1.get(), F::kTwoAdicity);
  EXPECT_EQ(to_mpz(F::kOddPart), t);
  EXPECT_EQ(gmp.value(F::one()), Mpz(1));
  EXPECT_TRUE(F::zero().is_zero());
  // kNonResidue is the smallest non-residue: every smaller integer ≥ 2 is a square.
  Mpz g = gmp.value(F::kNonResidue);
  EXPECT_EQ(gmp.legendre(g), -1) << g;
  for (unsigned long k = 2; mpz_cmp_ui(g.get(), k) > 0; ++k) {
    EXPECT_EQ(gmp.legendre(Mpz(k)), 1) << k;
  }
  if constexpr (is_scalar_field<F>()) {
    EXPECT_EQ(g, Mpz(5));  // snarkjs/ffjavascript
  }
}

TYPED_TEST(FieldStructure, LegendreMatchesGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  EXPECT_EQ(F::zero().legendre(), 0);
  for (size_t i = 0; i < scaled(1000); ++i) {
    F a = this->inputs.next();
    Mpz va = gmp.value(a);
    ASSERT_EQ(a.legendre(), gmp.legendre(va)) << "a=" << va;
  }
}

TYPED_TEST(FieldStructure, SqrtOfSquaresIsPlusOrMinusGmpRoot) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  for (size_t i = 0; i < scaled(1000); ++i) {
    F x = this->inputs.next();
    F a = x.sqr();
    Mpz vx = gmp.value(x);
    std::optional<F> root = a.sqrt();
    ASSERT_TRUE(root.has_value()) << "x=" << vx;
    ASSERT_EQ(root->sqr(), a) << "x=" << vx;
    Mpz vr = gmp.value(*root);
    ASSERT_TRUE(vr == vx || vr == gmp.sub(Mpz(0), vx)) << "x=" << vx << " root=" << vr;
  }
}

TYPED_TEST(FieldStructure, SqrtOfNonSquaresIsNullopt) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  size_t non_squares = 0;
  for (size_t i = 0; i < scaled(2000) && non_squares < scaled(1000); ++i) {
    F a = this->inputs.next();
    Mpz va = gmp.value(a);
    std::optional<F> root = a.sqrt();
    if (gmp.legendre(va) == -1) {
      ++non_squares;
      ASSERT_FALSE(root.has_value()) << "a=" << va;
    } else {
      ASSERT_TRUE(root.has_value()) << "a=" << va;
      ASSERT_EQ(root->sqr(), a) << "a=" << va;
    }
  }
  EXPECT_GT(non_squares, 0u);
}

TYPED_TEST(FieldStructure, RootsOfUnityHaveExactOrderAndMatchGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  Mpz g = gmp.value(F::kNonResidue);
  Mpz p_minus_1;
  mpz_sub_ui(p_minus_1.get(), gmp.p.get(), 1);
  for (size_t k = 0; k <= F::kTwoAdicity; ++k) {
    F w = F::root_of_unity(k);
    // Order exactly 2^k: w^(2^k) = 1 and, for k > 0, w^(2^(k−1)) = −1 ≠ 1.
    F x = w;
    for (size_t i = 1; i < k; ++i) x = x.sqr();
    if (k > 0) {
      EXPECT_EQ(x, -F::one()) << "k=" << k;
      x = x.sqr();
    }
    EXPECT_EQ(x, F::one()) << "k=" << k;
    // ω_(2^k) = g^((p−1)/2^k); for the scalar fields g = 5 (checked above): snarkjs's roots.
    Mpz e;
    mpz_fdiv_q_2exp(e.get(), p_minus_1.get(), k);
    EXPECT_EQ(gmp.value(w), gmp.pow(g, e)) << "k=" << k;
  }
}

// The moduli follow from the curves' seeds: an independent check of the hex literals in the data
// records. Seeds and polynomials: BLS12-381 from draft-irtf-cfrg-pairing-friendly-curves-11,
// BN254 from the parameter notes of @noble/curves (bn254 module, "Seed (X)").
TEST(FieldModuli, FollowFromCurveSeeds) {
  // BLS12-381: x = −0xd201000000010000, r = x⁴ − x² + 1, p = (x − 1)²·r/3 + x.
  Mpz x("-d201000000010000", 16);
  Mpz x2, x4, r, p;
  mpz_mul(x2.get(), x.get(), x.get());
  mpz_mul(x4.get(), x2.get(), x2.get());
  mpz_sub(r.get(), x4.get(), x2.get());
  mpz_add_ui(r.get(), r.get(), 1);
  Mpz xm1;
  mpz_sub_ui(xm1.get(), x.get(), 1);
  mpz_mul(p.get(), xm1.get(), xm1.get());
  mpz_mul(p.get(), p.get(), r.get());
  ASSERT_TRUE(mpz_divisible_ui_p(p.get(), 3));
  mpz_divexact_ui(p.get(), p.get(), 3);
  mpz_add(p.get(), p.get(), x.get());
  EXPECT_EQ(to_mpz(bls12_381::Fr::kModulus), r);
  EXPECT_EQ(to_mpz(bls12_381::Fp::kModulus), p);

  // BN254: u = 4965661367192848881, p = 36u⁴ + 36u³ + 24u² + 6u + 1, r = 36u⁴ + 36u³ + 18u² + 6u
  // + 1.
  Mpz u("4965661367192848881", 10);
  Mpz bn_p, bn_r, term;
  auto add_term = [&](Mpz& acc, unsigned long coefficient, unsigned long power) {
    mpz_pow_ui(term.get(), u.get(), power);
    mpz_addmul_ui(acc.get(), term.get(), coefficient);
  };
  add_term(bn_p, 36, 4);
  add_term(bn_p, 36, 3);
  add_term(bn_p, 24, 2);
  add_term(bn_p, 6, 1);
  add_term(bn_p, 1, 0);
  add_term(bn_r, 36, 4);
  add_term(bn_r, 36, 3);
  add_term(bn_r, 18, 2);
  add_term(bn_r, 6, 1);
  add_term(bn_r, 1, 0);
  EXPECT_EQ(to_mpz(bn254::Fp::kModulus), bn_p);
  EXPECT_EQ(to_mpz(bn254::Fr::kModulus), bn_r);
}

}  // namespace
}  // namespace cuzk::test
