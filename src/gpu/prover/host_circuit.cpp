// Host-side construction of the compact constraint matrices (host_circuit.hpp), both curves.

#include "gpu/prover/host_circuit.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <optional>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "gpu/prover/parallel_search.hpp"
#include "groth16/qap.hpp"
#include "groth16/setup.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

// One block's terms of one matrix: how many, and whether their rows never decrease.
struct BlockRows {
  size_t terms = 0;
  uint32_t first_row = 0, last_row = 0, max_row = 0;
  bool ascending = true;
};

// The terms of one matrix of the zkey's coefficient section as a CSR (counting sort by row,
// file order kept within a row). Setups write the section constraint by constraint, so each
// matrix's rows ascend in file order: the CSR is then that matrix's terms in file order, which
// blocks of the section scatter in parallel. Other orders take the serial counting sort.
template <class Fr>
CompactMatrix<Fr> zkey_matrix(std::span<const formats::ZkeyCoefficient<Fr>> coefficients,
                              uint32_t matrix, uint32_t n_vars, const RowSplit& split) {
  const size_t blocks = (coefficients.size() + kBlockTerms - 1) / kBlockTerms;
  const auto block_of = [&](size_t b) {
    return coefficients.subspan(b * kBlockTerms,
                                std::min(kBlockTerms, coefficients.size() - b * kBlockTerms));
  };
  std::vector<BlockRows> per_block(blocks);
  tbb::parallel_for(size_t(0), blocks, [&](size_t b) {
    BlockRows& r = per_block[b];
    for (const auto& t : block_of(b)) {
      if (t.matrix != matrix) continue;
      if (r.terms == 0) r.first_row = t.row;
      r.ascending = r.ascending && (r.terms == 0 || t.row >= r.last_row);
      r.last_row = t.row;
      r.max_row = std::max(r.max_row, t.row);
      ++r.terms;
    }
  });
  uint32_t rows = 0;
  size_t nnz = 0;
  bool ascending = true;
  std::optional<uint32_t> previous_last;
  std::vector<size_t> base(blocks, 0);
  for (size_t b = 0; b < blocks; ++b) {
    const BlockRows& r = per_block[b];
    base[b] = nnz;
    if (r.terms == 0) continue;
    nnz += r.terms;
    rows = std::max(rows, r.max_row + 1);
    ascending = ascending && r.ascending && (!previous_last || *previous_last <= r.first_row);
    previous_last = r.last_row;
  }
  std::vector<uint64_t> row_start(size_t(rows) + 1, 0);
  std::vector<uint32_t> column(nnz);
  std::vector<Fr> value(nnz);
  if (ascending) {
    tbb::parallel_for(size_t(0), blocks, [&](size_t b) {
      size_t k = base[b];
      for (const auto& t : block_of(b)) {
        if (t.matrix != matrix) continue;
        std::atomic_ref<uint64_t>(row_start[t.row + 1]).fetch_add(1, std::memory_order_relaxed);
        column[k] = t.wire;
        value[k] = t.value;
        ++k;
      }
    });
    for (size_t r = 0; r < rows; ++r) row_start[r + 1] += row_start[r];
  } else {
    for (const auto& t : coefficients) {
      if (t.matrix == matrix) ++row_start[t.row + 1];
    }
    for (size_t r = 0; r < rows; ++r) row_start[r + 1] += row_start[r];
    std::vector<uint64_t> next(row_start.begin(), row_start.end() - 1);
    for (const auto& t : coefficients) {
      if (t.matrix != matrix) continue;
      const uint64_t k = next[t.row]++;
      column[k] = t.wire;
      value[k] = t.value;
    }
  }
  return compact_matrix<Fr>(row_start, column, value, n_vars, split);
}

// An .r1cs matrix with its values moved to c·R², and `binding_rows` extra rows where row
// rows() + j holds wire j with coefficient 1 (only for A).
template <class Fr>
CompactMatrix<Fr> r1cs_matrix(const formats::SparseMatrix<Fr>& m, uint32_t binding_rows,
                              uint32_t n_vars, const RowSplit& split) {
  // Montgomery(c) = c·R as limbs; times R² as a Montgomery factor: c·R·R²·R⁻¹ = c·R².
  const Fr r2 = Fr::from_montgomery(Fr::kR2);
  const size_t nnz = m.nnz();
  std::vector<uint64_t> row_start(m.row_start.begin(), m.row_start.end());
  if (row_start.empty()) row_start.push_back(0);
  std::vector<uint32_t> column(m.column.begin(), m.column.end());
  std::vector<Fr> value(nnz + binding_rows);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, nnz, 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t t = range.begin(); t != range.end(); ++t) {
                        value[t] = m.value[t] * r2;
                      }
                    });
  for (uint32_t j = 0; j < binding_rows; ++j) {
    column.push_back(j);
    value[nnz + j] = r2;  // the coefficient 1
    row_start.push_back(row_start.back() + 1);
  }
  return compact_matrix<Fr>(row_start, column, value, n_vars, split);
}

}  // namespace

template <class Curve>
HostCircuit<typename Curve::Fr> host_circuit_from_zkey(const formats::Groth16Zkey<Curve>& key,
                                                       const RowSplit& split) {
  using Fr = typename Curve::Fr;
  HostCircuit<Fr> c;
  c.domain_size = key.header.domain_size;
  c.n_vars = key.header.n_vars;
  c.n_public = key.header.n_public;
  const std::span<const formats::ZkeyCoefficient<Fr>> coefficients(key.coefficients);
  // The first coefficient outside the matrices or the domain, if any.
  if (const size_t i = first_bad_index(coefficients.size(),
                                       [&](size_t k) {
                                         const auto& t = coefficients[k];
                                         return t.matrix > 1 || t.row >= c.domain_size;
                                       });
      i < coefficients.size()) {
    const auto& t = coefficients[i];
    CUZK_INVALID_INPUT("zkey coefficient " + std::to_string(i) + ": matrix " +
                       std::to_string(t.matrix) + ", row " + std::to_string(t.row) +
                       " (the domain has " + std::to_string(c.domain_size) + " rows)");
  }
  c.a = zkey_matrix<Fr>(coefficients, 0, c.n_vars, split);
  c.b = zkey_matrix<Fr>(coefficients, 1, c.n_vars, split);
  return c;
}

template <class Curve>
HostCircuit<typename Curve::Fr> host_circuit_from_r1cs(const formats::R1cs<Curve>& r1cs,
                                                       uint32_t domain_size,
                                                       const RowSplit& split) {
  using Fr = typename Curve::Fr;
  const auto& h = r1cs.header;
  const uint64_t rows = uint64_t(h.n_constraints) + h.n_public() + 1;
  if (domain_size == 0) {
    const uint32_t log_n = groth16::snarkjs_domain_log_size(h.n_constraints, h.n_public());
    if (log_n > 31) CUZK_INVALID_INPUT("the circuit needs a domain beyond 2^31");
    domain_size = uint32_t(1) << log_n;
  }
  if (!std::has_single_bit(domain_size) || rows > domain_size) {
    CUZK_INVALID_INPUT(std::to_string(h.n_constraints) + " constraints and " +
                       std::to_string(h.n_public() + 1) +
                       " binding rows do not fit a domain of size " + std::to_string(domain_size));
  }
  for (const auto* m : {&r1cs.a, &r1cs.b, &r1cs.c}) {
    if (m->rows() != h.n_constraints) {
      CUZK_INVALID_INPUT("the .r1cs matrices have " + std::to_string(m->rows()) + " rows for " +
                         std::to_string(h.n_constraints) + " constraints");
    }
  }
  HostCircuit<Fr> c;
  c.domain_size = domain_size;
  c.n_vars = h.n_wires;
  c.n_public = h.n_public();
  c.a = r1cs_matrix(r1cs.a, h.n_public() + 1, c.n_vars, split);
  c.b = r1cs_matrix(r1cs.b, 0, c.n_vars, split);
  c.c = r1cs_matrix(r1cs.c, 0, c.n_vars, split);
  groth16::WireDensity density = groth16::wire_density(r1cs);
  c.a_wires = std::move(density.a_wires);
  c.b_wires = std::move(density.b_wires);
  return c;
}

#define CUZK_HOST_CIRCUIT_FOR_CURVE(Curve)                                \
  template HostCircuit<typename Curve::Fr> host_circuit_from_zkey<Curve>( \
      const formats::Groth16Zkey<Curve>&, const RowSplit&);               \
  template HostCircuit<typename Curve::Fr> host_circuit_from_r1cs<Curve>( \
      const formats::R1cs<Curve>&, uint32_t, const RowSplit&);

CUZK_HOST_CIRCUIT_FOR_CURVE(formats::Bn254)
CUZK_HOST_CIRCUIT_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::gpu::prover
