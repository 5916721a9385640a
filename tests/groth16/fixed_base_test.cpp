// Fixed-base multiplication against the variable-base scalar_mul of the ec layer, for the four
// groups and window widths that divide the scalar size or leave a partial top window.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/scalar_mul.hpp"
#include "groth16/fixed_base.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::groth16::test {
namespace {

template <class PointCurve>
class FixedBaseTest : public ::testing::Test {};
using Groups =
    ::testing::Types<bn254::G1Curve, bn254::G2Curve, bls12_381::G1Curve, bls12_381::G2Curve>;
TYPED_TEST_SUITE(FixedBaseTest, Groups);

// Scalars that exercise every window: 0, 1, r − 1, a power of two at a window edge, random.
template <class Fr>
std::vector<Fr> test_scalars(std::mt19937_64& rng, size_t random_count) {
  std::vector<Fr> scalars = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(uint64_t(1) << 63)};
  for (size_t i = 0; i < random_count; ++i) scalars.push_back(Fr::random(rng));
  return scalars;
}

TYPED_TEST(FixedBaseTest, MatchesVariableBaseMultiplication) {
  using Fr = typename TypeParam::Scalar;
  using Affine = ec::Affine<TypeParam>;
  auto rng = cuzk::test::rng(std::string("fixed base ") + TypeParam::kName);
  // A base other than the generator, so a table that ignored its base would fail.
  const Affine base = ec::mul_generator<TypeParam>(Fr::random(rng)).to_affine();
  const auto scalars = test_scalars<Fr>(rng, cuzk::test::scaled(8));
  for (unsigned window : {1u, 5u, 8u, 11u}) {
    const FixedBaseTable<TypeParam> table(base, window);
    for (const Fr& k : scalars) {
      EXPECT_EQ(table.mul(k.to_int()).to_affine(), ec::scalar_mul(base, k).to_affine())
          << "window " << window << ", scalar " << k.to_int().limb[0];
    }
  }
}

TYPED_TEST(FixedBaseTest, BatchMatchesSingleMultiplications) {
  using Fr = typename TypeParam::Scalar;
  using Affine = ec::Affine<TypeParam>;
  auto rng = cuzk::test::rng(std::string("fixed base batch ") + TypeParam::kName);
  // More than one chunk of the batch normalization (1024), with zeros (infinity) among them.
  std::vector<Fr> scalars = test_scalars<Fr>(rng, cuzk::test::scaled(1500));
  for (size_t i = 0; i < scalars.size(); i += 7) scalars[i] = Fr::zero();
  const Affine base = Affine::generator();
  const FixedBaseTable<TypeParam> table(base, fixed_base_window_bits<Fr::kBits>(scalars.size()));
  std::vector<Affine> out(scalars.size());
  fixed_base_mul(table, std::span<const Fr>(scalars), std::span<Affine>(out));
  for (size_t i = 0; i < scalars.size(); i += 97) {
    EXPECT_EQ(out[i], ec::scalar_mul(base, scalars[i]).to_affine()) << "scalar " << i;
  }
  for (size_t i = 0; i < scalars.size(); ++i) {
    EXPECT_EQ(out[i], table.mul(scalars[i].to_int()).to_affine()) << "scalar " << i;
  }
}

TYPED_TEST(FixedBaseTest, BatchAdditionHandlesEveryCase) {
  using Fr = typename TypeParam::Scalar;
  using Affine = ec::Affine<TypeParam>;
  auto rng = cuzk::test::rng(std::string("fixed base cases ") + TypeParam::kName);
  const Affine p = ec::mul_generator<TypeParam>(Fr::random(rng)).to_affine();
  const Affine q = ec::mul_generator<TypeParam>(Fr::random(rng)).to_affine();
  const Affine minus_p = -p;
  // generic, infinity + Q, P + P, P + (−P), no addend, and a second generic pair.
  std::vector<Affine> sums = {p, Affine::infinity(), p, p, p, q};
  const std::vector<const Affine*> addends = {&q, &q, &p, &minus_p, nullptr, &p};
  const auto jacobian_sum = [](const Affine& a, const Affine* b) {
    if (b == nullptr) return a;
    return (ec::Jacobian<TypeParam>::from_affine(a) + *b).to_affine();
  };
  std::vector<Affine> expected;
  for (size_t i = 0; i < sums.size(); ++i) expected.push_back(jacobian_sum(sums[i], addends[i]));
  detail::AffineBatchScratch<typename TypeParam::Base> scratch;
  detail::add_affine_batch<TypeParam>(std::span<Affine>(sums), addends, scratch);
  EXPECT_EQ(sums, expected);
  EXPECT_TRUE(sums[3].is_infinity());
}

TEST(FixedBaseWindow, GrowsWithTheNumberOfMultiples) {
  unsigned previous = 0;
  for (size_t log_n = 0; log_n <= 30; ++log_n) {
    const unsigned w = fixed_base_window_bits<255>(size_t(1) << log_n);
    EXPECT_GE(w, previous);
    EXPECT_LE(w, kMaxFixedBaseWindowBits);
    previous = w;
  }
  EXPECT_EQ(fixed_base_window_bits<255>(size_t(1) << 30), kMaxFixedBaseWindowBits);
}

}  // namespace
}  // namespace cuzk::groth16::test
