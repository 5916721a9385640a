// The pairing tower Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v) of both curves: field axioms
// on random elements, the sparse and special products against the general ones, and the
// Frobenius maps against naive exponentiation by p^k (exponents computed with GMP).

#include <gtest/gtest.h>

#include <string>

#include "pairing/bls12_381_tower.hpp"
#include "pairing/bn254_tower.hpp"
#include "tests/pairing/gmp_exponents.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

struct TowerNames {
  template <class Tower>
  static std::string GetName(int) {
    return std::is_same_v<Tower, bls12_381::TowerData> ? "bls12_381" : "bn254";
  }
};

template <class Tower>
class TowerTest : public ::testing::Test {
 protected:
  using Fp2 = typename Tower::Fp2;
  using Fp = typename Fp2::Base;
  using Fp6 = ff::Fp6<Tower>;
  using Fp12 = ff::Fp12<Tower>;
  using Constants = ff::TowerConstants<Tower>;

  std::mt19937_64 rng =
      test::rng(std::string("pairing_tower/") + TowerNames::GetName<Tower>(0) + "/" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  const Integer p{Fp::kModulus};
  size_t cases = test::scaled(8);

  // Montgomery-free embedding of Fp2 values at given positions, for comparisons with the
  // general product.
  static Fp6 fp6(const Fp2& a0, const Fp2& a1, const Fp2& a2) { return {a0, a1, a2}; }
  Fp12 random_cyclotomic() {
    // The easy part of the final exponentiation, f^((p⁶ − 1)(p² + 1)), lands in G_Φ6(p²).
    Fp12 f = Fp12::random(rng);
    Fp12 g = f.conjugate() * f.inverse();
    return g.frobenius_map(2) * g;
  }
};

using Towers = ::testing::Types<bls12_381::TowerData, bn254::TowerData>;
TYPED_TEST_SUITE(TowerTest, Towers, TowerNames);

// v³ − ξ is irreducible over Fp2 iff ξ is not a cube, and w² − v is irreducible over Fp6 iff v
// is not a square there, which holds iff ξ = v³ is not a square in Fp2.
TYPED_TEST(TowerTest, XiIsNeitherSquareNorCube) {
  using Fp2 = typename TestFixture::Fp2;
  Integer order = this->p.pow(2) + (-1);
  Fp2 xi = TestFixture::Constants::kXi;
  Integer by2 = order.divided_exactly_by(Integer(ff::BigInt<1>{{2}}));
  Integer by3 = order.divided_exactly_by(Integer(ff::BigInt<1>{{3}}));
  constexpr size_t M = 2 * TestFixture::Fp::kLimbs;
  EXPECT_NE(xi.pow(by2.template limbs<M>()), Fp2::one());
  EXPECT_NE(xi.pow(by3.template limbs<M>()), Fp2::one());
}

TYPED_TEST(TowerTest, FrobeniusCoefficientsArePowersOfXi) {
  using Fp2 = typename TestFixture::Fp2;
  constexpr size_t M = 3 * TestFixture::Fp::kLimbs;
  for (unsigned long k = 1; k <= 3; ++k) {
    Integer pk = this->p.pow(k);
    Integer base = (pk + (-1)).divided_exactly_by(Integer(ff::BigInt<1>{{6}}));
    for (unsigned long m = 0; m < 6; ++m) {
      Integer e = base * Integer(ff::BigInt<1>{{m}});
      Fp2 expected = TestFixture::Constants::kXi.pow(e.template limbs<M>());
      EXPECT_EQ(TestFixture::Constants::kFrobenius[k][m], expected) << "k=" << k << " m=" << m;
    }
  }
}

TYPED_TEST(TowerTest, Fp6FieldAxioms) {
  using Fp6 = typename TestFixture::Fp6;
  using Fp2 = typename TestFixture::Fp2;
  for (size_t i = 0; i < this->cases; ++i) {
    Fp6 a = Fp6::random(this->rng), b = Fp6::random(this->rng), c = Fp6::random(this->rng);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a - b) + b, a);
    EXPECT_EQ(a + (-a), Fp6::zero());
    EXPECT_EQ(a.dbl(), a + a);
    EXPECT_EQ(a * Fp6::one(), a);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * a.inverse(), Fp6::one());
    EXPECT_EQ(a.mul_by_v(), a * this->fp6(Fp2::zero(), Fp2::one(), Fp2::zero()));
    Fp2 s = Fp2::random(this->rng), t = Fp2::random(this->rng);
    EXPECT_EQ(a * s, a * this->fp6(s, Fp2::zero(), Fp2::zero()));
    EXPECT_EQ(a.mul_by_01(s, t), a * this->fp6(s, t, Fp2::zero()));
    EXPECT_EQ(a.mul_by_1(t), a * this->fp6(Fp2::zero(), t, Fp2::zero()));
  }
  EXPECT_EQ(Fp6::zero().inverse(), Fp6::zero());
  // v³ = ξ.
  Fp6 v = this->fp6(Fp2::zero(), Fp2::one(), Fp2::zero());
  EXPECT_EQ(v * v * v, this->fp6(TestFixture::Constants::kXi, Fp2::zero(), Fp2::zero()));
}

TYPED_TEST(TowerTest, Fp12FieldAxioms) {
  using Fp12 = typename TestFixture::Fp12;
  using Fp6 = typename TestFixture::Fp6;
  using Fp2 = typename TestFixture::Fp2;
  for (size_t i = 0; i < this->cases; ++i) {
    Fp12 a = Fp12::random(this->rng), b = Fp12::random(this->rng), c = Fp12::random(this->rng);
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ((a - b) + b, a);
    EXPECT_EQ(a * Fp12::one(), a);
    EXPECT_EQ(a.sqr(), a * a);
    EXPECT_EQ(a * a.inverse(), Fp12::one());
  }
  EXPECT_EQ(Fp12::zero().inverse(), Fp12::zero());
  // w² = v.
  Fp12 w{Fp6::zero(), Fp6::one()};
  Fp12 v{{Fp2::zero(), Fp2::one(), Fp2::zero()}, Fp6::zero()};
  EXPECT_EQ(w * w, v);
}

// The line products against the general product with the same nonzero coefficients.
TYPED_TEST(TowerTest, SparseLineProductsMatchGeneralProduct) {
  using Fp12 = typename TestFixture::Fp12;
  using Fp2 = typename TestFixture::Fp2;
  const Fp2 zero = Fp2::zero();
  for (size_t i = 0; i < this->cases; ++i) {
    Fp12 f = Fp12::random(this->rng);
    Fp2 a = Fp2::random(this->rng), b = Fp2::random(this->rng), c = Fp2::random(this->rng);
    Fp12 line_034{{a, zero, zero}, {b, c, zero}};
    Fp12 line_014{{a, b, zero}, {zero, c, zero}};
    EXPECT_EQ(f.mul_by_034(a, b, c), f * line_034);
    EXPECT_EQ(f.mul_by_014(a, b, c), f * line_014);
  }
}

// frobenius_map(k) is x ↦ x^(p^k): checked by naive exponentiation for k = 1, 2, 3 and by
// composition for every k < 12; conjugation is the p⁶ power and p¹² is the identity.
TYPED_TEST(TowerTest, FrobeniusIsPowerOfP) {
  using Fp12 = typename TestFixture::Fp12;
  using Fp6 = typename TestFixture::Fp6;
  constexpr size_t N = TestFixture::Fp::kLimbs;
  const auto p1 = this->p.template limbs<N>();
  const auto p2 = this->p.pow(2).template limbs<2 * N>();
  const auto p3 = this->p.pow(3).template limbs<3 * N>();
  for (size_t i = 0; i < this->cases; ++i) {
    Fp12 f = Fp12::random(this->rng);
    EXPECT_EQ(f.frobenius_map(1), f.pow(p1));
    EXPECT_EQ(f.frobenius_map(2), f.pow(p2));
    EXPECT_EQ(f.frobenius_map(3), f.pow(p3));
    EXPECT_EQ(f.frobenius_map(0), f);
    Fp12 iterated = f;
    for (size_t k = 1; k < 12; ++k) {
      iterated = iterated.frobenius_map(1);
      EXPECT_EQ(f.frobenius_map(k), iterated) << "k=" << k;
    }
    EXPECT_EQ(iterated.frobenius_map(1), f);
    EXPECT_EQ(f.frobenius_map(6), f.conjugate());
    // Frobenius is a ring homomorphism.
    Fp12 g = Fp12::random(this->rng);
    EXPECT_EQ((f * g).frobenius_map(1), f.frobenius_map(1) * g.frobenius_map(1));

    Fp6 a = Fp6::random(this->rng);
    EXPECT_EQ(a.frobenius_map(1), a.pow(p1));
    EXPECT_EQ(a.frobenius_map(2), a.pow(p2));
    EXPECT_EQ(a.frobenius_map(6), a);
  }
}

TYPED_TEST(TowerTest, CyclotomicSquaringOnTheCyclotomicSubgroup) {
  using Fp12 = typename TestFixture::Fp12;
  for (size_t i = 0; i < this->cases; ++i) {
    Fp12 g = this->random_cyclotomic();
    // Membership: g^(p⁴ − p² + 1) = 1, i.e. g^(p⁴)·g = g^(p²).
    EXPECT_EQ(g.frobenius_map(4) * g, g.frobenius_map(2));
    EXPECT_EQ(g.conjugate() * g, Fp12::one());
    EXPECT_EQ(g.cyclotomic_sqr(), g.sqr());
    uint64_t e = this->rng();
    EXPECT_EQ(g.cyclotomic_pow(e), g.pow(ff::BigInt<1>{{e}}));
    EXPECT_EQ(g.cyclotomic_pow(0), Fp12::one());
    EXPECT_EQ(g.cyclotomic_pow(1), g);
    // Outside the subgroup the formula does not hold: the check above can fail.
    Fp12 f = Fp12::random(this->rng);
    EXPECT_NE(f.cyclotomic_sqr(), f.sqr());
  }
}

}  // namespace
}  // namespace cuzk::test
