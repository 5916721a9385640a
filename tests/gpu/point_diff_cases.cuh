#pragma once
// The curve checks of the GPU differential test: Jacobian full, mixed and doubling formulas and
// their XYZZ counterparts, on the device and on the host, for one group (G1 or G2) of a curve.
// Each curve's translation unit instantiates the typed suite for its two groups.
//
// Inputs: random points with unrelated Z coordinates (a walk P_(i+1) = P_i + B_(i mod 16)
// over 16 random multiples B_j of the generator), then shuffled partners, preceded by the
// cases that take the formulas' special branches: infinity on either side, P + P, P plus a
// rescaled copy of itself (equal points, different coordinates), and P − P.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/xyzz.hpp"
#include "tests/gpu/gpu_test_support.cuh"
#include "tests/support/test_random.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::test {

struct PointAdd {
  template <class P>
  CUZK_HD P operator()(const P& a, const P& b) const {
    return a + b;
  }
};
struct PointMixedAdd {
  template <class P, class A>
  CUZK_HD P operator()(const P& a, const A& b) const {
    return a.add(b);
  }
};
struct PointDbl {
  template <class P>
  CUZK_HD P operator()(const P& a) const {
    return a.dbl();
  }
};

// Pairs (p[i], q[i]) of Jacobian points with q_affine[i] = q[i] in affine form.
template <class Curve>
struct PointPairs {
  std::vector<ec::Jacobian<Curve>> p, q;
  std::vector<ec::Affine<Curve>> q_affine;
};

template <class Curve>
PointPairs<Curve> point_pairs(size_t random_count, std::mt19937_64& rng) {
  using Jac = ec::Jacobian<Curve>;
  using Field = typename Curve::Base;
  using Scalar = typename Curve::Scalar;

  std::vector<Jac> bases;
  for (int j = 0; j < 16; ++j) bases.push_back(ec::mul_generator<Curve>(Scalar::random(rng)));
  std::vector<Jac> walk(random_count);
  Jac acc = bases[0];
  for (size_t i = 0; i < random_count; ++i) {
    acc = acc + bases[i % bases.size()];
    walk[i] = acc;
  }

  // (λ²X, λ³Y, λZ) is the same point as (X, Y, Z).
  auto rescaled = [&](const Jac& pt) {
    Field lambda = Field::random(rng);
    Field lambda2 = lambda.sqr();
    return Jac{pt.X * lambda2, pt.Y * lambda2 * lambda, pt.Z * lambda};
  };
  PointPairs<Curve> pairs;
  auto add_pair = [&](const Jac& a, const Jac& b) {
    pairs.p.push_back(a);
    pairs.q.push_back(b);
  };
  const Jac inf = Jac::infinity();
  add_pair(inf, inf);
  for (size_t k = 0; k < 4 && k < walk.size(); ++k) {
    const Jac& pt = walk[k];
    add_pair(inf, pt);
    add_pair(pt, inf);
    add_pair(pt, pt);
    add_pair(pt, rescaled(pt));
    add_pair(pt, -pt);
    add_pair(pt, -rescaled(pt));
  }
  std::vector<Jac> partners = walk;
  std::shuffle(partners.begin(), partners.end(), rng);
  for (size_t i = 0; i < walk.size(); ++i) add_pair(walk[i], partners[i]);

  pairs.q_affine.resize(pairs.q.size());
  ec::batch_to_affine<Curve>(pairs.q, pairs.q_affine);
  return pairs;
}

template <class Curve>
std::vector<ec::Xyzz<Curve>> to_xyzz(const std::vector<ec::Jacobian<Curve>>& points) {
  std::vector<ec::Xyzz<Curve>> out;
  out.reserve(points.size());
  for (const auto& pt : points) out.push_back(ec::Xyzz<Curve>::from_jacobian(pt));
  return out;
}

// 2^16 random pairs per formula, times CUZK_TEST_SCALE: the host side is the slow one.
inline size_t point_case_count() { return cuzk::test::scaled(size_t(1) << 16); }

// TypeParam: a curve record of src/curves (e.g. bls12_381::G1Curve).
template <class Curve>
class PointDiffTest : public ::testing::Test {};
TYPED_TEST_SUITE_P(PointDiffTest);

TYPED_TEST_P(PointDiffTest, JacobianFormulas) {
  CUZK_SKIP_WITHOUT_GPU();
  const std::string name = TypeParam::kName;
  auto rng = cuzk::test::rng("gpu-jacobian-" + name);
  PointPairs<TypeParam> in = point_pairs<TypeParam>(point_case_count(), rng);
  expect_same_on_device(name, "jac add", PointAdd{}, in.p, in.q);
  expect_same_on_device(name, "jac madd", PointMixedAdd{}, in.p, in.q_affine);
  expect_same_on_device(name, "jac dbl", PointDbl{}, in.p);
}

TYPED_TEST_P(PointDiffTest, XyzzFormulas) {
  CUZK_SKIP_WITHOUT_GPU();
  const std::string name = TypeParam::kName;
  auto rng = cuzk::test::rng("gpu-xyzz-" + name);
  PointPairs<TypeParam> in = point_pairs<TypeParam>(point_case_count(), rng);
  auto p = to_xyzz(in.p), q = to_xyzz(in.q);
  expect_same_on_device(name, "xyzz add", PointAdd{}, p, q);
  expect_same_on_device(name, "xyzz madd", PointMixedAdd{}, p, in.q_affine);
  expect_same_on_device(name, "xyzz dbl", PointDbl{}, p);
}

REGISTER_TYPED_TEST_SUITE_P(PointDiffTest, JacobianFormulas, XyzzFormulas);

}  // namespace cuzk::gpu::test
