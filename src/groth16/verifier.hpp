#pragma once
// The Groth16 verifier (snarkjs 0.7.6 groth16_verify.js): with L = IC_0 + Σ x_i·IC_i over the
// public inputs x_i, a proof (A, B, C) is valid when
//   e(A, B) = e(α1, β2)·e(L, γ2)·e(C, δ2),
// checked as one product of four pairings, e(−A, B)·e(α1, β2)·e(L, γ2)·e(C, δ2) = 1, sharing
// one Miller loop and one final exponentiation (~3.3 ms on BLS12-381, ~3.1 ms on BN254, see
// src/pairing/README.md). vk_alphabeta_12, the precomputed e(α1, β2) of verification_key.json,
// is not used: pairing libraries disagree on which power of the reduced pairing they return.
//
// Thread-safety: pure function of its arguments.

#include <span>

#include "groth16/types.hpp"

namespace cuzk::groth16 {

// True when the proof verifies, false when it does not. Throws cuzk::Error (kInvalidInput)
// for malformed input, naming it: a public-input count other than vk.n_public(), a verifying
// key without IC, a proof point off its curve or outside the prime-order subgroup. (Public
// inputs ≥ r cannot be represented in Fr: the decoders of public.json refuse them.)
template <class Curve>
bool verify(const VerifyingKey<Curve>& vk, std::span<const typename Curve::Fr> public_inputs,
            const Proof<Curve>& proof);

// For a prover's self-check: throws cuzk::Error (kInvalidInput) when a point of a proof just
// computed lies outside its prime-order subgroup. Provers read the key's point queries with
// on-curve checks only (a subgroup check costs 25-100 µs per point, longer than the proof), so
// a key holding points outside the subgroup shows up here, in the proof built from them.
template <class Curve>
void check_proof_from_key(const Proof<Curve>& proof);

}  // namespace cuzk::groth16
