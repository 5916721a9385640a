#pragma once
// Groth16 objects in the snarkjs convention, for both curves (formats::Bn254, formats::Bls12_381):
// the proof, the verifying key, and the random values of a proof (blinding) and of a setup
// (toxic waste). Groth, "On the size of pairing-based non-interactive arguments", EUROCRYPT
// 2016, §3.2; the snarkjs specifics (γ and the public-input binding rows) are in prover.hpp and
// setup.hpp.

#include <vector>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "formats/curve_id.hpp"
#include "formats/zkey.hpp"
#include "io/point_common.hpp"

namespace cuzk::groth16 {

// The point-type records of a curve record, for the ec and msm templates.
template <class Curve>
using G1CurveOf = typename io::CurveOf<typename Curve::G1>::type;
template <class Curve>
using G2CurveOf = typename io::CurveOf<typename Curve::G2>::type;
template <class Curve>
using G1Jacobian = ec::Jacobian<G1CurveOf<Curve>>;
template <class Curve>
using G2Jacobian = ec::Jacobian<G2CurveOf<Curve>>;

template <class Curve>
struct Proof {
  typename Curve::G1 a;
  typename Curve::G2 b;
  typename Curve::G1 c;

  bool operator==(const Proof&) const = default;
};

// What a verifier needs: e(A, B) = e(α1, β2)·e(Σ x_i·IC_i, γ2)·e(C, δ2) with x_0 = 1 and
// x_1..x_n the public inputs (outputs first, as in public.json).
template <class Curve>
struct VerifyingKey {
  typename Curve::G1 alpha1;
  typename Curve::G2 beta2, gamma2, delta2;
  std::vector<typename Curve::G1> ic;  // n_public() + 1 points

  size_t n_public() const { return ic.empty() ? 0 : ic.size() - 1; }
  bool operator==(const VerifyingKey&) const = default;
};

template <class Curve>
VerifyingKey<Curve> verifying_key_from_zkey(const formats::Groth16Zkey<Curve>& key) {
  return {key.header.alpha1, key.header.beta2, key.header.gamma2, key.header.delta2, key.ic};
}

// The prover's blinding factors: π_A carries r·δ, π_B carries s·δ. Fixed values make proofs
// deterministic (tests; r = s = 0 reproduces snarkjs's unblinded proof bit for bit).
template <class Curve>
struct Blinding {
  typename Curve::Fr r, s;
};

// The secrets of a (development) setup. Whoever knows them can forge proofs for the key.
template <class Curve>
struct ToxicWaste {
  typename Curve::Fr tau, alpha, beta, gamma, delta;
};

}  // namespace cuzk::groth16
