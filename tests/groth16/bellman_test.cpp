// bellman .params: setup → .params bytes → prove → verify, the 192-byte proof's round trip,
// the key's contents against their definitions, the H scalars against the QAP identity, and
// the refusals (tampered proofs, wrong public inputs, bad witnesses, a key of another circuit,
// a circuit with an unconstrained private wire).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "formats/params.hpp"
#include "groth16/bellman.hpp"
#include "groth16/qap.hpp"
#include "groth16/randomness.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "ntt/instances.hpp"
#include "tests/groth16/test_circuit.hpp"
#include "tests/support/error_messages.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::groth16::test {
namespace {

using Curve = formats::Bls12_381;
using Fr = bls12_381::Fr;
using G1 = bls12_381::G1Affine;

using ::cuzk::test::invalid_input_message;

// The test circuit without its last wire, which no constraint uses (a .params key cannot hold
// that wire's L point).
TestCircuit<Curve> keyable_circuit(std::mt19937_64& rng, uint32_t chain_length) {
  TestCircuit<Curve> circuit = make_test_circuit<Curve>(rng, chain_length);
  circuit.witness.pop_back();
  circuit.r1cs.header.n_wires -= 1;
  circuit.r1cs.header.n_labels -= 1;
  return circuit;
}

struct Shared {
  TestCircuit<Curve> circuit;
  ToxicWaste<Curve> waste;
  formats::BellmanParams params;
};

const Shared& shared() {
  static const Shared value = [] {
    auto rng = cuzk::test::rng("bellman setup");
    Shared s{keyable_circuit(rng, 21), random_toxic_waste<Curve>(rng), {}};
    const formats::BellmanParams made = bellman_setup(s.circuit.r1cs, s.waste);
    // Every test proves with what a file holds, decoded and checked point by point.
    s.params =
        formats::parse_bellman_params(formats::bellman_params_to_bytes(made), "setup.params");
    EXPECT_EQ(s.params, made);
    return s;
  }();
  return value;
}

std::span<const Fr> witness() { return shared().circuit.witness; }
std::span<const Fr> public_inputs() {
  return witness().subspan(1, shared().circuit.r1cs.header.n_public());
}

ProveResult<Curve> prove_with(const Blinding<Curve>& blinding) {
  ProveOptions<Curve> options;
  options.blinding = blinding;
  return prove_bellman(shared().params, shared().circuit.r1cs, witness(), options);
}

bool verifies(const Proof<Curve>& proof, std::span<const Fr> inputs) {
  return verify(verifying_key_from_bellman(shared().params.vk), inputs, proof);
}

G1 g1_times(const Fr& k) { return ec::scalar_mul(G1::generator(), k.to_int()).to_affine(); }

TEST(BellmanProve, ProofVerifiesAndSurvivesTheByteEncoding) {
  const auto result = prove_bellman(shared().params, shared().circuit.r1cs, witness());
  ASSERT_EQ(result.public_inputs.size(), 3u);
  EXPECT_TRUE(std::equal(result.public_inputs.begin(), result.public_inputs.end(),
                         public_inputs().begin()));
  EXPECT_TRUE(verifies(result.proof, public_inputs()));

  const auto bytes = formats::encode_bellman_proof(proof_to_bellman(result.proof));
  ASSERT_EQ(bytes.size(), 192u);
  const Proof<Curve> decoded = proof_from_bellman(formats::decode_bellman_proof(bytes));
  EXPECT_EQ(decoded, result.proof) << "the 192-byte proof decodes to other points";
  EXPECT_TRUE(verifies(decoded, public_inputs()));
}

TEST(BellmanProve, FixedBlindingIsDeterministicAndBlindingChangesTheProof) {
  auto rng = cuzk::test::rng("bellman blinding");
  const Blinding<Curve> blinding{Fr::random(rng), Fr::random(rng)};
  const auto first = prove_with(blinding);
  const auto second = prove_with(blinding);
  EXPECT_EQ(first.proof, second.proof);
  const auto other = prove_with({Fr::random(rng), Fr::random(rng)});
  EXPECT_NE(other.proof.a, first.proof.a);
  EXPECT_TRUE(verifies(other.proof, public_inputs()));
  // r = s = 0 is valid too (unblinded).
  EXPECT_TRUE(verifies(prove_with({Fr::zero(), Fr::zero()}).proof, public_inputs()));
}

TEST(BellmanProve, FlippedProofBytesAreRejected) {
  const auto result = prove_with({Fr::from_u64(5), Fr::from_u64(11)});
  const auto bytes = formats::encode_bellman_proof(proof_to_bellman(result.proof));
  // One byte in each point's coordinate and one in each flag byte.
  for (size_t at : {0u, 20u, 47u, 48u, 100u, 143u, 144u, 170u, 191u}) {
    auto tampered = bytes;
    tampered[at] ^= 0x01;
    bool accepted = false;
    try {
      accepted =
          verifies(proof_from_bellman(formats::decode_bellman_proof(tampered)), public_inputs());
    } catch (const Error&) {
      accepted = false;  // not a valid point encoding: refused by the decoder
    }
    EXPECT_FALSE(accepted) << "a proof with byte " << at << " flipped verifies";
  }
}

TEST(BellmanProve, WrongPublicInputsAreRejected) {
  const auto result = prove_with({Fr::from_u64(3), Fr::from_u64(4)});
  for (size_t i = 0; i < 3; ++i) {
    std::vector<Fr> inputs(public_inputs().begin(), public_inputs().end());
    inputs[i] += Fr::one();
    EXPECT_FALSE(verifies(result.proof, inputs)) << "public input " << i << " changed";
  }
  std::vector<Fr> short_inputs(public_inputs().begin(), public_inputs().end() - 1);
  EXPECT_CONTAINS(invalid_input_message([&] { verifies(result.proof, short_inputs); }),
                  "expects 3 public inputs");
}

TEST(BellmanProve, AnUnsatisfiedConstraintIsNamed) {
  std::vector<Fr> bad(witness().begin(), witness().end());
  // Wire first_chain_wire + 2 is t_3, defined by chain constraint 2 and used by constraint 3.
  bad[shared().circuit.first_chain_wire + 2] += Fr::one();
  EXPECT_CONTAINS(invalid_input_message([&] {
                    prove_bellman(shared().params, shared().circuit.r1cs, std::span<const Fr>(bad));
                  }),
                  "constraint 2 (counting from 0");
}

TEST(BellmanProve, WitnessOfTheWrongLengthOrConstantIsRefused) {
  std::vector<Fr> longer(witness().begin(), witness().end());
  longer.push_back(Fr::one());
  EXPECT_CONTAINS(invalid_input_message([&] {
                    prove_bellman(shared().params, shared().circuit.r1cs,
                                  std::span<const Fr>(longer));
                  }),
                  "the witness has " + std::to_string(longer.size()) + " values");
  std::vector<Fr> constant(witness().begin(), witness().end());
  constant[0] = Fr::from_u64(2);
  EXPECT_CONTAINS(invalid_input_message([&] {
                    prove_bellman(shared().params, shared().circuit.r1cs,
                                  std::span<const Fr>(constant));
                  }),
                  "wire 0, the constant");
}

TEST(BellmanProve, KeyOfAnotherCircuitIsRefused) {
  auto rng = cuzk::test::rng("bellman other circuit");
  const auto other = keyable_circuit(rng, 40);  // more wires, a larger domain
  EXPECT_CONTAINS(invalid_input_message([&] {
                    prove_bellman(shared().params, other.r1cs, std::span<const Fr>(other.witness));
                  }),
                  "does not belong to the .params key");
}

TEST(BellmanSetup, KeyPointsMatchTheirDefinitions) {
  const Shared& s = shared();
  const auto& w = s.waste;
  EXPECT_EQ(s.params.vk.alpha_g1, g1_times(w.alpha));
  EXPECT_EQ(s.params.vk.beta_g1, g1_times(w.beta));
  EXPECT_EQ(s.params.vk.delta_g1, g1_times(w.delta));

  const auto& header = s.circuit.r1cs.header;
  const uint32_t log_n = snarkjs_domain_log_size(header.n_constraints, header.n_public());
  const size_t n = size_t(1) << log_n;
  ASSERT_EQ(s.params.h.size(), n - 1);
  const Fr z_over_delta = (w.tau.pow(uint64_t(n)) - Fr::one()) * w.delta.inverse();
  for (size_t i : {size_t(0), size_t(1), n - 2}) {
    EXPECT_EQ(s.params.h[i], g1_times(w.tau.pow(uint64_t(i)) * z_over_delta)) << "h[" << i << "]";
  }

  // a and b_g1 hold u_j(τ), v_j(τ) (bellman's roots of unity) of exactly the wires whose
  // polynomial is not zero; here every wire but a few appears in A, and B misses many.
  const ntt::Domain<Fr> domain(log_n, ntt::Convention::kBellman);
  const auto qap = qap_at_tau(s.circuit.r1cs, domain, w.tau);
  const WireDensity density = wire_density(s.circuit.r1cs);
  size_t a_nonzero = 0, b_nonzero = 0;
  for (uint32_t j = 0; j < header.n_wires; ++j) {
    a_nonzero += !qap.u[j].is_zero();
    b_nonzero += !qap.v[j].is_zero();
  }
  EXPECT_EQ(density.a_wires.size(), a_nonzero);
  EXPECT_EQ(density.b_wires.size(), b_nonzero);
  EXPECT_LT(density.b_wires.size(), header.n_wires) << "the test should exercise B's density";
  ASSERT_EQ(s.params.a.size(), density.a_wires.size());
  ASSERT_EQ(s.params.b_g1.size(), density.b_wires.size());
  for (size_t k : {size_t(0), density.a_wires.size() / 2, density.a_wires.size() - 1}) {
    EXPECT_EQ(s.params.a[k], g1_times(qap.u[density.a_wires[k]])) << "a[" << k << "]";
  }
  for (size_t k : {size_t(0), density.b_wires.size() - 1}) {
    EXPECT_EQ(s.params.b_g1[k], g1_times(qap.v[density.b_wires[k]])) << "b_g1[" << k << "]";
  }
  const uint32_t first_private = header.n_public() + 1;
  const Fr l0 =
      (w.beta * qap.u[first_private] + w.alpha * qap.v[first_private] + qap.w[first_private]) *
      w.delta.inverse();
  EXPECT_EQ(s.params.l[0], g1_times(l0));
}

// Σ h_i·τ^i · Z(τ) = A(τ)·B(τ) − C(τ) for the QAP polynomials of a satisfying witness: the
// coefficient basis and bellman's roots of unity, independently of the NTT code path.
TEST(BellmanSetup, HScalarsAreTheQuotientCoefficients) {
  const Shared& s = shared();
  const auto h = bellman_h_scalars(s.circuit.r1cs, witness());
  const auto& header = s.circuit.r1cs.header;
  const uint32_t log_n = snarkjs_domain_log_size(header.n_constraints, header.n_public());
  ASSERT_EQ(h.size(), (size_t(1) << log_n) - 1);
  auto rng = cuzk::test::rng("bellman h identity");
  const Fr tau = Fr::random(rng);
  const ntt::Domain<Fr> domain(log_n, ntt::Convention::kBellman);
  const auto qap = qap_at_tau(s.circuit.r1cs, domain, tau);
  Fr a = Fr::zero(), b = Fr::zero(), c = Fr::zero();
  for (size_t j = 0; j < witness().size(); ++j) {
    a += witness()[j] * qap.u[j];
    b += witness()[j] * qap.v[j];
    c += witness()[j] * qap.w[j];
  }
  Fr h_at_tau = Fr::zero(), power = Fr::one();
  for (const Fr& coefficient : h) {
    h_at_tau += coefficient * power;
    power *= tau;
  }
  EXPECT_EQ(h_at_tau * (tau.pow(uint64_t(domain.size())) - Fr::one()), a * b - c);
}

TEST(BellmanSetup, UnconstrainedPrivateWireIsRefused) {
  auto rng = cuzk::test::rng("bellman unconstrained");
  const auto circuit = make_test_circuit<Curve>(rng, 3);  // its last wire is in no constraint
  EXPECT_CONTAINS(invalid_input_message([&] { bellman_setup(circuit.r1cs); }),
                  "private wire " + std::to_string(circuit.r1cs.header.n_wires - 1) +
                      " is used by no constraint");
}

// A wire named twice in a row with coefficients that cancel has a zero polynomial there: the
// private input p (wire 4) is in no row of B, and gets c and −c in B's row 0. It must not be
// listed in B's density (its b_g1 point would be the point at infinity), and the key still
// proves.
TEST(BellmanSetup, RepeatedWiresWhoseCoefficientsCancelHaveNoPoint) {
  auto rng = cuzk::test::rng("bellman cancel");
  const auto original = keyable_circuit(rng, 3);
  auto circuit = original;
  constexpr uint32_t kPrivateInput = 4;
  auto& b = circuit.r1cs.b;
  const Fr c = Fr::from_u64(9);
  const size_t end = b.row_start[1];
  b.column.insert(b.column.begin() + end, {kPrivateInput, kPrivateInput});
  b.value.insert(b.value.begin() + end, {c, -c});
  for (size_t row = 1; row < b.row_start.size(); ++row) b.row_start[row] += 2;

  const WireDensity density = wire_density(circuit.r1cs);
  EXPECT_EQ(density.b_wires, wire_density(original.r1cs).b_wires);
  EXPECT_EQ(std::count(density.b_wires.begin(), density.b_wires.end(), kPrivateInput), 0);
  EXPECT_EQ(std::count(density.a_wires.begin(), density.a_wires.end(), kPrivateInput), 1);
  const auto params = bellman_setup(circuit.r1cs);
  EXPECT_EQ(params.b_g1.size(), density.b_wires.size());
  EXPECT_TRUE(verify(verifying_key_from_bellman(params.vk),
                     std::span<const Fr>(circuit.witness).subspan(1, 3),
                     prove_bellman(params, circuit.r1cs, circuit.witness).proof));
}

}  // namespace
}  // namespace cuzk::groth16::test
