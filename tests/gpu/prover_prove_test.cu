// The whole GPU prover against the CPU prover: with the same r and s, the GPU proof equals the
// CPU proof byte for byte (snarkjs convention on both curves, bellman convention on BLS12-381,
// every synthetic shape, keys in VRAM and streamed from pinned host memory, one streamed key
// shared by several resident circuits), verifies, and a witness that does not satisfy the
// circuit is refused. A key with its H table (the H MSM from shifted bases) gives the same proofs.

#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <random>
#include <string>

#include "gpu/ntt/ntt.hpp"
#include "gpu/prover/partition.hpp"
#include "gpu/prover/resident_circuit.hpp"
#include "gpu_test_support.cuh"
#include "groth16/bellman.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"
#include "prover_test_support.hpp"

namespace cuzk::gpu::prover {
namespace {

template <class Curve>
class GpuProveTest : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(GpuProveTest, Curves);

template <class T>
std::string hex_of(const T& value) {
  return gpu::test::hex_words(value);
}

TYPED_TEST(GpuProveTest, ProofEqualsCpuProof) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("gpu prove");
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/false)) {
    const auto circuit = test::make_circuit<Curve>(c, rng());
    const auto key = groth16::setup(circuit.r1cs);
    const groth16::Blinding<Curve> blinding{Fr::random(rng), Fr::random(rng)};

    groth16::ProveOptions<Curve> cpu_options;
    cpu_options.blinding = blinding;
    const auto cpu = groth16::prove(key, std::span<const Fr>(circuit.witness), cpu_options);

    const auto device_circuit = DeviceCircuit<Fr>::upload(host_circuit_from_zkey(key));
    const auto device_key = DeviceProvingKey<Curve>::upload(key);
    const ntt::DeviceDomain<Fr> domain(key.header.log_domain_size(), ntt::Convention::kSnarkjs);
    auto buffers = PartitionBuffers<Curve>::allocate(partition_shape(device_circuit));
    PinnedWitness<Fr> witness(circuit.witness.size());
    witness.assign_montgomery(circuit.witness);
    Stream stream;
    GpuProveOptions<Curve> options;
    options.blinding = blinding;
    GpuStageTimes times;
    const auto gpu =
        prove(device_circuit, device_key, domain, witness, buffers, stream, options, &times);

    const bool same = gpu.proof == cpu.proof && gpu.public_inputs == cpu.public_inputs;
    std::printf(
        "[gpu-diff] %-14s %-12s proof %s (GPU %.2f ms: synthesis %.3f, H %.3f, MSM A %.3f "
        "B1 %.3f B2 %.3f C %.3f H %.3f; host critical %.3f ms)\n",
        c.name().c_str(), "prove", same ? "equal" : "DIFFERS", times.gpu_total_ms,
        times.synthesis_ms, times.h_ms, times.msm_a_ms, times.msm_b1_ms, times.msm_b2_ms,
        times.msm_c_ms, times.msm_h_ms, times.host_critical_ms);
    EXPECT_TRUE(gpu.proof.a == cpu.proof.a)
        << c.name() << ": pi_a\n  cpu " << hex_of(cpu.proof.a) << "\n  gpu " << hex_of(gpu.proof.a);
    EXPECT_TRUE(gpu.proof.b == cpu.proof.b) << c.name() << ": pi_b";
    EXPECT_TRUE(gpu.proof.c == cpu.proof.c)
        << c.name() << ": pi_c\n  cpu " << hex_of(cpu.proof.c) << "\n  gpu " << hex_of(gpu.proof.c);
    EXPECT_TRUE(gpu.public_inputs == cpu.public_inputs) << c.name() << ": public inputs";

    // The same buffers for a second partition (a .wtns this time would read the same way):
    // r = s = 0 reproduces the unblinded proof on both sides.
    options.blinding = groth16::Blinding<Curve>{Fr::zero(), Fr::zero()};
    cpu_options.blinding = options.blinding;
    const auto gpu0 = prove(device_circuit, device_key, domain, witness, buffers, stream, options);
    const auto cpu0 = groth16::prove(key, std::span<const Fr>(circuit.witness), cpu_options);
    EXPECT_TRUE(gpu0.proof == cpu0.proof) << c.name() << ": unblinded proof";

    // The key streamed from pinned host memory, in chunks small enough that every MSM stages
    // several: the same proof. Buffers made for the other residency are refused.
    auto streamed_key = DeviceProvingKey<Curve>::upload(key, KeyResidency::kStreamed);
    PartitionShape streamed_shape = partition_shape(device_circuit, KeyResidency::kStreamed);
    streamed_shape.stream_chunk_points = 512;
    auto streamed_buffers = PartitionBuffers<Curve>::allocate(streamed_shape);
    const auto streamed =
        prove(device_circuit, streamed_key, domain, witness, streamed_buffers, stream, options);
    std::printf("[gpu-diff] %-14s %-12s proof %s\n", c.name().c_str(), "streamed key",
                streamed.proof == cpu0.proof ? "equal" : "DIFFERS");
    EXPECT_TRUE(streamed.proof == cpu0.proof) << c.name() << ": proof with a streamed key";
    EXPECT_THROW(prove(device_circuit, streamed_key, domain, witness, buffers, stream, options),
                 Error)
        << c.name() << ": buffers of a resident key with a streamed key";
    EXPECT_THROW(streamed_key.add_h_table(), Error) << c.name() << ": an H table in host memory";

    // The key with its H table: the same proof; buffers made without the table are refused.
    auto table_key = DeviceProvingKey<Curve>::upload(key);
    table_key.add_h_table();
    const HTableShape whole = h_table_shape<Curve>(table_key.footprint().h);
    EXPECT_TRUE(table_key.h_table_shape() == whole);
    EXPECT_EQ(table_key.device_bytes(),
              device_key.device_bytes() + h_table_bytes<Curve>(table_key.footprint().h, whole));
    EXPECT_THROW(table_key.add_h_table(), Error) << c.name() << ": a second H table";
    auto table_buffers = PartitionBuffers<Curve>::allocate(
        partition_shape(device_circuit, KeyResidency::kDevice, table_key.h_table_shape()));
    const auto tabled =
        prove(device_circuit, table_key, domain, witness, table_buffers, stream, options);
    std::printf("[gpu-diff] %-14s %-12s proof %s\n", c.name().c_str(), "H table",
                tabled.proof == cpu0.proof ? "equal" : "DIFFERS");
    EXPECT_TRUE(tabled.proof == cpu0.proof) << c.name() << ": proof with the H table";
    EXPECT_THROW(prove(device_circuit, table_key, domain, witness, buffers, stream, options), Error)
        << c.name() << ": buffers made without the H table";
    // A partial table (2 and 3 rows, windows grouped): the same proof; buffers of another
    // table's shape are refused.
    for (unsigned rows : {2u, 3u}) {
      auto partial_key = DeviceProvingKey<Curve>::upload(key);
      const HTableShape partial = h_table_shape<Curve>(partial_key.footprint().h, rows);
      ASSERT_EQ(partial.rows, rows);
      partial_key.add_h_table(partial);
      EXPECT_EQ(partial_key.device_bytes(),
                device_key.device_bytes() +
                    (rows - 1) * partial_key.footprint().h * sizeof(typename Curve::G1));
      auto partial_buffers = PartitionBuffers<Curve>::allocate(
          partition_shape(device_circuit, KeyResidency::kDevice, partial));
      const auto proved =
          prove(device_circuit, partial_key, domain, witness, partial_buffers, stream, options);
      std::printf("[gpu-diff] %-14s %-12s proof %s\n", c.name().c_str(),
                  ("H table/" + std::to_string(rows)).c_str(),
                  proved.proof == cpu0.proof ? "equal" : "DIFFERS");
      EXPECT_TRUE(proved.proof == cpu0.proof) << c.name() << ": proof with " << rows << " rows";
      EXPECT_THROW(
          prove(device_circuit, partial_key, domain, witness, table_buffers, stream, options),
          Error)
          << c.name() << ": buffers made for the whole table";
    }
    auto one_row = DeviceProvingKey<Curve>::upload(key);
    EXPECT_THROW(one_row.add_h_table({whole.c, 1}), Error) << c.name() << ": a table of 1 row";
    EXPECT_THROW(one_row.add_h_table({whole.c, 99}), Error) << c.name() << ": 99 rows";
    // Placed automatically, a small key takes its whole table (it fits) and proves the same.
    const auto automatic = ResidentCircuit<Curve>::from_zkey(key, KeyPlacement::kAuto, whole);
    EXPECT_EQ(automatic.key().residency(), KeyResidency::kDevice);
    EXPECT_TRUE(automatic.key().h_table_shape() == whole);
    auto automatic_buffers = PartitionBuffers<Curve>::allocate(automatic.shape());
    EXPECT_TRUE(prove(automatic.circuit(), automatic.key(), automatic.domain(), witness,
                      automatic_buffers, stream, options)
                    .proof == cpu0.proof)
        << c.name() << ": proof with an automatically placed key and its H table";

    // A witness that does not satisfy the circuit: the proof does not verify, and is refused.
    std::vector<Fr> bad = circuit.witness;
    bad.back() += Fr::one();
    witness.assign_montgomery(bad);
    EXPECT_THROW(prove(device_circuit, device_key, domain, witness, buffers, stream, options),
                 Error)
        << c.name() << ": a wrong witness was not refused";
  }
}

// One key in pinned host memory serving several resident circuits (the engine's pinned tier:
// one copy for every GPU): each proves the CPU's proof from the shared points; a key in VRAM,
// or a key of another size, is refused as a shared key.
TYPED_TEST(GpuProveTest, ResidentCircuitsShareOneStreamedKey) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("gpu shared streamed key");
  const auto circuit = test::make_circuit<Curve>({circuits::Shape::kPorep, 1000, 3}, rng());
  const auto key = groth16::setup(circuit.r1cs);
  groth16::ProveOptions<Curve> cpu_options;
  cpu_options.blinding = groth16::Blinding<Curve>{Fr::zero(), Fr::zero()};
  const auto cpu = groth16::prove(key, std::span<const Fr>(circuit.witness), cpu_options);

  const auto shared = std::make_shared<const DeviceProvingKey<Curve>>(
      DeviceProvingKey<Curve>::upload(key, KeyResidency::kStreamed));
  const auto first = ResidentCircuit<Curve>::from_zkey(key, shared);
  const auto second = ResidentCircuit<Curve>::from_zkey(key, shared);
  EXPECT_EQ(&first.key(), &second.key()) << "the points are not shared";
  // Only the density lists of its filtered queries are in VRAM (device_proving_key.hpp).
  EXPECT_EQ(first.key().device_bytes(), footprint(key).wire_list_bytes);
  PinnedWitness<Fr> witness(circuit.witness.size());
  witness.assign_montgomery(circuit.witness);
  Stream stream;
  GpuProveOptions<Curve> options;
  options.blinding = cpu_options.blinding;
  for (const ResidentCircuit<Curve>* r : {&first, &second}) {
    auto buffers = PartitionBuffers<Curve>::allocate(r->shape());
    const auto gpu = prove(r->circuit(), r->key(), r->domain(), witness, buffers, stream, options);
    EXPECT_TRUE(gpu.proof == cpu.proof) << "a circuit proving from the shared key";
  }

  const auto in_vram = std::make_shared<const DeviceProvingKey<Curve>>(
      DeviceProvingKey<Curve>::upload(key, KeyResidency::kDevice));
  EXPECT_THROW(ResidentCircuit<Curve>::from_zkey(key, in_vram), Error);
  const auto other = test::make_circuit<Curve>({circuits::Shape::kPorep, 600, 3}, rng());
  const auto other_key = groth16::setup(other.r1cs);
  ASSERT_NE(footprint(other_key).bytes(), shared->bytes());
  EXPECT_THROW(ResidentCircuit<Curve>::from_zkey(other_key, shared), Error);
}

// bellman convention: a .params key from the development setup, the .r1cs's A, B, C.
TEST(GpuProveBellmanTest, ProofEqualsCpuProof) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = formats::Bls12_381;
  using Fr = Curve::Fr;
  auto rng = cuzk::test::rng("gpu prove bellman");
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/false)) {
    const auto circuit = test::make_circuit<Curve>(c, rng());
    const auto params = groth16::bellman_setup(circuit.r1cs);
    groth16::ProveOptions<Curve> cpu_options;
    cpu_options.blinding = groth16::Blinding<Curve>{Fr::random(rng), Fr::random(rng)};
    const auto cpu = groth16::prove_bellman(params, circuit.r1cs,
                                            std::span<const Fr>(circuit.witness), cpu_options);

    const auto host = host_circuit_from_r1cs(circuit.r1cs);
    const auto device_circuit = DeviceCircuit<Fr>::upload(host);
    const auto device_key = DeviceProvingKey<Curve>::upload(params);
    const ntt::DeviceDomain<Fr> domain(unsigned(std::countr_zero(host.domain_size)),
                                       ntt::Convention::kBellman);
    auto buffers = PartitionBuffers<Curve>::allocate(partition_shape(device_circuit));
    PinnedWitness<Fr> witness(circuit.witness.size());
    witness.assign_montgomery(circuit.witness);
    Stream stream;
    GpuProveOptions<Curve> options;
    options.blinding = cpu_options.blinding;
    const auto gpu = prove(device_circuit, device_key, domain, witness, buffers, stream, options);
    const bool same = gpu.proof == cpu.proof && gpu.public_inputs == cpu.public_inputs;
    std::printf("[gpu-diff] %-14s %-12s proof %s\n", c.name().c_str(), "bellman",
                same ? "equal" : "DIFFERS");
    EXPECT_TRUE(gpu.proof.a == cpu.proof.a) << c.name() << ": pi_a";
    EXPECT_TRUE(gpu.proof.b == cpu.proof.b) << c.name() << ": pi_b";
    EXPECT_TRUE(gpu.proof.c == cpu.proof.c)
        << c.name() << ": pi_c\n  cpu " << hex_of(cpu.proof.c) << "\n  gpu " << hex_of(gpu.proof.c);
    EXPECT_TRUE(gpu.public_inputs == cpu.public_inputs) << c.name() << ": public inputs";

    // The key streamed from pinned host memory (several chunks per MSM): the same proof.
    const auto streamed_key = DeviceProvingKey<Curve>::upload(params, KeyResidency::kStreamed);
    PartitionShape streamed_shape = partition_shape(device_circuit, KeyResidency::kStreamed);
    streamed_shape.stream_chunk_points = 300;
    auto streamed_buffers = PartitionBuffers<Curve>::allocate(streamed_shape);
    const auto streamed =
        prove(device_circuit, streamed_key, domain, witness, streamed_buffers, stream, options);
    std::printf("[gpu-diff] %-14s %-12s proof %s\n", c.name().c_str(), "bellman streamed",
                streamed.proof == cpu.proof ? "equal" : "DIFFERS");
    EXPECT_TRUE(streamed.proof == cpu.proof) << c.name() << ": proof with a streamed key";

    // With the H table over bellman's n - 1 coefficient-basis points: the same proof.
    const auto tabled_circuit = ResidentCircuit<Curve>::from_params(
        params, circuit.r1cs, KeyPlacement::kDevice, h_table_shape<Curve>(params.h.size(), 3));
    EXPECT_EQ(tabled_circuit.key().h_table_shape().rows, 3u);
    auto table_buffers = PartitionBuffers<Curve>::allocate(tabled_circuit.shape());
    const auto tabled = prove(tabled_circuit.circuit(), tabled_circuit.key(),
                              tabled_circuit.domain(), witness, table_buffers, stream, options);
    std::printf("[gpu-diff] %-14s %-12s proof %s\n", c.name().c_str(), "bellman H table",
                tabled.proof == cpu.proof ? "equal" : "DIFFERS");
    EXPECT_TRUE(tabled.proof == cpu.proof) << c.name() << ": proof with the H table";

    // A .params key with the zkey's matrices (no C) is refused before anything runs.
    auto zkey_style = host;
    zkey_style.c.reset();
    const auto wrong_circuit = DeviceCircuit<Fr>::upload(zkey_style);
    EXPECT_THROW(prove(wrong_circuit, device_key, domain, witness, buffers, stream, options), Error)
        << c.name() << ": a bellman key with a circuit without C";
  }
}

}  // namespace
}  // namespace cuzk::gpu::prover
