// The development setup against the definition of each key section, computed the slow way:
// Lagrange polynomials as products over the domain points (no NTT, no closed form), one
// variable-base multiplication per point. The H section is checked against the odd-index
// Lagrange basis of the 2N-domain at τ, over δ, which is what snarkjs's zkey_new.js writes
// (FORMATS.md); the closed form the setup uses is derived in setup.cpp.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "groth16/randomness.hpp"
#include "groth16/setup.hpp"
#include "tests/groth16/test_circuit.hpp"
#include "tests/support/error_messages.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::groth16::test {
namespace {

// L_c(x) = Π_(k ≠ c) (x − d_k)/(d_c − d_k) over the points d of a domain.
template <class Fr>
Fr lagrange_by_product(const std::vector<Fr>& domain, size_t c, const Fr& x) {
  Fr numerator = Fr::one(), denominator = Fr::one();
  for (size_t k = 0; k < domain.size(); ++k) {
    if (k == c) continue;
    numerator *= x - domain[k];
    denominator *= domain[c] - domain[k];
  }
  return numerator * denominator.inverse();
}

template <class Fr>
std::vector<Fr> roots_of_unity(uint32_t log_n) {
  std::vector<Fr> points(size_t(1) << log_n);
  Fr power = Fr::one();
  for (Fr& point : points) {
    point = power;
    power *= Fr::root_of_unity(log_n);
  }
  return points;
}

// Σ_rows M[row][j]·lagrange[row] for every wire j.
template <class Fr>
std::vector<Fr> at_tau(const formats::SparseMatrix<Fr>& m, const std::vector<Fr>& lagrange,
                       size_t wires) {
  std::vector<Fr> out(wires, Fr::zero());
  for (size_t row = 0; row < m.rows(); ++row) {
    for (size_t t = 0; t < m.row_columns(row).size(); ++t) {
      out[m.row_columns(row)[t]] += m.row_values(row)[t] * lagrange[row];
    }
  }
  return out;
}

template <class Curve>
class SetupTest : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(SetupTest, Curves);

TYPED_TEST(SetupTest, SectionsMatchTheirDefinitions) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("groth16 setup definitions");
  const TestCircuit<Curve> circuit = make_test_circuit<Curve>(rng, 3);
  const ToxicWaste<Curve> waste = random_toxic_waste<Curve>(rng);
  const auto key = setup(circuit.r1cs, waste);

  const auto& r1cs = circuit.r1cs;
  const uint32_t n_public = r1cs.header.n_public(), n_vars = r1cs.header.n_wires;
  const uint32_t n_constraints = r1cs.header.n_constraints;
  ASSERT_EQ(n_constraints, 19u);           // 3 chain + 8 bits + 6 mixing + 2
  ASSERT_EQ(key.header.domain_size, 32u);  // 19 + 3 + 1 rows
  const uint32_t log_n = 5;

  const auto domain = roots_of_unity<Fr>(log_n);
  std::vector<Fr> lagrange(domain.size());
  for (size_t c = 0; c < domain.size(); ++c)
    lagrange[c] = lagrange_by_product(domain, c, waste.tau);
  auto u = at_tau(r1cs.a, lagrange, n_vars);
  for (uint32_t j = 0; j <= n_public; ++j) u[j] += lagrange[n_constraints + j];
  const auto v = at_tau(r1cs.b, lagrange, n_vars);
  const auto w = at_tau(r1cs.c, lagrange, n_vars);

  using G1C = G1CurveOf<Curve>;
  using G2C = G2CurveOf<Curve>;
  const auto g1 = [](const Fr& k) { return ec::mul_generator<G1C>(k).to_affine(); };
  const auto g2 = [](const Fr& k) { return ec::mul_generator<G2C>(k).to_affine(); };
  EXPECT_EQ(key.header.alpha1, g1(waste.alpha));
  EXPECT_EQ(key.header.beta1, g1(waste.beta));
  EXPECT_EQ(key.header.beta2, g2(waste.beta));
  EXPECT_EQ(key.header.gamma2, g2(waste.gamma));
  EXPECT_EQ(key.header.delta1, g1(waste.delta));
  EXPECT_EQ(key.header.delta2, g2(waste.delta));
  for (uint32_t j = 0; j < n_vars; ++j) {
    EXPECT_EQ(key.a[j], g1(u[j])) << "A, wire " << j;
    EXPECT_EQ(key.b1[j], g1(v[j])) << "B1, wire " << j;
    EXPECT_EQ(key.b2[j], g2(v[j])) << "B2, wire " << j;
    const Fr sum = waste.beta * u[j] + waste.alpha * v[j] + w[j];
    if (j <= n_public) {
      EXPECT_EQ(key.ic[j], g1(sum * waste.gamma.inverse())) << "IC " << j;
    } else {
      EXPECT_EQ(key.c[j - n_public - 1], g1(sum * waste.delta.inverse())) << "C, wire " << j;
    }
  }
  const auto double_domain = roots_of_unity<Fr>(log_n + 1);
  for (size_t i = 0; i < domain.size(); ++i) {
    const Fr odd_lagrange = lagrange_by_product(double_domain, 2 * i + 1, waste.tau);
    EXPECT_EQ(key.h[i], g1(odd_lagrange * waste.delta.inverse())) << "H " << i;
  }

  // Section 4: the A and B terms in constraint order, then the binding rows.
  size_t index = 0;
  for (uint32_t row = 0; row < n_constraints; ++row) {
    for (uint32_t matrix = 0; matrix < 2; ++matrix) {
      const auto& m = matrix == 0 ? r1cs.a : r1cs.b;
      for (size_t t = 0; t < m.row_columns(row).size(); ++t, ++index) {
        ASSERT_LT(index, key.coefficients.size());
        const auto& coefficient = key.coefficients[index];
        EXPECT_EQ(coefficient.matrix, matrix);
        EXPECT_EQ(coefficient.row, row);
        EXPECT_EQ(coefficient.wire, m.row_columns(row)[t]);
        EXPECT_EQ(coefficient.coefficient(), m.row_values(row)[t]);
      }
    }
  }
  EXPECT_EQ(key.coefficients.size(), index + n_public + 1);
}

TEST(SetupDomain, FollowsSnarkjsCirPower) {
  // zkey_new.js: cirPower = log2(nConstraints + nPublic) + 1, log2 rounding down, log2(0) = 0.
  EXPECT_EQ(snarkjs_domain_log_size((1u << 14) - 3, 2), 14u);  // the fixtures: exactly 2^14 rows
  EXPECT_EQ(snarkjs_domain_log_size((1u << 14) - 2, 2), 15u);
  EXPECT_EQ(snarkjs_domain_log_size(40, 3), 6u);
  EXPECT_EQ(snarkjs_domain_log_size(1, 0), 1u);
  EXPECT_EQ(snarkjs_domain_log_size(0, 0), 1u);
}

using ::cuzk::test::invalid_input_message;

TEST(SetupToxicWaste, DegenerateValuesAreRefused) {
  using Curve = formats::Bn254;
  using Fr = Curve::Fr;
  auto rng = cuzk::test::rng("groth16 setup degenerate");
  const TestCircuit<Curve> circuit = make_test_circuit<Curve>(rng, 3);
  const ToxicWaste<Curve> good = random_toxic_waste<Curve>(rng);

  auto waste = good;
  waste.tau = Fr::root_of_unity(5).pow(uint64_t(3));  // a point of the 32-domain
  EXPECT_NE(invalid_input_message([&] {
              setup(circuit.r1cs, waste);
            }).find("tau lies on the evaluation domain"),
            std::string::npos);
  waste.tau = Fr::root_of_unity(6).pow(uint64_t(7));  // an odd 64th root: the H coset
  EXPECT_NE(
      invalid_input_message([&] { setup(circuit.r1cs, waste); }).find("tau lies on the coset"),
      std::string::npos);
  waste = good;
  waste.delta = Fr::zero();
  EXPECT_NE(invalid_input_message([&] { setup(circuit.r1cs, waste); }).find("delta is zero"),
            std::string::npos);
}

}  // namespace
}  // namespace cuzk::groth16::test
