#pragma once
// Random affine points for the MSM layer's unit tests: k·G for random k, so distinct with
// overwhelming probability, converted together.

#include <cstddef>
#include <random>
#include <vector>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"

namespace cuzk::test {

template <class Curve>
std::vector<ec::Affine<Curve>> random_affine_points(size_t n, std::mt19937_64& rng) {
  std::vector<ec::Jacobian<Curve>> jacobian(n);
  for (auto& p : jacobian) p = ec::mul_generator<Curve>(Curve::Scalar::random(rng));
  std::vector<ec::Affine<Curve>> points(n);
  ec::batch_to_affine<Curve>(jacobian, points);
  return points;
}

}  // namespace cuzk::test
