#pragma once
// circom's constraint system file (.r1cs, version 1); the npm package r1csfile is the
// reference, /work/shared/FORMATS.md the summary.
//
//   section 1 (header): u32 n8, prime r (n8 bytes), u32 nWires, u32 nPubOut, u32 nPubIn,
//                       u32 nPrvIn, u64 nLabels, u32 nConstraints
//   section 2 (constraints): per constraint the linear combinations A, B, C, each
//                       u32 nTerms then nTerms × (u32 wire, coefficient n8 bytes, standard
//                       form, little-endian)
//   section 3 (wire → label map): u64 label per wire
//   sections 4, 5: custom gates (PLONK only; refused here, see parse_r1cs)
//
// Wire 0 is the constant 1, then the public outputs, public inputs, private inputs, then the
// internal wires.
//
// Reading is built for PoRep-sized systems (1.3·10^8 constraints, 7·10^8 terms): a first pass
// walks the section once to find where each chunk of constraints starts and how many terms
// each matrix gets, so the CSR arrays are allocated once at their final size (no growth, no
// copy, no per-row allocation); a second pass fills the chunks on all cores, converting each
// coefficient to Montgomery form and checking it (< r) and its wire (< nWires).

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <span>
#include <string_view>
#include <vector>

#include "formats/curve_id.hpp"
#include "formats/sparse_matrix.hpp"

namespace cuzk::formats {

struct R1csHeader {
  CurveId curve;
  uint32_t n_wires;  // including the constant wire 0
  uint32_t n_pub_out;
  uint32_t n_pub_in;
  uint32_t n_prv_in;
  uint64_t n_labels;
  uint32_t n_constraints;

  uint32_t n_public() const { return n_pub_out + n_pub_in; }  // outputs and public inputs
  bool operator==(const R1csHeader&) const = default;
};

template <class Curve>
struct R1cs {
  using Fr = typename Curve::Fr;

  R1csHeader header;
  SparseMatrix<Fr> a, b, c;           // n_constraints rows each
  std::vector<uint64_t> wire_labels;  // section 3; empty unless read (or, to write, identity)

  bool operator==(const R1cs&) const = default;
};

struct R1csReadOptions {
  bool read_labels = false;  // section 3 (8 bytes per wire) is needed only for debugging
  unsigned threads = 0;      // 0: one per hardware thread
};

// Section 1 only, for any curve (the curve is deduced from the prime; an unknown prime is an
// error). Cheap: use it to size buffers or dispatch before reading the constraints.
R1csHeader parse_r1cs_header(std::span<const uint8_t> file, std::string_view file_name);

// The templates below are instantiated for Bn254 and Bls12_381 in r1cs.cpp.

// The whole file; its prime must be Curve's r. Throws kInvalidInput naming the file, section
// and value for anything malformed (see the tests in tests/formats for each case).
template <class Curve>
R1cs<Curve> parse_r1cs(std::span<const uint8_t> file, std::string_view file_name,
                       const R1csReadOptions& options = {});
template <class Curve>
R1cs<Curve> read_r1cs(const std::filesystem::path& path, const R1csReadOptions& options = {});

// Writes sections 1, 2, 3 in that order (r1csfile's writer; circom puts 2 first, and readers
// accept both). When wire_labels is empty, wire i gets label i. Throws kInvalidInput if the
// system is inconsistent (matrix rows ≠ n_constraints, wire id ≥ n_wires, labels of the wrong
// count), so a file that would not read back is never written.
template <class Curve>
void write_r1cs(std::ostream& out, const R1cs<Curve>& r1cs, std::string_view file_name = "r1cs");
template <class Curve>
void write_r1cs(const std::filesystem::path& path, const R1cs<Curve>& r1cs);
template <class Curve>
std::vector<uint8_t> r1cs_to_bytes(const R1cs<Curve>& r1cs);

}  // namespace cuzk::formats
