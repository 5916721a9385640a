#pragma once
// Groth16 in the bellman / bellperson convention (Filecoin): the prover and the development
// setup for .params keys (formats/params.hpp), whose proofs are the 192-byte compressed
// encoding. BLS12-381 only, as bellman's keys are. The verifier is verifier.hpp's: the
// verification equation is the same, and verifying_key_from_bellman() converts the key.
//
// What differs from the snarkjs convention (prover.hpp, setup.hpp), and why:
//   - The constraint matrices are not in the key: the prover takes the .r1cs (A, B and C),
//     computes a = A·w, b = B·w, c = C·w itself, and checks every constraint before proving.
//   - H is the coefficient basis, h[i] = τ^i·Z(τ)/δ for i ≤ N − 2: the scalars are the
//     coefficients of (a·b − c)/Z (ntt::bellman_h_coefficients: coset shift 7, the roots of
//     unity 7^t), not values on a coset.
//   - The query a holds a point only for the wires whose A polynomial is not zero, b_g1 and
//     b_g2 only for those whose B polynomial is not zero (qap.hpp, wire_density): bellman's
//     generator drops the points at infinity, and its prover skips the same wires through its
//     density trackers. Both lists are in wire order (public wires first), so the k-th point
//     belongs to the k-th wire of the list.
//   - l holds one point per private wire, (β·u_j + α·v_j + w_j)/δ; no point may be the point at
//     infinity (bellman's reader refuses it), so a private wire that no constraint uses cannot
//     be keyed (bellman's generator refuses it too: UnconstrainedVariable).
//   - The domain is the smallest power of two ≥ nConstraints + nPublic + 1 (the constraints and
//     the binding rows), at least 2: bellman's EvaluationDomain::from_coeffs, and the same as
//     snarkjs_domain_log_size().
//   - π_C = Σ w_priv·L + Σ h·H + s·π_A + r·B1 − r·s·δ1 (bellman's r·s·δ + s·α + r·β + s·ΣA +
//     r·ΣB1 + H + L, the same point).
//
// Thread-safety: as prover.hpp and setup.hpp.

#include <cstdint>
#include <span>
#include <vector>

#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "groth16/prover.hpp"
#include "groth16/types.hpp"

namespace cuzk::groth16 {

using BellmanCurve = formats::Bls12_381;

VerifyingKey<BellmanCurve> verifying_key_from_bellman(const formats::BellmanVerifyingKey& vk);
Proof<BellmanCurve> proof_from_bellman(const formats::BellmanProof& proof);
formats::BellmanProof proof_to_bellman(const Proof<BellmanCurve>& proof);

// A proof for a .params key. The .r1cs must be the key's circuit: its counts must match the
// key's vectors (ic = nPublic + 1, l = private wires, h = N − 1, a and b_g1 = the wires of
// non-zero A and B polynomials), else kInvalidInput "the .r1cs does not belong to the .params
// key: ...". Also kInvalidInput for a witness of the wrong length, with a constant wire other
// than 1, or that fails a constraint (named by its index in .r1cs order), and, as a last
// guard, for a finished proof that does not verify against the key's verifying key.
// options.r1cs is ignored (the .r1cs is an argument here).
// The checks prove_bellman makes before any arithmetic (the witness satisfies the .r1cs, the
// key's vectors fit the circuit), for other provers of the same inputs. Throws as it does.
void check_bellman_inputs(const formats::BellmanParams& params,
                          const formats::R1cs<BellmanCurve>& r1cs,
                          std::span<const bls12_381::Fr> witness);

ProveResult<BellmanCurve> prove_bellman(const formats::BellmanParams& params,
                                        const formats::R1cs<BellmanCurve>& r1cs,
                                        std::span<const bls12_381::Fr> witness,
                                        const ProveOptions<BellmanCurve>& options = {});

// The N − 1 scalars of bellman's H MSM for a witness (the coefficients of h), without the
// key: for differential tests of the GPU H stage. The witness must have nWires values.
std::vector<bls12_381::Fr> bellman_h_scalars(const formats::R1cs<BellmanCurve>& r1cs,
                                             std::span<const bls12_381::Fr> witness);

// Wall-clock milliseconds of the setup's stages.
struct BellmanSetupTimings {
  double qap_ms = 0;        // Lagrange basis, u, v, w at τ, densities, key scalars
  double g1_points_ms = 0;  // ic, l, a, b_g1, h and the vk's G1 points
  double g2_points_ms = 0;  // b_g2 and the vk's G2 points
};

// A development setup (INSECURE, see setup.hpp) in bellman's layout. Throws kInvalidInput when
// the circuit needs a domain beyond 2^32, has fewer wires than public signals + 1, has a
// private wire that no constraint uses, or the toxic waste is degenerate (α, β, γ or δ zero, τ
// on the domain or a root of a wire's non-zero polynomial: probability about N/r).
formats::BellmanParams bellman_setup(const formats::R1cs<BellmanCurve>& r1cs,
                                     const ToxicWaste<BellmanCurve>& waste,
                                     BellmanSetupTimings* timings = nullptr);
// The same with toxic waste from the system CSPRNG, discarded on return.
formats::BellmanParams bellman_setup(const formats::R1cs<BellmanCurve>& r1cs,
                                     BellmanSetupTimings* timings = nullptr);

}  // namespace cuzk::groth16
