#pragma once
// The QAP of an R1CS at one point τ, and which wires have a non-zero A or B polynomial: what
// both development setups (snarkjs .zkey and bellman .params) and the bellman prover share.
//
// The rows are the .r1cs constraints followed by one binding row per public signal and the
// constant wire: row nConstraints + j has A = wire j (coefficient 1), B = C = 0. snarkjs's setup
// (zkey_new.js) and bellman's generator and prover (the input constraints appended after
// synthesis) both add them, so a proof cannot leave the public inputs free.
//
// With L_c the Lagrange basis of the domain {ω^c} at τ, wire j's polynomials are
// u_j = Σ_c A[c][j]·L_c, v_j = Σ_c B[c][j]·L_c, w_j = Σ_c C[c][j]·L_c; a wire that appears
// twice in a row adds its coefficients (as both setups do). The domain's convention fixes ω.

#include <cstdint>
#include <span>
#include <vector>

#include "formats/r1cs.hpp"
#include "ntt/domain.hpp"

namespace cuzk::groth16 {

template <class Fr>
struct QapAtTau {
  std::vector<Fr> u, v, w;  // one value per wire
};

// u_j(τ), v_j(τ), w_j(τ) for every wire. The domain must hold nConstraints + nPublic + 1 rows
// and τ must not lie on it (the caller checks; L_c divides by τ − ω^c). Cost: 6M per row plus
// one multiplication-addition per term.
template <class Curve>
QapAtTau<typename Curve::Fr> qap_at_tau(const formats::R1cs<Curve>& r1cs,
                                        const ntt::Domain<typename Curve::Fr>& domain,
                                        const typename Curve::Fr& tau);

// x_i ← factor·x_i / (τ − x_i) for every x_i (none equal to τ), in parallel with one inversion
// per chunk: the form in which both setups evaluate their Lagrange bases at τ (qap_at_tau: x_i =
// ω^i; snarkjs's H query: x_i = g·ω^i).
template <class Fr>
void scale_by_distance_to_tau(std::span<Fr> x, const Fr& tau, const Fr& factor);

// The wires whose A (resp. B) polynomial is not the zero polynomial, in ascending order
// (public wires first): every wire whose summed coefficient is non-zero in some row, and every
// public wire and the constant (their binding rows). bellman's .params stores a, b_g1, b_g2
// points for exactly these wires: its generator drops the points at infinity, which are the
// wires with a zero polynomial (a wire in no row, or whose coefficients cancel in every row).
struct WireDensity {
  std::vector<uint32_t> a_wires, b_wires;
};

template <class Curve>
WireDensity wire_density(const formats::R1cs<Curve>& r1cs);

}  // namespace cuzk::groth16
