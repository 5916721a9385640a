// The Groth16 verifier (verifier.hpp), instantiated for both curves.

#include "groth16/verifier.hpp"

#include <array>
#include <string>
#include <utility>

#include "groth16/pairing_engine.hpp"
#include "msm/instances.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

template <class Point>
void check_proof_point(const Point& p, const char* name) {
  using PointCurve = typename io::CurveOf<Point>::type;
  if (!p.is_on_curve()) {
    CUZK_INVALID_INPUT(std::string("proof ") + name + ": the point is not on the curve " +
                       PointCurve::kName);
  }
  // is_in_subgroup is declared with each curve (found by argument-dependent lookup).
  if (!is_in_subgroup(p)) {
    CUZK_INVALID_INPUT(std::string("proof ") + name +
                       ": the point is on the curve but not in the prime-order subgroup of " +
                       PointCurve::kName);
  }
}

}  // namespace

template <class Curve>
bool verify(const VerifyingKey<Curve>& vk, std::span<const typename Curve::Fr> public_inputs,
            const Proof<Curve>& proof) {
  using G1 = typename Curve::G1;
  if (vk.ic.empty()) CUZK_INVALID_INPUT("verifying key: IC holds no points (at least 1 expected)");
  if (public_inputs.size() != vk.n_public()) {
    CUZK_INVALID_INPUT("the verifying key expects " + std::to_string(vk.n_public()) +
                       " public inputs, but " + std::to_string(public_inputs.size()) +
                       " were given");
  }
  check_proof_point(proof.a, "pi_a");
  check_proof_point(proof.b, "pi_b");
  check_proof_point(proof.c, "pi_c");

  const auto ic_tail = std::span<const G1>(vk.ic).subspan(1);
  const G1 l_pub =
      (msm::msm_with_classification<G1CurveOf<Curve>>(ic_tail, public_inputs) + vk.ic[0])
          .to_affine();
  const std::array<std::pair<G1, typename Curve::G2>, 4> pairs = {{
      {-proof.a, proof.b},
      {vk.alpha1, vk.beta2},
      {l_pub, vk.gamma2},
      {proof.c, vk.delta2},
  }};
  return PairingEngine<Curve>::pairing_product_is_one(pairs);
}

template <class Curve>
void check_proof_from_key(const Proof<Curve>& proof) {
  if (!is_in_subgroup(proof.a) || !is_in_subgroup(proof.b) || !is_in_subgroup(proof.c)) {
    CUZK_INVALID_INPUT(
        "the proving key holds points outside the prime-order subgroup (the proof built from "
        "them is not in it): the key is corrupt or forged; proving with --check-key-subgroups "
        "names the first bad point");
  }
}

template void check_proof_from_key<formats::Bn254>(const Proof<formats::Bn254>&);
template void check_proof_from_key<formats::Bls12_381>(const Proof<formats::Bls12_381>&);

template bool verify<formats::Bn254>(const VerifyingKey<formats::Bn254>&,
                                     std::span<const bn254::Fr>, const Proof<formats::Bn254>&);
template bool verify<formats::Bls12_381>(const VerifyingKey<formats::Bls12_381>&,
                                         std::span<const bls12_381::Fr>,
                                         const Proof<formats::Bls12_381>&);

}  // namespace cuzk::groth16
