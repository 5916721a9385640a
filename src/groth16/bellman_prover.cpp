// The Groth16 prover for bellman .params keys (bellman.hpp).

#include <algorithm>
#include <chrono>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "groth16/bellman.hpp"
#include "groth16/epilogue.hpp"
#include "groth16/qap.hpp"
#include "groth16/setup.hpp"
#include "groth16/stage_timing.hpp"
#include "groth16/verifier.hpp"
#include "msm/curves.hpp"
#include "ntt/curves.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

using Curve = BellmanCurve;
using Fr = bls12_381::Fr;
using G1C = G1CurveOf<Curve>;
using G2C = G2CurveOf<Curve>;
using timing::announce;
using timing::Clock;
using timing::milliseconds_since;

Fr row_dot(const formats::SparseMatrix<Fr>& m, size_t row, std::span<const Fr> witness) {
  Fr sum = Fr::zero();
  const auto columns = m.row_columns(row);
  const auto values = m.row_values(row);
  for (size_t t = 0; t < columns.size(); ++t) sum += values[t] * witness[columns[t]];
  return sum;
}

// log2 of the domain: room for the constraints and the binding rows (bellman.hpp).
uint32_t domain_log_size(const formats::R1csHeader& header) {
  const uint32_t log_n = snarkjs_domain_log_size(header.n_constraints, header.n_public());
  if (log_n > Fr::kTwoAdicity) {
    CUZK_INVALID_INPUT(std::to_string(header.n_constraints) + " constraints and " +
                       std::to_string(header.n_public()) + " public signals need a domain of 2^" +
                       std::to_string(log_n) + ", beyond BLS12-381's 2^32");
  }
  return log_n;
}

void check_witness(const formats::R1cs<Curve>& r1cs, std::span<const Fr> witness) {
  if (r1cs.header.n_wires < r1cs.header.n_public() + 1) {
    CUZK_INVALID_INPUT("the .r1cs has " + std::to_string(r1cs.header.n_wires) + " wires but " +
                       std::to_string(r1cs.header.n_public()) +
                       " public signals and the constant wire");
  }
  if (witness.size() != r1cs.header.n_wires) {
    CUZK_INVALID_INPUT("the witness has " + std::to_string(witness.size()) +
                       " values, but the .r1cs has " + std::to_string(r1cs.header.n_wires) +
                       " wires");
  }
  if (witness[0] != Fr::one()) {
    CUZK_INVALID_INPUT("the witness's first value (wire 0, the constant) is not 1");
  }
  if (const auto row = first_unsatisfied_constraint(r1cs, witness)) {
    CUZK_INVALID_INPUT("the witness does not satisfy the circuit: constraint " +
                       std::to_string(*row) +
                       " (counting from 0, in .r1cs order) fails, (A·w)·(B·w) ≠ C·w");
  }
}

void check_key_matches_r1cs(const formats::BellmanParams& params, const formats::R1csHeader& h,
                            const WireDensity& density, uint32_t log_n) {
  const auto check = [](size_t key_count, size_t expected, const char* vector, const char* what) {
    if (key_count != expected) {
      CUZK_INVALID_INPUT(std::string("the .r1cs does not belong to the .params key: the key's ") +
                         vector + " holds " + std::to_string(key_count) + " points, the circuit " +
                         "needs " + std::to_string(expected) + " (" + what + ")");
    }
  };
  check(params.vk.ic.size(), size_t(h.n_public()) + 1, "ic", "public signals and the constant");
  check(params.l.size(), size_t(h.n_wires) - h.n_public() - 1, "l", "private wires");
  check(params.h.size(), (size_t(1) << log_n) - 1, "h", "domain size − 1");
  check(params.a.size(), density.a_wires.size(), "a", "wires with a non-zero A polynomial");
  check(params.b_g1.size(), density.b_wires.size(), "b_g1", "wires with a non-zero B polynomial");
  check(params.b_g2.size(), density.b_wires.size(), "b_g2", "wires with a non-zero B polynomial");
}

// a, b, c = A·w, B·w, C·w on the domain (the binding rows: a = w_j), zero past the rows; then
// a ← the coefficients of h. Buffers of N elements; b, c are clobbered.
void h_coefficients_in_place(const formats::R1cs<Curve>& r1cs, std::span<const Fr> witness,
                             uint32_t log_n, std::span<Fr> a, std::span<Fr> b, std::span<Fr> c,
                             ProveTimings& timings, const ProveOptions<Curve>& options) {
  announce(options, "synthesis (a, b, c)");
  auto start = Clock::now();
  const size_t n_constraints = r1cs.header.n_constraints;
  const size_t n_public = r1cs.header.n_public();
  std::fill(a.begin(), a.end(), Fr::zero());
  std::fill(b.begin(), b.end(), Fr::zero());
  std::fill(c.begin(), c.end(), Fr::zero());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, n_constraints, 1 << 12),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t row = range.begin(); row != range.end(); ++row) {
                        a[row] = row_dot(r1cs.a, row, witness);
                        b[row] = row_dot(r1cs.b, row, witness);
                        c[row] = row_dot(r1cs.c, row, witness);
                      }
                    });
  for (size_t j = 0; j <= n_public; ++j) a[n_constraints + j] = witness[j];
  timings.abc_ms = milliseconds_since(start);

  announce(options, "H (NTTs)");
  start = Clock::now();
  const ntt::Domain<Fr> domain(log_n, ntt::Convention::kBellman);
  ntt::bellman_h_coefficients(domain, a, b, c);
  timings.h_ms = milliseconds_since(start);
}

std::vector<Fr> gather(std::span<const Fr> witness, const std::vector<uint32_t>& wires) {
  std::vector<Fr> out(wires.size());
  for (size_t k = 0; k < wires.size(); ++k) out[k] = witness[wires[k]];
  return out;
}

using timing::timed_msm;

}  // namespace

VerifyingKey<BellmanCurve> verifying_key_from_bellman(const formats::BellmanVerifyingKey& vk) {
  return {vk.alpha_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g2, vk.ic};
}

Proof<BellmanCurve> proof_from_bellman(const formats::BellmanProof& proof) {
  return {proof.a, proof.b, proof.c};
}

formats::BellmanProof proof_to_bellman(const Proof<BellmanCurve>& proof) {
  return {proof.a, proof.b, proof.c};
}

std::vector<Fr> bellman_h_scalars(const formats::R1cs<Curve>& r1cs, std::span<const Fr> witness) {
  const uint32_t log_n = domain_log_size(r1cs.header);
  check_witness(r1cs, witness);
  const size_t n = size_t(1) << log_n;
  std::vector<Fr> a(n), b(n), c(n);
  ProveTimings unused;
  h_coefficients_in_place(r1cs, witness, log_n, std::span<Fr>(a), std::span<Fr>(b),
                          std::span<Fr>(c), unused, {});
  a.resize(n - 1);
  return a;
}

void check_bellman_inputs(const formats::BellmanParams& params, const formats::R1cs<Curve>& r1cs,
                          std::span<const Fr> witness) {
  check_witness(r1cs, witness);
  check_key_matches_r1cs(params, r1cs.header, wire_density(r1cs), domain_log_size(r1cs.header));
}

ProveResult<Curve> prove_bellman(const formats::BellmanParams& params,
                                 const formats::R1cs<Curve>& r1cs, std::span<const Fr> witness,
                                 const ProveOptions<Curve>& options) {
  const auto prove_start = Clock::now();
  ProveResult<Curve> result;
  ProveTimings& timings = result.timings;

  announce(options, "checking the witness against the .r1cs");
  auto start = Clock::now();
  const uint32_t log_n = domain_log_size(r1cs.header);
  check_bellman_inputs(params, r1cs, witness);
  const WireDensity density = wire_density(r1cs);
  timings.witness_check_ms = milliseconds_since(start);

  const size_t n = size_t(1) << log_n;
  std::vector<Fr> h(n), b(n), c(n);
  h_coefficients_in_place(r1cs, witness, log_n, std::span<Fr>(h), std::span<Fr>(b),
                          std::span<Fr>(c), timings, options);
  std::vector<Fr>().swap(b);
  std::vector<Fr>().swap(c);

  const size_t n_public = r1cs.header.n_public();
  const std::vector<Fr> a_scalars = gather(witness, density.a_wires);
  const std::vector<Fr> b_scalars = gather(witness, density.b_wires);
  announce(options, "MSM A");
  const auto msm_a = timed_msm<G1C>(params.a, std::span<const Fr>(a_scalars), timings.msm_a_ms);
  announce(options, "MSM B1");
  const auto msm_b1 =
      timed_msm<G1C>(params.b_g1, std::span<const Fr>(b_scalars), timings.msm_b1_ms);
  announce(options, "MSM B2 (G2)");
  const auto msm_b2 =
      timed_msm<G2C>(params.b_g2, std::span<const Fr>(b_scalars), timings.msm_b2_ms);
  announce(options, "MSM L");
  const auto msm_l = timed_msm<G1C>(params.l, witness.subspan(n_public + 1), timings.msm_c_ms);
  announce(options, "MSM H");
  const auto msm_h =
      timed_msm<G1C>(params.h, std::span<const Fr>(h).first(n - 1), timings.msm_h_ms);

  announce(options, "epilogue");
  start = Clock::now();
  const formats::BellmanVerifyingKey& vk = params.vk;
  result.proof =
      combine_proof<Curve>({msm_a, msm_b1, msm_l, msm_h, msm_b2},
                           {vk.alpha_g1, vk.beta_g1, vk.delta_g1, vk.beta_g2, vk.delta_g2},
                           choose_blinding<Curve>(options.blinding));
  result.public_inputs.assign(witness.begin() + 1, witness.begin() + 1 + n_public);
  timings.epilogue_ms = milliseconds_since(start);

  announce(options, "verifying the proof");
  start = Clock::now();
  check_proof_from_key(result.proof);
  if (!verify(verifying_key_from_bellman(vk), std::span<const Fr>(result.public_inputs),
              result.proof)) {
    CUZK_INVALID_INPUT(
        "the proof does not verify against the .params key's verifying key, although the "
        "witness satisfies the .r1cs: the key was not made for this circuit");
  }
  timings.self_verify_ms = milliseconds_since(start);
  timings.total_ms = milliseconds_since(prove_start);
  return result;
}

}  // namespace cuzk::groth16
