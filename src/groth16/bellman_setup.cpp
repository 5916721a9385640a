// The development setup for bellman .params keys (bellman.hpp).

#include <chrono>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "groth16/bellman.hpp"
#include "groth16/stage_timing.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/qap.hpp"
#include "groth16/randomness.hpp"
#include "groth16/setup.hpp"
#include "ntt/instances.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

using Curve = BellmanCurve;
using Fr = bls12_381::Fr;
using G1C = G1CurveOf<Curve>;
using G2C = G2CurveOf<Curve>;
using timing::Clock;
using timing::milliseconds_since;

void check_toxic_waste(const ToxicWaste<Curve>& waste, const ntt::Domain<Fr>& domain) {
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
  if (waste.tau.pow(uint64_t(domain.size())) == Fr::one()) {
    CUZK_INVALID_INPUT("setup: tau lies on the evaluation domain");
  }
}

// values[wires[k]] for every k; a zero value means τ is a root of that wire's (non-zero)
// polynomial, and its point would be the point at infinity.
std::vector<Fr> gather_nonzero(const std::vector<Fr>& values, const std::vector<uint32_t>& wires,
                               const char* polynomial) {
  std::vector<Fr> out(wires.size());
  for (size_t k = 0; k < wires.size(); ++k) {
    out[k] = values[wires[k]];
    if (out[k].is_zero()) {
      CUZK_INVALID_INPUT("setup: tau is a root of wire " + std::to_string(wires[k]) + "'s " +
                         polynomial + " polynomial (a chance of about N/r): draw it again");
    }
  }
  return out;
}

}  // namespace

formats::BellmanParams bellman_setup(const formats::R1cs<Curve>& r1cs,
                                     const ToxicWaste<Curve>& waste, BellmanSetupTimings* timings) {
  BellmanSetupTimings local;
  BellmanSetupTimings& t = timings != nullptr ? *timings : local;
  auto start = Clock::now();
  const formats::R1csHeader& header = r1cs.header;
  const uint32_t n_public = header.n_public();
  const uint32_t n_vars = header.n_wires;
  if (n_vars < n_public + 1) {
    CUZK_INVALID_INPUT("setup: the circuit has " + std::to_string(n_vars) + " wires but " +
                       std::to_string(n_public) + " public signals and the constant wire");
  }
  const uint32_t log_n = snarkjs_domain_log_size(header.n_constraints, n_public);
  if (log_n > Fr::kTwoAdicity) {
    CUZK_INVALID_INPUT("setup: " + std::to_string(header.n_constraints) + " constraints and " +
                       std::to_string(n_public) + " public signals need a domain of 2^" +
                       std::to_string(log_n) + ", beyond BLS12-381's 2^32");
  }
  const ntt::Domain<Fr> domain(log_n, ntt::Convention::kBellman);
  check_toxic_waste(waste, domain);
  const size_t n = domain.size();

  QapAtTau<Fr> qap = qap_at_tau(r1cs, domain, waste.tau);
  const WireDensity density = wire_density(r1cs);
  const std::vector<Fr> a_scalars = gather_nonzero(qap.u, density.a_wires, "A");
  const std::vector<Fr> b_scalars = gather_nonzero(qap.v, density.b_wires, "B");

  // IC and L: (β·u_j + α·v_j + w_j)/γ for public wires, /δ for private ones. A private wire in
  // no constraint has L = 0: bellman's key cannot hold it (no point at infinity in .params).
  const Fr gamma_inv = waste.gamma.inverse();
  const Fr delta_inv = waste.delta.inverse();
  std::vector<Fr> ic_scalars(n_public + 1), l_scalars(n_vars - n_public - 1);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n_vars, 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t j = range.begin(); j != range.end(); ++j) {
                        const Fr sum = waste.beta * qap.u[j] + waste.alpha * qap.v[j] + qap.w[j];
                        if (j <= n_public) {
                          ic_scalars[j] = sum * gamma_inv;
                        } else {
                          l_scalars[j - n_public - 1] = sum * delta_inv;
                        }
                      }
                    });
  for (size_t j = 0; j < ic_scalars.size(); ++j) {
    if (ic_scalars[j].is_zero()) {
      CUZK_INVALID_INPUT("setup: the IC point of public wire " + std::to_string(j) +
                         " is the point at infinity (tau is a root of its polynomial): draw it "
                         "again");
    }
  }
  for (size_t k = 0; k < l_scalars.size(); ++k) {
    if (l_scalars[k].is_zero()) {
      CUZK_INVALID_INPUT(
          "setup: private wire " + std::to_string(n_public + 1 + k) +
          " is used by no constraint (or its coefficients cancel): its L point would be the "
          "point at infinity, which a .params key cannot hold; bellman's generator refuses such "
          "circuits too (UnconstrainedVariable). Constrain or remove the wire");
    }
  }
  qap = {};  // u, v, w are no longer needed

  // H: τ^i·Z(τ)/δ for i ≤ N − 2, Z(τ) = τ^N − 1.
  std::vector<Fr> h_scalars(n - 1);
  const Fr z_over_delta = (waste.tau.pow(uint64_t(n)) - Fr::one()) * delta_inv;
  ntt::fill_powers(std::span<Fr>(h_scalars), waste.tau, z_over_delta);
  t.qap_ms = milliseconds_since(start);

  start = Clock::now();
  formats::BellmanParams params;
  formats::BellmanVerifyingKey& vk = params.vk;
  const size_t g1_count =
      ic_scalars.size() + l_scalars.size() + a_scalars.size() + b_scalars.size() + h_scalars.size();
  const FixedBaseTable<G1C> g1(ec::Affine<G1C>::generator(),
                               fixed_base_window_bits<Fr::kBits>(g1_count));
  vk.alpha_g1 = g1.mul(waste.alpha.to_int()).to_affine();
  vk.beta_g1 = g1.mul(waste.beta.to_int()).to_affine();
  vk.delta_g1 = g1.mul(waste.delta.to_int()).to_affine();
  vk.ic = fixed_base_mul(g1, std::span<const Fr>(ic_scalars));
  params.h = fixed_base_mul(g1, std::span<const Fr>(h_scalars));
  params.l = fixed_base_mul(g1, std::span<const Fr>(l_scalars));
  params.a = fixed_base_mul(g1, std::span<const Fr>(a_scalars));
  params.b_g1 = fixed_base_mul(g1, std::span<const Fr>(b_scalars));
  t.g1_points_ms = milliseconds_since(start);

  start = Clock::now();
  const FixedBaseTable<G2C> g2(ec::Affine<G2C>::generator(),
                               fixed_base_window_bits<Fr::kBits>(b_scalars.size() + 3));
  vk.beta_g2 = g2.mul(waste.beta.to_int()).to_affine();
  vk.gamma_g2 = g2.mul(waste.gamma.to_int()).to_affine();
  vk.delta_g2 = g2.mul(waste.delta.to_int()).to_affine();
  params.b_g2 = fixed_base_mul(g2, std::span<const Fr>(b_scalars));
  t.g2_points_ms = milliseconds_since(start);
  return params;
}

formats::BellmanParams bellman_setup(const formats::R1cs<Curve>& r1cs,
                                     BellmanSetupTimings* timings) {
  SystemRandom rng;
  return bellman_setup(r1cs, random_toxic_waste<Curve>(rng), timings);
}

}  // namespace cuzk::groth16
