#pragma once
// The engine on a backend that really proves (cpu, cuda): small synthetic circuits of both
// curves get a development key (.zkey in a folder of the test), concurrent clients submit jobs
// of several partitions (.wtns bytes), and every returned proof.json / public.json is verified
// with the verifying key. A witness that does not satisfy the circuit, or one of the other
// curve, fails its job with kInvalidInput, and the engine keeps serving; afterwards nothing is
// held (host bytes, key references, VRAM slots). A second suite proves with a bellman .params
// key and its .r1cs.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "circuits/synthetic.hpp"
#include "engine/engine.hpp"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/bellman.hpp"
#include "groth16/json.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::engine::test {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

template <class Curve>
struct Circuit {
  fs::path zkey_path;
  groth16::VerifyingKey<Curve> vk;
  std::vector<std::vector<uint8_t>> witnesses;  // .wtns bytes, one per seed
  std::vector<uint8_t> bad_witness;             // satisfies nothing
};

// A porep-shaped circuit of 300 constraints with its development key and witness. The
// generator ties the witness to the circuit's seed, so the partitions of a job share one
// witness (each proof is blinded with fresh r, s). The bad witness changes the last wire,
// which the last constraint defines.
template <class Curve>
Circuit<Curve> make_circuit(const fs::path& dir, uint64_t seed) {
  circuits::SyntheticSpec spec;
  spec.shape = circuits::Shape::kPorep;
  spec.constraints = 300;
  spec.public_inputs = 2;
  spec.seed = seed;
  auto circuit = circuits::generate_circuit<Curve>(spec);
  auto key = groth16::setup<Curve>(circuit.r1cs);
  Circuit<Curve> c;
  c.zkey_path = dir / ("key" + std::to_string(seed) + ".zkey");
  formats::write_zkey<Curve>(c.zkey_path, key);
  c.vk = groth16::verifying_key_from_zkey(key);
  c.witnesses.push_back(formats::wtns_to_bytes<Curve>(circuit.witness));
  auto bad = circuit.witness;
  bad.back() = bad.back() + Curve::Fr::one();
  c.bad_witness = formats::wtns_to_bytes<Curve>(bad);
  return c;
}

template <class Curve>
void expect_verifies(const Circuit<Curve>& c, const PartitionOutput& out,
                     const std::string& where) {
  EXPECT_EQ(out.format, ProofFormat::kSnarkjsJson) << where;
  const auto proof = groth16::proof_from_json<Curve>(nlohmann::json::parse(out.proof.begin(), out.proof.end()));
  const auto inputs =
      groth16::public_inputs_from_json<Curve>(nlohmann::json::parse(out.public_inputs));
  EXPECT_TRUE(groth16::verify<Curve>(c.vk, inputs, proof))
      << where << ": the proof does not verify";
}

PartitionInput input(const std::vector<uint8_t>& bytes) {
  return {std::make_shared<const std::vector<uint8_t>>(bytes)};
}

// The suite: `engine` has no keys yet; `backend` and `key_tier` are what its status must say.
inline void run_real_proofs_suite(Engine* engine, const fs::path& dir, const std::string& backend,
                                  KeyTier key_tier) {
  const uint64_t seed = cuzk::test::seed();
  const auto bn = make_circuit<formats::Bn254>(dir, seed);
  const auto bls = make_circuit<formats::Bls12_381>(dir, seed + 1);
  engine->register_key("bn", {bn.zkey_path});
  engine->register_key("bls", {bls.zkey_path});
  engine->preload_key("bn");

  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&, c] {
      const bool on_bn = c % 2 == 0;
      JobSpec spec;
      spec.key_id = on_bn ? "bn" : "bls";
      spec.priority = Priority(c % 4);
      for (int p = 0; p < 2; ++p)
        spec.partitions.push_back(input(on_bn ? bn.witnesses[0] : bls.witnesses[0]));
      const JobResult r = engine->await(engine->submit(spec), 300s);
      ASSERT_EQ(r.state, JobState::kSucceeded) << "client " << c << ": " << r.error_message;
      ASSERT_EQ(r.partitions.size(), 2u);
      for (int p = 0; p < 2; ++p) {
        const std::string where = "client " + std::to_string(c) + " partition " + std::to_string(p);
        if (on_bn)
          expect_verifies(bn, r.partitions[p], where);
        else
          expect_verifies(bls, r.partitions[p], where);
      }
      EXPECT_NE(r.partitions[0].proof, r.partitions[1].proof) << "proofs are blinded at random";
      EXPECT_GT(r.timings.sum.gpu_ms, 0) << "the compute stages are reported";
    });
  }
  for (auto& t : clients) t.join();

  // A witness that does not satisfy the circuit: the job fails with kInvalidInput...
  JobSpec bad;
  bad.key_id = "bn";
  bad.partitions = {input(bn.witnesses[0]), input(bn.bad_witness)};
  const JobResult rb = engine->await(engine->submit(bad), 300s);
  EXPECT_EQ(rb.state, JobState::kFailed);
  EXPECT_EQ(rb.error_kind, ErrorKind::kInvalidInput) << rb.error_message;
  EXPECT_EQ(rb.error_message.rfind("partition 1 of 2: ", 0), 0u)
      << "the failed partition is named: " << rb.error_message;
  // ... as does a witness of the other curve's key (wrong length / prime) ...
  JobSpec wrong;
  wrong.key_id = "bn";
  wrong.partitions = {input(bls.witnesses[0])};
  const JobResult rw = engine->await(engine->submit(wrong), 300s);
  EXPECT_EQ(rw.state, JobState::kFailed);
  EXPECT_EQ(rw.error_kind, ErrorKind::kInvalidInput) << rw.error_message;
  // ... and the engine keeps serving.
  JobSpec again;
  again.key_id = "bn";
  again.partitions = {input(bn.witnesses[0])};
  const JobResult ra = engine->await(engine->submit(again), 300s);
  ASSERT_EQ(ra.state, JobState::kSucceeded) << ra.error_message;
  expect_verifies(bn, ra.partitions[0], "after a bad witness");

  // A witness given as a file (opened now, mapped when its partition is prepared) proves like
  // its bytes; a path that names no file is refused when it is opened.
  const fs::path wtns_path = dir / "bn_witness.wtns";
  std::ofstream(wtns_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bn.witnesses[0].data()),
             std::streamsize(bn.witnesses[0].size()));
  JobSpec by_path;
  by_path.key_id = "bn";
  by_path.partitions = {{nullptr, formats::InputFile::open(wtns_path, {})}, input(bn.witnesses[0])};
  const JobResult rp = engine->await(engine->submit(by_path), 300s);
  ASSERT_EQ(rp.state, JobState::kSucceeded) << rp.error_message;
  expect_verifies(bn, rp.partitions[0], "witness by path");
  expect_verifies(bn, rp.partitions[1], "witness by bytes next to one by path");
  try {
    formats::InputFile::open(dir / "no_such.wtns", {});
    ADD_FAILURE() << "a witness path naming no file was opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound) << e.what();
    EXPECT_NE(std::string(e.what()).find("no_such.wtns"), std::string::npos) << e.what();
  }

  ASSERT_TRUE(engine->wait_idle(60s));
  const EngineStatus s = engine->status();
  EXPECT_EQ(s.backend, backend);
  EXPECT_EQ(s.host_in_use, 0u);
  for (const auto& k : s.keys) {
    EXPECT_EQ(k.tier, key_tier) << k.id;
    EXPECT_EQ(k.in_use, 0) << k.id;
  }
  for (const auto& g : s.gpus) EXPECT_EQ(g.arena_in_use, 0u) << "GPU " << g.device;
}

// A bellman .params key (development setup) with its .r1cs next to it, as a Filecoin key
// directory holds them, and a witness.
struct BellmanKeyFiles {
  fs::path key_path;
  groth16::VerifyingKey<groth16::BellmanCurve> vk;
  std::vector<uint8_t> witness;
};

inline BellmanKeyFiles make_bellman_key(const fs::path& dir) {
  using Curve = groth16::BellmanCurve;
  circuits::SyntheticSpec spec;
  spec.shape = circuits::Shape::kPorep;
  spec.constraints = 300;
  spec.public_inputs = 2;
  spec.seed = cuzk::test::seed() + 7;
  auto circuit = circuits::generate_circuit<Curve>(spec);
  const auto params = groth16::bellman_setup(circuit.r1cs);
  BellmanKeyFiles files;
  files.key_path = dir / "bellman.params";
  formats::write_bellman_params(files.key_path, params);
  formats::write_r1cs<Curve>(dir / "bellman.r1cs", circuit.r1cs);
  files.vk = groth16::verifying_key_from_bellman(params.vk);
  files.witness = formats::wtns_to_bytes<Curve>(circuit.witness);
  return files;
}

// A job of several partitions proves with the key; each proof text decodes to the 192-byte
// proof and verifies against the key's verifying key; the key is in `key_tier`; the same key
// registered without its .r1cs is refused, naming the file looked for.
inline void run_bellman_key_suite(Engine* engine, const fs::path& dir, const BellmanKeyFiles& key,
                                  KeyTier key_tier) {
  using Curve = groth16::BellmanCurve;
  engine->register_key("bellman", {key.key_path});
  JobSpec job;
  job.key_id = "bellman";
  for (int p = 0; p < 3; ++p) job.partitions.push_back(input(key.witness));
  const JobResult r = engine->await(engine->submit(job), 300s);
  ASSERT_EQ(r.state, JobState::kSucceeded) << r.error_message;
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    const auto& out = r.partitions[p];
    ASSERT_EQ(out.format, ProofFormat::kBellman) << "partition " << p;
    ASSERT_EQ(out.proof.size(), formats::kBellmanProofBytes) << "partition " << p;
    const auto proof =
        groth16::proof_from_bellman(formats::decode_bellman_proof(std::span(out.proof)));
    const auto inputs =
        groth16::public_inputs_from_json<Curve>(nlohmann::json::parse(out.public_inputs));
    EXPECT_TRUE(groth16::verify<Curve>(key.vk, inputs, proof))
        << "partition " << p << ": the bellman proof does not verify";
  }
  ASSERT_TRUE(engine->wait_idle(60s));
  for (const auto& k : engine->status().keys) {
    if (k.id == "bellman") {
      EXPECT_EQ(k.tier, key_tier);
    }
  }

  const fs::path lone = dir / "lone.params";
  fs::copy_file(key.key_path, lone, fs::copy_options::overwrite_existing);
  try {
    engine->register_key("lone", {lone});
    ADD_FAILURE() << "a .params key without its .r1cs was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << e.what();
    EXPECT_NE(std::string(e.what()).find("lone.r1cs"), std::string::npos) << e.what();
  }
}

}  // namespace cuzk::engine::test
