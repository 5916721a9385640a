#pragma once
// A constraint matrix (A, B or C) in the compact CSR form the GPU prover keeps in VRAM, and the
// row arithmetic the synthesis kernels run on it (CUZK_HD, so host tests run the very same
// code on the CPU).
//
// Storage, per matrix (nnz terms, R rows):
//   row_start  R + 1 u32 offsets (a matrix holds fewer than 2^32 terms: a PoRep partition has
//              3.1·10^8 in A; 64-bit offsets would cost another 4 bytes per row for nothing)
//   column     nnz u32 wire ids
//   coefficients, one of
//     kIndex8 / kIndex16 / kIndex32: a 1, 2 or 4-byte index per term into a table of the
//              matrix's distinct values: gadgets write ±1, 2^k and a few constants, so a
//              PoRep matrix needs a handful of table entries and 1 byte per term instead of 32;
//     kFull:   one field element per term, when the table would not be smaller (every term
//              distinct, as in the dense synthetic shape).
//   The encoding is the smallest of the four in bytes (index bytes·nnz + 32·distinct versus
//   32·nnz), chosen when the matrix is built.
//
// Values are in the zkey's convention whatever the source: the limbs of c·R² mod r, so that one
// Montgomery product with a witness value in standard form (its canonical limbs, as a .wtns
// holds them) gives Montgomery(c·w) (formats/zkey.hpp, ZkeyCoefficient). The device witness
// therefore needs no conversion for synthesis.
//
// Unbalanced rows: one thread sums one row, which suits the 1–64 terms of nearly every row. A
// row with more than `heavy_row_terms` terms (a circuit's long linear combination, or the
// binding of a huge public input vector) would stall its warp for thousands of terms, so it is
// cut into segments of `segment_terms` terms; one warp sums each segment into a partial, and a
// second pass adds the partials of each heavy row (field addition is exact, so the order of the
// terms does not change the result: GPU and CPU values are equal bit for bit).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "gpu/prover/launch_shapes.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::prover {

enum class CoefficientEncoding : uint8_t { kIndex8, kIndex16, kIndex32, kFull };

const char* encoding_name(CoefficientEncoding encoding);  // "u8 index", ..., "full"

// How rows are split; part of the circuit's layout on the device. Tests use small values to
// push ordinary circuits through the split path.
struct RowSplit {
  uint32_t heavy_row_terms = tuning::kHeavyRowTerms;  // rows with more terms are split
  uint32_t segment_terms = tuning::kSegmentTerms;     // terms per segment (one warp each)
};

// A term range of one heavy row: one warp's work.
struct HeavySegment {
  uint32_t begin, end;
};

// Pointers into host or device memory; trivially copyable, passed to kernels by value.
template <class Fr>
struct CompactMatrixView {
  uint32_t rows = 0;
  uint32_t heavy_row_terms = 0;
  CoefficientEncoding encoding = CoefficientEncoding::kFull;
  const uint32_t* row_start = nullptr;  // rows + 1
  const uint32_t* column = nullptr;     // nnz
  const void* index = nullptr;          // nnz indices of the encoding's width; null for kFull
  const Fr* values = nullptr;           // the table, or nnz values for kFull

  CUZK_HD uint32_t row_terms(uint32_t row) const { return row_start[row + 1] - row_start[row]; }
  CUZK_HD bool is_heavy(uint32_t row) const { return row_terms(row) > heavy_row_terms; }

  // The coefficient (c·R² limbs) of term t.
  CUZK_HD Fr coefficient(uint32_t t) const {
    switch (encoding) {
      case CoefficientEncoding::kIndex8:
        return values[static_cast<const uint8_t*>(index)[t]];
      case CoefficientEncoding::kIndex16:
        return values[static_cast<const uint16_t*>(index)[t]];
      case CoefficientEncoding::kIndex32:
        return values[static_cast<const uint32_t*>(index)[t]];
      default:
        return values[t];
    }
  }

  // Σ coefficient·w over the terms [begin, end) with the given stride, w in standard form.
  CUZK_HD Fr sum_terms(uint32_t begin, uint32_t end, uint32_t stride,
                       const Fr* witness_standard) const {
    Fr sum = Fr::zero();
    for (uint32_t t = begin; t < end; t += stride) {
      sum += coefficient(t) * witness_standard[column[t]];
    }
    return sum;
  }
  CUZK_HD Fr row_dot(uint32_t row, const Fr* witness_standard) const {
    return sum_terms(row_start[row], row_start[row + 1], 1, witness_standard);
  }
};

// The host copy of a compact matrix: what gets uploaded, and what host tests emulate with.
template <class Fr>
struct CompactMatrix {
  uint32_t rows = 0;
  CoefficientEncoding encoding = CoefficientEncoding::kFull;
  RowSplit split;
  std::vector<uint32_t> row_start;  // rows + 1
  std::vector<uint32_t> column;
  std::vector<uint8_t> index;  // nnz indices of 1, 2 or 4 bytes (little-endian); empty for kFull
  std::vector<Fr> values;      // the distinct values (table), or one per term for kFull
  // The split of the heavy rows: heavy_rows ascending; the segments of heavy_rows[k] are
  // segments[heavy_segment_start[k] .. heavy_segment_start[k + 1]).
  std::vector<uint32_t> heavy_rows;
  std::vector<uint32_t> heavy_segment_start;
  std::vector<HeavySegment> segments;

  size_t nnz() const { return column.size(); }
  // Bytes of all arrays above (what the device copy occupies).
  size_t bytes() const;
  // Bytes the same matrix would take as a plain CSR with 64-bit offsets and full values (the
  // CPU prover's form), for reports.
  size_t plain_bytes() const;
  CompactMatrixView<Fr> view() const;
};

// Builds the compact form of a CSR matrix whose values are already c·R² limbs. Throws
// kInvalidInput when the offsets are inconsistent (not starting at 0, decreasing, not ending at
// column.size()), a column is ≥ n_columns, or there are 2^32 or more terms.
template <class Fr>
CompactMatrix<Fr> compact_matrix(std::span<const uint64_t> row_start,
                                 std::span<const uint32_t> column, std::span<const Fr> value,
                                 uint32_t n_columns, const RowSplit& split = {});

// Every term's coefficient, decoded (for round-trip checks).
template <class Fr>
std::vector<Fr> decode_coefficients(const CompactMatrix<Fr>& m);

// One line for logs: "A: 1234 rows, 2900 terms, u8 index (3 distinct), 11.9 KiB (plain 103 KiB),
// 2 heavy rows in 5 segments".
template <class Fr>
std::string describe(const CompactMatrix<Fr>& m, const std::string& name);

}  // namespace cuzk::gpu::prover
