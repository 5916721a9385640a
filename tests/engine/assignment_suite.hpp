#pragma once
// Bellman assignments through the engine (PartitionInput::assignment): a .params key registered
// without matrices (KeySource::assignments_only) proves partitions given as bellperson's
// assignment; with fixed r and s each proof is the 192-byte proof prove_bellman makes from the
// .r1cs and witness, and every proof verifies. An assignment that does not fit the key, or one
// that does not satisfy the circuit, fails its job with kInvalidInput naming the problem; a
// .wtns witness for that key fails too; a partition given both a witness and an assignment is
// refused at submit. The engine keeps serving afterwards. For any backend that really proves.

#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "circuits/synthetic.hpp"
#include "engine/engine.hpp"
#include "formats/params.hpp"
#include "formats/wtns.hpp"
#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/json.hpp"
#include "groth16/verifier.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::engine::test {

namespace assignment_suite {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using Curve = groth16::BellmanCurve;
using Fr = bls12_381::Fr;

inline std::array<uint8_t, 32> le_bytes(const Fr& x) {
  std::array<uint8_t, 32> out{};
  const auto v = x.to_int();
  std::memcpy(out.data(), v.limb, 32);  // little-endian limbs on the supported hosts
  return out;
}

// A partition given as an assignment, owned by the input.
inline PartitionInput assignment_input(std::shared_ptr<const groth16::BellmanAssignment> owned,
                                       std::optional<groth16::Blinding<Curve>> blinding = {}) {
  PartitionInput input;
  input.assignment = std::make_shared<const groth16::BellmanAssignmentView>(owned->view());
  input.assignment_owner = std::move(owned);
  if (blinding)
    input.blinding = groth16::BlindingBytes{le_bytes(blinding->r), le_bytes(blinding->s)};
  return input;
}

inline JobResult prove(Engine* engine, const std::string& key, std::vector<PartitionInput> parts) {
  JobSpec job;
  job.key_id = key;
  job.partitions = std::move(parts);
  return engine->await(engine->submit(job), 300s);
}

}  // namespace assignment_suite

// A porep-shaped circuit's .params key alone (no .r1cs beside it) and its assignment.
struct AssignmentKey {
  KeySource source;
  circuits::SyntheticCircuit<groth16::BellmanCurve> circuit;
  formats::BellmanParams params;
  std::shared_ptr<const groth16::BellmanAssignment> assignment;
};

inline AssignmentKey make_assignment_key(const std::filesystem::path& dir) {
  using namespace assignment_suite;
  circuits::SyntheticSpec spec;
  spec.shape = circuits::Shape::kPorep;
  spec.constraints = 700;
  spec.public_inputs = 3;
  spec.seed = cuzk::test::seed() + 11;
  AssignmentKey k;
  k.circuit = circuits::generate_circuit<Curve>(spec);
  k.params = groth16::bellman_setup(k.circuit.r1cs);
  k.source.path = dir / "assignments.params";
  k.source.assignments_only = true;
  formats::write_bellman_params(k.source.path, k.params);
  k.assignment = std::make_shared<const groth16::BellmanAssignment>(
      groth16::bellman_assignment(k.circuit.r1cs, k.circuit.witness));
  return k;
}

// Registers the key as "assignments" and proves with it; the key ends in `key_tier`.
inline void run_bellman_assignment_suite(Engine* engine, const AssignmentKey& key,
                                         KeyTier key_tier) {
  using namespace assignment_suite;
  const auto& circuit = key.circuit;
  const auto& params = key.params;
  const auto& owned = key.assignment;
  const auto vk = groth16::verifying_key_from_bellman(params.vk);
  engine->register_key("assignments", key.source);

  auto rng = cuzk::test::rng("engine assignment blinding");
  const groth16::Blinding<Curve> fixed{Fr::random(rng), Fr::random(rng)};
  groth16::ProveOptions<Curve> options;
  options.blinding = fixed;
  const auto expected = formats::encode_bellman_proof(groth16::proof_to_bellman(
      groth16::prove_bellman(params, circuit.r1cs, circuit.witness, options).proof));

  const JobResult r = prove(
      engine, "assignments",
      {assignment_input(owned, fixed), assignment_input(owned), assignment_input(owned, fixed)});
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error_message;
  ASSERT_EQ(r.partitions.size(), 3u);
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    const auto& out = r.partitions[p];
    ASSERT_EQ(out.format, ProofFormat::kBellman) << "partition " << p;
    ASSERT_EQ(out.proof.size(), formats::kBellmanProofBytes) << "partition " << p;
    const auto proof =
        groth16::proof_from_bellman(formats::decode_bellman_proof(std::span(out.proof)));
    const auto inputs =
        groth16::public_inputs_from_json<Curve>(nlohmann::json::parse(out.public_inputs));
    EXPECT_EQ(inputs, std::vector<Fr>(owned->inputs.begin() + 1, owned->inputs.end()));
    EXPECT_TRUE(groth16::verify<Curve>(vk, inputs, proof)) << "partition " << p;
  }
  EXPECT_TRUE(std::equal(expected.begin(), expected.end(), r.partitions[0].proof.begin()))
      << "the proof from the assignment differs from prove_bellman's with the same r, s";
  EXPECT_EQ(r.partitions[0].proof, r.partitions[2].proof);
  EXPECT_NE(r.partitions[0].proof, r.partitions[1].proof) << "fresh r, s give another proof";

  // An assignment whose popcount disagrees with its bitmap.
  auto bad = std::make_shared<groth16::BellmanAssignment>(*owned);
  bad->b_aux_popcount += 1;
  JobResult failed = prove(engine, "assignments", {assignment_input(bad)});
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.error_kind, ErrorKind::kInvalidInput);
  EXPECT_NE(failed.error_message.find("b_aux_density's popcount is"), std::string::npos)
      << failed.error_message;
  // One that does not satisfy the circuit.
  auto unsatisfied = std::make_shared<groth16::BellmanAssignment>(*owned);
  unsatisfied->c[3] += Fr::one();
  failed = prove(engine, "assignments", {assignment_input(unsatisfied)});
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.error_kind, ErrorKind::kInvalidInput);
  EXPECT_NE(failed.error_message.find("does not"), std::string::npos) << failed.error_message;
  // A .wtns witness for a key without matrices.
  PartitionInput wtns;
  wtns.witness =
      std::make_shared<const std::vector<uint8_t>>(formats::wtns_to_bytes<Curve>(circuit.witness));
  failed = prove(engine, "assignments", {wtns});
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.error_kind, ErrorKind::kInvalidInput);
  EXPECT_NE(failed.error_message.find("assignments"), std::string::npos) << failed.error_message;
  // Both at once: refused at submit.
  PartitionInput both = assignment_input(owned);
  both.witness = wtns.witness;
  JobSpec job;
  job.key_id = "assignments";
  job.partitions = {both};
  try {
    engine->submit(job);
    ADD_FAILURE() << "a partition with a witness and an assignment was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("both a witness and a bellman assignment"),
              std::string::npos)
        << e.what();
  }

  // Still serving.
  const JobResult again = prove(engine, "assignments", {assignment_input(owned, fixed)});
  ASSERT_EQ(again.state, JobState::kSucceeded) << again.error_message;
  EXPECT_EQ(again.partitions[0].proof, r.partitions[0].proof);
  ASSERT_TRUE(engine->wait_idle(60s));
  for (const auto& k : engine->status().keys) {
    if (k.id == "assignments") EXPECT_EQ(k.tier, key_tier);
  }
}

}  // namespace cuzk::engine::test
