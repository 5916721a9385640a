#pragma once
// Shared pieces of the GPU prover's tests (host code only): the circuits they run on, the
// reference a, b, c computed independently of the compact form, and a host emulation of the
// synthesis kernels' index math (the same CUZK_HD row functions the kernels call, with the
// warp's lane striding and segment partials replayed in plain loops).

#include <cstdint>
#include <string>
#include <vector>

#include "circuits/synthetic.hpp"
#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "gpu/prover/host_circuit.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::prover::test {

struct CircuitCase {
  circuits::Shape shape;
  uint32_t constraints;
  uint32_t public_inputs;
  std::string name() const {
    return std::string(circuits::shape_name(shape)) + "/" + std::to_string(constraints);
  }
};

// Shapes × sizes that are not powers of two (a block boundary of the generator at 4096 is
// crossed by 4099 and 9000).
inline std::vector<CircuitCase> circuit_cases(bool large) {
  std::vector<CircuitCase> cases = {{circuits::Shape::kPorep, 1000, 3},
                                    {circuits::Shape::kDense, 1000, 2},
                                    {circuits::Shape::kChain, 1000, 1}};
  if (large) {
    const uint32_t big = uint32_t(cuzk::test::scaled(9000));
    cases.push_back({circuits::Shape::kPorep, 4099, 5});
    cases.push_back({circuits::Shape::kPorep, big, 2});
    cases.push_back({circuits::Shape::kDense, big, 1});
    cases.push_back({circuits::Shape::kChain, 4099, 1});
  }
  return cases;
}

template <class Curve>
circuits::SyntheticCircuit<Curve> make_circuit(const CircuitCase& c, uint64_t seed) {
  circuits::SyntheticSpec spec;
  spec.shape = c.shape;
  spec.constraints = c.constraints;
  spec.public_inputs = c.public_inputs;
  spec.seed = seed;
  return circuits::generate_circuit<Curve>(spec);
}

// The witness in standard form (canonical limbs), as the device holds it.
template <class Fr>
std::vector<Fr> standard_form(const std::vector<Fr>& witness) {
  std::vector<Fr> out(witness.size());
  for (size_t i = 0; i < witness.size(); ++i) out[i] = Fr::from_montgomery(witness[i].to_int());
  return out;
}

template <class Fr>
struct Abc {
  std::vector<Fr> a, b, c;
};

// a, b, c of the bellman convention: A·w, B·w, C·w on the .r1cs rows, the binding rows
// a[nConstraints + j] = w_j, zeros up to n. Plain Montgomery arithmetic on the CSR.
template <class Curve>
Abc<typename Curve::Fr> reference_from_r1cs(const formats::R1cs<Curve>& r1cs,
                                            const std::vector<typename Curve::Fr>& w, size_t n) {
  using Fr = typename Curve::Fr;
  Abc<Fr> out{std::vector<Fr>(n, Fr::zero()), std::vector<Fr>(n, Fr::zero()),
              std::vector<Fr>(n, Fr::zero())};
  const auto dot = [&](const formats::SparseMatrix<Fr>& m, size_t row) {
    Fr sum = Fr::zero();
    for (uint64_t t = m.row_start[row]; t < m.row_start[row + 1]; ++t) {
      sum += m.value[t] * w[m.column[t]];
    }
    return sum;
  };
  const uint32_t nc = r1cs.header.n_constraints;
  for (uint32_t row = 0; row < nc; ++row) {
    out.a[row] = dot(r1cs.a, row);
    out.b[row] = dot(r1cs.b, row);
    out.c[row] = dot(r1cs.c, row);
  }
  for (uint32_t j = 0; j <= r1cs.header.n_public(); ++j) out.a[nc + j] = w[j];
  return out;
}

// a, b from a zkey's coefficient section in file order, c = a∘b (the CPU prover's
// evaluate_a_b, written the plain way).
template <class Curve>
Abc<typename Curve::Fr> reference_from_zkey(const formats::Groth16Zkey<Curve>& key,
                                            const std::vector<typename Curve::Fr>& w) {
  using Fr = typename Curve::Fr;
  const size_t n = key.header.domain_size;
  Abc<Fr> out{std::vector<Fr>(n, Fr::zero()), std::vector<Fr>(n, Fr::zero()), std::vector<Fr>(n)};
  for (const auto& t : key.coefficients) {
    (t.matrix == 0 ? out.a : out.b)[t.row] += t.value * Fr::from_montgomery(w[t.wire].to_int());
  }
  for (size_t i = 0; i < n; ++i) out.c[i] = out.a[i] * out.b[i];
  return out;
}

// What the kernels compute, on the host: light rows by row_dot, heavy rows as the sum of
// their segments' partials, each partial the sum of 32 lane sums striding by 32.
template <class Fr>
std::vector<Fr> emulate_matrix(const CompactMatrix<Fr>& m, const std::vector<Fr>& w_std, size_t n) {
  const CompactMatrixView<Fr> v = m.view();
  std::vector<Fr> out(n, Fr::zero());
  for (uint32_t row = 0; row < m.rows; ++row) {
    if (!v.is_heavy(row)) out[row] = v.row_dot(row, w_std.data());
  }
  for (size_t k = 0; k < m.heavy_rows.size(); ++k) {
    Fr sum = Fr::zero();
    for (uint32_t s = m.heavy_segment_start[k]; s < m.heavy_segment_start[k + 1]; ++s) {
      Fr partial = Fr::zero();
      for (uint32_t lane = 0; lane < 32; ++lane) {
        partial += v.sum_terms(m.segments[s].begin + lane, m.segments[s].end, 32, w_std.data());
      }
      sum += partial;
    }
    out[m.heavy_rows[k]] = sum;
  }
  return out;
}

template <class Fr>
Abc<Fr> emulate_synthesis(const HostCircuit<Fr>& circuit, const std::vector<Fr>& w_std) {
  Abc<Fr> out;
  out.a = emulate_matrix(circuit.a, w_std, circuit.domain_size);
  out.b = emulate_matrix(circuit.b, w_std, circuit.domain_size);
  if (circuit.c) {
    out.c = emulate_matrix(*circuit.c, w_std, circuit.domain_size);
  } else {
    out.c.resize(circuit.domain_size);
    for (size_t i = 0; i < out.c.size(); ++i) out.c[i] = out.a[i] * out.b[i];
  }
  return out;
}

// The index of the first difference, or -1.
template <class Fr>
long first_difference(const std::vector<Fr>& x, const std::vector<Fr>& y) {
  if (x.size() != y.size()) return 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (x[i] != y[i]) return long(i);
  }
  return -1;
}

}  // namespace cuzk::gpu::prover::test
