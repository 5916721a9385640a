// The AVX-512 IFMA path of batch-affine addition against the scalar one: the 8-lane field
// operations against Field, a batch against ec::affine_sum one addition at a time (chords,
// doublings, opposite points, partly filled groups), and whole MSMs and selected sums with the
// vector path on and off, coordinate for coordinate. Skipped on CPUs without AVX-512 IFMA.

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "ec/affine.hpp"
#include "ec/affine_addition.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "msm/affine_batch_simd.hpp"
#include "msm/instances.hpp"
#include "tests/msm/groups.hpp"
#include "tests/msm/random_points.hpp"
#include "tests/support/test_random.hpp"

#if defined(__x86_64__)
#include "ff/lanes_ifma.hpp"
#endif

namespace cuzk::test {
namespace {

#if defined(__x86_64__)

enum class LaneOp { kMul, kSqr, kAdd, kSub, kEqual };

// out[i] = a[i] op b[i] for eight lanes through ff/lanes_ifma.hpp (kEqual: one or zero).
template <class Field>
CUZK_IFMA_TARGET void run_lanes(LaneOp op, const Field* a, const Field* b, Field* out) {
  namespace v = ff::ifma;
  using Vec = typename v::Lanes<Field>::Vec;
  const Vec x = v::from_fields<Field>(a), y = v::from_fields<Field>(b);
  if (op == LaneOp::kEqual) {
    const __mmask8 eq = v::equal<Field>(x, y);
    for (size_t lane = 0; lane < 8; ++lane) {
      out[lane] = (eq >> lane) & 1 ? Field::one() : Field::zero();
    }
    return;
  }
  const Vec r = op == LaneOp::kMul   ? v::mul<Field>(x, y)
                : op == LaneOp::kSqr ? v::sqr<Field>(x)
                : op == LaneOp::kAdd ? v::add<Field>(x, y)
                                     : v::sub<Field>(x, y);
  v::to_fields<Field>(r, out);
}

#endif

// The prime field under a coordinate field: the lanes' arithmetic is on prime fields.
template <class Field>
struct PrimeOf {
  using type = Field;
};
template <class Fp>
struct PrimeOf<ff::Fp2<Fp>> {
  using type = Fp;
};

template <class Group>
class AffineBatchSimdTest : public ::testing::Test {
 protected:
  using Curve = typename Group::Curve;
  using Field = typename Curve::Base;
  using Fr = typename Curve::Scalar;
  using Affine = ec::Affine<Curve>;
  using Jacobian = ec::Jacobian<Curve>;

  void SetUp() override {
    msm::simd::set_enabled(true);
    if (!msm::simd::enabled()) GTEST_SKIP() << "this CPU has no AVX-512 IFMA";
  }
  void TearDown() override { msm::simd::set_enabled(true); }

  std::mt19937_64 rng_ = rng(std::string(Curve::kName) + "/" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());

  std::vector<Affine> random_points(size_t n) { return random_affine_points<Curve>(n, rng_); }

  using Prime = typename PrimeOf<Field>::type;

  // Values that stress carries and the conditional subtractions, then random ones.
  std::vector<Prime> operands(size_t n) {
    using Field = Prime;
    typename Field::Int p_minus_1 = Field::kModulus;
    p_minus_1.limb[0] -= 1;  // p is odd
    typename Field::Int top_word_only{};
    top_word_only.limb[Field::kLimbs - 1] = Field::kModulus.limb[Field::kLimbs - 1];
    std::vector<Field> values = {Field::zero(),
                                 Field::one(),
                                 -Field::one(),
                                 -Field::one().dbl(),
                                 Field::from_montgomery(p_minus_1),
                                 Field::from_montgomery(top_word_only)};
    while (values.size() < n) values.push_back(Field::random(rng_));
    return values;
  }
};

TYPED_TEST_SUITE_P(AffineBatchSimdTest);

TYPED_TEST_P(AffineBatchSimdTest, LaneArithmeticMatchesField) {
#if defined(__x86_64__)
  using Field = typename TestFixture::Prime;
  if constexpr (!std::is_same_v<Field, typename TestFixture::Field>) {
    GTEST_SKIP() << "G2's base field is G1's coordinate field, tested there";
  }
  const std::vector<Field> values = this->operands(64);
  // Every pair of the edge values, and random pairs, eight at a time.
  std::vector<std::pair<Field, Field>> pairs;
  for (size_t i = 0; i < 6; ++i) {
    for (size_t j = 0; j < 6; ++j) pairs.push_back({values[i], values[j]});
  }
  for (size_t i = 0; i < 2000; ++i) {
    pairs.push_back({values[this->rng_() % values.size()], Field::random(this->rng_)});
  }
  pairs.push_back({values[7], values[7]});
  while (pairs.size() % 8 != 0) pairs.push_back({values[9], values[9]});
  for (size_t first = 0; first < pairs.size(); first += 8) {
    Field a[8], b[8], out[8];
    for (size_t lane = 0; lane < 8; ++lane) {
      a[lane] = pairs[first + lane].first;
      b[lane] = pairs[first + lane].second;
    }
    for (LaneOp op : {LaneOp::kMul, LaneOp::kSqr, LaneOp::kAdd, LaneOp::kSub, LaneOp::kEqual}) {
      run_lanes<Field>(op, a, b, out);
      for (size_t lane = 0; lane < 8; ++lane) {
        const Field expected = op == LaneOp::kMul   ? a[lane] * b[lane]
                               : op == LaneOp::kSqr ? a[lane].sqr()
                               : op == LaneOp::kAdd ? a[lane] + b[lane]
                               : op == LaneOp::kSub ? a[lane] - b[lane]
                               : a[lane] == b[lane] ? Field::one()
                                                    : Field::zero();
        ASSERT_EQ(out[lane].as_int(), expected.as_int())
            << "op " << int(op) << ", pair " << first + lane;
      }
    }
  }
#endif
}

// A batch through the vector path equals ec::affine_sum applied one addition at a time, with
// negated points, doublings and opposite points among chords, and group sizes that leave lanes
// empty.
TYPED_TEST_P(AffineBatchSimdTest, BatchMatchesScalarSums) {
  using Affine = typename TestFixture::Affine;
  using Curve = typename TestFixture::Curve;
  for (size_t n : {1, 2, 7, 8, 9, 31, 64, 300, 1024}) {
    const std::vector<Affine> pool = this->random_points(n + 4);
    std::vector<Affine> negated(pool.size());
    for (size_t i = 0; i < pool.size(); ++i) negated[i] = -pool[i];
    const size_t buckets = 2 * n + 5;
    std::vector<Affine> targets(buckets, Affine::infinity());
    std::vector<msm::simd::BatchAddition<Curve>> batch(n);
    for (size_t k = 0; k < n; ++k) {
      const uint32_t bucket = uint32_t(2 * k + 1);
      targets[bucket] = pool[k];
      batch[k] = {bucket, this->rng_() % 2 == 0, &pool[(k + 1 + this->rng_() % 3) % pool.size()]};
      if (k % 13 == 5) batch[k] = {bucket, false, &pool[k]};    // a doubling
      if (k % 19 == 7) batch[k] = {bucket, true, &negated[k]};  // a doubling, negated twice
      if (k % 17 == 3) batch[k] = {bucket, true, &pool[k]};     // the sum is infinity
    }
    std::vector<Affine> expected = targets;
    for (const auto& a : batch) {
      const Affine point = a.negate ? -*a.point : *a.point;
      Affine& t = expected[a.bucket];
      t = ec::affine_sum(t, point, ec::affine_sum_denominator(t, point).inverse());
    }
    msm::simd::add_batch<Curve>(targets, batch);
    for (size_t j = 0; j < buckets; ++j) {
      ASSERT_EQ(targets[j], expected[j]) << "batch of " << n << ", bucket " << j;
    }
  }
}

// Whole MSMs: the same coordinates with the vector path on and off (batch-affine buckets and
// the batch-affine reduction both go through it).
TYPED_TEST_P(AffineBatchSimdTest, PippengerSameWithAndWithoutVectors) {
  using Fr = typename TestFixture::Fr;
  using Curve = typename TestFixture::Curve;
  for (size_t n : {size_t(100), TypeParam::kLarge}) {
    const auto bases = this->random_points(n);
    std::vector<Fr> scalars(n);
    for (auto& s : scalars) s = Fr::random(this->rng_);
    for (auto accumulation :
         {msm::BucketAccumulation::kAuto, msm::BucketAccumulation::kBatchAffine}) {
      msm::PippengerOptions options;
      options.accumulation = accumulation;
      msm::simd::set_enabled(true);
      const auto with = msm::pippenger<Curve>(bases, scalars, options);
      msm::simd::set_enabled(false);
      const auto without = msm::pippenger<Curve>(bases, scalars, options);
      msm::simd::set_enabled(true);
      EXPECT_EQ(with.X, without.X) << n;
      EXPECT_EQ(with.Y, without.Y) << n;
      EXPECT_EQ(with.Z, without.Z) << n;
    }
  }
}

// The batch addition of selected bases (pairwise rounds, opposite points among them) and the
// classified MSM built on it: the same coordinates with the vector path on and off.
TYPED_TEST_P(AffineBatchSimdTest, SelectedSumSameWithAndWithoutVectors) {
  using Affine = typename TestFixture::Affine;
  using Fr = typename TestFixture::Fr;
  using Curve = typename TestFixture::Curve;
  const size_t n = TypeParam::kLarge;
  std::vector<Affine> bases = this->random_points(n);
  for (size_t i = 0; i + 1 < n; i += 97) bases[i + 1] = -bases[i];  // pairs that cancel
  std::vector<uint64_t> selection(msm::selection_words(n));
  std::vector<Fr> scalars(n);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = this->rng_() % 10;
    if (r < 6) selection[i / 64] |= uint64_t(1) << (i % 64);
    scalars[i] = r < 6 ? Fr::one() : r < 8 ? Fr::zero() : Fr::random(this->rng_);
  }
  msm::simd::set_enabled(true);
  const auto sum_with = msm::sum_selected<Curve>(bases, selection);
  const auto classified_with = msm::msm_with_classification<Curve>(bases, scalars);
  msm::simd::set_enabled(false);
  const auto sum_without = msm::sum_selected<Curve>(bases, selection);
  const auto classified_without = msm::msm_with_classification<Curve>(bases, scalars);
  msm::simd::set_enabled(true);
  EXPECT_EQ(sum_with.X, sum_without.X);
  EXPECT_EQ(sum_with.Y, sum_without.Y);
  EXPECT_EQ(sum_with.Z, sum_without.Z);
  EXPECT_EQ(classified_with.X, classified_without.X);
  EXPECT_EQ(classified_with.Y, classified_without.Y);
  EXPECT_EQ(classified_with.Z, classified_without.Z);
  std::vector<Affine> chosen;
  for (size_t i = 0; i < n; ++i) {
    if ((selection[i / 64] >> (i % 64)) & 1) chosen.push_back(bases[i]);
  }
  typename TestFixture::Jacobian naive = TestFixture::Jacobian::infinity();
  for (const Affine& p : chosen) naive += p;
  EXPECT_EQ(sum_with, naive);
}

REGISTER_TYPED_TEST_SUITE_P(AffineBatchSimdTest, LaneArithmeticMatchesField, BatchMatchesScalarSums,
                            PippengerSameWithAndWithoutVectors,
                            SelectedSumSameWithAndWithoutVectors);
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381G1, AffineBatchSimdTest, Bls12381G1);
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381G2, AffineBatchSimdTest, Bls12381G2);
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G1, AffineBatchSimdTest, Bn254G1);
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G2, AffineBatchSimdTest, Bn254G2);

}  // namespace
}  // namespace cuzk::test
