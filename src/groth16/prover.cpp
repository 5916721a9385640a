// The Groth16 prover in the snarkjs convention (prover.hpp), instantiated for both curves.

#include "groth16/prover.hpp"
#include "groth16/stage_timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include "groth16/epilogue.hpp"
#include "groth16/verifier.hpp"
#include "msm/instances.hpp"
#include "ntt/instances.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

using timing::announce;
using timing::Clock;
using timing::milliseconds_since;

template <class Curve>
void check_witness(const formats::Groth16Zkey<Curve>& key,
                   std::span<const typename Curve::Fr> witness) {
  using Fr = typename Curve::Fr;
  if (witness.size() != key.header.n_vars) {
    CUZK_INVALID_INPUT("the witness has " + std::to_string(witness.size()) +
                       " values, but the proving key's circuit has " +
                       std::to_string(key.header.n_vars) + " wires (nVars)");
  }
  if (witness[0] != Fr::one()) {
    CUZK_INVALID_INPUT("the witness's first value (wire 0, the constant) is not 1");
  }
}

template <class Curve>
void check_r1cs_matches_key(const formats::R1cs<Curve>& r1cs,
                            const formats::Groth16Zkey<Curve>& key) {
  const formats::R1csHeader& h = r1cs.header;
  const auto mismatch = [](const std::string& what) {
    CUZK_INVALID_INPUT("the .r1cs does not belong to the proving key: " + what);
  };
  if (h.n_wires != key.header.n_vars) {
    mismatch(std::to_string(h.n_wires) + " wires, the key has " +
             std::to_string(key.header.n_vars));
  }
  if (h.n_public() != key.header.n_public) {
    mismatch(std::to_string(h.n_public()) + " public signals, the key has " +
             std::to_string(key.header.n_public));
  }
  if (uint64_t(h.n_constraints) + h.n_public() + 1 > key.header.domain_size) {
    mismatch(std::to_string(h.n_constraints) + " constraints and " + std::to_string(h.n_public()) +
             " public signals do not fit the key's domain of " +
             std::to_string(key.header.domain_size));
  }
}

// The terms of one row of a CSR matrix against the witness: Σ c·w.
template <class Fr>
Fr row_dot(const formats::SparseMatrix<Fr>& m, size_t row, std::span<const Fr> witness) {
  Fr sum = Fr::zero();
  const auto columns = m.row_columns(row);
  const auto values = m.row_values(row);
  for (size_t t = 0; t < columns.size(); ++t) sum += values[t] * witness[columns[t]];
  return sum;
}

// Indices of the coefficients in an order where each row's entries are contiguous: the file
// order when it is already sorted by row (snarkjs writes constraint by constraint, the binding
// rows last), else a counting sort by row. Empty means "file order".
template <class Fr>
std::vector<size_t> row_order(std::span<const formats::ZkeyCoefficient<Fr>> coefficients,
                              size_t rows) {
  const size_t n = coefficients.size();
  const bool sorted = tbb::parallel_reduce(
      tbb::blocked_range<size_t>(1, std::max<size_t>(n, 1), 1 << 16), true,
      [&](const tbb::blocked_range<size_t>& range, bool ok) {
        for (size_t i = range.begin(); ok && i != range.end(); ++i) {
          ok = coefficients[i - 1].row <= coefficients[i].row;
        }
        return ok;
      },
      [](bool x, bool y) { return x && y; });
  if (sorted) return {};
  std::vector<size_t> start(rows + 1, 0);
  for (const auto& coefficient : coefficients) ++start[coefficient.row + 1];
  for (size_t row = 0; row < rows; ++row) start[row + 1] += start[row];
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[start[coefficients[i].row]++] = i;
  return order;
}

// a = A·w and b = B·w on the domain (zero past the rows the key uses), from the coefficient
// section. Each row is summed by one task: the coefficients, in row order, are cut into chunks
// whose boundaries fall between rows, so no two tasks write the same row.
template <class Curve>
void evaluate_a_b(const formats::Groth16Zkey<Curve>& key,
                  std::span<const typename Curve::Fr> witness, std::span<typename Curve::Fr> a,
                  std::span<typename Curve::Fr> b) {
  using Fr = typename Curve::Fr;
  // A coefficient holds c·R² mod r, the Montgomery form of c·R; times the standard-form
  // limbs of w read as Montgomery (w·R⁻¹), one product gives Montgomery(c·w): 1M per term
  // (zkey.hpp, ZkeyCoefficient), as snarkjs and rapidsnark do.
  std::vector<Fr> witness_standard(witness.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, witness.size(), 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t i = range.begin(); i != range.end(); ++i) {
                        witness_standard[i] = Fr::from_montgomery(witness[i].to_int());
                      }
                    });
  std::fill(a.begin(), a.end(), Fr::zero());
  std::fill(b.begin(), b.end(), Fr::zero());

  const std::span<const formats::ZkeyCoefficient<Fr>> coefficients(key.coefficients);
  const std::vector<size_t> order = row_order(coefficients, a.size());
  const auto at = [&](size_t i) -> const formats::ZkeyCoefficient<Fr>& {
    return order.empty() ? coefficients[i] : coefficients[order[i]];
  };
  constexpr size_t kChunk = 1 << 14;
  const size_t n = coefficients.size();
  const size_t chunks = (n + kChunk - 1) / kChunk;
  // Chunk k starts at the first coefficient at or after k·kChunk that begins a new row.
  const auto chunk_start = [&](size_t k) {
    size_t i = std::min(n, k * kChunk);
    while (i > 0 && i < n && at(i).row == at(i - 1).row) ++i;
    return i;
  };
  tbb::parallel_for(
      tbb::blocked_range<size_t>(0, chunks, 1), [&](const tbb::blocked_range<size_t>& range) {
        for (size_t k = range.begin(); k != range.end(); ++k) {
          const size_t end = chunk_start(k + 1);
          for (size_t i = chunk_start(k); i < end; ++i) {
            const auto& coefficient = at(i);
            Fr& target = coefficient.matrix == 0 ? a[coefficient.row] : b[coefficient.row];
            target += coefficient.value * witness_standard[coefficient.wire];
          }
        }
      });
}

// a ← the H scalars; b, c are working space. Records the a/b/c and H times.
template <class Curve>
void h_scalars_in_place(const formats::Groth16Zkey<Curve>& key,
                        std::span<const typename Curve::Fr> witness,
                        std::span<typename Curve::Fr> a, std::span<typename Curve::Fr> b,
                        std::span<typename Curve::Fr> c, ProveTimings& timings) {
  using Fr = typename Curve::Fr;
  auto start = Clock::now();
  evaluate_a_b(key, witness, a, b);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, a.size(), 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t i = range.begin(); i != range.end(); ++i) c[i] = a[i] * b[i];
                    });
  timings.abc_ms = milliseconds_since(start);

  start = Clock::now();
  const ntt::Domain<Fr> domain(key.header.log_domain_size(), ntt::Convention::kSnarkjs);
  ntt::snarkjs_h_scalars(domain, a, b, c);
  timings.h_ms = milliseconds_since(start);
}

using timing::timed_msm;

}  // namespace

template <class Curve>
std::optional<uint32_t> first_unsatisfied_constraint(const formats::R1cs<Curve>& r1cs,
                                                     std::span<const typename Curve::Fr> witness) {
  if (witness.size() != r1cs.header.n_wires) {
    CUZK_INVALID_INPUT("the witness has " + std::to_string(witness.size()) +
                       " values, but the .r1cs has " + std::to_string(r1cs.header.n_wires) +
                       " wires");
  }
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  const uint64_t first = tbb::parallel_reduce(
      tbb::blocked_range<size_t>(0, r1cs.header.n_constraints, 1 << 12), kNone,
      [&](const tbb::blocked_range<size_t>& range, uint64_t found) {
        for (size_t row = range.begin(); row != range.end() && row < found; ++row) {
          if (row_dot(r1cs.a, row, witness) * row_dot(r1cs.b, row, witness) !=
              row_dot(r1cs.c, row, witness)) {
            return uint64_t(row);
          }
        }
        return found;
      },
      [](uint64_t x, uint64_t y) { return std::min(x, y); });
  if (first == kNone) return std::nullopt;
  return uint32_t(first);
}

template <class Curve>
std::vector<typename Curve::Fr> snarkjs_h_scalars(const formats::Groth16Zkey<Curve>& key,
                                                  std::span<const typename Curve::Fr> witness) {
  using Fr = typename Curve::Fr;
  check_witness(key, witness);
  const size_t n = key.header.domain_size;
  std::vector<Fr> a(n), b(n), c(n);
  ProveTimings unused;
  h_scalars_in_place(key, witness, std::span<Fr>(a), std::span<Fr>(b), std::span<Fr>(c), unused);
  return a;
}

template <class Curve>
void check_prove_inputs(const formats::Groth16Zkey<Curve>& key,
                        std::span<const typename Curve::Fr> witness,
                        const ProveOptions<Curve>& options) {
  check_witness(key, witness);
  if (options.r1cs != nullptr) {
    check_r1cs_matches_key(*options.r1cs, key);
    if (const auto row = first_unsatisfied_constraint(*options.r1cs, witness)) {
      CUZK_INVALID_INPUT("the witness does not satisfy the circuit: constraint " +
                         std::to_string(*row) + " (counting from 0, in .r1cs order) fails, " +
                         "(A·w)·(B·w) ≠ C·w");
    }
  }
}

template <class Curve>
ProveResult<Curve> prove(const formats::Groth16Zkey<Curve>& key,
                         std::span<const typename Curve::Fr> witness,
                         const ProveOptions<Curve>& options) {
  using Fr = typename Curve::Fr;
  using G1C = G1CurveOf<Curve>;
  using G2C = G2CurveOf<Curve>;
  const auto prove_start = Clock::now();
  ProveResult<Curve> result;
  ProveTimings& timings = result.timings;

  announce(options, "checking the witness");
  auto start = Clock::now();
  check_prove_inputs(key, witness, options);
  timings.witness_check_ms = milliseconds_since(start);

  const size_t n = key.header.domain_size;
  std::vector<Fr> h(n), b(n), c(n);
  announce(options, "synthesis (a, b, c) and H (NTTs)");
  h_scalars_in_place(key, witness, std::span<Fr>(h), std::span<Fr>(b), std::span<Fr>(c), timings);
  // b and c are no longer needed; release them before the MSMs.
  std::vector<Fr>().swap(b);
  std::vector<Fr>().swap(c);

  const size_t n_public = key.header.n_public;
  announce(options, "MSM A");
  const auto msm_a = timed_msm<G1C>(key.a, witness, timings.msm_a_ms);
  announce(options, "MSM B1");
  const auto msm_b1 = timed_msm<G1C>(key.b1, witness, timings.msm_b1_ms);
  announce(options, "MSM B2 (G2)");
  const auto msm_b2 = timed_msm<G2C>(key.b2, witness, timings.msm_b2_ms);
  announce(options, "MSM C");
  const auto msm_c = timed_msm<G1C>(key.c, witness.subspan(n_public + 1), timings.msm_c_ms);
  announce(options, "MSM H");
  const auto msm_h = timed_msm<G1C>(key.h, std::span<const Fr>(h), timings.msm_h_ms);

  announce(options, "epilogue");
  start = Clock::now();
  const auto& hd = key.header;
  result.proof = combine_proof<Curve>({msm_a, msm_b1, msm_c, msm_h, msm_b2},
                                      {hd.alpha1, hd.beta1, hd.delta1, hd.beta2, hd.delta2},
                                      choose_blinding<Curve>(options.blinding));
  result.public_inputs.assign(witness.begin() + 1, witness.begin() + 1 + n_public);
  timings.epilogue_ms = milliseconds_since(start);

  announce(options, "verifying the proof");
  start = Clock::now();
  check_proof_from_key(result.proof);
  if (!verify(verifying_key_from_zkey(key), std::span<const Fr>(result.public_inputs),
              result.proof)) {
    CUZK_INVALID_INPUT(
        "the witness does not satisfy the circuit: the proof does not verify against the key");
  }
  timings.self_verify_ms = milliseconds_since(start);
  timings.total_ms = milliseconds_since(prove_start);
  return result;
}

#define CUZK_GROTH16_PROVER_FOR_CURVE(Curve)                                    \
  template ProveResult<Curve> prove<Curve>(const formats::Groth16Zkey<Curve>&,  \
                                           std::span<const typename Curve::Fr>, \
                                           const ProveOptions<Curve>&);         \
  template void check_prove_inputs<Curve>(const formats::Groth16Zkey<Curve>&,   \
                                          std::span<const typename Curve::Fr>,  \
                                          const ProveOptions<Curve>&);          \
  template std::optional<uint32_t> first_unsatisfied_constraint<Curve>(         \
      const formats::R1cs<Curve>&, std::span<const typename Curve::Fr>);        \
  template std::vector<typename Curve::Fr> snarkjs_h_scalars<Curve>(            \
      const formats::Groth16Zkey<Curve>&, std::span<const typename Curve::Fr>);

CUZK_GROTH16_PROVER_FOR_CURVE(formats::Bn254)
CUZK_GROTH16_PROVER_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::groth16
