// Coset transforms against direct evaluation at g·ω^i, and the power scaling they use.

#include "tests/ntt/ntt_test_support.hpp"

namespace cuzk::ntt::test {
namespace {

template <class Fr>
class CosetTest : public ::testing::Test {};
TYPED_TEST_SUITE(CosetTest, ScalarFields);

const DomainOptions kLayouts[] = {DomainOptions{}, DomainOptions{.max_single_pass_log_size = 1}};
const Order kOrders[] = {Order::kNatural, Order::kBitReversed};

TYPED_TEST(CosetTest, MatchesNaiveEvaluationOnTheCoset) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-coset-naive");
  for (unsigned k = 0; k <= 8; ++k) {
    const std::vector<Fr> input = random_elements<Fr>(size_t(1) << k, rng);
    for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
      for (const DomainOptions& layout : kLayouts) {
        Domain<Fr> domain(k, convention, layout);
        SCOPED_TRACE(::testing::Message() << "k = " << k << ", convention " << int(convention)
                                          << ", rows 2^" << domain.log_rows());
        std::vector<Fr> values = input;
        domain.coset_forward(values);
        EXPECT_EQ(values, naive_evaluate<Fr>(input, domain.omega(), domain.coset_shift()));
        values = input;
        domain.coset_inverse(values);
        EXPECT_EQ(values, naive_interpolate<Fr>(input, domain.omega(), domain.coset_shift()));
      }
    }
  }
}

TYPED_TEST(CosetTest, BitReversedOrdersAgreeWithNatural) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-coset-orders");
  for (unsigned k : {1u, 4u, 13u}) {
    Domain<Fr> domain(k, Convention::kBellman);
    const std::vector<Fr> input = random_elements<Fr>(domain.size(), rng);
    std::vector<Fr> forward_natural = input, inverse_natural = input;
    domain.coset_forward(forward_natural);
    domain.coset_inverse(inverse_natural);
    auto arrange = [](const std::vector<Fr>& v, Order order) {
      return order == Order::kNatural ? v : bit_reversed_copy<Fr>(v);
    };
    for (Order in : kOrders) {
      for (Order out : kOrders) {
        SCOPED_TRACE(::testing::Message()
                     << "k = " << k << ", in " << int(in) << ", out " << int(out));
        std::vector<Fr> values = arrange(input, in);
        domain.coset_forward(values, in, out);
        EXPECT_EQ(values, arrange(forward_natural, out));
        values = arrange(input, in);
        domain.coset_inverse(values, in, out);
        EXPECT_EQ(values, arrange(inverse_natural, out));
      }
    }
  }
}

TYPED_TEST(CosetTest, CosetForwardThenInverseIsTheIdentity) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-coset-roundtrip");
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    Domain<Fr> domain(16, convention);
    const std::vector<Fr> input = random_elements<Fr>(domain.size(), rng);
    std::vector<Fr> values = input;
    domain.coset_forward(values, Order::kNatural, Order::kBitReversed);
    domain.coset_inverse(values, Order::kBitReversed, Order::kNatural);
    EXPECT_EQ(values, input);
  }
}

// values[p] *= factor·base^index(p), index(p) = p or reverse_bits(p, k); odd and even k split
// the exponent differently.
TYPED_TEST(CosetTest, ScaleByPowersInBothOrders) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-scale");
  for (unsigned k : {0u, 1u, 2u, 5u, 8u}) {
    const size_t n = size_t(1) << k;
    const std::vector<Fr> input = random_elements<Fr>(n, rng);
    const Fr factor = Fr::random(rng), base = Fr::random(rng);
    for (Order order : kOrders) {
      std::vector<Fr> values = input;
      scale_by_powers(std::span<Fr>(values), order, factor, base);
      for (size_t p = 0; p < n; ++p) {
        const uint64_t index = order == Order::kNatural ? p : reverse_bits(p, k);
        ASSERT_EQ(values[p], input[p] * factor * base.pow(index))
            << "k = " << k << ", p = " << p << ", order " << int(order);
      }
    }
  }
}

}  // namespace
}  // namespace cuzk::ntt::test
