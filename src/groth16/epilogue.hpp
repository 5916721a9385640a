#pragma once
// The last step of every Groth16 prover (the CPU provers of both key formats and the GPU
// prover): the blinding r, s and the combination of the five MSM sums with the key's constants.
//   π_A = α1 + Σ w·A + r·δ1
//   π_B = β2 + Σ w·B2 + s·δ2          (B1 = β1 + Σ w·B1 + s·δ1, the G1 copy of π_B)
//   π_C = Σ w_priv·C + Σ h·H + s·π_A + r·B1 − r·s·δ1
// Microseconds of host work: five scalar multiplications and three conversions to affine.
//
// Thread-safety: pure functions, apart from the system CSPRNG read by choose_blinding.

#include <optional>

#include "ec/scalar_mul.hpp"
#include "groth16/randomness.hpp"
#include "groth16/types.hpp"

namespace cuzk::groth16 {

// The key's constants that enter the proof (a .zkey header or a bellman verifying key).
template <class Curve>
struct ProofConstants {
  typename Curve::G1 alpha1, beta1, delta1;
  typename Curve::G2 beta2, delta2;
};

// The MSM sums of one proof. `private_wires` is Σ w_priv·C (a .zkey's C query) or Σ w_priv·L
// (a .params's L query): the same term of π_C.
template <class Curve>
struct MsmSums {
  G1Jacobian<Curve> a, b1, private_wires, h;
  G2Jacobian<Curve> b2;
};

// The caller's r and s, or fresh ones from the system CSPRNG.
template <class Curve>
Blinding<Curve> choose_blinding(const std::optional<Blinding<Curve>>& fixed) {
  if (fixed) return *fixed;
  SystemRandom rng;
  return random_blinding<Curve>(rng);
}

template <class Curve>
Proof<Curve> combine_proof(const MsmSums<Curve>& sums, const ProofConstants<Curve>& k,
                           const Blinding<Curve>& blinding) {
  using G1J = G1Jacobian<Curve>;
  using G2J = G2Jacobian<Curve>;
  const auto& r = blinding.r;
  const auto& s = blinding.s;
  const G1J delta1 = G1J::from_affine(k.delta1);
  const G1J pi_a = sums.a + k.alpha1 + ec::scalar_mul(delta1, r);
  const G2J pi_b = sums.b2 + k.beta2 + ec::scalar_mul(G2J::from_affine(k.delta2), s);
  const G1J b1 = sums.b1 + k.beta1 + ec::scalar_mul(delta1, s);
  const G1J pi_c = sums.private_wires + sums.h + ec::scalar_mul(pi_a, s) + ec::scalar_mul(b1, r) -
                   ec::scalar_mul(delta1, r * s);
  return {pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

}  // namespace cuzk::groth16
