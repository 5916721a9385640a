#pragma once
// The witness file of circom's witness calculators (.wtns, version 2); snarkjs's wtns_utils.js
// is the reference, /work/shared/FORMATS.md the summary.
//
//   section 1 (header): u32 n8, prime r (n8 bytes), u32 nWitness
//   section 2 (values): nWitness × n8 bytes, standard form, little-endian, in wire order
//
// The first value is the constant wire, which must be 1; then the public outputs, the public
// inputs, the private values. Values are returned as Fr (Montgomery form) after checking that
// each is < r.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include "formats/curve_id.hpp"

namespace cuzk::formats {

struct WtnsReadOptions {
  // The number of wires the circuit (r1cs nWires, zkey nVars) has; a witness of another
  // length is refused. nullopt accepts any length.
  std::optional<uint32_t> expected_count = std::nullopt;
  unsigned threads = 0;  // 0: one per hardware thread
};

// The templates below are instantiated for Bn254 and Bls12_381 in wtns.cpp.

template <class Curve>
std::vector<typename Curve::Fr> parse_wtns(std::span<const uint8_t> file,
                                           std::string_view file_name,
                                           const WtnsReadOptions& options = {});
template <class Curve>
std::vector<typename Curve::Fr> read_wtns(const std::filesystem::path& path,
                                          const WtnsReadOptions& options = {});
// The same checks, with the values left as their integers (standard form: the words of each
// element hold the integer, not its Montgomery form) and written into `out`, which must hold
// them (kInvalidInput naming the counts otherwise): the GPU prover's pinned staging reads a
// witness this way, with no conversion on the host. Returns the number of values.
template <class Curve>
size_t parse_wtns_standard(std::span<const uint8_t> file, std::string_view file_name,
                           std::span<typename Curve::Fr> out, const WtnsReadOptions& options = {});

// Writes sections 1 and 2 (snarkjs's order). Throws kInvalidInput if the witness is empty
// or its first value is not 1, as the reader would refuse the file.
template <class Curve>
void write_wtns(std::ostream& out, std::span<const typename Curve::Fr> witness,
                std::string_view file_name = "wtns");
template <class Curve>
void write_wtns(const std::filesystem::path& path, std::span<const typename Curve::Fr> witness);
template <class Curve>
std::vector<uint8_t> wtns_to_bytes(std::span<const typename Curve::Fr> witness);
// The same file from values whose words hold their integers (standard form, < r, not
// Montgomery), as the GPU prover's pinned staging keeps a witness; no Montgomery conversion
// and no copy but the result.
template <class Curve>
std::vector<uint8_t> wtns_to_bytes_from_standard(std::span<const typename Curve::Fr> standard);

}  // namespace cuzk::formats
