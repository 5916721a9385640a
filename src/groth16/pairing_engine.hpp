#pragma once
// The pairing of a curve record (formats::Bn254, formats::Bls12_381): the optimal ate pairing
// class of src/pairing, compiled into cuzk_core by pairing.cpp.

#include "formats/curve_id.hpp"
#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"

namespace cuzk::groth16 {

template <class Curve>
struct PairingEngineOf;
template <>
struct PairingEngineOf<formats::Bn254> {
  using type = bn254::OptimalAte;
};
template <>
struct PairingEngineOf<formats::Bls12_381> {
  using type = bls12_381::OptimalAte;
};

template <class Curve>
using PairingEngine = typename PairingEngineOf<Curve>::type;

}  // namespace cuzk::groth16
