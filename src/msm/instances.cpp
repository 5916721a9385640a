// Explicit instantiation of the MSM layer for the four groups and the two scalar fields.

#include "msm/instances.hpp"

namespace cuzk::msm {
CUZK_MSM_DECLARE_FOR_CURVE(, bls12_381::G1Curve)
CUZK_MSM_DECLARE_FOR_CURVE(, bls12_381::G2Curve)
CUZK_MSM_DECLARE_FOR_CURVE(, bn254::G1Curve)
CUZK_MSM_DECLARE_FOR_CURVE(, bn254::G2Curve)
CUZK_MSM_DECLARE_FOR_SCALAR_FIELD(, bls12_381::Fr)
CUZK_MSM_DECLARE_FOR_SCALAR_FIELD(, bn254::Fr)
}  // namespace cuzk::msm
