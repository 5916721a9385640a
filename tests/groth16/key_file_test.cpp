// The key-file module (key_file.hpp, key_file_commands.hpp) on files the test writes: setup,
// export, prove and verify chained through the file system as the CLI chains them, and the
// refusals that only exist at this level (files of different curves).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "groth16/key_file.hpp"
#include "groth16/key_file_commands.hpp"
#include "formats/mapped_file.hpp"
#include "groth16/json.hpp"
#include "tests/groth16/test_circuit.hpp"
#include "tests/support/error_messages.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::groth16::test {
namespace {

namespace fs = std::filesystem;

// A fresh directory under the system's temporary directory, removed with the object.
class TemporaryDirectory {
 public:
  explicit TemporaryDirectory(const std::string& name)
      : path_(fs::temp_directory_path() / (name + "_" + std::to_string(cuzk::test::seed()) + "_" +
                                           std::to_string(reinterpret_cast<uintptr_t>(this)))) {
    fs::create_directories(path_);
  }
  ~TemporaryDirectory() { fs::remove_all(path_); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

template <class Curve>
void write_circuit(const TestCircuit<Curve>& circuit, const fs::path& dir) {
  formats::write_r1cs(dir / "circuit.r1cs", circuit.r1cs);
  formats::write_wtns<Curve>(dir / "witness.wtns",
                             std::span<const typename Curve::Fr>(circuit.witness));
}

using ::cuzk::test::invalid_input_message;

template <class Curve>
class FilesTest : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(FilesTest, Curves);

TYPED_TEST(FilesTest, SetupProveVerifyThroughFiles) {
  using Fr = typename TypeParam::Fr;
  const TemporaryDirectory dir("cuzk_groth16_files");
  const fs::path& d = dir.path();
  auto rng = cuzk::test::rng("groth16 files");
  TestCircuit<TypeParam> circuit = make_test_circuit<TypeParam>(rng, 5);
  write_circuit(circuit, d);

  const std::string vk_text = setup_files(d / "circuit.r1cs", d / "circuit.zkey");
  EXPECT_EQ(export_verification_key(d / "circuit.zkey"), vk_text);
  write_text(d / "verification_key.json", vk_text);

  const KeyFile key = KeyFile::open({d / "circuit.zkey", d / "circuit.r1cs"});
  EXPECT_EQ(key.curve(), TypeParam::kId);
  EXPECT_EQ(key.format(), KeyFormat::kZkey);
  const auto prove_file = [&](const fs::path& wtns) {
    const auto file = formats::MappedFile::open(wtns);
    return key.prove_wtns(file.bytes(), file.name()).proof;
  };
  const EncodedProof proof = prove_file(d / "witness.wtns");
  EXPECT_EQ(proof.format, ProofFormat::kSnarkjsJson);
  write_text(d / "proof.json", std::string(proof.bytes.begin(), proof.bytes.end()));
  write_text(d / "public.json", proof.public_json);
  EXPECT_TRUE(verify_files(d / "verification_key.json", d / "public.json", d / "proof.json"));

  // Another public.json: the same proof must not verify.
  std::vector<Fr> other(circuit.witness.begin() + 1, circuit.witness.begin() + 4);
  other[2] += Fr::one();
  write_text(d / "other_public.json",
             snarkjs_text(public_inputs_to_json<TypeParam>(std::span<const Fr>(other))));
  EXPECT_FALSE(
      verify_files(d / "verification_key.json", d / "other_public.json", d / "proof.json"));

  // A witness that breaks constraint 2 of the chain, checked against the .r1cs.
  circuit.witness[circuit.first_chain_wire + 2] += Fr::one();
  formats::write_wtns<TypeParam>(d / "bad.wtns", std::span<const Fr>(circuit.witness));
  const std::string message = invalid_input_message([&] { prove_file(d / "bad.wtns"); });
  EXPECT_NE(message.find("constraint 2 (counting from 0"), std::string::npos) << message;
}

TEST(FilesCurves, FilesOfDifferentCurvesAreRefused) {
  const TemporaryDirectory dir("cuzk_groth16_curves");
  const fs::path& d = dir.path();
  auto rng = cuzk::test::rng("groth16 files curves");
  write_circuit(make_test_circuit<formats::Bn254>(rng, 2), d);
  setup_files(d / "circuit.r1cs", d / "circuit.zkey");
  const auto bls = make_test_circuit<formats::Bls12_381>(rng, 2);
  formats::write_wtns<formats::Bls12_381>(d / "bls.wtns",
                                          std::span<const formats::Bls12_381::Fr>(bls.witness));
  const KeyFile key = KeyFile::open({d / "circuit.zkey"});
  const auto wtns = formats::MappedFile::open(d / "bls.wtns");
  const std::string message =
      invalid_input_message([&] { key.prove_wtns(wtns.bytes(), wtns.name()); });
  EXPECT_NE(message.find("BLS12-381's scalar field prime r, but BN254's"), std::string::npos)
      << message;
  // An .r1cs of another curve than the key's is refused when the key is opened.
  formats::write_r1cs(d / "bls.r1cs", bls.r1cs);
  const std::string r1cs_message =
      invalid_input_message([&] { KeyFile::open({d / "circuit.zkey", d / "bls.r1cs"}); });
  EXPECT_NE(r1cs_message.find("belongs to BN254 but"), std::string::npos) << r1cs_message;
  EXPECT_NE(r1cs_message.find("to BLS12-381"), std::string::npos) << r1cs_message;

  const std::string not_json =
      invalid_input_message([&] { verify_files(d / "circuit.r1cs", d / "x", d / "y"); });
  EXPECT_NE(not_json.find("not valid JSON"), std::string::npos) << not_json;
  try {
    verify_files(d / "missing.json", d / "x", d / "y");
    ADD_FAILURE() << "a missing file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound) << e.what();
  }
}

}  // namespace
}  // namespace cuzk::groth16::test
