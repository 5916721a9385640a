// The final exponentiation is exactly f ↦ f^((p¹² − 1)/r): compared with naive
// square-and-multiply by exponents that GMP computes from p and r, both as one exponent and
// as the easy part (p⁶ − 1)(p² + 1) followed by the hard part (p⁴ − p² + 1)/r.

#include <gtest/gtest.h>

#include <string>

#include "tests/pairing/gmp_exponents.hpp"
#include "tests/pairing/pairing_curves.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class Data>
class FinalExponentiationTest : public ::testing::Test, public PairingTypes<Data> {
 protected:
  using T = PairingTypes<Data>;
  using Fp12 = typename T::Fp12;
  static constexpr size_t N = Data::G1Curve::Base::kLimbs;

  std::mt19937_64 rng =
      test::rng(std::string("pairing_final_exp/") + PairingNames::GetName<Data>(0) + "/" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
  const Integer p{Data::G1Curve::Base::kModulus};
  const Integer r{Data::G1Curve::Scalar::kModulus};
};

TYPED_TEST_SUITE(FinalExponentiationTest, PairingCurves, PairingNames);

TYPED_TEST(FinalExponentiationTest, EqualsNaiveExponentiation) {
  using Pairing = typename TestFixture::Pairing;
  using Fp12 = typename TestFixture::Fp12;
  constexpr size_t N = TestFixture::N;
  const Integer& p = this->p;
  // Throws unless r divides Φ12(p) = p⁴ − p² + 1.
  Integer hard = (p.pow(4) - p.pow(2) + 1).divided_exactly_by(this->r);
  Integer easy = (p.pow(6) + (-1)) * (p.pow(2) + 1);
  Integer full = (p.pow(12) + (-1)).divided_exactly_by(this->r);
  const auto hard_limbs = hard.template limbs<4 * N>();
  const auto easy_limbs = easy.template limbs<8 * N>();
  const auto full_limbs = full.template limbs<12 * N>();

  Fp12 miller = Pairing::miller_loop(this->random_g1(this->rng), this->random_g2(this->rng));
  for (const Fp12& f : {Fp12::random(this->rng), miller}) {
    Fp12 e = Pairing::final_exponentiation(f);
    EXPECT_EQ(e, f.pow(full_limbs));
    EXPECT_EQ(e, f.pow(easy_limbs).pow(hard_limbs));
  }
}

}  // namespace
}  // namespace cuzk::test
