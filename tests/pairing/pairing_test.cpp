// Properties of the optimal ate pairings of both curves on random points: bilinearity,
// non-degeneracy, order r, negation, multi-pairing, infinity, input checks; and the pieces of
// the Miller loop against the curve layer's arithmetic.

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "tests/pairing/gmp_exponents.hpp"
#include "tests/pairing/pairing_curves.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::test {
namespace {

template <class Data>
class PairingTest : public ::testing::Test, public PairingTypes<Data> {
 protected:
  using T = PairingTypes<Data>;
  using Pairing = typename T::Pairing;
  using G1Affine = typename T::G1Affine;
  using G2Affine = typename T::G2Affine;
  using Fp12 = typename T::Fp12;
  using Fr = typename T::Fr;
  using Pair = typename Pairing::Pair;

  std::mt19937_64 rng = test::rng(std::string("pairing/") + PairingNames::GetName<Data>(0) + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  size_t cases = test::scaled(2);

  static Fp12 gt_pow(const Fp12& e, const Fr& k) { return e.pow(k.to_int()); }
};

TYPED_TEST_SUITE(PairingTest, PairingCurves, PairingNames);

TYPED_TEST(PairingTest, NonDegenerateAndOfOrderR) {
  using Pairing = typename TestFixture::Pairing;
  using Fr = typename TestFixture::Fr;
  auto e = Pairing::pairing(TestFixture::G1Affine::generator(), TestFixture::G2Affine::generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_EQ(e.pow(Fr::kModulus), TestFixture::Fp12::one());
  auto p = this->random_g1(this->rng);
  auto q = this->random_g2(this->rng);
  EXPECT_EQ(Pairing::pairing(p, q).pow(Fr::kModulus), TestFixture::Fp12::one());
}

TYPED_TEST(PairingTest, Bilinear) {
  using Pairing = typename TestFixture::Pairing;
  using Fr = typename TestFixture::Fr;
  for (size_t i = 0; i < this->cases; ++i) {
    auto p = this->random_g1(this->rng);
    auto q = this->random_g2(this->rng);
    Fr a = Fr::random(this->rng), b = Fr::random(this->rng);
    auto e = Pairing::pairing(p, q);
    auto ap = ec::scalar_mul(p, a).to_affine();
    auto bq = ec::scalar_mul(q, b).to_affine();
    auto aq = ec::scalar_mul(q, a).to_affine();
    EXPECT_EQ(Pairing::pairing(ap, bq), this->gt_pow(e, a * b));
    EXPECT_EQ(Pairing::pairing(ap, q), Pairing::pairing(p, aq));
    // Additive in each argument.
    auto p2 = this->random_g1(this->rng);
    auto q2 = this->random_g2(this->rng);
    auto p_sum = (ec::Jacobian<typename TypeParam::G1Curve>::from_affine(p) + p2).to_affine();
    auto q_sum = (ec::Jacobian<typename TypeParam::G2Curve>::from_affine(q) + q2).to_affine();
    EXPECT_EQ(Pairing::pairing(p_sum, q), e * Pairing::pairing(p2, q));
    EXPECT_EQ(Pairing::pairing(p, q_sum), e * Pairing::pairing(p, q2));
  }
}

TYPED_TEST(PairingTest, NegationInverts) {
  using Pairing = typename TestFixture::Pairing;
  using Pair = typename TestFixture::Pair;
  auto p = this->random_g1(this->rng);
  auto q = this->random_g2(this->rng);
  auto e = Pairing::pairing(p, q);
  EXPECT_EQ(Pairing::pairing(-p, q) * e, TestFixture::Fp12::one());
  EXPECT_EQ(Pairing::pairing(p, -q), e.conjugate());
  std::array<Pair, 2> cancelling{Pair{-p, q}, Pair{p, q}};
  EXPECT_TRUE(Pairing::pairing_product_is_one(cancelling));
  std::array<Pair, 2> not_cancelling{Pair{p, q}, Pair{p, q}};
  EXPECT_FALSE(Pairing::pairing_product_is_one(not_cancelling));
}

TYPED_TEST(PairingTest, MultiPairingIsProductOfPairings) {
  using Pairing = typename TestFixture::Pairing;
  using Pair = typename TestFixture::Pair;
  std::vector<Pair> pairs;
  auto product = TestFixture::Fp12::one();
  for (size_t i = 0; i < 2 + this->cases; ++i) {
    pairs.push_back({this->random_g1(this->rng), this->random_g2(this->rng)});
    product *= Pairing::pairing(pairs.back().first, pairs.back().second);
  }
  // A pair with infinity contributes 1, wherever it stands.
  pairs.insert(pairs.begin() + 1, {TestFixture::G1Affine::infinity(), pairs[0].second});
  EXPECT_EQ(Pairing::multi_pairing(pairs), product);
  EXPECT_EQ(Pairing::final_exponentiation(Pairing::miller_loop(pairs)), product);
}

TYPED_TEST(PairingTest, InfinityGivesOne) {
  using Pairing = typename TestFixture::Pairing;
  using G1Affine = typename TestFixture::G1Affine;
  using G2Affine = typename TestFixture::G2Affine;
  auto one = TestFixture::Fp12::one();
  EXPECT_EQ(Pairing::pairing(G1Affine::infinity(), G2Affine::generator()), one);
  EXPECT_EQ(Pairing::pairing(G1Affine::generator(), G2Affine::infinity()), one);
  EXPECT_EQ(Pairing::pairing(G1Affine::infinity(), G2Affine::infinity()), one);
  EXPECT_EQ(Pairing::miller_loop(G1Affine::infinity(), G2Affine::generator()), one);
  EXPECT_EQ(Pairing::multi_pairing({}), one);
  EXPECT_TRUE(Pairing::pairing_product_is_one({}));
}

TYPED_TEST(PairingTest, PointsOffTheCurveAreRejected) {
  using Pairing = typename TestFixture::Pairing;
  auto p = TestFixture::G1Affine::generator();
  auto q = TestFixture::G2Affine::generator();
  auto bad_p = p;
  bad_p.y += decltype(p.y)::one();
  auto bad_q = q;
  bad_q.x += decltype(q.x)::one();
  for (auto [pp, qq] : {std::pair{bad_p, q}, std::pair{p, bad_q}}) {
    try {
      Pairing::pairing(pp, qq);
      ADD_FAILURE() << "a point off the curve was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput);
    }
  }
}

// T ← 2T and T ← T + Q in the Miller loop against the curve layer's Jacobian arithmetic.
TYPED_TEST(PairingTest, LoopStepsFollowCurveArithmetic) {
  using Pairing = typename TestFixture::Pairing;
  using Jacobian = ec::Jacobian<typename TypeParam::G2Curve>;
  for (size_t i = 0; i < this->cases; ++i) {
    auto q = this->random_g2(this->rng);
    auto r = this->random_g2(this->rng);
    typename Pairing::TwistPoint t{q.x, q.y, decltype(q.x)::one()};
    auto to_affine = [](const typename Pairing::TwistPoint& t) {
      auto z_inv = t.Z.inverse();
      return typename TestFixture::G2Affine{t.X * z_inv, t.Y * z_inv};
    };
    Pairing::double_step(t);
    Jacobian expected = Jacobian::from_affine(q).dbl();
    EXPECT_EQ(to_affine(t), expected.to_affine());
    Pairing::add_step(t, r);
    expected += r;
    EXPECT_EQ(to_affine(t), expected.to_affine());
    Pairing::double_step(t);
    EXPECT_EQ(to_affine(t), expected.dbl().to_affine());
  }
}

// The Frobenius endomorphism carried to the twist acts on G2 as multiplication by p (mod r).
TYPED_TEST(PairingTest, TwistFrobeniusIsMultiplicationByP) {
  using Pairing = typename TestFixture::Pairing;
  using Fr = typename TestFixture::Fr;
  constexpr size_t N = Fr::kLimbs;
  const Integer p{TypeParam::G1Curve::Base::kModulus};
  const Integer r{Fr::kModulus};
  const Fr p_mod_r = Fr::from_int(p.mod(r).template limbs<N>());
  auto q = this->random_g2(this->rng);
  EXPECT_EQ(Pairing::frobenius(q), ec::scalar_mul(q, p_mod_r).to_affine());
  EXPECT_EQ(Pairing::frobenius2(q), ec::scalar_mul(q, p_mod_r * p_mod_r).to_affine());
}

// The loop runs over |x| in binary for BLS12-381 and over the NAF of 6x + 2 for BN254.
TYPED_TEST(PairingTest, LoopDigitsSpellTheLoopCount) {
  using Pairing = typename TestFixture::Pairing;
  const auto& d = Pairing::kLoopDigits;
  unsigned __int128 value = 0;
  bool adjacent_nonzero = false;
  for (size_t i = 0; i < d.count; ++i) {
    value = 2 * value + (unsigned __int128)(__int128)d.digit[i];
    if (i > 0 && d.digit[i] != 0 && d.digit[i - 1] != 0) adjacent_nonzero = true;
  }
  EXPECT_EQ(d.digit[0], 1);
  if constexpr (TypeParam::kFamily == pairing::Family::kBn) {
    EXPECT_TRUE(value == 6 * (unsigned __int128)TypeParam::kAbsX + 2);
    EXPECT_FALSE(adjacent_nonzero);
  } else {
    EXPECT_TRUE(value == TypeParam::kAbsX);
  }
}

}  // namespace
}  // namespace cuzk::test
