// The bellman prover from bellperson's assignment (bellman_assignment.hpp): the assignment of
// a .r1cs and witness against the definitions (rows, input rows, densities), proofs of the
// synthetic shapes at sizes on and off powers of two against the closed form the toxic waste
// gives (π_A = α + A(τ) + rδ, ...), equal to prove_bellman's, verified; every refusal of
// check_bellman_assignment with its message; Fr's layout (blst's fr_t).

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "circuits/synthetic.hpp"
#include "ec/scalar_mul.hpp"
#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/qap.hpp"
#include "groth16/randomness.hpp"
#include "groth16/verifier.hpp"
#include "ntt/curves.hpp"
#include "tests/support/error_messages.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::groth16::test {
namespace {

using Curve = formats::Bls12_381;
using Fr = bls12_381::Fr;
using circuits::Shape;

struct Keyed {
  circuits::SyntheticCircuit<Curve> circuit;
  ToxicWaste<Curve> waste;
  formats::BellmanParams params;
};

Keyed keyed(Shape shape, uint32_t constraints, uint32_t public_inputs = 2) {
  circuits::SyntheticSpec spec;
  spec.shape = shape;
  spec.constraints = constraints;
  spec.public_inputs = shape == Shape::kChain ? 1 : public_inputs;
  spec.seed = cuzk::test::seed() + constraints;
  Keyed k{circuits::generate_circuit<Curve>(spec), {}, {}};
  auto rng = cuzk::test::rng("bellman assignment setup " + std::to_string(constraints));
  k.waste = random_toxic_waste<Curve>(rng);
  k.params = bellman_setup(k.circuit.r1cs, k.waste);
  return k;
}

const Keyed& small_porep() {
  static const Keyed value = keyed(Shape::kPorep, 300, 3);  // abc_size 304, domain 512
  return value;
}

template <class A>
A times(const Fr& k) {
  return ec::scalar_mul(A::generator(), k.to_int()).to_affine();
}

// The proof the toxic waste predicts for a witness and r, s (Groth16's definitions, with the
// QAP of qap.hpp: independent of the prover's synthesis, transforms and MSMs).
Proof<Curve> closed_form_proof(const Keyed& k, const Blinding<Curve>& blinding) {
  const auto& r1cs = k.circuit.r1cs;
  const auto& w = k.circuit.witness;
  const auto& t = k.waste;
  const uint32_t log_n = uint32_t(std::countr_zero(k.params.h.size() + 1));
  const ntt::Domain<Fr> domain(log_n, ntt::Convention::kBellman);
  const QapAtTau<Fr> qap = qap_at_tau(r1cs, domain, t.tau);
  Fr a = Fr::zero(), b = Fr::zero(), c = Fr::zero(), l = Fr::zero();
  const size_t first_private = r1cs.header.n_public() + 1;
  for (size_t j = 0; j < w.size(); ++j) {
    a += w[j] * qap.u[j];
    b += w[j] * qap.v[j];
    c += w[j] * qap.w[j];
    if (j >= first_private) l += w[j] * (t.beta * qap.u[j] + t.alpha * qap.v[j] + qap.w[j]);
  }
  const Fr& r = blinding.r;
  const Fr& s = blinding.s;
  const Fr pi_a = t.alpha + a + r * t.delta;
  const Fr pi_b = t.beta + b + s * t.delta;
  const Fr pi_c = (l + a * b - c) * t.delta.inverse() + s * pi_a + r * pi_b - r * s * t.delta;
  return {times<bls12_381::G1Affine>(pi_a), times<bls12_381::G2Affine>(pi_b),
          times<bls12_381::G1Affine>(pi_c)};
}

TEST(BellmanAssignment, FrHasBlstsFrLayout) {
  // R mod r, the Montgomery form of 1, as blst's fr_t holds it: limbs least significant first.
  const uint64_t one[4] = {0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5,
                           0x1824b159acc5056f};
  const Fr value = Fr::one();
  EXPECT_EQ(std::memcmp(&value, one, sizeof one), 0);
  Fr from_bytes;
  std::memcpy(&from_bytes, one, sizeof one);
  EXPECT_EQ(from_bytes, Fr::one());
}

TEST(BellmanAssignment, MatchesTheDefinitions) {
  const Keyed& k = small_porep();
  const auto& r1cs = k.circuit.r1cs;
  const auto& w = k.circuit.witness;
  const BellmanAssignment s = bellman_assignment(r1cs, w);
  const size_t n_inputs = r1cs.header.n_public() + 1;
  ASSERT_EQ(s.inputs.size(), n_inputs);
  ASSERT_EQ(s.aux.size(), w.size() - n_inputs);
  ASSERT_EQ(s.a.size(), r1cs.header.n_constraints + n_inputs);
  for (size_t row = 0; row < r1cs.header.n_constraints; ++row) {
    const auto dot = [&](const formats::SparseMatrix<Fr>& m) {
      Fr sum = Fr::zero();
      for (size_t t = 0; t < m.row_columns(row).size(); ++t) {
        sum += m.row_values(row)[t] * w[m.row_columns(row)[t]];
      }
      return sum;
    };
    ASSERT_EQ(s.a[row], dot(r1cs.a)) << "row " << row;
    ASSERT_EQ(s.b[row], dot(r1cs.b)) << "row " << row;
    ASSERT_EQ(s.c[row], dot(r1cs.c)) << "row " << row;
    ASSERT_EQ(s.a[row] * s.b[row], s.c[row]) << "row " << row;
  }
  for (size_t j = 0; j < n_inputs; ++j) {
    EXPECT_EQ(s.a[r1cs.header.n_constraints + j], w[j]) << "input row " << j;
    EXPECT_TRUE(s.b[r1cs.header.n_constraints + j].is_zero());
    EXPECT_TRUE(s.c[r1cs.header.n_constraints + j].is_zero());
  }
  const WireDensity density = wire_density(r1cs);
  const AssignmentQueryVariables variables = assignment_query_variables(s.view());
  EXPECT_EQ(variables.a, density.a_wires);
  EXPECT_EQ(variables.b, density.b_wires);
  EXPECT_EQ(s.inputs.size() + s.a_aux_popcount, k.params.a.size());
  EXPECT_EQ(s.b_inp_popcount + s.b_aux_popcount, k.params.b_g1.size());
  EXPECT_LT(s.b_aux_popcount, s.aux.size() / 2) << "porep: a quarter of the private wires in B";
}

struct ShapeCase {
  Shape shape;
  uint32_t constraints;
};

class BellmanAssignmentProve : public ::testing::TestWithParam<ShapeCase> {};

TEST_P(BellmanAssignmentProve, EqualsTheClosedFormAndTheR1csPathAndVerifies) {
  const Keyed k = keyed(GetParam().shape, GetParam().constraints);
  const BellmanAssignment s = bellman_assignment(k.circuit.r1cs, k.circuit.witness);
  SCOPED_TRACE("abc_size " + std::to_string(s.a.size()) + ", domain " +
               std::to_string(k.params.h.size() + 1));
  auto rng = cuzk::test::rng("bellman assignment blinding");
  ProveOptions<Curve> options;
  options.blinding = Blinding<Curve>{Fr::random(rng), Fr::random(rng)};

  const auto from_assignment = prove_bellman_assignment(k.params, s.view(), options);
  EXPECT_EQ(from_assignment.proof, closed_form_proof(k, *options.blinding));
  const auto from_r1cs = prove_bellman(k.params, k.circuit.r1cs, k.circuit.witness, options);
  EXPECT_EQ(from_assignment.proof, from_r1cs.proof);
  EXPECT_EQ(from_assignment.public_inputs, from_r1cs.public_inputs);
  EXPECT_EQ(from_assignment.public_inputs, std::vector<Fr>(s.inputs.begin() + 1, s.inputs.end()));
  EXPECT_TRUE(verify(verifying_key_from_bellman(k.params.vk),
                     std::span<const Fr>(from_assignment.public_inputs), from_assignment.proof));
  // Fresh blinding: another proof, still valid.
  const auto blinded = prove_bellman_assignment(k.params, s.view());
  EXPECT_NE(blinded.proof.a, from_assignment.proof.a);
  EXPECT_TRUE(verify(verifying_key_from_bellman(k.params.vk),
                     std::span<const Fr>(blinded.public_inputs), blinded.proof));
}

// abc_size = constraints + inputs: the chain has 2 public signals (3 inputs), so 1021
// constraints fill 2^10 exactly and 1022 need 2^11 with one row in its upper half; the
// others lie between powers of two.
INSTANTIATE_TEST_SUITE_P(Shapes, BellmanAssignmentProve,
                         ::testing::Values(ShapeCase{Shape::kPorep, 300},
                                           ShapeCase{Shape::kPorep, 1000},
                                           ShapeCase{Shape::kDense, 700},
                                           ShapeCase{Shape::kChain, 1021},
                                           ShapeCase{Shape::kChain, 1022}),
                         [](const auto& info) {
                           return std::string(circuits::shape_name(info.param.shape)) + "_" +
                                  std::to_string(info.param.constraints);
                         });

TEST(BellmanAssignment, HScalarsSatisfyTheQapIdentity) {
  const Keyed& k = small_porep();
  const BellmanAssignment s = bellman_assignment(k.circuit.r1cs, k.circuit.witness);
  const size_t n = k.params.h.size() + 1;
  const std::vector<Fr> h = bellman_assignment_h_scalars(s.view(), n);
  ASSERT_EQ(h.size(), n - 1);
  EXPECT_EQ(h, bellman_h_scalars(k.circuit.r1cs, k.circuit.witness));
  // h(τ)·(τ^N − 1) = A(τ)B(τ) − C(τ).
  const auto& t = k.waste;
  const ntt::Domain<Fr> domain(uint32_t(std::countr_zero(n)), ntt::Convention::kBellman);
  const QapAtTau<Fr> qap = qap_at_tau(k.circuit.r1cs, domain, t.tau);
  Fr a = Fr::zero(), b = Fr::zero(), c = Fr::zero(), h_tau = Fr::zero(), power = Fr::one();
  for (size_t j = 0; j < k.circuit.witness.size(); ++j) {
    a += k.circuit.witness[j] * qap.u[j];
    b += k.circuit.witness[j] * qap.v[j];
    c += k.circuit.witness[j] * qap.w[j];
  }
  for (const Fr& coefficient : h) {
    h_tau += coefficient * power;
    power *= t.tau;
  }
  EXPECT_EQ(h_tau * (t.tau.pow(uint64_t(n)) - Fr::one()), a * b - c);
}

TEST(BellmanAssignment, AnUnsatisfyingAssignmentIsRefused) {
  const Keyed& k = small_porep();
  BellmanAssignment s = bellman_assignment(k.circuit.r1cs, k.circuit.witness);
  s.c[5] += Fr::one();
  EXPECT_INVALID_INPUT(prove_bellman_assignment(k.params, s.view()),
                       "the assignment does not satisfy the circuit");
}

TEST(BellmanAssignment, BadInputIsNamed) {
  const Keyed& k = small_porep();
  const BellmanAssignment good = bellman_assignment(k.circuit.r1cs, k.circuit.witness);
  const auto& params = k.params;
  EXPECT_NO_THROW(check_bellman_assignment(params, good.view()));
  const auto refused = [&](const std::function<void(BellmanAssignmentView&)>& change,
                           const std::string& fragment) {
    BellmanAssignmentView v = good.view();
    change(v);
    EXPECT_INVALID_INPUT(check_bellman_assignment(params, v), fragment);
    EXPECT_INVALID_INPUT(prove_bellman_assignment(params, v), fragment);
  };
  const size_t n_inputs = good.inputs.size();
  const size_t n_aux = good.aux.size();

  refused([](auto& v) { v.a = {}; }, "a, b and c must not be empty");
  refused([](auto& v) { v.b = v.b.first(v.b.size() - 1); }, "they must have one length");
  refused([](auto& v) { v.c = v.c.first(v.c.size() - 1); }, "they must have one length");
  refused([](auto& v) { v.inputs = {}; }, "the input assignment is empty");
  refused([](auto& v) { v.aux = {}; }, "the auxiliary assignment is empty");
  // abc_size 456 needs 512 = the key's domain; 256 rows need 256; 513 need 1024.
  ASSERT_EQ(params.h.size() + 1, 512u);
  const std::vector<Fr> zeros(600, Fr::zero());
  refused([&](auto& v) { v.a = v.b = v.c = std::span<const Fr>(zeros).first(256); },
          "abc_size 256 needs a domain of 256, but the key's is 512");
  refused([&](auto& v) { v.a = v.b = v.c = std::span<const Fr>(zeros).first(513); },
          "abc_size 513 needs a domain of 1024");
  refused([](auto& v) { v.inputs = v.inputs.first(v.inputs.size() - 1); },
          "but the key's ic has " + std::to_string(n_inputs) + " points");
  std::vector<Fr> inputs(good.inputs);
  inputs[0] = Fr::from_u64(2);
  refused([&](auto& v) { v.inputs = inputs; }, "the first input (the constant) is not 1");
  refused([](auto& v) { v.aux = v.aux.first(v.aux.size() - 1); },
          "but the key's l has " + std::to_string(n_aux) + " points");

  refused([](auto& v) { v.a_aux_bit_len -= 1; },
          "a_aux_density's bit length is " + std::to_string(n_aux - 1) + ", but there are " +
              std::to_string(n_aux) + " auxiliary values");
  refused([](auto& v) { v.b_aux_bit_len += 1; }, "b_aux_density's bit length is");
  refused([](auto& v) { v.b_inp_bit_len = 0; }, "b_inp_density's bit length is 0");
  refused([](auto& v) { v.a_aux_density = {}; }, "a_aux_density has 0 words");
  refused([](auto& v) { v.b_aux_density = v.b_aux_density.first(1); },
          "b_aux_density has 1 words, " + std::to_string((n_aux + 63) / 64) + " needed");
  refused([](auto& v) { v.a_aux_popcount += 1; },
          "a_aux_density's popcount is " + std::to_string(good.a_aux_popcount + 1) +
              ", but its bitmap has " + std::to_string(good.a_aux_popcount) + " bits set");
  refused([](auto& v) { v.b_inp_popcount += 1; }, "b_inp_density's popcount is");
  refused([](auto& v) { v.b_aux_popcount -= 1; }, "b_aux_density's popcount is");

  // Bitmaps whose popcounts agree but select other numbers of points than the key holds.
  std::vector<uint64_t> more_a(good.a_aux_density);
  size_t unset = 0;
  while (density_bit(more_a, unset)) ++unset;
  ASSERT_LT(unset, n_aux);
  more_a[unset / 64] |= uint64_t(1) << (unset % 64);
  refused(
      [&](auto& v) {
        v.a_aux_density = more_a;
        v.a_aux_popcount += 1;
      },
      "the key's a holds " + std::to_string(params.a.size()) +
          " points, but the inputs and a_aux_popcount select " +
          std::to_string(params.a.size() + 1));
  std::vector<uint64_t> fewer_b(good.b_aux_density);
  size_t set = 0;
  while (!density_bit(fewer_b, set)) ++set;
  fewer_b[set / 64] &= ~(uint64_t(1) << (set % 64));
  refused(
      [&](auto& v) {
        v.b_aux_density = fewer_b;
        v.b_aux_popcount -= 1;
      },
      "the key's b_g1 and b_g2 hold " + std::to_string(params.b_g1.size()) + " and " +
          std::to_string(params.b_g2.size()) +
          " points, but b_inp_popcount + b_aux_popcount select " +
          std::to_string(params.b_g1.size() - 1));

  // Bits past bit_len (a bitmap's last word, or words beyond) are not variables: ignored.
  std::vector<uint64_t> padded(good.a_aux_density);
  if (n_aux % 64 != 0) padded.back() |= ~uint64_t(0) << (n_aux % 64);
  padded.push_back(~uint64_t(0));
  BellmanAssignmentView v = good.view();
  v.a_aux_density = padded;
  EXPECT_NO_THROW(check_bellman_assignment(params, v));
  ProveOptions<Curve> options;
  options.blinding = Blinding<Curve>{Fr::from_u64(3), Fr::from_u64(5)};
  EXPECT_EQ(prove_bellman_assignment(params, v, options).proof,
            prove_bellman_assignment(params, good.view(), options).proof);
}

TEST(BellmanAssignment, WitnessOfTheWrongLengthIsRefused) {
  const Keyed& k = small_porep();
  std::vector<Fr> longer(k.circuit.witness);
  longer.push_back(Fr::one());
  EXPECT_INVALID_INPUT(bellman_assignment(k.circuit.r1cs, longer),
                       "the witness has " + std::to_string(longer.size()) + " values");
}

}  // namespace
}  // namespace cuzk::groth16::test
