#pragma once
// A development setup: a Groth16 proving key made from an .r1cs and random toxic waste in one
// process, laid out as snarkjs's `groth16 setup` (zkey_new.js) writes it, so that snarkjs,
// rapidsnark and this engine prove and verify with it. INSECURE: whoever ran the setup could
// know the toxic waste and forge proofs; it exists to make benchmark-sized keys quickly (no
// powers-of-tau file, no ceremony). Callers that face users print the warning; this prints
// nothing.
//
// The key (N = domain size, L_c the Lagrange basis of the N-domain {ω^c} at τ, u_j, v_j, w_j the
// QAP polynomials of wire j: u_j(τ) = Σ_c A[c][j]·L_c(τ), likewise v from B and w from C):
//   domain     N = 2^max(1, bit_width(nConstraints + nPublic)), the smallest power of two with
//              room for the constraints and the nPublic + 1 binding rows (snarkjs's cirPower)
//   rows       nConstraints + j for j = 0..nPublic, with A = wire j (coefficient 1): they make
//              the public inputs part of A, so a proof cannot keep them free (snarkjs's
//              binding rows; FORMATS.md)
//   section 4  the A and B terms constraint by constraint (A first), then the binding rows;
//              each value c·R² mod r
//   header     α·G1, β·G1, β·G2, γ·G2, δ·G1, δ·G2
//   IC   (3)   (β·u_j + α·v_j + w_j)/γ · G1 for j ≤ nPublic
//   A, B1, B2  u_j·G1, v_j·G1, v_j·G2 for every wire
//   C    (8)   (β·u_j + α·v_j + w_j)/δ · G1 for the private wires j > nPublic
//   H    (9)   L^(2N)_(2i+1)(τ)/δ · G1 for i < N: the odd-index Lagrange basis of the 2N-domain
//              (zkey_new.js writeHs takes the odd entries of the ptau's 2N Lagrange points;
//              zkey_contribute divides them by δ), see the derivation in setup.cpp.
// snarkjs keeps γ = 1 (γ2 is the generator); here γ is random, which every prover and verifier
// accepts (no prover reads γ). Section 10 holds a zero circuit hash and no contributions: the
// hash binds a key to its powers of tau, which a development setup does not have.
//
// Cost: one fixed-base multiplication per key point (fixed_base.hpp), about
// 3·nVars + N G1 points and nVars G2 points, on all cores.

#include <cstdint>

#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "groth16/types.hpp"

namespace cuzk::groth16 {

// log2 of the domain snarkjs picks for a circuit: max(1, bit_width(nConstraints + nPublic)).
uint32_t snarkjs_domain_log_size(uint32_t n_constraints, uint32_t n_public);

// Section 4 of the circuit's .zkey: A and B in .r1cs order, then the binding rows
// (row nConstraints + j: A = wire j, for j = 0..nPublic), values c·R² as snarkjs writes them.
template <class Curve>
std::vector<formats::ZkeyCoefficient<typename Curve::Fr>> zkey_coefficients(
    const formats::R1cs<Curve>& r1cs);

// Throws cuzk::Error (kInvalidInput) when the circuit needs a domain larger than the scalar
// field's 2-adicity allows, has fewer wires than public signals + 1, or the toxic waste is
// degenerate (α, β, γ or δ zero; τ on the domain or on its odd coset).
template <class Curve>
formats::Groth16Zkey<Curve> setup(const formats::R1cs<Curve>& r1cs, const ToxicWaste<Curve>& waste);

// The same with toxic waste from the system CSPRNG (randomness.hpp), discarded on return.
template <class Curve>
formats::Groth16Zkey<Curve> setup(const formats::R1cs<Curve>& r1cs);

}  // namespace cuzk::groth16
