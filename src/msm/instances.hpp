#pragma once
// The MSM layer for the four groups (G1 and G2 of BLS12-381 and BN254). The templates are
// compiled once, into cuzk_core (instances.cpp); including this header instead of the template
// headers keeps every other translation unit from compiling them again.

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "curves/glv_constants.hpp"  // before the templates: pippenger splits scalars where ec::Glv exists
#include "msm/batch_addition.hpp"
#include "msm/classified_msm.hpp"
#include "msm/pippenger.hpp"

#define CUZK_MSM_DECLARE_FOR_CURVE(EXTERN, Curve)                                               \
  EXTERN template ec::Jacobian<Curve> pippenger<Curve>(std::span<const ec::Affine<Curve>>,      \
                                                       std::span<const ScalarInt<Curve>>,       \
                                                       const PippengerOptions&);                \
  EXTERN template ec::Jacobian<Curve> pippenger<Curve>(std::span<const ec::Affine<Curve>>,      \
                                                       std::span<const typename Curve::Scalar>, \
                                                       const PippengerOptions&);                \
  EXTERN template ec::Jacobian<Curve> sum_selected<Curve>(std::span<const ec::Affine<Curve>>,   \
                                                          std::span<const uint64_t>);           \
  EXTERN template ec::Jacobian<Curve> msm_with_classification<Curve>(                           \
      std::span<const ec::Affine<Curve>>, std::span<const typename Curve::Scalar>,              \
      const PippengerOptions&);

#define CUZK_MSM_DECLARE_FOR_SCALAR_FIELD(EXTERN, Fr)                      \
  EXTERN template ScalarClasses classify_scalars<Fr>(std::span<const Fr>); \
  EXTERN template std::vector<typename Fr::Int> to_canonical<Fr>(std::span<const Fr>);

namespace cuzk::msm {
CUZK_MSM_DECLARE_FOR_CURVE(extern, bls12_381::G1Curve)
CUZK_MSM_DECLARE_FOR_CURVE(extern, bls12_381::G2Curve)
CUZK_MSM_DECLARE_FOR_CURVE(extern, bn254::G1Curve)
CUZK_MSM_DECLARE_FOR_CURVE(extern, bn254::G2Curve)
CUZK_MSM_DECLARE_FOR_SCALAR_FIELD(extern, bls12_381::Fr)
CUZK_MSM_DECLARE_FOR_SCALAR_FIELD(extern, bn254::Fr)
}  // namespace cuzk::msm
