// The development setup (setup.hpp), instantiated for both curves.

#include "groth16/setup.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "groth16/fixed_base.hpp"
#include "groth16/qap.hpp"
#include "groth16/randomness.hpp"
#include "ntt/instances.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

template <class Curve>
void check_toxic_waste(const ToxicWaste<Curve>& waste,
                       const ntt::Domain<typename Curve::Fr>& domain) {
  using Fr = typename Curve::Fr;
  const struct {
    const char* name;
    const Fr& value;
  } factors[] = {
      {"alpha", waste.alpha}, {"beta", waste.beta}, {"gamma", waste.gamma}, {"delta", waste.delta}};
  for (const auto& factor : factors) {
    if (factor.value.is_zero()) {
      CUZK_INVALID_INPUT(std::string("setup: the toxic waste's ") + factor.name + " is zero");
    }
  }
  const uint64_t n = domain.size();
  const Fr tau_n = waste.tau.pow(n);
  if (tau_n == Fr::one()) CUZK_INVALID_INPUT("setup: tau lies on the evaluation domain");
  if (tau_n == domain.coset_shift().pow(n)) {
    CUZK_INVALID_INPUT("setup: tau lies on the coset of the H query");
  }
}

}  // namespace

uint32_t snarkjs_domain_log_size(uint32_t n_constraints, uint32_t n_public) {
  // zkey_new.js: cirPower = log2(nConstraints + nPublic) + 1 with its log2 = ⌊log2⌋ and
  // log2(0) = 0, which is bit_width for positive arguments.
  return std::max<uint32_t>(1, uint32_t(std::bit_width(uint64_t(n_constraints) + n_public)));
}

template <class Curve>
std::vector<formats::ZkeyCoefficient<typename Curve::Fr>> zkey_coefficients(
    const formats::R1cs<Curve>& r1cs) {
  using Fr = typename Curve::Fr;
  const uint32_t n_constraints = r1cs.header.n_constraints;
  const uint32_t n_public = r1cs.header.n_public();
  // zkey_new.js processConstraints, value c·R² mod r. As an Fr, c·R² is the Montgomery form of
  // c·R: the product of c and the element R.
  const Fr r_element = Fr::from_int(Fr::kR);
  size_t terms = 0;
  for (size_t row = 0; row < n_constraints; ++row) {
    terms += r1cs.a.row_columns(row).size() + r1cs.b.row_columns(row).size();
  }
  std::vector<formats::ZkeyCoefficient<Fr>> coefficients;
  coefficients.reserve(terms + n_public + 1);
  for (uint32_t row = 0; row < n_constraints; ++row) {
    for (uint32_t matrix = 0; matrix < 2; ++matrix) {
      const formats::SparseMatrix<Fr>& m = matrix == 0 ? r1cs.a : r1cs.b;
      const auto columns = m.row_columns(row);
      const auto values = m.row_values(row);
      for (size_t t = 0; t < columns.size(); ++t) {
        coefficients.push_back({matrix, row, columns[t], values[t] * r_element});
      }
    }
  }
  for (uint32_t j = 0; j <= n_public; ++j) {
    coefficients.push_back({0, n_constraints + j, j, r_element});
  }
  return coefficients;
}

template <class Curve>
formats::Groth16Zkey<Curve> setup(const formats::R1cs<Curve>& r1cs,
                                  const ToxicWaste<Curve>& waste) {
  using Fr = typename Curve::Fr;
  using G1C = G1CurveOf<Curve>;
  using G2C = G2CurveOf<Curve>;
  const formats::R1csHeader& header = r1cs.header;
  const uint32_t n_public = header.n_public();
  const uint32_t n_vars = header.n_wires;
  const uint32_t n_constraints = header.n_constraints;
  if (n_vars < n_public + 1) {
    CUZK_INVALID_INPUT("setup: the circuit has " + std::to_string(n_vars) + " wires but " +
                       std::to_string(n_public) + " public signals and the constant wire");
  }
  const uint32_t log_n = snarkjs_domain_log_size(n_constraints, n_public);
  if (log_n > Fr::kTwoAdicity) {
    CUZK_INVALID_INPUT("setup: " + std::to_string(n_constraints) + " constraints and " +
                       std::to_string(n_public) + " public signals need a domain of 2^" +
                       std::to_string(log_n) +
                       ", but the scalar field has roots of unity up to 2^" +
                       std::to_string(Fr::kTwoAdicity) + " only");
  }
  const ntt::Domain<Fr> domain(log_n, ntt::Convention::kSnarkjs);
  check_toxic_waste(waste, domain);
  const size_t n = domain.size();
  const Fr n_inv = domain.size_inv();
  const Fr& tau = waste.tau;
  const Fr tau_n = tau.pow(uint64_t(n));

  // u_j, v_j, w_j at τ (qap.hpp), the binding rows included.
  QapAtTau<Fr> qap = qap_at_tau(r1cs, domain, tau);
  std::vector<Fr>& u = qap.u;
  std::vector<Fr>& v = qap.v;
  std::vector<Fr>& w = qap.w;

  // IC and C scalars: (β·u_j + α·v_j + w_j)/γ for public wires, /δ for private ones. 3M each.
  const Fr gamma_inv = waste.gamma.inverse();
  const Fr delta_inv = waste.delta.inverse();
  std::vector<Fr> ic_scalars(n_public + 1), c_scalars(n_vars - n_public - 1);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n_vars, 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t j = range.begin(); j != range.end(); ++j) {
                        const Fr sum = waste.beta * u[j] + waste.alpha * v[j] + w[j];
                        if (j <= n_public) {
                          ic_scalars[j] = sum * gamma_inv;
                        } else {
                          c_scalars[j - n_public - 1] = sum * delta_inv;
                        }
                      }
                    });
  std::vector<Fr>().swap(w);

  // H. The prover's scalars are p(x_i) = A(x_i)·B(x_i) − C(x_i) at the coset points
  // x_i = g·ω^i (g = ω_2N: the odd 2N-th roots), and the H MSM must give h(τ)·Z(τ)/δ with
  // h = p/Z, Z = x^N − 1. Since deg h ≤ N − 2, h is its interpolation on the coset:
  //   h(τ) = Σ_i K_i(τ)·p(x_i)/Z(x_i),  K_i the Lagrange basis of the coset, Z(x_i) = g^N − 1,
  // and the coset's vanishing polynomial x^N − g^N (derivative N·g^N/x_i at x_i) gives
  //   K_i(τ) = (τ^N − g^N)·x_i / (N·g^N·(τ − x_i)).
  // So H_i = (τ^N − g^N)(τ^N − 1) / (N·g^N·(g^N − 1)·δ) · x_i/(τ − x_i). For g = ω_2N, g^N = −1
  // and this is (τ^(2N) − 1)·x_i/(2N·(τ − x_i))/δ = L^(2N)_(2i+1)(τ)/δ, snarkjs's H (the other
  // shift, 25 when N = 2^s, follows the same formula). 3M per point plus the inversion.
  const Fr g = domain.coset_shift();
  const Fr g_n = g.pow(uint64_t(n));
  const Fr h_factor =
      (tau_n - g_n) * (tau_n - Fr::one()) * (g_n * (g_n - Fr::one())).inverse() * n_inv * delta_inv;
  std::vector<Fr> h_scalars(n);
  ntt::fill_powers(std::span<Fr>(h_scalars), domain.omega(), g);
  scale_by_distance_to_tau(std::span<Fr>(h_scalars), tau, h_factor);

  formats::Groth16Zkey<Curve> key;
  key.header.n_vars = n_vars;
  key.header.n_public = n_public;
  key.header.domain_size = uint32_t(n);

  // Points: one G1 table for all G1 sections, sized for their total count.
  const size_t g1_count = 2 * size_t(n_vars) + ic_scalars.size() + c_scalars.size() + n;
  const FixedBaseTable<G1C> g1(ec::Affine<G1C>::generator(),
                               fixed_base_window_bits<Fr::kBits>(g1_count));
  const FixedBaseTable<G2C> g2(ec::Affine<G2C>::generator(),
                               fixed_base_window_bits<Fr::kBits>(n_vars));
  key.header.alpha1 = g1.mul(waste.alpha.to_int()).to_affine();
  key.header.beta1 = g1.mul(waste.beta.to_int()).to_affine();
  key.header.delta1 = g1.mul(waste.delta.to_int()).to_affine();
  key.header.beta2 = g2.mul(waste.beta.to_int()).to_affine();
  key.header.gamma2 = g2.mul(waste.gamma.to_int()).to_affine();
  key.header.delta2 = g2.mul(waste.delta.to_int()).to_affine();
  key.ic = fixed_base_mul(g1, std::span<const Fr>(ic_scalars));
  key.a = fixed_base_mul(g1, std::span<const Fr>(u));
  key.b1 = fixed_base_mul(g1, std::span<const Fr>(v));
  key.c = fixed_base_mul(g1, std::span<const Fr>(c_scalars));
  key.h = fixed_base_mul(g1, std::span<const Fr>(h_scalars));
  key.b2 = fixed_base_mul(g2, std::span<const Fr>(v));

  key.coefficients = zkey_coefficients(r1cs);
  // Section 10 as zkey_new.js writes it (circuit hash, no contributions), with a zero hash:
  // the hash covers points derived from a powers-of-tau file, which this setup has none of.
  key.mpc_params = formats::fresh_mpc_params(std::array<uint8_t, 64>{});
  return key;
}

template <class Curve>
formats::Groth16Zkey<Curve> setup(const formats::R1cs<Curve>& r1cs) {
  SystemRandom rng;
  return setup(r1cs, random_toxic_waste<Curve>(rng));
}

#define CUZK_GROTH16_SETUP_FOR_CURVE(Curve)                                                    \
  template formats::Groth16Zkey<Curve> setup<Curve>(const formats::R1cs<Curve>&,               \
                                                    const ToxicWaste<Curve>&);                 \
  template formats::Groth16Zkey<Curve> setup<Curve>(const formats::R1cs<Curve>&);              \
  template std::vector<formats::ZkeyCoefficient<typename Curve::Fr>> zkey_coefficients<Curve>( \
      const formats::R1cs<Curve>&);

CUZK_GROTH16_SETUP_FOR_CURVE(formats::Bn254)
CUZK_GROTH16_SETUP_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::groth16
