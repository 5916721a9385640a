// Fp2 = Fp[u]/(u² + 1) of both curves against a GMP model on pairs of integers:
// (a + bu)(c + du) = (ac − bd) + (ad + bc)u, (a + bu)⁻¹ = (a − bu)/(a² + b²).

#include <gtest/gtest.h>

#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class Fp2>
class Fp2Gmp : public ::testing::Test {
 protected:
  using Fp = typename Fp2::Base;
  struct Pair {
    Mpz c0, c1;
  };

  GmpField<Fp> gmp;
  std::mt19937_64 rng = test::rng(std::string("ff_fp2/") + field_name<Fp2>() + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Inputs<Fp> inputs{gmp, rng};

  Fp2 next() { return {inputs.next(), inputs.next()}; }
  Pair value(const Fp2& x) const { return {gmp.value(x.c0), gmp.value(x.c1)}; }
  Pair mul(const Pair& x, const Pair& y) const {
    return {gmp.sub(gmp.mul(x.c0, y.c0), gmp.mul(x.c1, y.c1)),
            gmp.add(gmp.mul(x.c0, y.c1), gmp.mul(x.c1, y.c0))};
  }
  Pair inv(const Pair& x) const {
    Mpz n = gmp.inv(gmp.add(gmp.mul(x.c0, x.c0), gmp.mul(x.c1, x.c1)));
    return {gmp.mul(x.c0, n), gmp.sub(Mpz(0), gmp.mul(x.c1, n))};
  }
  // a + bu is a square in Fp2 exactly when its norm a² + b² is a square in Fp (the norm maps
  // Fp2* onto Fp* and squares onto squares, with index 2 on both sides).
  int norm_legendre(const Pair& x) const {
    return gmp.legendre(gmp.add(gmp.mul(x.c0, x.c0), gmp.mul(x.c1, x.c1)));
  }
  static ::testing::AssertionResult same(const Pair& got, const Pair& want) {
    if (got.c0 == want.c0 && got.c1 == want.c1) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got.c0 << " + " << got.c1 << "·u, want "
                                         << want.c0 << " + " << want.c1 << "·u";
  }
};

using Fp2Fields = ::testing::Types<bls12_381::Fp2, bn254::Fp2>;
TYPED_TEST_SUITE(Fp2Gmp, Fp2Fields, FieldNames);

TYPED_TEST(Fp2Gmp, ArithmeticMatchesGmpModel) {
  const auto& gmp = this->gmp;
  for (size_t i = 0; i < scaled(3000); ++i) {
    TypeParam x = this->next(), y = this->next();
    auto vx = this->value(x), vy = this->value(y);
    ASSERT_TRUE(this->same(this->value(x * y), this->mul(vx, vy)))
        << "x=" << vx.c0 << "+" << vx.c1 << "u y=" << vy.c0 << "+" << vy.c1 << "u";
    ASSERT_TRUE(this->same(this->value(x.sqr()), this->mul(vx, vx)));
    ASSERT_TRUE(this->same(this->value(x + y), {gmp.add(vx.c0, vy.c0), gmp.add(vx.c1, vy.c1)}));
    ASSERT_TRUE(this->same(this->value(x - y), {gmp.sub(vx.c0, vy.c0), gmp.sub(vx.c1, vy.c1)}));
    ASSERT_TRUE(this->same(this->value(-x), {gmp.sub(Mpz(0), vx.c0), gmp.sub(Mpz(0), vx.c1)}));
    ASSERT_TRUE(this->same(this->value(x.conjugate()), {vx.c0, gmp.sub(Mpz(0), vx.c1)}));
    ASSERT_TRUE(this->same(this->value(x * y.c0), {gmp.mul(vx.c0, vy.c0), gmp.mul(vx.c1, vy.c0)}));
  }
}

TYPED_TEST(Fp2Gmp, InverseMatchesGmpModel) {
  EXPECT_TRUE(TypeParam::zero().inverse().is_zero());
  for (size_t i = 0; i < scaled(2000); ++i) {
    TypeParam x = this->next();
    auto vx = this->value(x);
    ASSERT_TRUE(this->same(this->value(x.inverse()), this->inv(vx)))
        << "x=" << vx.c0 << "+" << vx.c1 << "u";
    if (!x.is_zero()) {
      ASSERT_EQ(x * x.inverse(), TypeParam::one());
    }
  }
}

TYPED_TEST(Fp2Gmp, FrobeniusIsConjugation) {
  // x^p = conjugate(x) because u^p = −u for p ≡ 3 (mod 4).
  for (size_t i = 0; i < scaled(50); ++i) {
    TypeParam x = this->next();
    ASSERT_EQ(x.pow(TypeParam::Base::kModulus), x.conjugate());
  }
}

TYPED_TEST(Fp2Gmp, SqrtOfSquaresIsPlusOrMinusTheRoot) {
  for (size_t i = 0; i < scaled(300); ++i) {
    TypeParam x = this->next();
    TypeParam a = x.sqr();
    std::optional<TypeParam> root = a.sqrt();
    auto vx = this->value(x);
    ASSERT_TRUE(root.has_value()) << "x=" << vx.c0 << "+" << vx.c1 << "u";
    ASSERT_EQ(root->sqr(), a);
    ASSERT_TRUE(*root == x || *root == -x) << "x=" << vx.c0 << "+" << vx.c1 << "u";
  }
}

TYPED_TEST(Fp2Gmp, SqrtAgreesWithNormCriterion) {
  size_t non_squares = 0;
  for (size_t i = 0; i < scaled(400); ++i) {
    TypeParam a = this->next();
    auto va = this->value(a);
    std::optional<TypeParam> root = a.sqrt();
    if (!a.is_zero() && this->norm_legendre(va) == -1) {
      ++non_squares;
      ASSERT_FALSE(root.has_value()) << "a=" << va.c0 << "+" << va.c1 << "u";
    } else {
      ASSERT_TRUE(root.has_value()) << "a=" << va.c0 << "+" << va.c1 << "u";
      ASSERT_EQ(root->sqr(), a);
    }
  }
  EXPECT_GT(non_squares, 0u);
  // Elements of Fp are all squares in Fp2 (−1 = u² included).
  EXPECT_TRUE(TypeParam({-TypeParam::Base::one(), TypeParam::Base::zero()}).sqrt().has_value());
}

}  // namespace
}  // namespace cuzk::test
