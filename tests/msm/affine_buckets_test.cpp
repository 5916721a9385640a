// The pieces of batch-affine accumulation on their own: BatchInverter (both the prime-field
// trick and the norm route of Fp2) and AffineBuckets driven with chosen sequences of
// additions, so that each path (stored into an empty bucket, batched, spilled into the XYZZ
// buckets, doubling, cancellation) is known to run, each checked against plain sums, through
// both reductions (running sums and lanes).

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ec/xyzz.hpp"
#include "msm/affine_buckets.hpp"
#include "msm/batch_inversion.hpp"
#include "tests/msm/groups.hpp"
#include "tests/msm/random_points.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class Group>
class AffineBucketsTest : public ::testing::Test {
 protected:
  using Curve = typename Group::Curve;
  using Field = typename Curve::Base;
  using Fr = typename Curve::Scalar;
  using Affine = ec::Affine<Curve>;
  using Jacobian = ec::Jacobian<Curve>;
  using Buckets = msm::AffineBuckets<Curve>;

  std::mt19937_64 rng_ = rng(std::string(Curve::kName) + "/" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());

  std::vector<Affine> random_points(size_t n) { return random_affine_points<Curve>(n, rng_); }

  struct Addition {
    size_t bucket;
    size_t point;
    bool negate;
  };

  // Runs the additions through AffineBuckets and compares Σ (j + 1)·B_j with the same sum of
  // buckets added up naively; returns the statistics of the run.
  msm::AffineBucketStats check(size_t buckets, const std::vector<Affine>& points,
                               const std::vector<Addition>& additions, size_t batch_size,
                               size_t min_batch_size) {
    Buckets accumulator(buckets, batch_size, min_batch_size);
    std::vector<Jacobian> expected_buckets(buckets, Jacobian::infinity());
    for (const Addition& a : additions) {
      accumulator.add(a.bucket, points[a.point], a.negate);
      expected_buckets[a.bucket] += a.negate ? -points[a.point] : points[a.point];
    }
    accumulator.finish();
    Jacobian expected = Jacobian::infinity();
    for (size_t j = 0; j < buckets; ++j) {
      expected += ec::scalar_mul<Curve>(expected_buckets[j], Fr::from_u64(j + 1));
    }
    // Both reductions: running sums, and lanes (dividing the bucket count or not).
    for (size_t lanes : {1, 2, 3, 7}) {
      EXPECT_EQ(accumulator.weighted_sum(lanes).to_jacobian(), expected)
          << "batch " << batch_size << ", minimum " << min_batch_size << ", lanes " << lanes;
    }
    return accumulator.stats();
  }
};

TYPED_TEST_SUITE_P(AffineBucketsTest);

// The trick's two chains hand out every inverse exactly once, in pairs of one even and one odd
// position (plus one even position alone when the count is odd), and each is right.
TYPED_TEST_P(AffineBucketsTest, BatchInverterHandsOutEachInverseOnce) {
  using Field = typename TestFixture::Field;
  msm::BatchInverter<Field> inverter;
  for (size_t n : {1, 2, 3, 4, 5, 17, 64}) {
    std::vector<Field> values(n);
    for (auto& v : values) {
      do {
        v = Field::random(this->rng_);
      } while (v.is_zero());
    }
    std::vector<int> seen(n, 0);
    size_t alone = 0;
    const auto check = [&](size_t i, const Field& inverse) {
      ASSERT_LT(i, n);
      ++seen[i];
      EXPECT_EQ(values[i] * inverse, Field::one()) << "n = " << n << ", i = " << i;
    };
    inverter.for_each_inverse(
        std::span<const Field>(values),
        [&](size_t i, const Field& inverse) {
          ++alone;
          check(i, inverse);
        },
        [&](size_t i, const Field& inverse_i, size_t j, const Field& inverse_j) {
          EXPECT_EQ(i % 2, 0u) << "n = " << n;
          EXPECT_EQ(j, i + 1) << "n = " << n;
          check(i, inverse_i);
          check(j, inverse_j);
        });
    EXPECT_EQ(alone, n % 2) << "n = " << n;
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(seen[i], 1) << "n = " << n << ", i = " << i;
  }
}

TYPED_TEST_P(AffineBucketsTest, BatchInverterInvertsEveryElement) {
  using Field = typename TestFixture::Field;
  msm::BatchInverter<Field> inverter;
  for (size_t n : {1, 2, 3, 17, 200}) {
    std::vector<Field> values(n);
    for (auto& v : values) {
      do {
        v = Field::random(this->rng_);
      } while (v.is_zero());
    }
    values[0] = Field::one();
    if (n > 1) values[1] = -Field::one();
    std::vector<Field> inverses = values;
    inverter.invert(inverses);  // the same object each time: its scratch is reused
    for (size_t i = 0; i < n; ++i) {
      EXPECT_EQ(values[i] * inverses[i], Field::one()) << "n = " << n << ", i = " << i;
    }
  }
  std::vector<Field> none;
  inverter.invert(none);
}

// Distinct points into many buckets: mostly stored and batched, nothing left waiting.
TYPED_TEST_P(AffineBucketsTest, DistinctPointsAreBatched) {
  const auto points = this->random_points(300);
  std::vector<typename TestFixture::Addition> additions;
  for (size_t i = 0; i < points.size(); ++i) {
    additions.push_back({this->rng_() % 50, i, this->rng_() % 2 == 0});
  }
  for (size_t batch : {1, 4, 16, 1000}) {
    const auto stats = this->check(50, points, additions, batch, batch);
    EXPECT_GT(stats.stored, 0u);
    EXPECT_EQ(stats.stored + stats.batched + stats.spilled, additions.size());
    if (batch <= 16) {
      EXPECT_GT(stats.batched, 0u);
    }
  }
}

// One point added again and again to one bucket: every batch-affine addition is a doubling
// (bucket = P + ... and P itself only at the first one), with batches of one; with a minimum
// batch above one the queue overflows into the XYZZ bucket instead.
TYPED_TEST_P(AffineBucketsTest, RepeatedPointDoublesOrSpills) {
  const auto points = this->random_points(1);
  const std::vector<typename TestFixture::Addition> additions(40, {0, 0, false});
  const auto batched = this->check(1, points, additions, 4, 1);
  EXPECT_GT(batched.batched, 0u);
  const auto spilled = this->check(1, points, additions, 4, 2);
  EXPECT_GT(spilled.spilled, 0u);
  EXPECT_EQ(spilled.stored + spilled.batched + spilled.spilled, additions.size());
}

// P then −P: the bucket empties (the batch-affine addition gives infinity), the next P is
// stored again; in batches and in the XYZZ buckets.
TYPED_TEST_P(AffineBucketsTest, OppositePointsCancel) {
  const auto points = this->random_points(3);
  std::vector<typename TestFixture::Addition> additions;
  for (size_t i = 0; i < 30; ++i) {
    additions.push_back({i % 3, i % 3, (i / 3) % 2 == 1});  // +P0 +P1 +P2 −P0 −P1 −P2 ...
  }
  const auto stats = this->check(3, points, additions, 3, 3);
  EXPECT_GT(stats.batched, 0u);
  EXPECT_GE(stats.stored, 3u * 5);  // each bucket refilled after every cancellation
  // Everything into one bucket: P, −P, P, −P ... through the queue and the XYZZ bucket.
  std::vector<typename TestFixture::Addition> one_bucket;
  for (size_t i = 0; i < 41; ++i) one_bucket.push_back({0, 0, i % 2 == 1});
  const auto spilled = this->check(1, points, one_bucket, 4, 3);
  EXPECT_GT(spilled.spilled, 0u);
}

// A few points, their negations and repetitions spread over six buckets: all three paths in
// one run, for several batch sizes and minimums (a batch holds at most six additions here, so
// every minimum is at most six).
TYPED_TEST_P(AffineBucketsTest, MixedInputsTakeEveryPath) {
  const auto points = this->random_points(5);
  // Which path an addition takes depends on the pattern of buckets and point indices only, not
  // on the points' values: a fixed pattern makes "every path" hold for any test seed.
  std::mt19937_64 pattern(6);
  std::vector<typename TestFixture::Addition> additions;
  for (size_t i = 0; i < 2000; ++i) {
    additions.push_back({pattern() % 6, pattern() % points.size(), pattern() % 3 == 0});
  }
  for (auto [batch, minimum] : {std::pair<size_t, size_t>{4, 2}, {5, 3}, {6, 6}, {8, 6}}) {
    const auto stats = this->check(6, points, additions, batch, minimum);
    EXPECT_GT(stats.stored, 0u) << batch;
    EXPECT_GT(stats.batched, 0u) << batch;
    EXPECT_GT(stats.spilled, 0u) << batch;
    EXPECT_EQ(stats.stored + stats.batched + stats.spilled, additions.size());
  }
}

// The lane reduction on bucket contents that make its batches degenerate: every bucket the
// same point (the running sums of all lanes equal, so T_s += R_s doubles), and buckets that
// cancel within a segment (R_s back to infinity).
TYPED_TEST_P(AffineBucketsTest, LaneReductionHandlesEqualAndOppositeSums) {
  const auto points = this->random_points(2);
  std::vector<typename TestFixture::Addition> same;
  for (size_t j = 0; j < 64; ++j) same.push_back({j, 0, false});
  this->check(64, points, same, 16, 16);
  std::vector<typename TestFixture::Addition> cancelling;
  for (size_t j = 0; j < 64; ++j) cancelling.push_back({j, j % 4 < 2 ? 0u : 1u, j % 2 == 1});
  this->check(64, points, cancelling, 16, 16);
}

REGISTER_TYPED_TEST_SUITE_P(AffineBucketsTest, BatchInverterHandsOutEachInverseOnce,
                            BatchInverterInvertsEveryElement, DistinctPointsAreBatched,
                            RepeatedPointDoublesOrSpills, OppositePointsCancel,
                            MixedInputsTakeEveryPath, LaneReductionHandlesEqualAndOppositeSums);

INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381G1, AffineBucketsTest, Bls12381G1);
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381G2, AffineBucketsTest, Bls12381G2);
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G1, AffineBucketsTest, Bn254G1);
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G2, AffineBucketsTest, Bn254G2);

}  // namespace
}  // namespace cuzk::test
