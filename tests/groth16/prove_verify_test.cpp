// Setup → .zkey → prove → verify on both curves, with the test circuit of test_circuit.hpp:
// proofs verify, fixed blinding makes them deterministic, and tampered proofs, wrong public
// inputs and bad witnesses are refused with messages that name the problem.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "formats/zkey.hpp"
#include "groth16/json.hpp"
#include "groth16/prover.hpp"
#include "groth16/randomness.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "io/integer_text.hpp"
#include "tests/groth16/test_circuit.hpp"
#include "tests/support/error_messages.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::groth16::test {
namespace {

template <class Curve>
struct Shared {
  TestCircuit<Curve> circuit;
  formats::Groth16Zkey<Curve> key;
  VerifyingKey<Curve> vk;
};

template <class Curve>
class ProveVerifyTest : public ::testing::Test {
 protected:
  using Fr = typename Curve::Fr;

  // One key per curve for the whole suite: the setup is the slow part.
  static const Shared<Curve>& shared() {
    static const Shared<Curve> value = [] {
      auto rng =
          cuzk::test::rng("groth16 setup " + std::string(formats::curve_display_name(Curve::kId)));
      Shared<Curve> s{make_test_circuit<Curve>(rng, 24), {}, {}};
      // The key goes through the .zkey writer and reader, so every test proves with what a
      // file would hold, validated point by point (on the curve, in the subgroup).
      const auto made = setup(s.circuit.r1cs, random_toxic_waste<Curve>(rng));
      s.key = formats::parse_zkey<Curve>(formats::zkey_to_bytes(made), "setup.zkey");
      EXPECT_EQ(s.key, made);
      s.vk = verifying_key_from_zkey(s.key);
      return s;
    }();
    return value;
  }

  static std::span<const Fr> witness() { return shared().circuit.witness; }
  static std::span<const Fr> public_inputs() {
    return witness().subspan(1, shared().key.header.n_public);
  }

  static ProveResult<Curve> prove_with(const Blinding<Curve>& blinding) {
    ProveOptions<Curve> options;
    options.blinding = blinding;
    return prove(shared().key, witness(), options);
  }

  static bool verifies(const Proof<Curve>& proof, std::span<const Fr> inputs) {
    return verify(shared().vk, inputs, proof);
  }
};

using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(ProveVerifyTest, Curves);

using ::cuzk::test::invalid_input_message;

TYPED_TEST(ProveVerifyTest, KeyHasSnarkjsShape) {
  const auto& s = this->shared();
  const auto& h = s.key.header;
  const uint32_t n_constraints = s.circuit.r1cs.header.n_constraints;
  EXPECT_EQ(h.n_public, 3u);
  EXPECT_EQ(h.n_vars, s.circuit.r1cs.header.n_wires);
  EXPECT_EQ(h.domain_size, 64u);  // 40 constraints + 3 public + 1 constant wire rows
  EXPECT_EQ(s.key.ic.size(), 4u);
  EXPECT_EQ(s.key.c.size(), h.n_vars - 4);
  // The binding rows close the coefficient section: row nConstraints + j has A = wire j.
  for (uint32_t j = 0; j <= h.n_public; ++j) {
    const auto& coefficient = s.key.coefficients[s.key.coefficients.size() - 1 - h.n_public + j];
    EXPECT_EQ(coefficient.matrix, 0u);
    EXPECT_EQ(coefficient.row, n_constraints + j);
    EXPECT_EQ(coefficient.wire, j);
    EXPECT_EQ(coefficient.coefficient(), TypeParam::Fr::one());
  }
  // The unused last wire has no QAP polynomial: its points are the point at infinity.
  EXPECT_TRUE(s.key.a.back().is_infinity());
  EXPECT_TRUE(s.key.b2.back().is_infinity());
  EXPECT_TRUE(s.key.c.back().is_infinity());
}

TYPED_TEST(ProveVerifyTest, RandomlyBlindedProofsVerify) {
  const auto first = prove(this->shared().key, this->witness());
  const auto second = prove(this->shared().key, this->witness());
  EXPECT_TRUE(this->verifies(first.proof, this->public_inputs()));
  EXPECT_TRUE(this->verifies(second.proof, this->public_inputs()));
  EXPECT_NE(first.proof, second.proof);  // fresh r, s from the CSPRNG each time
  EXPECT_EQ(std::vector(first.public_inputs),
            std::vector(this->public_inputs().begin(), this->public_inputs().end()));
  const ProveTimings& t = first.timings;
  EXPECT_GT(t.total_ms, 0);
  EXPECT_GE(t.total_ms, t.abc_ms + t.h_ms + t.msm_a_ms + t.msm_b2_ms + t.msm_h_ms);
}

TYPED_TEST(ProveVerifyTest, FixedBlindingIsDeterministic) {
  using Fr = typename TypeParam::Fr;
  auto rng = cuzk::test::rng("groth16 blinding");
  const Blinding<TypeParam> blinding = random_blinding<TypeParam>(rng);
  const auto first = this->prove_with(blinding);
  const auto second = this->prove_with(blinding);
  EXPECT_EQ(first.proof, second.proof);
  EXPECT_TRUE(this->verifies(first.proof, this->public_inputs()));

  const auto unblinded = this->prove_with({Fr::zero(), Fr::zero()});
  EXPECT_EQ(unblinded.proof, this->prove_with({Fr::zero(), Fr::zero()}).proof);
  EXPECT_TRUE(this->verifies(unblinded.proof, this->public_inputs()));
  EXPECT_NE(unblinded.proof, first.proof);
  // r alone and s alone move the proof too, and it still verifies.
  for (const Blinding<TypeParam>& partial :
       {Blinding<TypeParam>{blinding.r, Fr::zero()}, Blinding<TypeParam>{Fr::zero(), blinding.s}}) {
    const auto proof = this->prove_with(partial).proof;
    EXPECT_NE(proof, unblinded.proof);
    EXPECT_TRUE(this->verifies(proof, this->public_inputs()));
  }
}

TYPED_TEST(ProveVerifyTest, TamperedProofsAreRejected) {
  using G1 = typename TypeParam::G1;
  using G2 = typename TypeParam::G2;
  const auto proof = prove(this->shared().key, this->witness()).proof;
  auto tampered = proof;
  tampered.a = (G1Jacobian<TypeParam>::from_affine(proof.a) + G1::generator()).to_affine();
  EXPECT_FALSE(this->verifies(tampered, this->public_inputs()));
  tampered = proof;
  tampered.b = (G2Jacobian<TypeParam>::from_affine(proof.b) + G2::generator()).to_affine();
  EXPECT_FALSE(this->verifies(tampered, this->public_inputs()));
  tampered = proof;
  tampered.c = (G1Jacobian<TypeParam>::from_affine(proof.c) + G1::generator()).to_affine();
  EXPECT_FALSE(this->verifies(tampered, this->public_inputs()));
  tampered = proof;
  std::swap(tampered.a, tampered.c);
  EXPECT_FALSE(this->verifies(tampered, this->public_inputs()));
}

TYPED_TEST(ProveVerifyTest, WrongPublicInputsAreRejected) {
  using Fr = typename TypeParam::Fr;
  const auto proof = prove(this->shared().key, this->witness()).proof;
  for (size_t i = 0; i < this->public_inputs().size(); ++i) {
    std::vector<Fr> inputs(this->public_inputs().begin(), this->public_inputs().end());
    inputs[i] += Fr::one();
    EXPECT_FALSE(this->verifies(proof, inputs)) << "public input " << i;
  }
  const std::vector<Fr> too_few(this->public_inputs().begin(), this->public_inputs().end() - 1);
  EXPECT_CONTAINS(invalid_input_message([&] { this->verifies(proof, too_few); }),
                  "expects 3 public inputs, but 2 were given");
}

TYPED_TEST(ProveVerifyTest, PublicInputNotBelowModulusIsRejected) {
  using Fr = typename TypeParam::Fr;
  // r itself, in decimal: x + r for x = 0, which must not pass as another spelling of 0.
  const std::string modulus = io::limbs_to_decimal(Fr::kModulus.limb);
  nlohmann::json json = public_inputs_to_json<TypeParam>(this->public_inputs());
  json[1] = modulus;
  EXPECT_CONTAINS(invalid_input_message([&] { public_inputs_from_json<TypeParam>(json); }),
                  "public input 1");
  EXPECT_CONTAINS(invalid_input_message([&] { public_inputs_from_json<TypeParam>(json); }),
                  "not below the field modulus");
}

TYPED_TEST(ProveVerifyTest, WitnessOfWrongLengthIsRejected) {
  using Fr = typename TypeParam::Fr;
  std::vector<Fr> shorter(this->witness().begin(), this->witness().end() - 1);
  const std::string message =
      invalid_input_message([&] { prove(this->shared().key, std::span<const Fr>(shorter)); });
  EXPECT_CONTAINS(message, "the witness has " + std::to_string(shorter.size()) + " values");
  EXPECT_CONTAINS(message, std::to_string(shorter.size() + 1) + " wires (nVars)");

  std::vector<Fr> no_constant(this->witness().begin(), this->witness().end());
  no_constant[0] = Fr::from_u64(2);
  EXPECT_CONTAINS(
      invalid_input_message([&] { prove(this->shared().key, std::span<const Fr>(no_constant)); }),
      "wire 0, the constant");
}

TYPED_TEST(ProveVerifyTest, UnsatisfyingWitnessIsRejected) {
  using Fr = typename TypeParam::Fr;
  const auto& s = this->shared();
  // t_5 off by one: chain constraint 4 (t_5 = t_4² + 7) is the first that fails.
  std::vector<Fr> bad(this->witness().begin(), this->witness().end());
  bad[s.circuit.first_chain_wire + 4] += Fr::one();
  EXPECT_CONTAINS(invalid_input_message([&] { prove(s.key, std::span<const Fr>(bad)); }),
                  "the witness does not satisfy the circuit: the proof does not verify "
                  "against the key");
  ProveOptions<TypeParam> options;
  options.r1cs = &s.circuit.r1cs;
  EXPECT_CONTAINS(invalid_input_message([&] { prove(s.key, std::span<const Fr>(bad), options); }),
                  "constraint 4 (counting from 0");
  EXPECT_EQ(first_unsatisfied_constraint(s.circuit.r1cs, std::span<const Fr>(bad)), 4u);
  EXPECT_EQ(first_unsatisfied_constraint(s.circuit.r1cs, this->witness()), std::nullopt);
  // A satisfying witness passes the .r1cs check and proves.
  EXPECT_TRUE(this->verifies(prove(s.key, this->witness(), options).proof, this->public_inputs()));
}

TYPED_TEST(ProveVerifyTest, ProofPointsOutsideTheGroupsAreRejected) {
  using G2 = typename TypeParam::G2;
  using Field = typename G2::Field;
  auto proof = prove(this->shared().key, this->witness()).proof;
  // A point of the twist outside G2: the first x whose curve point fails the subgroup test
  // (the cofactor is large on both curves, so the first few candidates do).
  G2 outside = G2::infinity();
  for (uint64_t x = 1; outside.is_infinity(); ++x) {
    const auto candidate = G2::from_x(Field{Field::Base::from_u64(x), Field::Base::one()});
    if (candidate && !is_in_subgroup(*candidate)) outside = *candidate;
  }
  auto bad = proof;
  bad.b = outside;
  EXPECT_CONTAINS(invalid_input_message([&] { this->verifies(bad, this->public_inputs()); }),
                  "proof pi_b: the point is on the curve but not in the prime-order");
  nlohmann::json json = proof_to_json(bad);
  EXPECT_CONTAINS(invalid_input_message([&] { proof_from_json<TypeParam>(json); }), "proof pi_b");

  bad = proof;
  bad.a.y += TypeParam::G1::Field::one();
  EXPECT_CONTAINS(invalid_input_message([&] { this->verifies(bad, this->public_inputs()); }),
                  "proof pi_a: the point is not on the curve");
  json = proof_to_json(bad);
  EXPECT_CONTAINS(invalid_input_message([&] { proof_from_json<TypeParam>(json); }), "proof pi_a");
}

// The prover reads the key's queries with on-curve checks only; a point outside the
// subgroup must still never reach a returned proof.
TYPED_TEST(ProveVerifyTest, KeyPointOutsideTheSubgroupIsRefusedByTheProver) {
  using G2 = typename TypeParam::G2;
  using Field = typename G2::Field;
  G2 outside = G2::infinity();
  for (uint64_t x = 1; outside.is_infinity(); ++x) {
    const auto candidate = G2::from_x(Field{Field::Base::from_u64(x), Field::Base::one()});
    if (candidate && !is_in_subgroup(*candidate)) outside = *candidate;
  }
  auto key = this->shared().key;
  // The first wire with a B2 point and a nonzero witness value.
  size_t wire = 0;
  while (wire < key.b2.size() &&
         (key.b2[wire].is_infinity() || this->witness()[wire] == TypeParam::Fr::zero())) {
    ++wire;
  }
  ASSERT_LT(wire, key.b2.size());
  key.b2[wire] = outside;
  EXPECT_CONTAINS(invalid_input_message([&] { prove(key, this->witness()); }),
                  "the proving key holds points outside the prime-order subgroup");
}

TYPED_TEST(ProveVerifyTest, JsonFilesRoundTrip) {
  using Fr = typename TypeParam::Fr;
  const auto proved = prove(this->shared().key, this->witness());
  const auto proof_text = snarkjs_text(proof_to_json(proved.proof));
  const auto public_text =
      snarkjs_text(public_inputs_to_json<TypeParam>(std::span<const Fr>(proved.public_inputs)));
  const auto vk_text = snarkjs_text(verifying_key_to_json(this->shared().vk));
  const auto proof = proof_from_json<TypeParam>(nlohmann::json::parse(proof_text));
  const auto inputs = public_inputs_from_json<TypeParam>(nlohmann::json::parse(public_text));
  const auto vk = verifying_key_from_json<TypeParam>(nlohmann::json::parse(vk_text));
  EXPECT_EQ(proof, proved.proof);
  EXPECT_EQ(inputs, proved.public_inputs);
  EXPECT_EQ(vk, this->shared().vk);
  EXPECT_TRUE(verify(vk, std::span<const Fr>(inputs), proof));
}

// Many chunks of coefficients (the mat-vec cuts them between rows), and a key whose section 4
// is not in row order (the prover then sorts by row first): the proof is the same.
TEST(ProveLargerCircuit, CoefficientOrderAndChunkingDoNotChangeTheProof) {
  using Curve = formats::Bn254;
  using Fr = Curve::Fr;
  auto rng = cuzk::test::rng("groth16 larger circuit");
  const auto circuit = make_test_circuit<Curve>(rng, 9000);
  auto key = setup(circuit.r1cs, random_toxic_waste<Curve>(rng));
  ASSERT_GT(key.coefficients.size(), 1u << 14);  // more than one chunk of 2^14
  ProveOptions<Curve> options;
  options.blinding = random_blinding<Curve>(rng);
  const auto sorted = prove(key, std::span<const Fr>(circuit.witness), options);
  EXPECT_TRUE(verify(verifying_key_from_zkey(key), std::span<const Fr>(sorted.public_inputs),
                     sorted.proof));
  std::shuffle(key.coefficients.begin(), key.coefficients.end(), rng);
  EXPECT_EQ(prove(key, std::span<const Fr>(circuit.witness), options).proof, sorted.proof);
}

}  // namespace
}  // namespace cuzk::groth16::test
