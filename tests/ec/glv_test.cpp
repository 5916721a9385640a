// The GLV endomorphism constants (curves/glv_constants.hpp) recomputed from their definitions, and the
// scalar split (ec/glv.hpp) on random and extreme scalars, for the four groups.

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "curves/glv_constants.hpp"
#include "ec/glv.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/bigint.hpp"
#include "tests/ec/groups.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class Group>
class GlvTest : public ::testing::Test {
 protected:
  using Curve = typename Group::Curve;
  using Fr = typename Curve::Scalar;
  using Glv = ec::Glv<Curve>;

  static Fr lambda() { return Fr::from_int(Glv::kLambda); }

  template <size_t N>
  static Fr to_fr(const ec::SignedInt<N>& v) {
    ff::BigInt<Fr::kLimbs> wide{};
    for (size_t i = 0; i < N; ++i) wide.limb[i] = v.magnitude.limb[i];
    const Fr f = Fr::from_int(wide);
    return v.negative ? -f : f;
  }

  // The split of k, recombined in Fr: ±k1 ± k2·λ.
  static Fr recombined(const ec::GlvScalar& s) {
    const Fr k1 = to_fr(ec::SignedInt<2>{s.k1, s.k1_negative});
    const Fr k2 = to_fr(ec::SignedInt<2>{s.k2, s.k2_negative});
    return k1 + k2 * lambda();
  }
};

using Groups = ::testing::Types<Bls12381G1, Bls12381G2, Bn254G1, Bn254G2>;
TYPED_TEST_SUITE(GlvTest, Groups);

TYPED_TEST(GlvTest, BetaAndLambdaArePrimitiveCubeRootsOfUnity) {
  using Fr = typename TestFixture::Fr;
  const auto beta = TestFixture::Glv::beta();
  using Fp = std::remove_cvref_t<decltype(beta)>;
  EXPECT_NE(beta, Fp::one());
  EXPECT_EQ(beta.sqr() * beta, Fp::one());
  const Fr lambda = TestFixture::lambda();
  EXPECT_NE(lambda, Fr::one());
  EXPECT_EQ(lambda.sqr() * lambda, Fr::one());
}

TYPED_TEST(GlvTest, EndomorphismIsMultiplicationByLambda) {
  using Curve = typename TestFixture::Curve;
  using Affine = ec::Affine<Curve>;
  using Jacobian = ec::Jacobian<Curve>;
  using Fr = typename TestFixture::Fr;
  auto rng = test::rng("glv endomorphism");
  std::vector<Affine> points = {Affine::generator()};
  for (int i = 0; i < 4; ++i) points.push_back(ec::mul_generator<Curve>(Fr::random(rng)).to_affine());
  for (const Affine& p : points) {
    EXPECT_EQ(Jacobian::from_affine(ec::glv_endomorphism(p)),
              ec::scalar_mul(p, TestFixture::Glv::kLambda));
  }
  EXPECT_TRUE(ec::glv_endomorphism(Affine::infinity()).is_infinity());
}

TYPED_TEST(GlvTest, LatticeBasisSpansTheKernelWithDeterminantR) {
  using Fr = typename TestFixture::Fr;
  const ec::GlvLattice& l = TestFixture::Glv::kLattice;
  const Fr lambda = TestFixture::lambda();
  EXPECT_EQ(TestFixture::to_fr(l.a1) + TestFixture::to_fr(l.b1) * lambda, Fr::zero());
  EXPECT_EQ(TestFixture::to_fr(l.a2) + TestFixture::to_fr(l.b2) * lambda, Fr::zero());
  // a1·b2 − a2·b1 = r exactly (so the basis spans the whole kernel, not a sublattice).
  ff::BigInt<5> det{};
  ec::detail::add_signed_product(det, l.a1, l.b2);
  ec::detail::add_signed_product(det, ec::SignedInt<2>{l.a2.magnitude, !l.a2.negative}, l.b1);
  ff::BigInt<5> r{};
  for (size_t i = 0; i < 4; ++i) r.limb[i] = Fr::kModulus.limb[i];
  EXPECT_EQ(det, r);
}

// g1 = round(2^256·b2/r) and g2 = round(−2^256·b1/r): |g·r − 2^256·b| ≤ r/2.
TYPED_TEST(GlvTest, RoundingConstantsAreTheRoundedQuotients) {
  using Fr = typename TestFixture::Fr;
  const ec::GlvLattice& l = TestFixture::Glv::kLattice;
  ff::BigInt<4> r = Fr::kModulus;
  const ec::SignedInt<4> signed_r{r, false};
  auto check = [&](const ec::SignedInt<3>& g, const ec::SignedInt<2>& b, const std::string& name) {
    ff::BigInt<8> error{};
    ec::detail::add_signed_product(error, g, signed_r);
    ec::SignedInt<8> b_shifted{{}, !b.negative};  // −2^256·b
    b_shifted.magnitude.limb[4] = b.magnitude.limb[0];
    b_shifted.magnitude.limb[5] = b.magnitude.limb[1];
    ec::detail::add_signed_product(error, b_shifted, ec::SignedInt<1>{{{1}}, false});
    if (error.limb[7] >> 63) error = ec::detail::negated(error);
    ff::BigInt<8> twice = error;
    ff::add_in_place(twice, error);
    ff::BigInt<8> r_wide{};
    for (size_t i = 0; i < 4; ++i) r_wide.limb[i] = r.limb[i];
    EXPECT_LE(ff::compare(twice, r_wide), 0) << name;
  };
  check(l.g1, l.b2, "g1");
  check(l.g2, ec::SignedInt<2>{l.b1.magnitude, !l.b1.negative}, "g2");
}

TYPED_TEST(GlvTest, SplitRecombinesWithHalvesBelowTwoTo127) {
  using Fr = typename TestFixture::Fr;
  using Int = typename Fr::Int;
  auto rng = test::rng("glv split");
  const Fr lambda = TestFixture::lambda();
  std::vector<Fr> scalars = {Fr::zero(), Fr::one(), -Fr::one(), -Fr::one() - Fr::one(),
                             lambda,     -lambda,   lambda.sqr(), -lambda.sqr(),
                             Fr::from_u64(2).inverse()};  // (r + 1)/2
  // Near the multiples of r/λ-sized steps the rounding flips: a few around c·(r/2^k).
  Int top = Fr::kModulus;
  top.limb[0] -= 1;
  for (unsigned shift = 1; shift < 8; ++shift) scalars.push_back(Fr::from_int(ff::shr(top, shift)));
  for (size_t i = 0; i < test::scaled(2000); ++i) scalars.push_back(Fr::random(rng));
  for (const Fr& k : scalars) {
    const Int ki = k.to_int();
    const ec::GlvScalar s = ec::glv_split(ki, TestFixture::Glv::kLattice);
    ASSERT_EQ(TestFixture::recombined(s), k);
    EXPECT_LE(s.k1.bit_length(), ec::kGlvScalarBits);
    EXPECT_LE(s.k2.bit_length(), ec::kGlvScalarBits);
  }
}

}  // namespace
}  // namespace cuzk::test
