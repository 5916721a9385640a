#pragma once
// The Groth16 commands on files, with the curve and the key format found at run time: what
// `cuzk prove`, `cuzk verify` and `cuzk setup` do once their arguments are parsed. Two key
// formats (detect_key_format):
//   .zkey    snarkjs: proofs as proof.json (json.hpp), both curves; the .r1cs is optional.
//   .params  bellman (bellman.hpp): the 192-byte proof, BLS12-381 only; the .r1cs is required
//            (the key holds no constraint matrices), and its verifying key is a .vk file.
// Public inputs are public.json for both (snarkjs's array of decimal strings, outputs first).
// Outputs are returned for the caller to store, except keys, which are written here (through
// a temporary file renamed into place, so a failed command leaves an existing file as it was).
//
// Errors: cuzk::Error (kInvalidInput) for unreadable, malformed or mismatched files (a key
// and a witness of different curves, a witness of the wrong length, one that does not satisfy
// the circuit), with the file named; kNotFound for a missing file.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "formats/curve.hpp"
#include "groth16/bellman.hpp"
#include "groth16/prover.hpp"
#include "io/point_common.hpp"

namespace cuzk::groth16 {

enum class KeyFormat { kZkey, kParams };

// "zkey" or "params".
const char* key_format_name(KeyFormat format);

// By content: the "zkey" magic makes a .zkey; a file that begins like an uncompressed zcash G1
// point (its three flag bits clear) and is at least as long as a verifying key is taken for a
// bellman .params (its reader then checks everything). kInvalidInput for anything else.
KeyFormat detect_key_format(const std::filesystem::path& key_path);

// The prover prove_files hands the decoded inputs to: the CPU provers by default; the GPU
// prover (gpu/prover/file_prover.hpp) implements the same three calls. Each proves one witness
// with `options` (blinding, .r1cs check, progress) and returns a verified proof, or throws as
// prove() and prove_bellman() do.
class FileProver {
 public:
  virtual ~FileProver() = default;
  virtual const char* name() const = 0;  // "cpu", "cuda"
  virtual ProveResult<formats::Bn254> prove_zkey(
      const formats::Groth16Zkey<formats::Bn254>& key, std::span<const bn254::Fr> witness,
      const ProveOptions<formats::Bn254>& options) const = 0;
  virtual ProveResult<formats::Bls12_381> prove_zkey(
      const formats::Groth16Zkey<formats::Bls12_381>& key,
      std::span<const bls12_381::Fr> witness,
      const ProveOptions<formats::Bls12_381>& options) const = 0;
  virtual ProveResult<BellmanCurve> prove_params(const formats::BellmanParams& params,
                                                 const formats::R1cs<BellmanCurve>& r1cs,
                                                 std::span<const bls12_381::Fr> witness,
                                                 const ProveOptions<BellmanCurve>& options) const = 0;
};

// groth16::prove and groth16::prove_bellman.
const FileProver& cpu_file_prover();

struct ProveFilesOptions {
  // Who proves (not owned; null: cpu_file_prover()).
  const FileProver* prover = nullptr;
  // An .r1cs of the key's circuit: the witness is checked against it constraint by constraint
  // first, so a bad witness is reported with the failing constraint's number. Required for a
  // .params key, which holds no constraint matrices.
  std::optional<std::filesystem::path> r1cs;
  // r = s = 0: the unblinded proof, which reveals information about the witness (not zero
  // knowledge). For byte-for-byte comparisons with snarkjs's r = s = 0 proofs only.
  bool zero_blinding = false;
  // The subgroup check of the key's point queries (25-100 µs per point: longer than the proof
  // itself). Off by default: the points are always checked to be on the curve, the verifying
  // key's points always get the full check, and the finished proof is checked for subgroup
  // membership and verified before it is returned (check_proof_from_key, verify), so a bad key
  // cannot produce an accepted proof. kOn names the first bad point of a suspect key.
  io::SubgroupCheck key_subgroup_check = io::SubgroupCheck::kOff;
  // Called with the name of each stage as it starts ("reading the key", "MSM H", ...).
  std::function<void(const char* stage)> on_stage;
};

struct ProveFilesResult {
  formats::CurveId curve;
  KeyFormat format = KeyFormat::kZkey;
  std::string proof_json;            // .zkey: proof.json
  std::vector<uint8_t> proof_bytes;  // .params: the 192-byte compressed proof
  std::string public_json;           // public.json
  double read_ms = 0;                // reading and validating the key and the witness
  ProveTimings timings;
};

// Proves with a .zkey or a .params key (detect_key_format).
ProveFilesResult prove_files(const std::filesystem::path& key_path,
                             const std::filesystem::path& wtns_path,
                             const ProveFilesOptions& options = {});

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
// INSECURE; prints nothing. on_stage as in ProveFilesOptions.
SetupFilesResult setup_key_files(const std::filesystem::path& r1cs_path, KeyFormat format,
                                 const std::filesystem::path& key_path,
                                 const std::filesystem::path& verification_key_path,
                                 const std::function<void(const char*)>& on_stage = {});

}  // namespace cuzk::groth16
