#pragma once
// The Groth16 commands on files, with the curve found at run time: what `cuzk prove`,
// `cuzk verify` and `cuzk setup` do once their arguments are parsed. Outputs are the texts
// snarkjs writes (json.hpp), for the caller to store.
//
// Errors: cuzk::Error (kInvalidInput) for unreadable, malformed or mismatched files (a key
// and a witness of different curves, a witness of the wrong length, one that does not satisfy
// the circuit), with the file named; kNotFound for a missing file.

#include <filesystem>
#include <optional>
#include <string>

#include "formats/curve.hpp"
#include "groth16/prover.hpp"
#include "io/point_common.hpp"

namespace cuzk::groth16 {

struct ProveFilesOptions {
  // An .r1cs of the key's circuit: the witness is checked against it constraint by constraint
  // first, so a bad witness is reported with the failing constraint's number.
  std::optional<std::filesystem::path> r1cs;
  // r = s = 0: the unblinded proof, which reveals information about the witness (not zero
  // knowledge). For byte-for-byte comparisons with snarkjs's r = s = 0 proofs only.
  bool zero_blinding = false;
  // kOff skips the subgroup check of the key's points (trusted keys; ~100 µs per point).
  io::SubgroupCheck key_subgroup_check = io::SubgroupCheck::kOn;
};

struct ProveFilesResult {
  formats::CurveId curve;
  std::string proof_json;   // proof.json
  std::string public_json;  // public.json
  double read_ms = 0;       // reading and validating the key and the witness
  ProveTimings timings;
};

ProveFilesResult prove_files(const std::filesystem::path& zkey_path,
                             const std::filesystem::path& wtns_path,
                             const ProveFilesOptions& options = {});

// True when the proof verifies against the key and the public inputs, false when it does not;
// throws for malformed files (see verifier.hpp and json.hpp for what is checked).
bool verify_files(const std::filesystem::path& verification_key_path,
                  const std::filesystem::path& public_path,
                  const std::filesystem::path& proof_path);

// verification_key.json of a .zkey, as `snarkjs zkey export verificationkey` writes it.
std::string export_verification_key(const std::filesystem::path& zkey_path);

// A development setup (setup.hpp) of an .r1cs, with toxic waste from the system CSPRNG:
// writes the .zkey and returns its verification_key.json text. INSECURE; prints nothing.
std::string setup_files(const std::filesystem::path& r1cs_path,
                        const std::filesystem::path& zkey_path);

}  // namespace cuzk::groth16
