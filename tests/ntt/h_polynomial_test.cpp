// The H-polynomial evaluations of both provers: against a direct computation from interpolated
// polynomials, against snarkjs's own outputs, and on satisfying inputs, where each must produce
// what its key format expects.

#include "io/field_codec.hpp"
#include "tests/ntt/ntt_test_support.hpp"
#include "tests/ntt/snarkjs_vectors.hpp"

namespace cuzk::ntt::test {
namespace {

template <class Fr>
class HPolynomialTest : public ::testing::Test {};
TYPED_TEST_SUITE(HPolynomialTest, ScalarFields);

const DomainOptions kLayouts[] = {DomainOptions{}, DomainOptions{.max_single_pass_log_size = 1}};

// bellman's ω_n: 7^t squared down to order n, computed here independently of Domain.
template <class Fr>
Fr bellman_root(unsigned k) {
  Fr w = Fr::from_u64(7).pow(Fr::kOddPart);
  for (size_t i = k; i < Fr::kTwoAdicity; ++i) w = w.sqr();
  return w;
}

template <class Fr>
struct Inputs {
  std::vector<Fr> a, b, c;
};

// Random a, b, c (not satisfying).
template <class Fr>
Inputs<Fr> random_inputs(size_t n, std::mt19937_64& rng) {
  return {random_elements<Fr>(n, rng), random_elements<Fr>(n, rng), random_elements<Fr>(n, rng)};
}

// snarkjs: interpolate A, B, C on {ω^i}, evaluate at the odd 2n-th roots ω_2n^(2i+1),
// A·B − C there.
TYPED_TEST(HPolynomialTest, SnarkjsMatchesDirectComputation) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("h-snarkjs-direct");
  for (unsigned k = 0; k <= 6; ++k) {
    const size_t n = size_t(1) << k;
    const Inputs<Fr> in = random_inputs<Fr>(n, rng);
    const Fr omega = Fr::root_of_unity(k), omega_2n = Fr::root_of_unity(k + 1);
    const auto A = naive_interpolate<Fr>(in.a, omega, Fr::one());
    const auto B = naive_interpolate<Fr>(in.b, omega, Fr::one());
    const auto C = naive_interpolate<Fr>(in.c, omega, Fr::one());
    std::vector<Fr> expected(n);
    for (size_t i = 0; i < n; ++i) {
      const Fr x = omega_2n.pow(uint64_t(2 * i + 1));
      expected[i] = evaluate<Fr>(A, x) * evaluate<Fr>(B, x) - evaluate<Fr>(C, x);
    }
    for (const DomainOptions& layout : kLayouts) {
      Domain<Fr> domain(k, Convention::kSnarkjs, layout);
      Inputs<Fr> buffers = in;
      snarkjs_h_scalars(domain, std::span<Fr>(buffers.a), std::span<Fr>(buffers.b),
                        std::span<Fr>(buffers.c));
      EXPECT_EQ(buffers.a, expected) << "k = " << k << ", rows 2^" << domain.log_rows();
    }
  }
}

// bellman: interpolate on {ω^i}, evaluate on {7·ω^i}, divide by Z(x) = x^n − 1 evaluated at
// each point, interpolate on the coset.
TYPED_TEST(HPolynomialTest, BellmanMatchesDirectComputation) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("h-bellman-direct");
  const Fr g = Fr::from_u64(7);
  for (unsigned k = 0; k <= 6; ++k) {
    const size_t n = size_t(1) << k;
    const Inputs<Fr> in = random_inputs<Fr>(n, rng);
    const Fr omega = bellman_root<Fr>(k);
    const auto A = naive_interpolate<Fr>(in.a, omega, Fr::one());
    const auto B = naive_interpolate<Fr>(in.b, omega, Fr::one());
    const auto C = naive_interpolate<Fr>(in.c, omega, Fr::one());
    std::vector<Fr> quotient_values(n);
    for (size_t i = 0; i < n; ++i) {
      const Fr x = g * omega.pow(uint64_t(i));
      const Fr z = x.pow(uint64_t(n)) - Fr::one();
      quotient_values[i] =
          (evaluate<Fr>(A, x) * evaluate<Fr>(B, x) - evaluate<Fr>(C, x)) * z.inverse();
    }
    const auto expected = naive_interpolate<Fr>(quotient_values, omega, g);
    for (const DomainOptions& layout : kLayouts) {
      Domain<Fr> domain(k, Convention::kBellman, layout);
      Inputs<Fr> buffers = in;
      bellman_h_coefficients(domain, std::span<Fr>(buffers.a), std::span<Fr>(buffers.b),
                             std::span<Fr>(buffers.c));
      EXPECT_EQ(buffers.a, expected) << "k = " << k << ", rows 2^" << domain.log_rows();
    }
  }
}

// A satisfying input: random A, B of degree < n; A·B = h·Z + C with Z = x^n − 1 gives
// h_j = (A·B)_(j+n) and C_j = (A·B)_j + (A·B)_(j+n), deg h ≤ n − 2. On the domain C = A·B, so
// c = a∘b as snarkjs takes it.
template <class Fr>
struct SatisfyingCase {
  std::vector<Fr> h;  // n coefficients, the last one 0
  Inputs<Fr> values;  // on the domain, natural order
};

template <class Fr>
SatisfyingCase<Fr> satisfying_case(size_t n, const Fr& omega, std::mt19937_64& rng) {
  const auto A = random_elements<Fr>(n, rng), B = random_elements<Fr>(n, rng);
  const auto product = multiply<Fr>(A, B);  // 2n − 1 coefficients
  SatisfyingCase<Fr> out;
  out.h.assign(n, Fr::zero());
  std::vector<Fr> C(product.begin(), product.begin() + n);
  for (size_t j = 0; j + n < product.size(); ++j) {
    out.h[j] = product[j + n];
    C[j] += product[j + n];
  }
  out.values.a = naive_evaluate<Fr>(A, omega, Fr::one());
  out.values.b = naive_evaluate<Fr>(B, omega, Fr::one());
  out.values.c = naive_evaluate<Fr>(C, omega, Fr::one());
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(out.values.c[i], out.values.a[i] * out.values.b[i]);
  return out;
}

TYPED_TEST(HPolynomialTest, BellmanReturnsTheQuotientOfASatisfyingInput) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("h-bellman-satisfying");
  for (unsigned k = 1; k <= 9; ++k) {
    const size_t n = size_t(1) << k;
    SatisfyingCase<Fr> test_case = satisfying_case<Fr>(n, bellman_root<Fr>(k), rng);
    for (const DomainOptions& layout : kLayouts) {
      Domain<Fr> domain(k, Convention::kBellman, layout);
      Inputs<Fr> buffers = test_case.values;
      bellman_h_coefficients(domain, std::span<Fr>(buffers.a), std::span<Fr>(buffers.b),
                             std::span<Fr>(buffers.c));
      EXPECT_EQ(buffers.a, test_case.h) << "k = " << k << ", rows 2^" << domain.log_rows();
      EXPECT_EQ(buffers.a.back(), Fr::zero());
    }
  }
}

// snarkjs: the odd-coset scalars are the values of h·Z there, Z = −2 at every odd point.
TYPED_TEST(HPolynomialTest, SnarkjsReturnsHTimesZOnTheOddCosetOfASatisfyingInput) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("h-snarkjs-satisfying");
  for (unsigned k = 1; k <= 9; ++k) {
    const size_t n = size_t(1) << k;
    SatisfyingCase<Fr> test_case = satisfying_case<Fr>(n, Fr::root_of_unity(k), rng);
    const Fr omega_2n = Fr::root_of_unity(k + 1);
    std::vector<Fr> expected(n);
    for (size_t i = 0; i < n; ++i) {
      const Fr x = omega_2n.pow(uint64_t(2 * i + 1));
      const Fr z = x.pow(uint64_t(n)) - Fr::one();
      ASSERT_EQ(z, -Fr::from_u64(2));
      expected[i] = evaluate<Fr>(test_case.h, x) * z;
    }
    for (const DomainOptions& layout : kLayouts) {
      Domain<Fr> domain(k, Convention::kSnarkjs, layout);
      Inputs<Fr> buffers = test_case.values;
      snarkjs_h_scalars(domain, std::span<Fr>(buffers.a), std::span<Fr>(buffers.b),
                        std::span<Fr>(buffers.c));
      EXPECT_EQ(buffers.a, expected) << "k = " << k << ", rows 2^" << domain.log_rows();
    }
  }
}

template <class Fr>
const snarkjs::CurveVectors& snarkjs_vectors() {
  if constexpr (std::is_same_v<Fr, bn254::Fr>) {
    return snarkjs::kBn254;
  } else {
    return snarkjs::kBls12381;
  }
}

template <class Fr>
std::vector<std::string> decimals(const std::vector<Fr>& values) {
  std::vector<std::string> out;
  for (const Fr& v : values) out.push_back(io::to_decimal(v));
  return out;
}

TYPED_TEST(HPolynomialTest, SnarkjsScalarsMatchSnarkjs) {
  using Fr = TypeParam;
  const auto& vectors = snarkjs_vectors<Fr>();
  for (unsigned k : {2u, 3u}) {
    const size_t n = size_t(1) << k;
    Inputs<Fr> buffers;
    for (uint64_t i = 0; i < n; ++i) {
      buffers.a.push_back(Fr::from_u64(i * i + 2));
      buffers.b.push_back(Fr::from_u64(3 * i + 5));
      buffers.c.push_back(Fr::from_u64(7 * i + 11));
    }
    Domain<Fr> domain(k, Convention::kSnarkjs);
    snarkjs_h_scalars(domain, std::span<Fr>(buffers.a), std::span<Fr>(buffers.b),
                      std::span<Fr>(buffers.c));
    const auto& expected = k == 2 ? vectors.h_log2 : vectors.h_log3;
    EXPECT_EQ(decimals(buffers.a), std::vector<std::string>(expected.begin(), expected.end()));
  }
  std::vector<Fr> ramp;
  for (uint64_t i = 1; i <= 8; ++i) ramp.push_back(Fr::from_u64(i));
  Domain<Fr>(3, Convention::kSnarkjs).forward(ramp);
  EXPECT_EQ(decimals(ramp),
            std::vector<std::string>(vectors.fft_of_1_to_8.begin(), vectors.fft_of_1_to_8.end()));
}

TYPED_TEST(HPolynomialTest, RejectsMismatchedInputs) {
  using Fr = TypeParam;
  Domain<Fr> snarkjs_domain(3, Convention::kSnarkjs), bellman_domain(3, Convention::kBellman);
  std::vector<Fr> a(8, Fr::one()), b(8, Fr::one()), c(8, Fr::one()), short_c(7, Fr::one());
  const std::vector<Fr> untouched = a;
  auto expect_invalid = [](auto&& call, const char* needle) {
    try {
      call();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid([&] { snarkjs_h_scalars<Fr>(bellman_domain, a, b, c); }, "convention");
  expect_invalid([&] { bellman_h_coefficients<Fr>(snarkjs_domain, a, b, c); }, "convention");
  expect_invalid([&] { snarkjs_h_scalars<Fr>(snarkjs_domain, a, b, short_c); }, "7 values");
  expect_invalid([&] { bellman_h_coefficients<Fr>(bellman_domain, a, b, short_c); }, "7 values");
  EXPECT_EQ(a, untouched);
}

}  // namespace
}  // namespace cuzk::ntt::test
