#pragma once
// A sparse matrix in compressed sparse row form (CSR): the constraint matrices A, B, C of an
// R1CS, one row per constraint, one column per wire.
//
// Row i holds the terms row_start[i] .. row_start[i+1]-1 of `column` and `value`. Offsets are
// 64-bit: a PoRep partition has 3·10^8 terms in A alone, and a sum over several partitions
// or a larger circuit must not wrap. Terms keep the order of the file; a wire may appear
// twice in a row, and then the terms add up (as in snarkjs's setup, which sums them).

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace cuzk::formats {

template <class F>
struct SparseMatrix {
  std::vector<uint64_t> row_start;  // rows() + 1 offsets, the first 0, the last nnz()
  std::vector<uint32_t> column;     // wire id of each term
  std::vector<F> value;             // coefficient of each term (F's Montgomery form)

  size_t rows() const { return row_start.empty() ? 0 : row_start.size() - 1; }
  size_t nnz() const { return column.size(); }
  std::span<const uint32_t> row_columns(size_t row) const {
    return std::span(column).subspan(row_start[row], row_start[row + 1] - row_start[row]);
  }
  std::span<const F> row_values(size_t row) const {
    return std::span(value).subspan(row_start[row], row_start[row + 1] - row_start[row]);
  }

  bool operator==(const SparseMatrix&) const = default;
};

}  // namespace cuzk::formats
