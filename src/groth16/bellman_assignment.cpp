// The bellman prover from an assignment (bellman_assignment.hpp): the one path of both
// bellman_assignment + prove_bellman_assignment and prove_bellman (bellman_prover.cpp).

#include "groth16/bellman_assignment.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <limits>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "groth16/epilogue.hpp"
#include "groth16/qap.hpp"
#include "groth16/stage_timing.hpp"
#include "groth16/verifier.hpp"
#include "msm/curves.hpp"
#include "ntt/curves.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

using Curve = BellmanCurve;
using Fr = bls12_381::Fr;
using G1C = G1CurveOf<Curve>;
using G2C = G2CurveOf<Curve>;
using timing::announce;
using timing::Clock;
using timing::milliseconds_since;
using timing::timed_msm;

Fr row_dot(const formats::SparseMatrix<Fr>& m, size_t row, std::span<const Fr> witness) {
  Fr sum = Fr::zero();
  const auto columns = m.row_columns(row);
  const auto values = m.row_values(row);
  for (size_t t = 0; t < columns.size(); ++t) sum += values[t] * witness[columns[t]];
  return sum;
}

std::vector<uint64_t> bitmap_of(const std::vector<uint32_t>& wires, uint32_t first, size_t bits) {
  std::vector<uint64_t> words((bits + 63) / 64, 0);
  for (uint32_t wire : wires) {
    if (wire < first || wire - first >= bits) continue;
    const size_t j = wire - first;
    words[j / 64] |= uint64_t(1) << (j % 64);
  }
  return words;
}

// Set bits among the first `bits` of `bitmap` (which holds at least ⌈bits/64⌉ words).
size_t count_bits(std::span<const uint64_t> bitmap, size_t bits) {
  size_t count = 0;
  for (size_t w = 0; w < bits / 64; ++w) count += size_t(std::popcount(bitmap[w]));
  if (bits % 64 != 0) {
    count += size_t(std::popcount(bitmap[bits / 64] & ((uint64_t(1) << (bits % 64)) - 1)));
  }
  return count;
}

void append_selected(std::span<const uint64_t> bitmap, size_t bits, size_t offset,
                     std::vector<uint32_t>& out) {
  for (size_t w = 0; w * 64 < bits; ++w) {
    uint64_t word = bitmap[w];
    if ((w + 1) * 64 > bits) word &= (uint64_t(1) << (bits % 64)) - 1;
    while (word != 0) {
      out.push_back(uint32_t(offset + w * 64 + size_t(std::countr_zero(word))));
      word &= word - 1;
    }
  }
}

// The smallest power of two ≥ max(abc_size, 2): bellman's domain for abc_size rows.
size_t domain_for(size_t abc_size) { return std::bit_ceil(std::max<size_t>(abc_size, 2)); }

std::string count(size_t n) { return std::to_string(n); }

void check_bitmap(std::span<const uint64_t> bitmap, size_t bit_len, size_t popcount,
                  size_t expected_bits, const char* name, const char* variables) {
  if (bit_len != expected_bits) {
    CUZK_INVALID_INPUT(std::string("assignment: ") + name + "'s bit length is " + count(bit_len) +
                       ", but there are " + count(expected_bits) + " " + variables);
  }
  if (bitmap.size() < (bit_len + 63) / 64) {
    CUZK_INVALID_INPUT(std::string("assignment: ") + name + " has " + count(bitmap.size()) +
                       " words, " + count((bit_len + 63) / 64) + " needed for " + count(bit_len) +
                       " bits" + (bitmap.empty() ? " (empty)" : ""));
  }
  const size_t set = count_bits(bitmap, bit_len);
  if (set != popcount) {
    CUZK_INVALID_INPUT(std::string("assignment: ") + name + "'s popcount is " + count(popcount) +
                       ", but its bitmap has " + count(set) + " bits set");
  }
}

std::vector<Fr> gather(std::span<const Fr> inputs, std::span<const Fr> aux,
                       const std::vector<uint32_t>& variables) {
  std::vector<Fr> out(variables.size());
  tbb::parallel_for(tbb::blocked_range<size_t>(0, variables.size(), 1 << 14),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t k = range.begin(); k != range.end(); ++k) {
                        const size_t v = variables[k];
                        out[k] = v < inputs.size() ? inputs[v] : aux[v - inputs.size()];
                      }
                    });
  return out;
}

// a, b, c padded with zeros to the domain, then a ← the N coefficients of h.
std::vector<Fr> h_coefficients(const BellmanAssignmentView& s, size_t n) {
  std::vector<Fr> a(n), b(n), c(n);
  const auto pad = [&](std::span<const Fr> from, std::vector<Fr>& to) {
    std::copy(from.begin(), from.end(), to.begin());
    std::fill(to.begin() + ptrdiff_t(from.size()), to.end(), Fr::zero());
  };
  tbb::parallel_invoke([&] { pad(s.a, a); }, [&] { pad(s.b, b); }, [&] { pad(s.c, c); });
  const ntt::Domain<Fr> domain(uint32_t(std::countr_zero(n)), ntt::Convention::kBellman);
  ntt::bellman_h_coefficients(domain, std::span<Fr>(a), std::span<Fr>(b), std::span<Fr>(c));
  return a;
}

}  // namespace

BellmanAssignmentView BellmanAssignment::view() const {
  BellmanAssignmentView v;
  v.a_aux_density = a_aux_density;
  v.a_aux_bit_len = a_aux_bit_len;
  v.a_aux_popcount = a_aux_popcount;
  v.b_inp_density = b_inp_density;
  v.b_inp_bit_len = b_inp_bit_len;
  v.b_inp_popcount = b_inp_popcount;
  v.b_aux_density = b_aux_density;
  v.b_aux_bit_len = b_aux_bit_len;
  v.b_aux_popcount = b_aux_popcount;
  v.a = a;
  v.b = b;
  v.c = c;
  v.inputs = inputs;
  v.aux = aux;
  return v;
}

BellmanAssignment bellman_assignment(const formats::R1cs<Curve>& r1cs,
                                     std::span<const Fr> witness) {
  const auto& h = r1cs.header;
  const size_t n_inputs = size_t(h.n_public()) + 1;
  if (h.n_wires < n_inputs) {
    CUZK_INVALID_INPUT("the .r1cs has " + count(h.n_wires) + " wires but " + count(h.n_public()) +
                       " public signals and the constant wire");
  }
  if (witness.size() != h.n_wires) {
    CUZK_INVALID_INPUT("the witness has " + count(witness.size()) + " values, but the .r1cs has " +
                       count(h.n_wires) + " wires");
  }
  const size_t n_aux = h.n_wires - n_inputs;
  const size_t rows = size_t(h.n_constraints) + n_inputs;

  BellmanAssignment s;
  s.inputs.assign(witness.begin(), witness.begin() + ptrdiff_t(n_inputs));
  s.aux.assign(witness.begin() + ptrdiff_t(n_inputs), witness.end());
  s.a.resize(rows);
  s.b.resize(rows);
  s.c.resize(rows);
  WireDensity density;
  tbb::parallel_invoke(
      [&] {
        tbb::parallel_for(tbb::blocked_range<size_t>(0, h.n_constraints, 1 << 12),
                          [&](const tbb::blocked_range<size_t>& range) {
                            for (size_t row = range.begin(); row != range.end(); ++row) {
                              s.a[row] = row_dot(r1cs.a, row, witness);
                              s.b[row] = row_dot(r1cs.b, row, witness);
                              s.c[row] = row_dot(r1cs.c, row, witness);
                            }
                          });
      },
      [&] { density = wire_density(r1cs); });
  for (size_t j = 0; j < n_inputs; ++j) {
    s.a[h.n_constraints + j] = witness[j];
    s.b[h.n_constraints + j] = Fr::zero();
    s.c[h.n_constraints + j] = Fr::zero();
  }

  s.a_aux_bit_len = s.b_aux_bit_len = n_aux;
  s.b_inp_bit_len = n_inputs;
  s.a_aux_density = bitmap_of(density.a_wires, uint32_t(n_inputs), n_aux);
  s.b_inp_density = bitmap_of(density.b_wires, 0, n_inputs);
  s.b_aux_density = bitmap_of(density.b_wires, uint32_t(n_inputs), n_aux);
  s.a_aux_popcount = count_bits(s.a_aux_density, n_aux);
  s.b_inp_popcount = count_bits(s.b_inp_density, n_inputs);
  s.b_aux_popcount = count_bits(s.b_aux_density, n_aux);
  return s;
}

BellmanKeySizes bellman_key_sizes(const formats::BellmanParams& params) {
  return {params.vk.ic.size(), params.l.size(),    params.a.size(),
          params.b_g1.size(),  params.b_g2.size(), params.h.size()};
}

void check_bellman_assignment(const formats::BellmanParams& params,
                              const BellmanAssignmentView& s) {
  check_bellman_assignment(bellman_key_sizes(params), s);
}

void check_bellman_assignment(const BellmanKeySizes& key, const BellmanAssignmentView& s) {
  if (s.a.empty() || s.b.empty() || s.c.empty()) {
    CUZK_INVALID_INPUT("assignment: a, b and c must not be empty (abc_size is 0)");
  }
  if (s.b.size() != s.a.size() || s.c.size() != s.a.size()) {
    CUZK_INVALID_INPUT("assignment: a, b and c hold " + count(s.a.size()) + ", " +
                       count(s.b.size()) + " and " + count(s.c.size()) +
                       " values; they must have one length (abc_size)");
  }
  if (s.inputs.empty()) {
    CUZK_INVALID_INPUT("assignment: the input assignment is empty (it starts with the constant 1)");
  }
  if (s.aux.empty()) CUZK_INVALID_INPUT("assignment: the auxiliary assignment is empty");
  const size_t n_domain = key.h + 1;
  if (domain_for(s.a.size()) != n_domain) {
    CUZK_INVALID_INPUT("assignment: abc_size " + count(s.a.size()) + " needs a domain of " +
                       count(domain_for(s.a.size())) + ", but the key's is " + count(n_domain) +
                       " (h holds " + count(key.h) + " points)");
  }
  if (s.inputs.size() != key.ic) {
    CUZK_INVALID_INPUT("assignment: " + count(s.inputs.size()) +
                       " inputs (the constant included), but the key's ic has " + count(key.ic) +
                       " points");
  }
  if (s.inputs[0] != Fr::one()) {
    CUZK_INVALID_INPUT("assignment: the first input (the constant) is not 1");
  }
  if (s.aux.size() != key.l) {
    CUZK_INVALID_INPUT("assignment: " + count(s.aux.size()) +
                       " auxiliary values, but the key's l has " + count(key.l) + " points");
  }
  if (s.inputs.size() + s.aux.size() > std::numeric_limits<uint32_t>::max()) {
    CUZK_INVALID_INPUT("assignment: more than 2^32 − 1 variables");
  }
  check_bitmap(s.a_aux_density, s.a_aux_bit_len, s.a_aux_popcount, s.aux.size(), "a_aux_density",
               "auxiliary values");
  check_bitmap(s.b_inp_density, s.b_inp_bit_len, s.b_inp_popcount, s.inputs.size(), "b_inp_density",
               "inputs");
  check_bitmap(s.b_aux_density, s.b_aux_bit_len, s.b_aux_popcount, s.aux.size(), "b_aux_density",
               "auxiliary values");
  const size_t a_points = s.inputs.size() + s.a_aux_popcount;
  if (key.a != a_points) {
    CUZK_INVALID_INPUT("assignment: the key's a holds " + count(key.a) +
                       " points, but the inputs and a_aux_popcount select " + count(a_points));
  }
  const size_t b_points = s.b_inp_popcount + s.b_aux_popcount;
  if (key.b_g1 != b_points || key.b_g2 != b_points) {
    CUZK_INVALID_INPUT("assignment: the key's b_g1 and b_g2 hold " + count(key.b_g1) + " and " +
                       count(key.b_g2) + " points, but b_inp_popcount + b_aux_popcount select " +
                       count(b_points));
  }
}

AssignmentQueryVariables assignment_query_variables(const BellmanAssignmentView& s) {
  AssignmentQueryVariables out;
  const size_t n_inputs = s.inputs.size();
  out.a.reserve(n_inputs + s.a_aux_popcount);
  for (size_t i = 0; i < n_inputs; ++i) out.a.push_back(uint32_t(i));
  append_selected(s.a_aux_density, s.a_aux_bit_len, n_inputs, out.a);
  out.b.reserve(s.b_inp_popcount + s.b_aux_popcount);
  append_selected(s.b_inp_density, s.b_inp_bit_len, 0, out.b);
  append_selected(s.b_aux_density, s.b_aux_bit_len, n_inputs, out.b);
  return out;
}

std::vector<Fr> bellman_assignment_h_scalars(const BellmanAssignmentView& s, size_t domain_size) {
  if (s.a.empty() || s.b.size() != s.a.size() || s.c.size() != s.a.size() ||
      domain_for(s.a.size()) != domain_size) {
    CUZK_INVALID_INPUT("bellman_assignment_h_scalars: a, b, c of " + count(s.a.size()) + ", " +
                       count(s.b.size()) + ", " + count(s.c.size()) +
                       " values do not fit a domain of " + count(domain_size));
  }
  std::vector<Fr> h = h_coefficients(s, domain_size);
  h.resize(domain_size - 1);
  return h;
}

ProveResult<Curve> detail::prove_bellman_assignment(const formats::BellmanParams& params,
                                                    const BellmanAssignmentView& s,
                                                    const ProveOptions<Curve>& options,
                                                    const char* unverified_message) {
  const auto prove_start = Clock::now();
  ProveResult<Curve> result;
  ProveTimings& timings = result.timings;

  announce(options, "checking the assignment against the key");
  auto start = Clock::now();
  check_bellman_assignment(params, s);
  const AssignmentQueryVariables variables = assignment_query_variables(s);
  timings.witness_check_ms = milliseconds_since(start);

  announce(options, "H (NTTs)");
  start = Clock::now();
  const size_t n = params.h.size() + 1;
  const std::vector<Fr> h = h_coefficients(s, n);
  timings.h_ms = milliseconds_since(start);

  const std::vector<Fr> a_scalars = gather(s.inputs, s.aux, variables.a);
  const std::vector<Fr> b_scalars = gather(s.inputs, s.aux, variables.b);
  announce(options, "MSM A");
  const auto msm_a = timed_msm<G1C>(params.a, std::span<const Fr>(a_scalars), timings.msm_a_ms);
  announce(options, "MSM B1");
  const auto msm_b1 =
      timed_msm<G1C>(params.b_g1, std::span<const Fr>(b_scalars), timings.msm_b1_ms);
  announce(options, "MSM B2 (G2)");
  const auto msm_b2 =
      timed_msm<G2C>(params.b_g2, std::span<const Fr>(b_scalars), timings.msm_b2_ms);
  announce(options, "MSM L");
  const auto msm_l = timed_msm<G1C>(params.l, s.aux, timings.msm_c_ms);
  announce(options, "MSM H");
  const auto msm_h =
      timed_msm<G1C>(params.h, std::span<const Fr>(h).first(n - 1), timings.msm_h_ms);

  announce(options, "epilogue");
  start = Clock::now();
  const formats::BellmanVerifyingKey& vk = params.vk;
  result.proof =
      combine_proof<Curve>({msm_a, msm_b1, msm_l, msm_h, msm_b2},
                           {vk.alpha_g1, vk.beta_g1, vk.delta_g1, vk.beta_g2, vk.delta_g2},
                           choose_blinding<Curve>(options.blinding));
  result.public_inputs.assign(s.inputs.begin() + 1, s.inputs.end());
  timings.epilogue_ms = milliseconds_since(start);

  announce(options, "verifying the proof");
  start = Clock::now();
  check_proof_from_key(result.proof);
  if (!verify(verifying_key_from_bellman(vk), std::span<const Fr>(result.public_inputs),
              result.proof)) {
    CUZK_INVALID_INPUT(unverified_message);
  }
  timings.self_verify_ms = milliseconds_since(start);
  timings.total_ms = milliseconds_since(prove_start);
  return result;
}

ProveResult<Curve> prove_bellman_assignment(const formats::BellmanParams& params,
                                            const BellmanAssignmentView& assignment,
                                            const ProveOptions<Curve>& options) {
  return detail::prove_bellman_assignment(
      params, assignment, options,
      "the assignment does not satisfy the circuit: the proof does not verify against the "
      ".params key's verifying key");
}

}  // namespace cuzk::groth16
