// Explicit instantiation of every field of both curves: the whole template is compiled once
// into cuzk_core, so a mistake in any member shows up at build time, not in the first caller.

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"

namespace cuzk::ff {
template class Field<bls12_381::FpData>;
template class Field<bls12_381::FrData>;
template struct Fp2<bls12_381::Fp>;
template class Field<bn254::FpData>;
template class Field<bn254::FrData>;
template struct Fp2<bn254::Fp>;
}  // namespace cuzk::ff
