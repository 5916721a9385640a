// Forward and inverse NTTs against the O(n²) DFT, in every order, in the single-pass and the
// four-step layouts.

#include <algorithm>

#include "tests/ntt/ntt_test_support.hpp"

namespace cuzk::ntt::test {
namespace {

template <class Fr>
class TransformTest : public ::testing::Test {};
TYPED_TEST_SUITE(TransformTest, ScalarFields);

// Both layouts: the default, and the four-step split forced down to 4-element vectors, so the
// small sizes the naive DFT can afford cover the column and row passes too.
const DomainOptions kLayouts[] = {DomainOptions{}, DomainOptions{.max_single_pass_log_size = 1}};

TYPED_TEST(TransformTest, MatchesNaiveDftForEverySizeUpTo1024) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-naive");
  for (unsigned k = 0; k <= 10; ++k) {
    const std::vector<Fr> input = random_elements<Fr>(size_t(1) << k, rng);
    for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
      if (convention == Convention::kBellman && k > 6) continue;  // same code, other roots
      for (const DomainOptions& layout : kLayouts) {
        Domain<Fr> domain(k, convention, layout);
        SCOPED_TRACE(::testing::Message() << "k = " << k << ", rows 2^" << domain.log_rows());
        std::vector<Fr> values = input;
        domain.forward(values);
        EXPECT_EQ(values, naive_evaluate<Fr>(input, domain.omega(), Fr::one()));
        values = input;
        domain.inverse(values);
        EXPECT_EQ(values, naive_interpolate<Fr>(input, domain.omega(), Fr::one()));
      }
    }
  }
}

// Every (in, out) order pair is the natural transform composed with the permutations.
TYPED_TEST(TransformTest, BitReversedOrdersAgreeWithNatural) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-orders");
  const Order kOrders[] = {Order::kNatural, Order::kBitReversed};
  for (unsigned k : {0u, 1u, 3u, 8u, 13u, 14u}) {
    for (const DomainOptions& layout : kLayouts) {
      Domain<Fr> domain(k, Convention::kSnarkjs, layout);
      const std::vector<Fr> input = random_elements<Fr>(domain.size(), rng);
      std::vector<Fr> forward_natural = input, inverse_natural = input;
      domain.forward(forward_natural);
      domain.inverse(inverse_natural);
      for (Order in : kOrders) {
        for (Order out : kOrders) {
          SCOPED_TRACE(::testing::Message() << "k = " << k << ", rows 2^" << domain.log_rows()
                                            << ", in " << int(in) << ", out " << int(out));
          auto arrange = [&](const std::vector<Fr>& v, Order order) {
            return order == Order::kNatural ? v : bit_reversed_copy<Fr>(v);
          };
          std::vector<Fr> values = arrange(input, in);
          domain.forward(values, in, out);
          EXPECT_EQ(values, arrange(forward_natural, out));
          values = arrange(input, in);
          domain.inverse(values, in, out);
          EXPECT_EQ(values, arrange(inverse_natural, out));
        }
      }
    }
  }
}

// inverse ∘ forward = identity and forward ∘ inverse = identity, through the permutation-free
// pairs; sizes up to 2^16, larger under CUZK_TEST_SCALE.
TYPED_TEST(TransformTest, ForwardThenInverseIsTheIdentity) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-roundtrip");
  unsigned max_k = 16;
  for (size_t s = 2; s <= size_t(cuzk::test::scale()) && max_k < 22; s *= 2) ++max_k;
  for (unsigned k : {11u, 12u, 13u, 15u, max_k}) {
    Domain<Fr> domain(k, Convention::kSnarkjs);
    const std::vector<Fr> input = random_elements<Fr>(domain.size(), rng);
    std::vector<Fr> values = input;
    domain.forward(values, Order::kNatural, Order::kBitReversed);
    EXPECT_NE(values, input);
    domain.inverse(values, Order::kBitReversed, Order::kNatural);
    EXPECT_EQ(values, input) << "k = " << k;
    domain.inverse(values, Order::kNatural, Order::kBitReversed);
    domain.forward(values, Order::kBitReversed, Order::kNatural);
    EXPECT_EQ(values, input) << "k = " << k;
  }
}

// At 2^16 (four-step, 256 × 256) the full DFT is too slow; spot-check outputs at random
// positions against direct evaluation of the input polynomial (2^16 multiplications each).
TYPED_TEST(TransformTest, LargeTransformMatchesDirectEvaluationAtSampledPoints) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-spot");
  Domain<Fr> domain(16, Convention::kSnarkjs);
  ASSERT_GT(domain.log_rows(), 0u);
  const std::vector<Fr> input = random_elements<Fr>(domain.size(), rng);
  std::vector<Fr> values = input;
  domain.forward(values);
  std::vector<size_t> positions = {0, 1, domain.size() / 2, domain.size() - 1};
  for (size_t i = 0; i < cuzk::test::scaled(12); ++i) positions.push_back(rng() % domain.size());
  for (size_t i : positions) {
    EXPECT_EQ(values[i], evaluate<Fr>(input, domain.omega().pow(uint64_t(i)))) << "i = " << i;
  }
}

TEST(BitReversal, ReverseBitsAndPermutation) {
  EXPECT_EQ(reverse_bits(0b0011, 4), 0b1100u);
  EXPECT_EQ(reverse_bits(1, 1), 1u);
  EXPECT_EQ(reverse_bits(1, 64), uint64_t(1) << 63);
  EXPECT_EQ(reverse_bits(5, 0), 0u);
  // Both the plain swap loop (small) and the tiled permutation (2^10 and up).
  for (unsigned k : {0u, 1u, 5u, 9u, 10u, 11u, 14u}) {
    std::vector<uint64_t> v(size_t(1) << k);
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    bit_reverse_permute(std::span<uint64_t>(v));
    for (size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], reverse_bits(i, k)) << "k = " << k;
  }
  std::vector<uint64_t> odd(12);
  EXPECT_THROW(bit_reverse_permute(std::span<uint64_t>(odd)), Error);
}

}  // namespace
}  // namespace cuzk::ntt::test
