// Explicit instantiation of the tower and the pairing of both curves: compiled once here, so
// that users include the headers without recompiling the Miller loop and the final
// exponentiation (the curve headers declare them extern).

#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"

namespace cuzk::ff {
template struct Fp6<bls12_381::TowerData>;
template struct Fp12<bls12_381::TowerData>;
template struct Fp6<bn254::TowerData>;
template struct Fp12<bn254::TowerData>;
}  // namespace cuzk::ff

namespace cuzk::pairing {
template class OptimalAte<bls12_381::PairingData>;
template class OptimalAte<bn254::PairingData>;
}  // namespace cuzk::pairing
