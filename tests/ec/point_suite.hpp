#pragma once
// One typed suite for every group: each *_points_test.cpp instantiates it for one group of
// groups.hpp. Random inputs come from tests/support/test_random.hpp (seed logged).

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/subgroup.hpp"
#include "ec/xyzz.hpp"
#include "ff/bigint.hpp"
#include "tests/ec/groups.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::test {

template <class Group>
class PointTest : public ::testing::Test {
 protected:
  using Curve = typename Group::Curve;
  using Field = typename Curve::Base;
  using Scalar = typename Curve::Scalar;
  using Affine = ec::Affine<Curve>;
  using Jacobian = ec::Jacobian<Curve>;
  using Xyzz = ec::Xyzz<Curve>;

  std::mt19937_64 rng_ = rng(std::string(Curve::kName) + "/" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());

  Field random_nonzero_field() {
    for (;;) {
      Field f = Field::random(rng_);
      if (!f.is_zero()) return f;
    }
  }
  Affine random_subgroup_point() {
    return ec::mul_generator<Curve>(Scalar::random(rng_)).to_affine();
  }
  // A point of E (or E'), not in general in the subgroup: x at random until x³ + b is square.
  Affine random_curve_point() {
    for (;;) {
      if (auto p = Affine::from_x(Field::random(rng_))) return *p;
    }
  }
  // The same point with a random Z: (X·λ², Y·λ³, λ), so that no formula sees Z = 1 only.
  Jacobian random_jacobian(const Affine& p) {
    if (p.is_infinity()) return Jacobian::infinity();
    Field l = random_nonzero_field();
    Field l2 = l.sqr();
    return {p.x * l2, p.y * l2 * l, l};
  }
  Xyzz random_xyzz(const Affine& p) {
    if (p.is_infinity()) return Xyzz::infinity();
    Field l = random_nonzero_field();
    Field l2 = l.sqr();
    Field l3 = l2 * l;
    return {p.x * l2, p.y * l3, l2, l3};
  }

  // ec::add_in_place's storage, here a plain value.
  struct XyzzSlots {
    Xyzz value;
    Field x() const { return value.X; }
    Field y() const { return value.Y; }
    Field zz() const { return value.ZZ; }
    Field zzz() const { return value.ZZZ; }
    void set_x(const Field& f) { value.X = f; }
    void set_y(const Field& f) { value.Y = f; }
    void set_zz(const Field& f) { value.ZZ = f; }
    void set_zzz(const Field& f) { value.ZZZ = f; }
    Xyzz load() const { return value; }
    void store(const Xyzz& v) { value = v; }
  };

  // P + Q by every addition path; each result must equal `expected`.
  void expect_all_sums(const Affine& p, const Affine& q, const Affine& expected) {
    Jacobian pj = random_jacobian(p), qj = random_jacobian(q);
    Xyzz px = random_xyzz(p), qx = random_xyzz(q);
    EXPECT_EQ((pj + qj).to_affine(), expected) << "Jacobian full";
    EXPECT_EQ(pj.add(q).to_affine(), expected) << "Jacobian mixed";
    EXPECT_EQ((px + qx).to_affine(), expected) << "XYZZ full";
    EXPECT_EQ(px.add(q).to_affine(), expected) << "XYZZ mixed";
    XyzzSlots slots{px};
    ec::add_in_place(slots, q);
    EXPECT_EQ(slots.value.to_affine(), expected) << "XYZZ mixed in place";
    EXPECT_EQ((px + qx).to_jacobian().to_affine(), expected) << "XYZZ to Jacobian";
    EXPECT_TRUE((pj + qj).is_on_curve());
  }
};

TYPED_TEST_SUITE_P(PointTest);

TYPED_TEST_P(PointTest, GeneratorIsOnCurveAndInSubgroup) {
  using Affine = typename TestFixture::Affine;
  Affine g = Affine::generator();
  EXPECT_FALSE(g.is_infinity());
  EXPECT_TRUE(g.is_on_curve());
  EXPECT_TRUE(TypeParam::is_in_subgroup(g));
  EXPECT_TRUE(ec::is_torsion_free_generic(g));
  EXPECT_TRUE(Affine::infinity().is_infinity());
  EXPECT_TRUE(Affine::infinity().is_on_curve());
  EXPECT_TRUE(TypeParam::is_in_subgroup(Affine::infinity()));
  EXPECT_EQ(-Affine::infinity(), Affine::infinity());
}

TYPED_TEST_P(PointTest, KnownAnswers) {
  using Affine = typename TestFixture::Affine;
  using Jacobian = typename TestFixture::Jacobian;
  using Xyzz = typename TestFixture::Xyzz;
  using Scalar = typename TestFixture::Scalar;
  Affine g = Affine::generator();
  Affine two_g = TypeParam::two_g();
  ASSERT_TRUE(two_g.is_on_curve());
  EXPECT_EQ(Jacobian::from_affine(g).dbl().to_affine(), two_g);
  EXPECT_EQ(Xyzz::from_affine(g).dbl().to_affine(), two_g);
  EXPECT_EQ(ec::scalar_mul(g, ff::BigInt<1>{{2}}).to_affine(), two_g);

  constexpr auto k = ff::parse_hex<Scalar::kLimbs>(kKnownAnswerScalarHex);
  EXPECT_EQ(ec::scalar_mul(g, k).to_affine(), TypeParam::k_g());
  EXPECT_EQ(ec::mul_generator<typename TestFixture::Curve>(Scalar::from_int(k)).to_affine(),
            TypeParam::k_g());
  EXPECT_EQ(ec::scalar_mul_binary(g, k).to_affine(), TypeParam::k_g());
}

TYPED_TEST_P(PointTest, SpecialScalars) {
  using Affine = typename TestFixture::Affine;
  using Jacobian = typename TestFixture::Jacobian;
  using Scalar = typename TestFixture::Scalar;
  Affine p = this->random_subgroup_point();
  Jacobian pj = this->random_jacobian(p);
  constexpr auto r = Scalar::kModulus;
  auto r_minus_1 = r;
  ff::sub_in_place(r_minus_1, ff::BigInt<Scalar::kLimbs>::from_u64(1));
  auto r_plus_1 = r;
  ff::add_in_place(r_plus_1, ff::BigInt<Scalar::kLimbs>::from_u64(1));

  EXPECT_TRUE(ec::scalar_mul(pj, ff::BigInt<1>{{0}}).is_infinity());
  EXPECT_TRUE(ec::scalar_mul(pj, Scalar::zero()).is_infinity());
  EXPECT_EQ(ec::scalar_mul(pj, Scalar::one()).to_affine(), p);
  EXPECT_TRUE(ec::scalar_mul(pj, r).is_infinity());
  EXPECT_TRUE(ec::scalar_mul_binary(p, r).is_infinity());
  EXPECT_EQ(ec::scalar_mul(pj, r_minus_1).to_affine(), -p);
  EXPECT_EQ(ec::scalar_mul(pj, -Scalar::one()).to_affine(), -p);
  EXPECT_EQ(ec::scalar_mul(pj, r_plus_1).to_affine(), p);
  EXPECT_TRUE(ec::scalar_mul(Jacobian::infinity(), r_minus_1).is_infinity());
  EXPECT_TRUE(ec::scalar_mul(Affine::infinity(), Scalar::one()).is_infinity());

  // Every small multiple against repeated addition: exercises each NAF digit and the table.
  Jacobian repeated = Jacobian::infinity();
  for (uint64_t k = 0; k < 70; ++k) {
    EXPECT_EQ(ec::scalar_mul(pj, ff::BigInt<1>{{k}}), repeated) << "k = " << k;
    EXPECT_EQ(ec::scalar_mul_binary(p, ff::BigInt<1>{{k}}), repeated) << "k = " << k;
    repeated += p;
  }
  // All 256 bits set: the NAF's extra top digit.
  ff::BigInt<4> all_ones = {{~0ull, ~0ull, ~0ull, ~0ull}};
  EXPECT_EQ(ec::scalar_mul(pj, all_ones), ec::scalar_mul_binary(pj, all_ones));
}

TYPED_TEST_P(PointTest, ScalarMultiplicationIsLinear) {
  using Scalar = typename TestFixture::Scalar;
  using Curve = typename TestFixture::Curve;
  auto& rng = this->rng_;
  for (size_t i = 0; i < scaled(16); ++i) {
    Scalar a = Scalar::random(rng), b = Scalar::random(rng);
    auto a_g = ec::mul_generator<Curve>(a);
    auto b_g = ec::mul_generator<Curve>(b);
    EXPECT_EQ(ec::mul_generator<Curve>(a + b), a_g + b_g);
    EXPECT_EQ(ec::mul_generator<Curve>(a * b), ec::scalar_mul(b_g, a));
    EXPECT_EQ(ec::scalar_mul(b_g, a), ec::scalar_mul_binary(b_g, a.to_int()));
    EXPECT_TRUE(a_g.is_on_curve());
  }
}

TYPED_TEST_P(PointTest, AdditionPathsAgree) {
  using Affine = typename TestFixture::Affine;
  using Jacobian = typename TestFixture::Jacobian;
  for (size_t i = 0; i < scaled(8); ++i) {
    Affine p = this->random_subgroup_point();
    Affine q = this->random_subgroup_point();
    Affine sum = (Jacobian::from_affine(p) + Jacobian::from_affine(q)).to_affine();
    this->expect_all_sums(p, q, sum);
    this->expect_all_sums(q, p, sum);
  }
  // Points outside the subgroup obey the same formulas.
  Affine p = this->random_curve_point();
  Affine q = this->random_curve_point();
  this->expect_all_sums(p, q, (Jacobian::from_affine(p) + q).to_affine());
}

TYPED_TEST_P(PointTest, ExceptionalAdditions) {
  using Affine = typename TestFixture::Affine;
  using Jacobian = typename TestFixture::Jacobian;
  using Xyzz = typename TestFixture::Xyzz;
  Affine o = Affine::infinity();
  for (size_t i = 0; i < scaled(4); ++i) {
    Affine p = this->random_subgroup_point();
    Affine two_p = ec::scalar_mul(p, ff::BigInt<1>{{2}}).to_affine();
    this->expect_all_sums(p, p, two_p);
    this->expect_all_sums(p, -p, o);
    this->expect_all_sums(o, p, p);
    this->expect_all_sums(p, o, p);
    EXPECT_EQ(this->random_jacobian(p).dbl().to_affine(), two_p);
    EXPECT_EQ(this->random_xyzz(p).dbl().to_affine(), two_p);
    EXPECT_EQ((this->random_jacobian(p) - this->random_jacobian(p)).to_affine(), o);
    EXPECT_EQ((this->random_xyzz(p) - p).to_affine(), o);
    // Projective equality ignores the representative, and sees different points.
    EXPECT_EQ(this->random_jacobian(p), this->random_jacobian(p));
    EXPECT_EQ(this->random_xyzz(p), this->random_xyzz(p));
    EXPECT_NE(this->random_jacobian(p), this->random_jacobian(two_p));
    EXPECT_NE(this->random_jacobian(p), Jacobian::infinity());
    EXPECT_NE(this->random_xyzz(p), Xyzz::infinity());
  }
  this->expect_all_sums(o, o, o);
  EXPECT_TRUE(Jacobian::infinity().dbl().is_infinity());
  EXPECT_TRUE(Xyzz::infinity().dbl().is_infinity());
  EXPECT_EQ(Jacobian::infinity().to_affine(), o);
  EXPECT_EQ(Xyzz::infinity().to_affine(), o);
  EXPECT_TRUE(Jacobian::from_affine(o).is_infinity());
  EXPECT_TRUE(Xyzz::from_affine(o).is_infinity());
  EXPECT_TRUE(Xyzz::from_jacobian(Jacobian::infinity()).is_infinity());
  EXPECT_TRUE(Xyzz::infinity().to_jacobian().is_infinity());
}

TYPED_TEST_P(PointTest, CoordinateConversionsRoundTrip) {
  using Affine = typename TestFixture::Affine;
  using Xyzz = typename TestFixture::Xyzz;
  for (size_t i = 0; i < scaled(8); ++i) {
    Affine p = this->random_subgroup_point();
    auto pj = this->random_jacobian(p);
    EXPECT_EQ(pj.to_affine(), p);
    EXPECT_TRUE(pj.is_on_curve());
    EXPECT_EQ(Xyzz::from_jacobian(pj).to_affine(), p);
    EXPECT_EQ(this->random_xyzz(p).to_jacobian(), pj);
    EXPECT_EQ(pj, p);
  }
}

TYPED_TEST_P(PointTest, BatchToAffine) {
  using Affine = typename TestFixture::Affine;
  using Jacobian = typename TestFixture::Jacobian;
  // Infinities first, last, in a run and alone; a size that is not a power of two.
  const size_t n = scaled(37);
  std::vector<Jacobian> points(n);
  for (size_t i = 0; i < n; ++i) {
    bool infinite = i == 0 || i == n - 1 || i % 7 == 3 || i % 7 == 4;
    points[i] = infinite ? Jacobian::infinity() : this->random_jacobian(this->random_curve_point());
  }
  std::vector<Affine> out(n);
  ec::batch_to_affine<typename TestFixture::Curve>(points, out);
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(out[i], points[i].to_affine()) << "index " << i;

  std::vector<Jacobian> all_infinite(3, Jacobian::infinity());
  std::vector<Affine> out3(3, Affine::generator());
  ec::batch_to_affine<typename TestFixture::Curve>(all_infinite, out3);
  for (const Affine& a : out3) EXPECT_TRUE(a.is_infinity());

  ec::batch_to_affine<typename TestFixture::Curve>(std::span<const Jacobian>{},
                                                   std::span<Affine>{});
  std::vector<Affine> too_short(n - 1);
  try {
    ec::batch_to_affine<typename TestFixture::Curve>(points, too_short);
    FAIL() << "mismatched lengths were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput);
  }
}

TYPED_TEST_P(PointTest, OffCurvePointsAreRejected) {
  using Affine = typename TestFixture::Affine;
  using Field = typename TestFixture::Field;
  for (size_t i = 0; i < scaled(16); ++i) {
    Affine p = this->random_curve_point();
    ASSERT_TRUE(p.is_on_curve());
    // (x, y + 1) is on the curve only if (y + 1)² = y², i.e. y = -1/2, and (x + 1, y) only if
    // 3x² + 3x + 1 = 0: a chance of about 2^-250 per draw.
    Affine moved = {p.x, p.y + Field::one()};
    EXPECT_FALSE(moved.is_on_curve());
    EXPECT_FALSE(this->random_jacobian(moved).is_on_curve());
    Affine shifted = {p.x + Field::one(), p.y};
    EXPECT_FALSE(shifted.is_on_curve());
  }
  EXPECT_FALSE((Affine{Field::zero(), Field::one()}.is_on_curve()));
  EXPECT_FALSE((Affine{Field::one(), Field::zero()}.is_on_curve()));
}

TYPED_TEST_P(PointTest, SubgroupCheckAgreesWithGeneric) {
  using Affine = typename TestFixture::Affine;
  using Jacobian = typename TestFixture::Jacobian;
  constexpr bool kHasCofactor = TestFixture::Curve::kCofactor.bit_length() > 1;
  constexpr auto r = TestFixture::Scalar::kModulus;
  size_t outside = 0;
  for (size_t i = 0; i < scaled(64); ++i) {
    Affine p = this->random_curve_point();
    bool generic = ec::is_torsion_free_generic(p);
    EXPECT_EQ(TypeParam::is_in_subgroup(p), generic);
    outside += !generic;

    // r·P keeps only the part of P outside the subgroup (order dividing h): rejected unless O.
    Affine torsion = ec::scalar_mul(p, r).to_affine();
    EXPECT_EQ(TypeParam::is_in_subgroup(torsion), torsion.is_infinity());
    EXPECT_EQ(ec::is_torsion_free_generic(torsion), torsion.is_infinity());
    // A subgroup point plus that torsion part: rejected unless the torsion part is O.
    Affine mixed = (Jacobian::from_affine(this->random_subgroup_point()) + torsion).to_affine();
    EXPECT_EQ(TypeParam::is_in_subgroup(mixed), torsion.is_infinity());

    // Cofactor clearing lands in the subgroup, by both checks.
    Affine cleared = TypeParam::clear_cofactor(p).to_affine();
    EXPECT_TRUE(cleared.is_on_curve());
    EXPECT_TRUE(TypeParam::is_in_subgroup(cleared));
    EXPECT_TRUE(ec::is_torsion_free_generic(cleared));
    EXPECT_TRUE(ec::is_torsion_free_generic(ec::clear_cofactor_generic(p).to_affine()));

    Affine inside = this->random_subgroup_point();
    EXPECT_TRUE(TypeParam::is_in_subgroup(inside));
    EXPECT_TRUE(ec::is_torsion_free_generic(inside));
  }
  // With h > 1 a random curve point lies in the subgroup with probability 1/h (h ≥ 3·11²).
  if (kHasCofactor) {
    EXPECT_GT(outside, 0u);
  }
}

TYPED_TEST_P(PointTest, FromX) {
  using Affine = typename TestFixture::Affine;
  using Field = typename TestFixture::Field;
  Affine g = Affine::generator();
  auto lifted = Affine::from_x(g.x);
  ASSERT_TRUE(lifted.has_value());
  EXPECT_TRUE(*lifted == g || *lifted == -g);
  // About half of all x have no point; among a few dozen draws some must fail, and every
  // success must be on the curve.
  size_t misses = 0;
  for (size_t i = 0; i < 40; ++i) {
    auto p = Affine::from_x(Field::random(this->rng_));
    if (!p) {
      ++misses;
      continue;
    }
    EXPECT_TRUE(p->is_on_curve());
  }
  EXPECT_GT(misses, 0u);
}

REGISTER_TYPED_TEST_SUITE_P(PointTest, GeneratorIsOnCurveAndInSubgroup, KnownAnswers,
                            SpecialScalars, ScalarMultiplicationIsLinear, AdditionPathsAgree,
                            ExceptionalAdditions, CoordinateConversionsRoundTrip, BatchToAffine,
                            OffCurvePointsAreRejected, SubgroupCheckAgreesWithGeneric, FromX);

}  // namespace cuzk::test
