#pragma once
// Shared pieces of the NTT tests: the field list of the typed suites and the O(n²) reference
// computations the fast transforms are checked against.

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <span>
#include <vector>

#include "ntt/bit_reverse.hpp"
#include "ntt/instances.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::ntt::test {

using ::cuzk::test::random_elements;

using ScalarFields = ::testing::Types<bls12_381::Fr, bn254::Fr>;

// Horner: Σ_j coeffs[j]·x^j.
template <class Fr>
Fr evaluate(std::span<const Fr> coeffs, const Fr& x) {
  Fr acc = Fr::zero();
  for (size_t j = coeffs.size(); j-- > 0;) acc = acc * x + coeffs[j];
  return acc;
}

// Values of the polynomial with these coefficients at shift·root^i, i < coeffs.size().
template <class Fr>
std::vector<Fr> naive_evaluate(std::span<const Fr> coeffs, const Fr& root, const Fr& shift) {
  std::vector<Fr> out(coeffs.size());
  Fr point = shift;
  for (auto& v : out) {
    v = evaluate(coeffs, point);
    point *= root;
  }
  return out;
}

// Coefficients of the polynomial of degree < n with these values at shift·root^i (root of
// order n): c_j = n⁻¹·shift^(−j)·Σ_i v_i·root^(−ij).
template <class Fr>
std::vector<Fr> naive_interpolate(std::span<const Fr> values, const Fr& root, const Fr& shift) {
  const size_t n = values.size();
  const Fr n_inv = Fr::from_u64(n).inverse();
  const Fr root_inv = root.inverse(), shift_inv = shift.inverse();
  std::vector<Fr> out(n);
  Fr row_root = Fr::one();     // root^(−j)
  Fr shift_power = Fr::one();  // shift^(−j)
  for (size_t j = 0; j < n; ++j) {
    Fr acc = Fr::zero(), power = Fr::one();
    for (size_t i = 0; i < n; ++i) {
      acc += values[i] * power;
      power *= row_root;
    }
    out[j] = acc * n_inv * shift_power;
    row_root *= root_inv;
    shift_power *= shift_inv;
  }
  return out;
}

template <class Fr>
std::vector<Fr> bit_reversed_copy(std::span<const Fr> values) {
  const unsigned log_n = log2_exact(values.size(), "bit_reversed_copy");
  std::vector<Fr> out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[reverse_bits(i, log_n)] = values[i];
  return out;
}

// Product of two polynomials, schoolbook.
template <class Fr>
std::vector<Fr> multiply(std::span<const Fr> p, std::span<const Fr> q) {
  std::vector<Fr> out(p.size() + q.size() - 1, Fr::zero());
  for (size_t i = 0; i < p.size(); ++i) {
    for (size_t j = 0; j < q.size(); ++j) out[i + j] += p[i] * q[j];
  }
  return out;
}

}  // namespace cuzk::ntt::test
