// The GPU prover from bellman assignments (assignment_prover.hpp) against the CPU's
// prove_bellman_assignment: with the same r and s the proofs are byte-equal, for every synthetic
// shape (abc_size on and off a power of two), with the .params key alone in VRAM (no
// matrices), streamed from pinned host memory in several chunks per MSM, and with an H table;
// buffers reused for a second partition; bad assignments and mismatched buffers refused before
// anything is enqueued, an unsatisfying assignment by the self-check; partitions of a streamed
// key computed as one group.

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpu/msm/staged_bytes.hpp"
#include "gpu/prover/assignment_prover.hpp"
#include "gpu/prover/resident_circuit.hpp"
#include "gpu_skip.hpp"
#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/verifier.hpp"
#include "prover_test_support.hpp"
#include "tests/support/error_messages.hpp"

namespace cuzk::gpu::prover {
namespace {

using Curve = formats::Bls12_381;
using Fr = Curve::Fr;

struct Case {
  circuits::SyntheticCircuit<Curve> circuit;
  groth16::BellmanAssignment assignment;
  formats::BellmanParams params;
};

Case make_case(const test::CircuitCase& c, uint64_t seed) {
  Case out{test::make_circuit<Curve>(c, seed), {}, {}};
  out.assignment = groth16::bellman_assignment(out.circuit.r1cs, out.circuit.witness);
  out.params = groth16::bellman_setup(out.circuit.r1cs);
  return out;
}

void expect_equal(const groth16::ProveResult<Curve>& gpu, const groth16::ProveResult<Curve>& cpu,
                  const std::string& what) {
  std::printf(
      "[gpu-diff] %-28s proof %s\n", what.c_str(),
      gpu.proof == cpu.proof && gpu.public_inputs == cpu.public_inputs ? "equal" : "DIFFERS");
  EXPECT_TRUE(gpu.proof.a == cpu.proof.a) << what << ": pi_a";
  EXPECT_TRUE(gpu.proof.b == cpu.proof.b) << what << ": pi_b";
  EXPECT_TRUE(gpu.proof.c == cpu.proof.c) << what << ": pi_c";
  EXPECT_TRUE(gpu.public_inputs == cpu.public_inputs) << what << ": public inputs";
}

std::vector<test::CircuitCase> cases() {
  std::vector<test::CircuitCase> out = test::circuit_cases(/*large=*/false);
  // The chain's 1021 constraints and 3 inputs fill 2^10 rows exactly: no padding.
  out.push_back({circuits::Shape::kChain, 1021, 1});
  out.push_back({circuits::Shape::kPorep, 4099, 5});
  return out;
}

TEST(GpuAssignmentProveTest, ProofEqualsCpuProof) {
  CUZK_SKIP_WITHOUT_GPU();
  auto rng = cuzk::test::rng("gpu prove assignment");
  for (const test::CircuitCase& c : cases()) {
    const Case k = make_case(c, rng());
    const groth16::BellmanAssignmentView view = k.assignment.view();
    groth16::ProveOptions<Curve> cpu_options;
    cpu_options.blinding = groth16::Blinding<Curve>{Fr::random(rng), Fr::random(rng)};
    const auto cpu = groth16::prove_bellman_assignment(k.params, view, cpu_options);
    GpuProveOptions<Curve> options;
    options.blinding = cpu_options.blinding;
    Stream stream;

    // The key alone in VRAM: no matrices.
    const auto resident = ResidentCircuit<Curve>::from_params(k.params);
    EXPECT_FALSE(resident.has_matrices());
    EXPECT_TRUE(resident.shape().assignment);
    auto buffers = PartitionBuffers<Curve>::allocate(resident.shape());
    expect_equal(
        prove_assignment(resident.key(), resident.domain(), view, buffers, stream, options), cpu,
        c.name() + " vram");
    // The same buffers again (the padding of a, b, c rewritten, the lists re-uploaded).
    expect_equal(
        prove_assignment(resident.key(), resident.domain(), view, buffers, stream, options), cpu,
        c.name() + " vram, reused");

    // Streamed from pinned host memory, several chunks per MSM, shared by a second circuit.
    auto streamed_key = std::make_shared<const DeviceProvingKey<Curve>>(
        DeviceProvingKey<Curve>::upload(k.params, KeyResidency::kStreamed));
    const auto streamed = ResidentCircuit<Curve>::from_params(k.params, streamed_key);
    PartitionShape streamed_shape = streamed.shape();
    EXPECT_EQ(streamed_shape.key_residency, KeyResidency::kStreamed);
    streamed_shape.stream_chunk_points = 300;
    auto streamed_buffers = PartitionBuffers<Curve>::allocate(streamed_shape);
    expect_equal(prove_assignment(streamed.key(), streamed.domain(), view, streamed_buffers, stream,
                                  options),
                 cpu, c.name() + " streamed");

    // With an H table of 3 rows.
    const auto tabled = ResidentCircuit<Curve>::from_params(
        k.params, KeyPlacement::kDevice, h_table_shape<Curve>(k.params.h.size(), 3));
    EXPECT_EQ(tabled.key().h_table_shape().rows, 3u);
    auto table_buffers = PartitionBuffers<Curve>::allocate(tabled.shape());
    expect_equal(
        prove_assignment(tabled.key(), tabled.domain(), view, table_buffers, stream, options), cpu,
        c.name() + " H table");
  }
}

// Partitions of one streamed key computed together (enqueue_assignment_compute over a group):
// every member's proof byte-equal to the CPU's for its own assignment, and the key staged once
// for the group (gpu::msm::staged_base_bytes). The chain's constraints do not depend on its
// input, so three inputs give three witnesses of one circuit and key; the porep group repeats
// one assignment with other blindings (its lists and counts per member).
TEST(GpuAssignmentProveTest, GroupOfStreamedPartitionsEqualsEachAlone) {
  CUZK_SKIP_WITHOUT_GPU();
  auto rng = cuzk::test::rng("gpu prove assignment group");
  const auto prove_group = [&](const formats::BellmanParams& params,
                               const std::vector<groth16::BellmanAssignment>& assignments,
                               const std::string& name) {
    auto key = std::make_shared<const DeviceProvingKey<Curve>>(
        DeviceProvingKey<Curve>::upload(params, KeyResidency::kStreamed));
    const auto streamed = ResidentCircuit<Curve>::from_params(params, key);
    PartitionShape shape = streamed.shape();
    shape.stream_chunk_points = 300;
    Stream stream;
    std::vector<PartitionBuffers<Curve>> buffers;
    std::vector<PartitionBuffers<Curve>*> group;
    std::vector<groth16::ProveResult<Curve>> cpu;
    std::vector<GpuProveOptions<Curve>> options(assignments.size());
    for (size_t i = 0; i < assignments.size(); ++i) {
      groth16::ProveOptions<Curve> cpu_options;
      cpu_options.blinding = groth16::Blinding<Curve>{Fr::random(rng), Fr::random(rng)};
      cpu.push_back(groth16::prove_bellman_assignment(params, assignments[i].view(), cpu_options));
      options[i].blinding = cpu_options.blinding;
      buffers.push_back(PartitionBuffers<Curve>::allocate(shape));
    }
    for (size_t i = 0; i < assignments.size(); ++i) {
      check_assignment_partition(streamed.key(), streamed.domain(), assignments[i].view(),
                                 buffers[i]);
      enqueue_assignment_stage(assignments[i].view(), buffers[i], stream);
      group.push_back(&buffers[i]);
    }
    const uint64_t staged_before = msm::staged_base_bytes().load();
    enqueue_assignment_compute(streamed.key(), streamed.domain(), group, stream);
    stream.synchronize();
    const uint64_t staged = msm::staged_base_bytes().load() - staged_before;
    EXPECT_EQ(staged, key->footprint().points_bytes()) << name << ": the key staged once";
    for (size_t i = 0; i < assignments.size(); ++i) {
      expect_equal(finish_assignment_partition(streamed.key(), assignments[i].view(), buffers[i],
                                               options[i]),
                   cpu[i], name + " member " + std::to_string(i));
    }
  };

  std::vector<groth16::BellmanAssignment> chains;
  formats::BellmanParams chain_params;
  for (uint64_t input : {3u, 11u, 12345u}) {
    circuits::SyntheticSpec spec;
    spec.shape = circuits::Shape::kChain;
    spec.constraints = 1021;
    spec.chain_input = input;
    const auto circuit = circuits::generate_circuit<Curve>(spec);
    if (chains.empty()) chain_params = groth16::bellman_setup(circuit.r1cs);
    chains.push_back(groth16::bellman_assignment(circuit.r1cs, circuit.witness));
  }
  prove_group(chain_params, chains, "chain group of 3");

  const Case porep = make_case({circuits::Shape::kPorep, 4099, 5}, rng());
  prove_group(porep.params, {porep.assignment, porep.assignment}, "porep group of 2");
}

TEST(GpuAssignmentProveTest, BadInputIsRefusedBeforeAnythingRuns) {
  CUZK_SKIP_WITHOUT_GPU();
  auto rng = cuzk::test::rng("gpu prove assignment refusals");
  const test::CircuitCase c{circuits::Shape::kPorep, 1000, 3};
  const Case k = make_case(c, rng());
  const auto resident = ResidentCircuit<Curve>::from_params(k.params);
  auto buffers = PartitionBuffers<Curve>::allocate(resident.shape());
  Stream stream;

  groth16::BellmanAssignmentView bad = k.assignment.view();
  bad.b_aux_popcount += 1;
  EXPECT_INVALID_INPUT(prove_assignment(resident.key(), resident.domain(), bad, buffers, stream),
                       "b_aux_density's popcount is");
  bad = k.assignment.view();
  bad.aux = bad.aux.first(bad.aux.size() - 1);
  EXPECT_INVALID_INPUT(prove_assignment(resident.key(), resident.domain(), bad, buffers, stream),
                       "but the key's l has");

  // Buffers of the circuit path (matrices, synthesis) are not an assignment partition's.
  const auto with_matrices = ResidentCircuit<Curve>::from_params(k.params, k.circuit.r1cs);
  auto circuit_buffers = PartitionBuffers<Curve>::allocate(with_matrices.shape());
  EXPECT_INVALID_INPUT(prove_assignment(resident.key(), resident.domain(), k.assignment.view(),
                                        circuit_buffers, stream),
                       "not made for assignments of this key");

  // A satisfying-looking assignment that is not: refused by the proof's check.
  groth16::BellmanAssignment unsatisfied = k.assignment;
  unsatisfied.c[5] += Fr::one();
  EXPECT_INVALID_INPUT(
      prove_assignment(resident.key(), resident.domain(), unsatisfied.view(), buffers, stream),
      "does not verify");
  // The buffers still serve a good partition afterwards.
  const auto good =
      prove_assignment(resident.key(), resident.domain(), k.assignment.view(), buffers, stream);
  EXPECT_TRUE(groth16::verify(groth16::verifying_key_from_bellman(k.params.vk),
                              std::span<const Fr>(good.public_inputs), good.proof));
}

}  // namespace
}  // namespace cuzk::gpu::prover
