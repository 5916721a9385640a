#pragma once
// The scalars of the Groth16 H query, from a = A·z, b = B·z, c = C·z: the values on the
// domain H = {ω^i} of the three QAP polynomials A, B, C (degree < n). For a satisfying
// witness A·B − C = h·Z with Z(x) = x^n − 1 and deg h ≤ n − 2. The two key formats store the H
// query in different bases, so the prover computes different scalars:
//
// snarkjs / rapidsnark (.zkey section 9 holds the odd-index Lagrange basis of the 2n-domain at
// τ, over δ): for each of a, b, c an inverse NTT, coefficient i times g^i with g the odd-coset
// shift (ω_2n, or 25 when n = 2^s), a forward NTT: the values at g·ω^i = ω_2n^(2i+1). The
// scalars are A·B − C there, with no division: Z = g^n − 1 is constant on the coset (−2 for
// g = ω_2n) and the key folds it in (groth16_prove.js: ifft, batchApplyKey(1, inc), fft,
// joinABC).
//
// bellman / bellperson (.params holds τ^i·Z(τ)/δ for i ≤ n − 2): the coefficients of h. Inverse
// NTT of each, forward NTT on the coset 7·H (coset_fft), (a·b − c)/Z with Z = 7^n − 1 constant
// on the coset (divide_by_z_on_coset), inverse coset NTT (icoset_fft). The H MSM takes the first
// n − 1 coefficients (the last is 0 for a satisfying witness).
//
// Buffer contract (the GPU implementation keeps the same one on device buffers): three
// caller-owned buffers of exactly n elements, natural order, transformed in place; on return
// `a` holds the n scalars in natural order and `b`, `c` hold intermediate values. Nothing of
// size n is allocated; the transforms use O(√n) working memory per worker thread.
// Cost: 6 transforms (snarkjs) or 7 (bellman) of n·log2(n)/2 butterflies, plus per element
// 2M per coset scaling and 1M (snarkjs) or 2M (bellman) to combine.
//
// Thread-safety: runs on the calling thread and oneTBB workers; buffers must not overlap.

#include <cstddef>
#include <span>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ntt/domain.hpp"
#include "util/error.hpp"

namespace cuzk::ntt {

namespace detail {

template <class Fr>
void check_h_inputs(const Domain<Fr>& domain, Convention expected, std::span<const Fr> a,
                    std::span<const Fr> b, std::span<const Fr> c, const char* operation) {
  if (domain.convention() != expected) {
    CUZK_INVALID_INPUT(std::string(operation) +
                       ": the domain's roots follow the other prover's convention");
  }
  for (size_t size : {a.size(), b.size(), c.size()}) {
    if (size != domain.size()) {
      CUZK_INVALID_INPUT(std::string(operation) + ": " + std::to_string(size) +
                         " values for a domain of size " + std::to_string(domain.size()));
    }
  }
}

// Values on H (natural) → values on the coset (natural): inverse NTT natural → bit-reversed,
// forward coset NTT bit-reversed → natural, so no permutation runs in between.
template <class Fr>
void values_to_coset(const Domain<Fr>& domain, std::span<Fr> values) {
  domain.inverse(values, Order::kNatural, Order::kBitReversed);
  domain.coset_forward(values, Order::kBitReversed, Order::kNatural);
}

// a[i] = (a[i]·b[i] − c[i])·factor; the multiplication by factor is skipped when it is 1.
template <class Fr>
void combine(std::span<Fr> a, std::span<const Fr> b, std::span<const Fr> c, const Fr& factor) {
  const bool scaled = factor != Fr::one();
  tbb::parallel_for(tbb::blocked_range<size_t>(0, a.size(), 4096),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t i = range.begin(); i != range.end(); ++i) {
                        const Fr v = a[i] * b[i] - c[i];
                        a[i] = scaled ? v * factor : v;
                      }
                    });
}

}  // namespace detail

// snarkjs convention (Convention::kSnarkjs domain): a ← A·B − C at the odd coset points.
template <class Fr>
void snarkjs_h_scalars(const Domain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                       std::span<Fr> c) {
  detail::check_h_inputs<Fr>(domain, Convention::kSnarkjs, a, b, c, "snarkjs_h_scalars");
  for (std::span<Fr> values : {a, b, c}) detail::values_to_coset(domain, values);
  detail::combine<Fr>(a, b, c, Fr::one());
}

// bellman convention (Convention::kBellman domain): a ← the n coefficients of h.
template <class Fr>
void bellman_h_coefficients(const Domain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                            std::span<Fr> c) {
  detail::check_h_inputs<Fr>(domain, Convention::kBellman, a, b, c, "bellman_h_coefficients");
  for (std::span<Fr> values : {a, b, c}) detail::values_to_coset(domain, values);
  // Z(g·ω^i) = g^n − 1 for every i.
  const Fr z_on_coset = domain.coset_shift().pow(uint64_t(domain.size())) - Fr::one();
  detail::combine<Fr>(a, b, c, z_on_coset.inverse());
  domain.coset_inverse(a, Order::kNatural, Order::kNatural);
}

}  // namespace cuzk::ntt
