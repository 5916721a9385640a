// The Groth16 prover for bellman .params keys (bellman.hpp).

#include <chrono>
#include <string>

#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/qap.hpp"
#include "groth16/setup.hpp"
#include "groth16/stage_timing.hpp"
#include "groth16/verifier.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

using Curve = BellmanCurve;
using Fr = bls12_381::Fr;
using timing::announce;
using timing::Clock;
using timing::milliseconds_since;

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
                            size_t a_count, size_t b_count, uint32_t log_n) {
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
  check(params.a.size(), a_count, "a", "wires with a non-zero A polynomial");
  check(params.b_g1.size(), b_count, "b_g1", "wires with a non-zero B polynomial");
  check(params.b_g2.size(), b_count, "b_g2", "wires with a non-zero B polynomial");
}

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
  const BellmanAssignment assignment = bellman_assignment(r1cs, witness);
  return bellman_assignment_h_scalars(assignment.view(), size_t(1) << log_n);
}

void check_bellman_inputs(const formats::BellmanParams& params, const formats::R1cs<Curve>& r1cs,
                          std::span<const Fr> witness) {
  check_witness(r1cs, witness);
  const WireDensity density = wire_density(r1cs);
  check_key_matches_r1cs(params, r1cs.header, density.a_wires.size(), density.b_wires.size(),
                         domain_log_size(r1cs.header));
}

ProveResult<Curve> prove_bellman(const formats::BellmanParams& params,
                                 const formats::R1cs<Curve>& r1cs, std::span<const Fr> witness,
                                 const ProveOptions<Curve>& options) {
  const auto prove_start = Clock::now();
  announce(options, "checking the witness against the .r1cs");
  auto start = Clock::now();
  const uint32_t log_n = domain_log_size(r1cs.header);
  check_witness(r1cs, witness);
  const double witness_check_ms = milliseconds_since(start);

  announce(options, "synthesis (a, b, c)");
  start = Clock::now();
  const BellmanAssignment assignment = bellman_assignment(r1cs, witness);
  const double abc_ms = milliseconds_since(start);
  check_key_matches_r1cs(params, r1cs.header, assignment.inputs.size() + assignment.a_aux_popcount,
                         assignment.b_inp_popcount + assignment.b_aux_popcount, log_n);

  // The .r1cs is satisfied and fits the key's sizes: a proof that does not verify means a key
  // made for another circuit of the same sizes.
  ProveResult<Curve> result = detail::prove_bellman_assignment(
      params, assignment.view(), options,
      "the proof does not verify against the .params key's verifying key, although the witness "
      "satisfies the .r1cs: the key was not made for this circuit");
  result.timings.witness_check_ms += witness_check_ms;
  result.timings.abc_ms = abc_ms;
  result.timings.total_ms = milliseconds_since(prove_start);
  return result;
}

}  // namespace cuzk::groth16
