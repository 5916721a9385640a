#pragma once
// The NTT layer for the scalar fields of both curves. The templates are compiled once, into
// cuzk_core (instances.cpp); including this header instead of the template headers keeps every
// other translation unit from compiling them again.

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "ntt/domain.hpp"
#include "ntt/h_polynomial.hpp"

#define CUZK_NTT_DECLARE_FOR_FIELD(EXTERN, Fr)                                                     \
  EXTERN template class Domain<Fr>;                                                                \
  EXTERN template void snarkjs_h_scalars<Fr>(const Domain<Fr>&, std::span<Fr>, std::span<Fr>,      \
                                             std::span<Fr>);                                       \
  EXTERN template void bellman_h_coefficients<Fr>(const Domain<Fr>&, std::span<Fr>, std::span<Fr>, \
                                                  std::span<Fr>);                                  \
  EXTERN template void fill_powers<Fr>(std::span<Fr>, const Fr&, const Fr&);                       \
  EXTERN template void scale_by_powers<Fr>(std::span<Fr>, Order, const Fr&, const Fr&);            \
  EXTERN template void bit_reverse_permute<Fr>(std::span<Fr>);

namespace cuzk::ntt {
CUZK_NTT_DECLARE_FOR_FIELD(extern, bls12_381::Fr)
CUZK_NTT_DECLARE_FOR_FIELD(extern, bn254::Fr)
}  // namespace cuzk::ntt
