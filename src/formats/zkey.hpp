#pragma once
// snarkjs's Groth16 proving key (.zkey, version 1, protocol 1); zkey_utils.js and zkey_new.js
// of snarkjs 0.7.6 are the reference, /work/shared/FORMATS.md the summary.
//
//   1  protocol header   u32 protocol (1 = Groth16; 2 PLONK and 10 FFLONK are refused)
//   2  Groth16 header    u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize,
//                        α1, β1 (G1), β2, γ2 (G2), δ1 (G1), δ2 (G2)
//   3  IC                nPublic + 1 G1 points
//   4  coefficients      u32 count, then count × (u32 matrix 0=A/1=B, u32 row, u32 wire,
//                        n8r bytes holding c·R² mod r)
//   5, 6, 7  A, B1, B2   nVars points each (G1, G1, G2)
//   8  C                 nVars − nPublic − 1 G1 points (the private wires)
//   9  H                 domainSize G1 points
//   10 MPC parameters    64-byte circuit hash, u32 contribution count, contributions
//
// Points are affine with coordinates little-endian in Montgomery form with R = 2^(8·n8), which
// is this library's R for both curves, so on a little-endian host a section of n points is
// byte for byte the memory of n of our Affine points: decoding is a copy (or, for a key that
// stays in a mapped file, no copy at all: ZkeySections gives the validated byte ranges, which
// can be handed to the device as they are) followed by validation. Infinity is all zero
// bytes, which is our (0, 0) as well.
//
// Validation: every coordinate < q, every point on its curve and, by default, in the
// prime-order subgroup. The subgroup test costs about two 64-bit scalar multiplications per
// point, hours for the 10^9 points of a 2^27 key on one core; keys this engine produced or
// already checked may be read with SubgroupCheck::kOff (the on-curve check always runs).
// Bulk sections are validated on all cores.

#include <array>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/curve_id.hpp"
#include "io/point_common.hpp"

namespace cuzk::formats {

template <class Curve>
struct Groth16Header {
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;

  uint32_t n_vars;       // wires, including the constant wire 0
  uint32_t n_public;     // public outputs + public inputs (not the constant wire)
  uint32_t domain_size;  // a power of two
  G1 alpha1, beta1;
  G2 beta2, gamma2;
  G1 delta1;
  G2 delta2;

  uint32_t log_domain_size() const { return uint32_t(std::countr_zero(domain_size)); }
  bool operator==(const Groth16Header&) const = default;
};

// One entry of section 4: the A or B matrix of the constraints, with the rows setup appends
// (row nConstraints + j has A = wire j, for j = 0..nPublic).
template <class Fr>
struct ZkeyCoefficient {
  uint32_t matrix;  // 0 = A, 1 = B
  uint32_t row;     // < domain size
  uint32_t wire;    // < nVars
  // The file's n8r bytes as limbs: c·R² mod r. As an Fr this is the Montgomery form of c·R,
  // so `value * w_std`, with w_std a witness value in *standard* form loaded into an Fr's
  // limbs (Fr::from_montgomery(w)), is the Montgomery form of c·w: one multiplication per
  // term and no conversion of the witness, as snarkjs and rapidsnark do. coefficient() gives
  // c itself.
  Fr value;

  Fr coefficient() const { return value * Fr::from_montgomery(Fr::Int::from_u64(1)); }
  bool operator==(const ZkeyCoefficient&) const = default;
};

template <class Curve>
struct Groth16Zkey {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;

  Groth16Header<Curve> header;
  std::vector<G1> ic;                             // nPublic + 1
  std::vector<ZkeyCoefficient<Fr>> coefficients;  // in file order
  std::vector<G1> a, b1;                          // nVars each
  std::vector<G2> b2;                             // nVars
  std::vector<G1> c;                              // nVars − nPublic − 1
  std::vector<G1> h;                              // domainSize
  // Section 10, verbatim (it is only re-hashed by snarkjs's MPC commands). Empty: the key
  // has none; the writer then writes a fresh one (see write_zkey).
  std::vector<uint8_t> mpc_params;

  bool operator==(const Groth16Zkey&) const = default;
};

// The byte ranges of a zkey's sections, each checked against the sizes the header implies,
// with the header decoded and validated (its six points always fully). The spans point into
// the caller's buffer (usually a MappedFile) and stay valid as long as it does.
template <class Curve>
struct ZkeySections {
  Groth16Header<Curve> header;
  std::span<const uint8_t> ic, coefficients, a, b1, b2, c, h;
  std::optional<std::span<const uint8_t>> mpc_params;
  std::string file_name;
};

struct ZkeyReadOptions {
  io::SubgroupCheck subgroup_check = io::SubgroupCheck::kOn;
  bool coefficients = true;  // false: section 4 is checked for size only, not decoded
  unsigned threads = 0;  // 0: one per hardware thread
};

// The templates below are instantiated for Bn254 and Bls12_381 in zkey.cpp.

template <class Curve>
ZkeySections<Curve> parse_zkey_sections(std::span<const uint8_t> file, std::string_view file_name);

template <class Curve>
Groth16Zkey<Curve> parse_zkey(std::span<const uint8_t> file, std::string_view file_name,
                              const ZkeyReadOptions& options = {});
template <class Curve>
Groth16Zkey<Curve> read_zkey(const std::filesystem::path& path,
                             const ZkeyReadOptions& options = {});

// Decodes and validates a packed array of snarkjs points (a section body) into `out`;
// `where` leads error messages, which name the index of the first bad point.
template <class Point>
void decode_points(std::span<const uint8_t> bytes, std::span<Point> out,
                   const ZkeyReadOptions& options, const std::string& where);

// Section 4 of a key, decoded; entries are checked against the header (matrix 0 or 1, row <
// domainSize, wire < nVars, value < r).
template <class Curve>
std::vector<ZkeyCoefficient<typename Curve::Fr>> decode_coefficients(
    const ZkeySections<Curve>& sections, unsigned threads = 0);

// Section 10 of a fresh key (what snarkjs's `zkey new` writes): the circuit hash and zero
// contributions.
std::vector<uint8_t> fresh_mpc_params(std::span<const uint8_t, 64> circuit_hash);

// Writes the key in the section order of snarkjs's `zkey new` (1, 2, 4, 3, 9, 8, 5, 6, 7, 10).
// An empty mpc_params is written as fresh_mpc_params of an all-zero circuit hash: the hash
// binds a key to the powers of tau it came from, and a key made without a ceremony has none.
// Throws kInvalidInput when the vectors do not have the sizes the header implies, the domain
// size is not a power of two, or a coefficient is out of range; points are written as they are.
template <class Curve>
void write_zkey(std::ostream& out, const Groth16Zkey<Curve>& key,
                std::string_view file_name = "zkey");
template <class Curve>
void write_zkey(const std::filesystem::path& path, const Groth16Zkey<Curve>& key);
template <class Curve>
std::vector<uint8_t> zkey_to_bytes(const Groth16Zkey<Curve>& key);

}  // namespace cuzk::formats
