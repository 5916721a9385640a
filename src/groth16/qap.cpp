// The QAP at τ and the wire densities (qap.hpp), instantiated for both curves.

#include "groth16/qap.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "ntt/instances.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

// Σ_c M[c][j]·L_c into out[j], over the rows of one matrix (serial: rows share wires).
template <class Fr>
void accumulate_matrix(const formats::SparseMatrix<Fr>& m, std::span<const Fr> lagrange,
                       std::span<Fr> out) {
  for (size_t row = 0; row < m.rows(); ++row) {
    const auto columns = m.row_columns(row);
    const auto values = m.row_values(row);
    for (size_t t = 0; t < columns.size(); ++t) out[columns[t]] += values[t] * lagrange[row];
  }
}

// nonzero[j] ← 1 for every wire j with a non-zero summed coefficient in some row of m. Rows
// rarely name a wire twice; those that do are summed wire by wire (sorted copy of the row).
template <class Fr>
void mark_nonzero_polynomials(const formats::SparseMatrix<Fr>& m, std::vector<uint8_t>& nonzero) {
  constexpr uint64_t kNoRow = std::numeric_limits<uint64_t>::max();
  std::vector<uint64_t> last_row(nonzero.size(), kNoRow);
  std::vector<std::pair<uint32_t, Fr>> terms;
  for (size_t row = 0; row < m.rows(); ++row) {
    const auto columns = m.row_columns(row);
    const auto values = m.row_values(row);
    bool repeated = false;
    for (uint32_t wire : columns) {
      repeated = repeated || last_row[wire] == row;
      last_row[wire] = row;
    }
    if (!repeated) {
      for (size_t t = 0; t < columns.size(); ++t) {
        if (!values[t].is_zero()) nonzero[columns[t]] = 1;
      }
      continue;
    }
    terms.clear();
    for (size_t t = 0; t < columns.size(); ++t) terms.emplace_back(columns[t], values[t]);
    std::sort(terms.begin(), terms.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    for (size_t t = 0; t < terms.size();) {
      Fr sum = Fr::zero();
      size_t end = t;
      for (; end < terms.size() && terms[end].first == terms[t].first; ++end) {
        sum += terms[end].second;
      }
      if (!sum.is_zero()) nonzero[terms[t].first] = 1;
      t = end;
    }
  }
}

std::vector<uint32_t> wires_marked(const std::vector<uint8_t>& marks) {
  std::vector<uint32_t> wires;
  for (size_t j = 0; j < marks.size(); ++j) {
    if (marks[j]) wires.push_back(uint32_t(j));
  }
  return wires;
}

}  // namespace

template <class Fr>
void scale_by_distance_to_tau(std::span<Fr> x, const Fr& tau, const Fr& factor) {
  tbb::parallel_for(tbb::blocked_range<size_t>(0, x.size(), 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      const std::span<Fr> chunk = x.subspan(range.begin(), range.size());
                      std::vector<Fr> inverse(chunk.size());
                      for (size_t i = 0; i < chunk.size(); ++i) inverse[i] = tau - chunk[i];
                      Fr::batch_inverse(std::span<Fr>(inverse));
                      for (size_t i = 0; i < chunk.size(); ++i) chunk[i] *= factor * inverse[i];
                    });
}

template <class Curve>
QapAtTau<typename Curve::Fr> qap_at_tau(const formats::R1cs<Curve>& r1cs,
                                        const ntt::Domain<typename Curve::Fr>& domain,
                                        const typename Curve::Fr& tau) {
  using Fr = typename Curve::Fr;
  const uint32_t n_public = r1cs.header.n_public();
  const uint32_t n_constraints = r1cs.header.n_constraints;
  const size_t rows = size_t(n_constraints) + n_public + 1;
  if (rows > domain.size()) {
    CUZK_INVALID_INPUT("qap_at_tau: " + std::to_string(rows) + " rows do not fit a domain of " +
                       std::to_string(domain.size()));
  }

  // Lagrange basis of the N-domain at τ: the vanishing polynomial is x^N − 1, its derivative at
  // ω^c is N·ω^(−c), so L_c(τ) = (τ^N − 1)·ω^c / (N·(τ − ω^c)). Rows past the binding rows
  // carry no terms and are not needed. 3M per row plus the batch inversion (3M).
  std::vector<Fr> lagrange(rows);
  ntt::fill_powers(std::span<Fr>(lagrange), domain.omega());
  scale_by_distance_to_tau(std::span<Fr>(lagrange), tau,
                           (tau.pow(uint64_t(domain.size())) - Fr::one()) * domain.size_inv());

  // The binding row nConstraints + j adds L to u_j.
  const uint32_t n_vars = r1cs.header.n_wires;
  QapAtTau<Fr> qap{std::vector<Fr>(n_vars, Fr::zero()), std::vector<Fr>(n_vars, Fr::zero()),
                   std::vector<Fr>(n_vars, Fr::zero())};
  const std::span<const Fr> basis(lagrange);
  tbb::parallel_invoke(
      [&] {
        accumulate_matrix(r1cs.a, basis, std::span<Fr>(qap.u));
        for (uint32_t j = 0; j <= n_public && j < n_vars; ++j) {
          qap.u[j] += lagrange[n_constraints + j];
        }
      },
      [&] { accumulate_matrix(r1cs.b, basis, std::span<Fr>(qap.v)); },
      [&] { accumulate_matrix(r1cs.c, basis, std::span<Fr>(qap.w)); });
  return qap;
}

template <class Curve>
WireDensity wire_density(const formats::R1cs<Curve>& r1cs) {
  const uint32_t n_vars = r1cs.header.n_wires;
  std::vector<uint8_t> in_a(n_vars, 0), in_b(n_vars, 0);
  tbb::parallel_invoke([&] { mark_nonzero_polynomials(r1cs.a, in_a); },
                       [&] { mark_nonzero_polynomials(r1cs.b, in_b); });
  for (uint32_t j = 0; j <= r1cs.header.n_public() && j < n_vars; ++j) in_a[j] = 1;
  return {wires_marked(in_a), wires_marked(in_b)};
}

#define CUZK_GROTH16_QAP_FOR_CURVE(Curve)                                                         \
  template QapAtTau<typename Curve::Fr> qap_at_tau<Curve>(const formats::R1cs<Curve>&,            \
                                                          const ntt::Domain<typename Curve::Fr>&, \
                                                          const typename Curve::Fr&);             \
  template WireDensity wire_density<Curve>(const formats::R1cs<Curve>&);                          \
  template void scale_by_distance_to_tau<typename Curve::Fr>(                                     \
      std::span<typename Curve::Fr>, const typename Curve::Fr&, const typename Curve::Fr&);

CUZK_GROTH16_QAP_FOR_CURVE(formats::Bn254)
CUZK_GROTH16_QAP_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::groth16
