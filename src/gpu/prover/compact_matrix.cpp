// Building the compact matrix form (compact_matrix.hpp) on the host, for both scalar fields.

#include "gpu/prover/compact_matrix.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <limits>
#include <unordered_map>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/prover/parallel_search.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

const char* encoding_name(CoefficientEncoding encoding) {
  switch (encoding) {
    case CoefficientEncoding::kIndex8:
      return "u8 index";
    case CoefficientEncoding::kIndex16:
      return "u16 index";
    case CoefficientEncoding::kIndex32:
      return "u32 index";
    default:
      return "full";
  }
}

namespace {

template <class Fr>
using Limbs = std::array<uint64_t, Fr::kLimbs>;

template <class Fr>
Limbs<Fr> limbs_of(const Fr& v) {
  Limbs<Fr> l;
  std::memcpy(l.data(), v.mont, sizeof(l));
  return l;
}

template <class Fr>
struct LimbsHash {
  size_t operator()(const Limbs<Fr>& l) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t x : l) h = (h ^ x) * 0xff51afd7ed558ccdull;
    return size_t(h ^ (h >> 29));
  }
};

size_t index_width(CoefficientEncoding e) {
  switch (e) {
    case CoefficientEncoding::kIndex8:
      return 1;
    case CoefficientEncoding::kIndex16:
      return 2;
    case CoefficientEncoding::kIndex32:
      return 4;
    default:
      return 0;
  }
}

void check_offsets(std::span<const uint64_t> row_start, size_t nnz) {
  if (row_start.empty() || row_start[0] != 0 || row_start.back() != nnz) {
    CUZK_INVALID_INPUT("compact_matrix: row offsets must start at 0 and end at the term count (" +
                       std::to_string(nnz) + ")");
  }
  for (size_t r = 1; r < row_start.size(); ++r) {
    if (row_start[r] < row_start[r - 1]) {
      CUZK_INVALID_INPUT("compact_matrix: row offsets decrease at row " + std::to_string(r - 1));
    }
  }
  if (nnz > std::numeric_limits<uint32_t>::max() ||
      row_start.size() - 1 > std::numeric_limits<uint32_t>::max() - 1) {
    CUZK_INVALID_INPUT("compact_matrix: " + std::to_string(nnz) + " terms in " +
                       std::to_string(row_start.size() - 1) +
                       " rows; the device form holds fewer than 2^32 of each (32-bit offsets)");
  }
}

// The distinct values of value[begin, end) in order of first occurrence, and each term's index
// among them in term_index; stops (returns false) once there are `limit`.
template <class Fr>
bool local_distinct(std::span<const Fr> value, size_t begin, size_t end, size_t limit,
                    std::vector<Fr>& table, std::vector<uint32_t>& term_index) {
  std::unordered_map<Limbs<Fr>, uint32_t, LimbsHash<Fr>> ids;
  // Runs of equal coefficients (the many 1s) skip the hash lookup.
  Limbs<Fr> last{};
  uint32_t last_id = std::numeric_limits<uint32_t>::max();
  for (size_t t = begin; t < end; ++t) {
    const Limbs<Fr> key = limbs_of(value[t]);
    if (last_id != std::numeric_limits<uint32_t>::max() && key == last) {
      term_index[t] = last_id;
      continue;
    }
    auto [it, inserted] = ids.try_emplace(key, uint32_t(table.size()));
    if (inserted) {
      table.push_back(value[t]);
      if (table.size() >= limit) return false;
    }
    last = key;
    last_id = it->second;
    term_index[t] = last_id;
  }
  return true;
}

// The table of distinct values and each term's index into it, or an empty table when the
// full form is at least as small (the count stops as soon as that is certain). Blocks of terms
// find their own distinct values in parallel; merged in block order they give the table a
// single pass gives, in order of first occurrence.
template <class Fr>
std::vector<Fr> distinct_values(std::span<const Fr> value, std::vector<uint32_t>& term_index) {
  const size_t nnz = value.size();
  // A table of d values can beat the full form only if 1·nnz + 32·d < 32·nnz (u8 indices, the
  // narrowest): past nnz·(32 − 1)/32 distinct values counting stops. compact_matrix() compares
  // the exact sizes afterwards.
  const size_t limit = nnz - nnz / sizeof(Fr);
  term_index.resize(nnz);
  const size_t blocks = (nnz + kBlockTerms - 1) / kBlockTerms;
  std::vector<std::vector<Fr>> local(blocks);
  std::atomic<bool> too_many{false};
  tbb::parallel_for(size_t(0), blocks, [&](size_t b) {
    if (too_many.load(std::memory_order_relaxed)) return;
    const size_t begin = b * kBlockTerms, end = std::min(nnz, begin + kBlockTerms);
    if (!local_distinct(value, begin, end, limit, local[b], term_index)) too_many = true;
  });
  if (too_many) {
    term_index.clear();
    return {};
  }
  std::unordered_map<Limbs<Fr>, uint32_t, LimbsHash<Fr>> ids;
  std::vector<Fr> table;
  std::vector<std::vector<uint32_t>> global_id(blocks);
  for (size_t b = 0; b < blocks; ++b) {
    global_id[b].reserve(local[b].size());
    for (const Fr& v : local[b]) {
      auto [it, inserted] = ids.try_emplace(limbs_of(v), uint32_t(table.size()));
      if (inserted) {
        table.push_back(v);
        if (table.size() >= limit) {
          term_index.clear();
          return {};
        }
      }
      global_id[b].push_back(it->second);
    }
  }
  tbb::parallel_for(size_t(0), blocks, [&](size_t b) {
    const size_t begin = b * kBlockTerms, end = std::min(nnz, begin + kBlockTerms);
    for (size_t t = begin; t < end; ++t) term_index[t] = global_id[b][term_index[t]];
  });
  return table;
}

template <class Fr>
void split_heavy_rows(CompactMatrix<Fr>& m) {
  if (m.split.heavy_row_terms == 0 || m.split.segment_terms == 0) {
    CUZK_INVALID_INPUT("compact_matrix: heavy_row_terms and segment_terms must be positive");
  }
  m.heavy_segment_start.push_back(0);
  for (uint32_t row = 0; row < m.rows; ++row) {
    const uint32_t begin = m.row_start[row], end = m.row_start[row + 1];
    if (end - begin <= m.split.heavy_row_terms) continue;
    m.heavy_rows.push_back(row);
    for (uint32_t s = begin; s < end;) {
      const uint32_t e = end - s > m.split.segment_terms ? s + m.split.segment_terms : end;
      m.segments.push_back({s, e});
      s = e;
    }
    m.heavy_segment_start.push_back(uint32_t(m.segments.size()));
  }
}

}  // namespace

template <class Fr>
size_t CompactMatrix<Fr>::bytes() const {
  return row_start.size() * sizeof(uint32_t) + column.size() * sizeof(uint32_t) + index.size() +
         values.size() * sizeof(Fr) + heavy_rows.size() * sizeof(uint32_t) +
         heavy_segment_start.size() * sizeof(uint32_t) + segments.size() * sizeof(HeavySegment);
}

template <class Fr>
size_t CompactMatrix<Fr>::plain_bytes() const {
  return row_start.size() * sizeof(uint64_t) + nnz() * (sizeof(uint32_t) + sizeof(Fr));
}

template <class Fr>
CompactMatrixView<Fr> CompactMatrix<Fr>::view() const {
  CompactMatrixView<Fr> v;
  v.rows = rows;
  v.heavy_row_terms = split.heavy_row_terms;
  v.encoding = encoding;
  v.row_start = row_start.data();
  v.column = column.data();
  v.index = index.empty() ? nullptr : index.data();
  v.values = values.data();
  return v;
}

template <class Fr>
CompactMatrix<Fr> compact_matrix(std::span<const uint64_t> row_start,
                                 std::span<const uint32_t> column, std::span<const Fr> value,
                                 uint32_t n_columns, const RowSplit& split) {
  const size_t nnz = column.size();
  if (value.size() != nnz) {
    CUZK_INVALID_INPUT("compact_matrix: " + std::to_string(value.size()) + " values for " +
                       std::to_string(nnz) + " columns");
  }
  check_offsets(row_start, nnz);
  CompactMatrix<Fr> m;
  m.rows = uint32_t(row_start.size() - 1);
  m.split = split;
  m.row_start.assign(row_start.begin(), row_start.end());
  m.column.assign(column.begin(), column.end());
  // The first term naming a wire past the columns, if any.
  if (const size_t t = first_bad_index(nnz, [&](size_t k) { return column[k] >= n_columns; });
      t < nnz) {
    CUZK_INVALID_INPUT("compact_matrix: term " + std::to_string(t) + " names wire " +
                       std::to_string(column[t]) + " of " + std::to_string(n_columns));
  }

  std::vector<uint32_t> term_index;
  std::vector<Fr> table = nnz == 0 ? std::vector<Fr>{} : distinct_values(value, term_index);
  const CoefficientEncoding indexed = table.size() <= (1u << 8)    ? CoefficientEncoding::kIndex8
                                      : table.size() <= (1u << 16) ? CoefficientEncoding::kIndex16
                                                                   : CoefficientEncoding::kIndex32;
  const bool table_smaller =
      !table.empty() && nnz * index_width(indexed) + table.size() * sizeof(Fr) < nnz * sizeof(Fr);
  if (!table_smaller) {
    m.encoding = CoefficientEncoding::kFull;
    m.values.assign(value.begin(), value.end());
  } else {
    m.encoding = indexed;
    const size_t width = index_width(m.encoding);
    m.index.resize(nnz * width);
    tbb::parallel_for(tbb::blocked_range<size_t>(0, nnz, kBlockTerms),
                      [&](const tbb::blocked_range<size_t>& range) {
                        for (size_t t = range.begin(); t != range.end(); ++t) {
                          const uint32_t id = term_index[t];
                          for (size_t k = 0; k < width; ++k) {
                            m.index[t * width + k] = uint8_t(id >> (8 * k));
                          }
                        }
                      });
    m.values = std::move(table);
  }
  split_heavy_rows(m);
  return m;
}

template <class Fr>
std::vector<Fr> decode_coefficients(const CompactMatrix<Fr>& m) {
  const CompactMatrixView<Fr> v = m.view();
  std::vector<Fr> out(m.nnz());
  for (size_t t = 0; t < out.size(); ++t) out[t] = v.coefficient(uint32_t(t));
  return out;
}

template <class Fr>
std::string describe(const CompactMatrix<Fr>& m, const std::string& name) {
  const auto kib = [](size_t b) { return std::to_string((b + 1023) / 1024) + " KiB"; };
  std::string s = name + ": " + std::to_string(m.rows) + " rows, " + std::to_string(m.nnz()) +
                  " terms, " + encoding_name(m.encoding);
  if (m.encoding != CoefficientEncoding::kFull) {
    s += " (" + std::to_string(m.values.size()) + " distinct)";
  }
  s += ", " + kib(m.bytes()) + " (plain " + kib(m.plain_bytes()) + "), " +
       std::to_string(m.heavy_rows.size()) + " heavy rows in " + std::to_string(m.segments.size()) +
       " segments";
  return s;
}

#define CUZK_COMPACT_MATRIX_FOR_FIELD(Fr)                                                       \
  template struct CompactMatrix<Fr>;                                                            \
  template CompactMatrix<Fr> compact_matrix<Fr>(std::span<const uint64_t>,                      \
                                                std::span<const uint32_t>, std::span<const Fr>, \
                                                uint32_t, const RowSplit&);                     \
  template std::vector<Fr> decode_coefficients<Fr>(const CompactMatrix<Fr>&);                   \
  template std::string describe<Fr>(const CompactMatrix<Fr>&, const std::string&);

CUZK_COMPACT_MATRIX_FOR_FIELD(bn254::Fr)
CUZK_COMPACT_MATRIX_FOR_FIELD(bls12_381::Fr)

}  // namespace cuzk::gpu::prover
