#pragma once
// The two pairings as one typed-test parameter list, with random group elements.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <type_traits>

#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"

namespace cuzk::test {

using PairingCurves = ::testing::Types<bls12_381::PairingData, bn254::PairingData>;

struct PairingNames {
  template <class Data>
  static std::string GetName(int) {
    return std::is_same_v<Data, bls12_381::PairingData> ? "bls12_381" : "bn254";
  }
};

template <class Data>
struct PairingTypes {
  using Pairing = pairing::OptimalAte<Data>;
  using G1Affine = typename Pairing::G1Affine;
  using G2Affine = typename Pairing::G2Affine;
  using Fp12 = typename Pairing::Fp12;
  using Fr = typename Data::G1Curve::Scalar;

  static G1Affine g1_mul(const Fr& k) {
    return ec::scalar_mul(G1Affine::generator(), k).to_affine();
  }
  static G2Affine g2_mul(const Fr& k) {
    return ec::scalar_mul(G2Affine::generator(), k).to_affine();
  }
  template <class Rng>
  static G1Affine random_g1(Rng& rng) {
    return g1_mul(Fr::random(rng));
  }
  template <class Rng>
  static G2Affine random_g2(Rng& rng) {
    return g2_mul(Fr::random(rng));
  }
};

}  // namespace cuzk::test
