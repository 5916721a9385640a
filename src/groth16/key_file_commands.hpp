#pragma once
// What `cuzk verify` and `cuzk setup` do once their arguments are parsed, with the curve and
// the key format found at run time (proving goes through the engine: key_file.hpp). Two key
// formats:
//   .zkey    snarkjs: proofs as proof.json (json.hpp), both curves; verification_key.json.
//   .params  bellman (bellman.hpp): the 192-byte proof, BLS12-381 only; its verifying key is a
//            .vk file (or the .params itself).
// Public inputs are public.json for both (snarkjs's array of decimal strings, outputs first).
// Keys are written through a temporary file renamed into place, so a failed command leaves an
// existing file as it was.
//
// Errors: cuzk::Error (kInvalidInput) for unreadable, malformed or mismatched files, with the
// file named; kNotFound for a missing file.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/curve_id.hpp"
#include "groth16/bellman.hpp"
#include "groth16/key_file.hpp"
#include "io/point_common.hpp"

namespace cuzk::groth16 {

// True when the proof verifies against the key and the public inputs, false when it does not;
// throws for malformed files (see verifier.hpp and json.hpp for what is checked). The key is
// a verification_key.json (then the proof is a proof.json) or a bellman .vk or .params (then
// the proof is the 192-byte proof file), told apart by content: a bellman key begins with an
// uncompressed point (flag bits clear), JSON with '{' or white space.
bool verify_files(const std::filesystem::path& verification_key_path,
                  const std::filesystem::path& public_path,
                  const std::filesystem::path& proof_path);

struct VerifyFilesResult {
  bool valid = false;
  formats::CurveId curve;
  KeyFormat format = KeyFormat::kZkey;  // kZkey: verification_key.json and proof.json
  double read_ms = 0;                   // reading and decoding the three files
  double verify_ms = 0;                 // the pairing check
};
VerifyFilesResult verify_files_timed(const std::filesystem::path& verification_key_path,
                                     const std::filesystem::path& public_path,
                                     const std::filesystem::path& proof_path);

// verification_key.json of a .zkey, as `snarkjs zkey export verificationkey` writes it.
std::string export_verification_key(const std::filesystem::path& zkey_path);

// A development setup (setup.hpp) of an .r1cs, with toxic waste from the system CSPRNG:
// writes the .zkey and returns its verification_key.json text. INSECURE; prints nothing.
std::string setup_files(const std::filesystem::path& r1cs_path,
                        const std::filesystem::path& zkey_path);

struct SetupFilesResult {
  formats::CurveId curve;
  KeyFormat format;
  uint32_t constraints = 0, wires = 0, public_signals = 0;
  uint64_t domain_size = 0;
  double read_ms = 0;           // reading the .r1cs
  double setup_ms = 0;          // the key's points
  double write_ms = 0;          // writing the key and its verifying key
  BellmanSetupTimings bellman;  // .params: the setup's stages
};

// A development setup written as `format`: a .zkey and its verification_key.json, or a bellman
// .params and its .vk (BLS12-381 only: kInvalidInput naming the curve for a BN254 .r1cs).
// INSECURE; prints nothing. on_stage is called with the name of each step as it starts.
SetupFilesResult setup_key_files(const std::filesystem::path& r1cs_path, KeyFormat format,
                                 const std::filesystem::path& key_path,
                                 const std::filesystem::path& verification_key_path,
                                 const std::function<void(const char*)>& on_stage = {});

}  // namespace cuzk::groth16
