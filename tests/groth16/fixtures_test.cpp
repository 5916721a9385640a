// The decisive check of the snarkjs convention, on files made by circom 2.2.3 and snarkjs 0.7.6
// (see /work/shared/fixtures/README.md), when CUZK_SHARED_FIXTURES names their folder; skipped
// otherwise, since the project's own tests make their own files. For each fixture:
//   - a proof with r = s = 0 equals snarkjs's own r = s = 0 proof (proof_r0s0.json) byte for
//     byte: a/b/c, the odd-coset NTTs and every MSM agree with snarkjs's;
//   - public.json is reproduced byte for byte;
//   - snarkjs's randomly blinded proof.json verifies, and fails with a changed public input;
//   - the verification key exported from the .zkey equals verification_key.json byte for byte
//     (vk_alphabeta_12 included).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "formats/mapped_file.hpp"
#include "groth16/key_file.hpp"
#include "groth16/key_file_commands.hpp"

namespace cuzk::groth16::test {
namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SharedFixture : public ::testing::TestWithParam<const char*> {};

TEST_P(SharedFixture, ReproducesSnarkjs) {
  const char* root = std::getenv("CUZK_SHARED_FIXTURES");
  if (root == nullptr || *root == '\0') GTEST_SKIP() << "CUZK_SHARED_FIXTURES is not set";
  const std::filesystem::path dir = std::filesystem::path(root) / GetParam();
  ASSERT_TRUE(std::filesystem::exists(dir)) << dir;

  // r = s = 0: snarkjs's unblinded proofs. snarkjs's keys are trusted here (no subgroup check
  // of 10^5 points, which would dominate the run).
  HostProveOptions options;
  options.blinding = BlindingBytes{};
  const auto start = std::chrono::steady_clock::now();
  const KeyFile key = KeyFile::open({dir / "circuit_final.zkey"});
  const double read_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const formats::MappedFile wtns = formats::MappedFile::open(dir / "witness.wtns");
  const KeyFile::HostProof result = key.prove_wtns(wtns.bytes(), wtns.name(), options);
  const double whole_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(std::string(result.proof.bytes.begin(), result.proof.bytes.end()),
            read_text(dir / "proof_r0s0.json"));
  EXPECT_EQ(result.proof.public_json, read_text(dir / "public.json"));
  const ProveTimings& t = result.timings;
  std::printf(
      "[ fixture  ] %s: %.0f ms (read %.0f, prove %.0f: check %.1f, abc %.1f, H %.1f, MSM A %.1f "
      "B1 %.1f B2 %.1f C %.1f H %.1f, epilogue %.1f, self-verify %.1f)\n",
      GetParam(), whole_ms, read_ms, t.total_ms, t.witness_check_ms, t.abc_ms, t.h_ms,
      t.msm_a_ms, t.msm_b1_ms, t.msm_b2_ms, t.msm_c_ms, t.msm_h_ms, t.epilogue_ms,
      t.self_verify_ms);

  EXPECT_TRUE(verify_files(dir / "verification_key.json", dir / "public.json", dir / "proof.json"));
  EXPECT_EQ(export_verification_key(dir / "circuit_final.zkey"),
            read_text(dir / "verification_key.json"));

  // The same public.json with x (public input 1, after the output) changed must fail.
  const std::filesystem::path changed =
      std::filesystem::temp_directory_path() / ("cuzk_groth16_public_" + std::string(GetParam()));
  std::string text = read_text(dir / "public.json");
  const size_t x = text.rfind("\"3\"");
  ASSERT_NE(x, std::string::npos) << text;
  text.replace(x, 3, "\"4\"");
  std::ofstream(changed, std::ios::binary) << text;
  EXPECT_FALSE(verify_files(dir / "verification_key.json", changed, dir / "proof.json"));
  std::filesystem::remove(changed);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SharedFixture,
                         ::testing::Values("bn128_k10", "bls12381_k10", "bn128_k14",
                                           "bls12381_k14"));

}  // namespace
}  // namespace cuzk::groth16::test
