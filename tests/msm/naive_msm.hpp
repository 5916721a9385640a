#pragma once
// The naive MSM, Σ k_i·P_i with one scalar multiplication per term (ec/scalar_mul.hpp): slow,
// independent of everything in src/msm, and the reference the tests compare against.

#include <cstddef>
#include <span>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::test {

template <class Curve>
ec::Jacobian<Curve> naive_msm(std::span<const ec::Affine<Curve>> bases,
                              std::span<const typename Curve::Scalar> scalars) {
  ec::Jacobian<Curve> sum = ec::Jacobian<Curve>::infinity();
  for (size_t i = 0; i < bases.size(); ++i) sum += ec::scalar_mul<Curve>(bases[i], scalars[i]);
  return sum;
}

// Σ P_i by plain additions.
template <class Curve>
ec::Jacobian<Curve> naive_sum(std::span<const ec::Affine<Curve>> points) {
  ec::Jacobian<Curve> sum = ec::Jacobian<Curve>::infinity();
  for (const auto& p : points) sum += p;
  return sum;
}

}  // namespace cuzk::test
