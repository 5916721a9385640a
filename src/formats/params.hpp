#pragma once
// bellman/bellperson Groth16 keys (.params), verifying keys (.vk) and proofs, BLS12-381 only:
// the files Filecoin's proofs use. bellman's src/groth16/mod.rs (Parameters, VerifyingKey,
// Proof: write and read) is the reference, /work/shared/FORMATS.md the summary.
//
//   .vk      α1 (G1), β1 (G1), β2 (G2), γ2 (G2), δ1 (G1), δ2 (G2), u32 count, count × IC (G1)
//   .params  the .vk bytes, then five u32-counted vectors: h, l, a, b_g1 (G1) and b_g2 (G2)
//   proof    A (G1) ‖ B (G2) ‖ C (G1), compressed: 48 + 96 + 48 = 192 bytes
//
// No magic, version or padding; counts are big-endian. Key points use the uncompressed zcash
// encoding (96 bytes G1, 192 bytes G2), proofs the compressed one; io/zcash_codec.hpp has both.
//
// What the vectors hold (bellman's generator.rs): h[i] = τ^i·t(τ)/δ for i < N − 1 (N the
// domain size, so h has N − 1 points); l one point per private wire; a and b_g1/b_g2 one point
// per wire whose A (resp. B) polynomial is not zero, public wires first; ic one per public
// input including the constant 1. bellman never writes the point at infinity into a vector
// (a wire whose polynomial vanishes is left out instead), and its reader refuses it; so do we.
//
// Validation, stricter than bellman where bellman would accept a key no prover can use:
// every coordinate < p, flags exactly those of the uncompressed form, every point on the
// curve; the six key points and IC always in the prime-order subgroup, the vectors by
// default (ParamsReadOptions::subgroup_check = kOff skips it for trusted keys: ~100 µs per G1
// and ~170 µs per G2 point, hours for a 2^27 key on one core); no infinity anywhere; counts
// checked against the bytes left before anything is allocated; the vector sizes consistent
// (h holds 2^k − 1 points, b_g2 as many as b_g1, ic at least one); no bytes after the end.
// The message of a refused file starts with its name and names the first bad element:
// "stacked.params: l[1234]: point is not on the curve bls12_381_g1".

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include "curves/bls12_381.hpp"
#include "io/point_common.hpp"

namespace cuzk::formats {

// bellman's VerifyingKey; also the first part of a .params file.
struct BellmanVerifyingKey {
  using G1 = bls12_381::G1Affine;
  using G2 = bls12_381::G2Affine;

  G1 alpha_g1, beta_g1;
  G2 beta_g2, gamma_g2;
  G1 delta_g1;
  G2 delta_g2;
  std::vector<G1> ic;  // one per public input, the constant wire first

  bool operator==(const BellmanVerifyingKey&) const = default;
};

// bellman's Parameters: the proving key.
struct BellmanParams {
  using G1 = bls12_381::G1Affine;
  using G2 = bls12_381::G2Affine;

  BellmanVerifyingKey vk;
  std::vector<G1> h;     // domain size − 1
  std::vector<G1> l;     // private wires
  std::vector<G1> a;     // wires with a non-zero A polynomial
  std::vector<G1> b_g1;  // wires with a non-zero B polynomial
  std::vector<G2> b_g2;  // the same wires as b_g1

  bool operator==(const BellmanParams&) const = default;
};

// The byte ranges of a .params file's vectors (counts checked, points not yet decoded) with
// its verifying key decoded and fully checked. The spans point into the caller's buffer
// (usually a MappedFile) and stay valid as long as it does: a key store can decode them
// later, in pieces, or on another thread.
struct BellmanParamsLayout {
  BellmanVerifyingKey vk;
  std::span<const uint8_t> h, l, a, b_g1, b_g2;  // count × 96 (or 192 for b_g2) bytes each
};

struct ParamsReadOptions {
  io::SubgroupCheck subgroup_check = io::SubgroupCheck::kOn;  // for the five vectors
  unsigned threads = 0;                                       // 0: one per hardware thread
};

inline constexpr size_t kBellmanProofBytes = 192;

struct BellmanProof {
  bls12_381::G1Affine a;
  bls12_381::G2Affine b;
  bls12_381::G1Affine c;

  bool operator==(const BellmanProof&) const = default;
};

// ---- verifying keys (.vk) ----

// The whole of `file` must be one verifying key.
BellmanVerifyingKey parse_bellman_verifying_key(std::span<const uint8_t> file,
                                                std::string_view file_name);
BellmanVerifyingKey read_bellman_verifying_key(const std::filesystem::path& path);

// Throws kInvalidInput for a key the reader would refuse (infinity, a point off the curve, an
// empty IC), so a file that would not read back is never written. The path overloads here and
// below write <path>.partial and rename it over path when complete: a refused key or a failed
// write leaves an existing file as it was.
void write_bellman_verifying_key(std::ostream& out, const BellmanVerifyingKey& vk,
                                 std::string_view file_name = "vk");
void write_bellman_verifying_key(const std::filesystem::path& path, const BellmanVerifyingKey& vk);
std::vector<uint8_t> bellman_verifying_key_to_bytes(const BellmanVerifyingKey& vk);

// ---- proving keys (.params) ----

BellmanParamsLayout parse_bellman_params_layout(std::span<const uint8_t> file,
                                                std::string_view file_name);
BellmanParams parse_bellman_params(std::span<const uint8_t> file, std::string_view file_name,
                                   const ParamsReadOptions& options = {});
// Maps the file (formats::MappedFile) and decodes it on all cores.
BellmanParams read_bellman_params(const std::filesystem::path& path,
                                  const ParamsReadOptions& options = {});

// Decodes one vector of a layout into `out` (sized count); `where` leads the messages
// ("stacked.params: h"), which name the index of the first bad point.
void decode_bellman_points(std::span<const uint8_t> bytes, std::span<bls12_381::G1Affine> out,
                           const ParamsReadOptions& options, std::string_view where);
void decode_bellman_points(std::span<const uint8_t> bytes, std::span<bls12_381::G2Affine> out,
                           const ParamsReadOptions& options, std::string_view where);

// Throws kInvalidInput for content the reader would refuse: infinity or a point off the curve
// anywhere, sizes that disagree (see above), more than 2^32 − 1 points in a vector. Points are
// encoded on `threads` threads (0: all).
void write_bellman_params(std::ostream& out, const BellmanParams& params,
                          std::string_view file_name = "params", unsigned threads = 0);
void write_bellman_params(const std::filesystem::path& path, const BellmanParams& params,
                          unsigned threads = 0);
std::vector<uint8_t> bellman_params_to_bytes(const BellmanParams& params);

// ---- proofs ----

// Full validation (flags, coordinates < p, on the curve, in the subgroup); like bellman's
// Proof::read, a point at infinity is refused. `name` leads the messages.
BellmanProof decode_bellman_proof(std::span<const uint8_t> bytes, std::string_view name = "proof");
// Throws kInvalidInput for a proof with a point at infinity or off the curve.
std::array<uint8_t, kBellmanProofBytes> encode_bellman_proof(const BellmanProof& proof);

// Several proofs back to back, as Filecoin stores the partitions of one sector's proof. The
// length must be a multiple of 192 and, when expected_count is given, hold exactly that many.
// The first bad proof is named by index: "proof.bin: proof 3: B: ...".
std::vector<BellmanProof> decode_bellman_proofs(std::span<const uint8_t> bytes,
                                                std::string_view name = "proofs",
                                                std::optional<size_t> expected_count = {});
std::vector<uint8_t> encode_bellman_proofs(std::span<const BellmanProof> proofs);

}  // namespace cuzk::formats
