#pragma once
// The key files the engine proves with (DESIGN.md §4): a snarkjs .zkey (its coefficient section
// gives the A and B matrices), or a bellman .params with its circuit's .r1cs (A, B and C; a
// .params file holds no matrices). For a .params key the .r1cs is KeySource::r1cs, or else the
// file next to the key with the same stem (porep.params → porep.r1cs), so a key directory of
// .params and .r1cs pairs needs no further configuration.
//
// Proof text (PartitionOutput::proof): snarkjs's proof.json for a .zkey key; for a .params key
// the 192-byte compressed bellman proof as 384 lowercase hexadecimal digits (text, so that it
// travels in the same string fields). Public inputs are public.json text for both.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/backend.hpp"
#include "formats/params.hpp"
#include "groth16/bellman.hpp"
#include "groth16/files.hpp"

namespace cuzk::engine {

// groth16::detect_key_format of the key file (kNotFound: no such file; kInvalidInput: neither).
groth16::KeyFormat key_file_format(const KeySource& source);

// The .r1cs of a .params key; kInvalidInput naming the paths tried when there is none.
std::filesystem::path bellman_r1cs_path(const KeySource& source);

// A bellman proof as PartitionOutput::proof text, and back (kInvalidInput for anything but 384
// hexadecimal digits of a valid encoding). is_bellman_proof_text: the text has that form (a
// client writing proofs to files turns it back into the 192-byte proof file).
std::string bellman_proof_text(const groth16::Proof<groth16::BellmanCurve>& proof);
bool is_bellman_proof_text(const std::string& text);
std::array<uint8_t, formats::kBellmanProofBytes> bellman_proof_bytes(const std::string& text);
groth16::Proof<groth16::BellmanCurve> bellman_proof_from_text(const std::string& text);

}  // namespace cuzk::engine
