#pragma once
// One typed suite for the MSM layer over every group: each *_msm_test.cpp instantiates it for
// one group of groups.hpp. Every result is compared with the naive sum (naive_msm.hpp), and
// every MSM runs through the three entry points that must agree: Pippenger on field elements,
// Pippenger on canonical integers, and the 0/1/other classification. Random inputs come from
// tests/support/test_random.hpp (seed logged).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "ff/bigint.hpp"
#include "msm/instances.hpp"
#include "tests/msm/groups.hpp"
#include "tests/msm/naive_msm.hpp"
#include "tests/support/test_random.hpp"
#include "util/error.hpp"

namespace cuzk::test {

template <class Group>
class MsmTest : public ::testing::Test {
 protected:
  using Curve = typename Group::Curve;
  using Fr = typename Curve::Scalar;
  using Int = typename Fr::Int;
  using Affine = ec::Affine<Curve>;
  using Jacobian = ec::Jacobian<Curve>;

  std::mt19937_64 rng_ = rng(std::string(Curve::kName) + "/" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name());

  // n distinct subgroup points by a random walk: 16 random multiples of G as steps, each base
  // the previous one plus a random step (one mixed addition per base, one batch inversion).
  std::vector<Affine> random_bases(size_t n) {
    std::vector<Jacobian> steps_jacobian(16);
    for (auto& s : steps_jacobian) s = ec::mul_generator<Curve>(Fr::random(rng_));
    std::vector<Affine> steps(steps_jacobian.size());
    ec::batch_to_affine<Curve>(steps_jacobian, steps);
    std::vector<Jacobian> walk(n);
    Jacobian p = ec::mul_generator<Curve>(Fr::random(rng_));
    for (auto& w : walk) {
      p += steps[rng_() % steps.size()];
      w = p;
    }
    std::vector<Affine> bases(n);
    ec::batch_to_affine<Curve>(walk, bases);
    return bases;
  }

  std::vector<Fr> random_scalars(size_t n) {
    std::vector<Fr> scalars(n);
    for (auto& k : scalars) k = Fr::random(rng_);
    return scalars;
  }

  // Witness-like scalars: zero with probability zero_pct %, one with one_pct %, else random.
  std::vector<Fr> shaped_scalars(size_t n, unsigned zero_pct, unsigned one_pct) {
    std::vector<Fr> scalars(n);
    for (auto& k : scalars) {
      const unsigned roll = unsigned(rng_() % 100);
      k = roll < zero_pct ? Fr::zero() : roll < zero_pct + one_pct ? Fr::one() : Fr::random(rng_);
    }
    return scalars;
  }

  static std::vector<Int> canonical(std::span<const Fr> scalars) {
    std::vector<Int> ints(scalars.size());
    for (size_t i = 0; i < scalars.size(); ++i) ints[i] = scalars[i].to_int();
    return ints;
  }

  // Same coordinates, not only the same point: what determinism across thread counts means.
  static bool same_representation(const Jacobian& a, const Jacobian& b) {
    return a.X == b.X && a.Y == b.Y && a.Z == b.Z;
  }

  // Every MSM entry point on (bases, scalars) equals `expected`.
  static void expect_all_paths(std::span<const Affine> bases, std::span<const Fr> scalars,
                               const Jacobian& expected,
                               const msm::PippengerOptions& options = {}) {
    const std::vector<Int> ints = canonical(scalars);
    EXPECT_EQ(msm::pippenger<Curve>(bases, scalars, options), expected) << "pippenger (Fr)";
    EXPECT_EQ(msm::pippenger<Curve>(bases, ints, options), expected) << "pippenger (integers)";
    msm::PippengerOptions plain = options;
    plain.endomorphism = false;
    EXPECT_EQ(msm::pippenger<Curve>(bases, ints, plain), expected)
        << "pippenger without the GLV split";
    EXPECT_EQ(msm::msm_with_classification<Curve>(bases, scalars, options), expected)
        << "msm_with_classification";
  }

  static std::vector<uint64_t> select_all(size_t n) {
    std::vector<uint64_t> bitmap(msm::selection_words(n), ~uint64_t(0));
    if (n % 64 != 0) bitmap.back() = (uint64_t(1) << (n % 64)) - 1;
    return bitmap;
  }
};

TYPED_TEST_SUITE_P(MsmTest);

TYPED_TEST_P(MsmTest, RandomInputsMatchNaiveSum) {
  using Curve = typename TestFixture::Curve;
  for (size_t n : TypeParam::kRandomSizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const auto bases = this->random_bases(n);
    const auto scalars = this->random_scalars(n);
    this->expect_all_paths(bases, scalars, naive_msm<Curve>(bases, scalars));
  }
}

// Every window width, and small chunks (several tiles per window, combined in order).
TYPED_TEST_P(MsmTest, WindowWidthsAndChunksMatchNaiveSum) {
  using Curve = typename TestFixture::Curve;
  const size_t n = TypeParam::kMedium;
  const auto bases = this->random_bases(n);
  const auto scalars = this->shaped_scalars(n, 10, 10);
  const auto ints = this->canonical(scalars);
  const auto expected = naive_msm<Curve>(bases, scalars);
  for (unsigned c : TypeParam::kWindowSweep) {
    SCOPED_TRACE("window bits " + std::to_string(c));
    EXPECT_EQ(msm::pippenger<Curve>(bases, ints, {.window_bits = c}), expected);
    EXPECT_EQ(msm::pippenger<Curve>(bases, ints, {.window_bits = c, .endomorphism = false}),
              expected)
        << "without the GLV split";
    // Chunks repeat the 2^(c−1)-bucket reduction: only narrow windows are worth chunking.
    if (c <= 8) {
      EXPECT_EQ(msm::pippenger<Curve>(bases, ints, {.window_bits = c, .points_per_chunk = 97}),
                expected);
    }
  }
}

TYPED_TEST_P(MsmTest, ZeroScalarsGiveInfinity) {
  using Fr = typename TestFixture::Fr;
  auto bases = this->random_bases(TypeParam::kMedium);
  bases[3] = TestFixture::Affine::infinity();
  const std::vector<Fr> zeros(bases.size(), Fr::zero());
  this->expect_all_paths(bases, zeros, TestFixture::Jacobian::infinity());
  const std::vector<uint64_t> none(msm::selection_words(bases.size()), 0);
  EXPECT_TRUE(msm::sum_selected<typename TestFixture::Curve>(bases, none).is_infinity());
}

// Scalars equal to one: Pippenger's one-bucket case and the batch-addition path.
TYPED_TEST_P(MsmTest, OneScalarsGiveSumOfBases) {
  using Curve = typename TestFixture::Curve;
  using Fr = typename TestFixture::Fr;
  const size_t n = TypeParam::kLarge;
  const auto bases = this->random_bases(n);
  const std::vector<Fr> ones(n, Fr::one());
  const auto expected = naive_sum<Curve>(bases);
  this->expect_all_paths(bases, ones, expected);
  EXPECT_EQ(msm::sum_selected<Curve>(bases, this->select_all(n)), expected);
}

// The shape of PoRep witnesses: 70% zero, 25% one, 5% anything.
TYPED_TEST_P(MsmTest, WitnessShapedScalarsMatchNaiveSum) {
  using Curve = typename TestFixture::Curve;
  const size_t n = TypeParam::kLarge;
  const auto bases = this->random_bases(n);
  const auto scalars = this->shaped_scalars(n, 70, 25);
  this->expect_all_paths(bases, scalars, naive_msm<Curve>(bases, scalars));
}

// Scalars at the edges of the digit recoding: r − 1 and its neighbours, powers of two and
// their predecessors (every third bit position and the top ones), and window patterns whose
// digits reach ±2^(c−1).
TYPED_TEST_P(MsmTest, BoundaryScalarsMatchNaiveSum) {
  using Curve = typename TestFixture::Curve;
  using Fr = typename TestFixture::Fr;
  using Int = typename TestFixture::Int;
  std::vector<Fr> scalars = {Fr::zero() - Fr::one(), Fr::zero() - Fr::from_u64(2),
                             (Fr::zero() - Fr::one()) * Fr::from_u64(2).inverse(), Fr::one(),
                             Fr::from_u64(2)};
  Fr power = Fr::one();  // 2^k for k < kBits (every one is below r)
  for (size_t k = 0; k < Fr::kBits; ++k, power = power.dbl()) {
    if (k % 3 == 0 || k + 4 >= Fr::kBits) {
      scalars.push_back(power);
      scalars.push_back(power - Fr::one());
    }
  }
  // Integers below 2^(kBits − 1) (so below r) whose c-bit windows hold raw(w).
  auto windowed = [](unsigned c, auto raw) {
    Int v{};
    for (size_t bit = 0; bit + 1 < Fr::kBits; ++bit) {
      if ((raw(unsigned(bit / c)) >> (bit % c)) & 1) v.limb[bit / 64] |= uint64_t(1) << (bit % 64);
    }
    return Fr::from_int(v);
  };
  for (unsigned c : {2u, 5u, 8u, 13u, 16u}) {
    const uint64_t top = uint64_t(1) << (c - 1), all = (uint64_t(1) << c) - 1;
    const Fr patterns[] = {
        windowed(c, [&](unsigned w) { return w % 2 == 0 ? top : 0; }),  // −2^(c−1), +1, ...
        windowed(c, [&](unsigned w) { return w % 2 == 0 ? all : top - 1; }),  // −1, +2^(c−1), ...
        windowed(c, [&](unsigned) { return top; }),  // −2^(c−1), then −2^(c−1) + 1
    };
    for (const Fr& k : patterns) {
      scalars.push_back(k);
      scalars.push_back(-k);
    }
  }
  const auto bases = this->random_bases(scalars.size());
  const auto expected = naive_msm<Curve>(bases, scalars);
  this->expect_all_paths(bases, scalars, expected);
  for (unsigned c : {1u, 2u, 3u, 5u, 8u, 13u, 16u}) {
    SCOPED_TRACE("window bits " + std::to_string(c));
    EXPECT_EQ(msm::pippenger<Curve>(bases, std::span<const Fr>(scalars), {.window_bits = c}),
              expected);
  }
}

TYPED_TEST_P(MsmTest, BasesAtInfinityAreSkipped) {
  using Curve = typename TestFixture::Curve;
  const size_t n = TypeParam::kMedium;
  auto bases = this->random_bases(n);
  for (size_t i = 0; i < n; ++i) {
    if (this->rng_() % 5 == 0) bases[i] = TestFixture::Affine::infinity();
  }
  bases.front() = bases.back() = TestFixture::Affine::infinity();
  const auto scalars = this->shaped_scalars(n, 20, 30);
  this->expect_all_paths(bases, scalars, naive_msm<Curve>(bases, scalars));
  this->expect_all_paths(bases, scalars, naive_msm<Curve>(bases, scalars),
                         {.window_bits = 4, .points_per_chunk = 50});
  // The naive sum skips infinity as a plain addition of the identity.
  EXPECT_EQ(msm::sum_selected<Curve>(bases, this->select_all(n)), naive_sum<Curve>(bases));
}

// Equal bases meet in one bucket (and one batch-affine pair): the doubling case of each
// addition formula.
TYPED_TEST_P(MsmTest, DuplicatedBasesTakeTheDoublingPath) {
  using Curve = typename TestFixture::Curve;
  using Fr = typename TestFixture::Fr;
  const size_t n = TypeParam::kMedium;
  const auto distinct = this->random_bases(5);

  // One point n times, with one scalar: n·k·P.
  const std::vector<typename TestFixture::Affine> same(n, distinct[0]);
  const Fr k = Fr::random(this->rng_);
  const std::vector<Fr> same_scalar(n, k);
  this->expect_all_paths(same, same_scalar,
                         ec::scalar_mul<Curve>(distinct[0], k * Fr::from_u64(n)));
  EXPECT_EQ(msm::sum_selected<Curve>(same, this->select_all(n)),
            ec::scalar_mul<Curve>(distinct[0], Fr::from_u64(n)));

  // Five points repeated at random with scalars from a small set: repeated (point, digit)
  // pairs in buckets next to distinct ones.
  std::vector<typename TestFixture::Affine> bases(n);
  std::vector<Fr> scalars(n);
  const std::vector<Fr> few = {Fr::one(), Fr::from_u64(7), Fr::zero() - Fr::one(),
                               Fr::random(this->rng_)};
  for (size_t i = 0; i < n; ++i) {
    bases[i] = distinct[this->rng_() % distinct.size()];
    scalars[i] = few[this->rng_() % few.size()];
  }
  this->expect_all_paths(bases, scalars, naive_msm<Curve>(bases, scalars));
  EXPECT_EQ(msm::sum_selected<Curve>(bases, this->select_all(n)), naive_sum<Curve>(bases));
}

// P and −P with one scalar cancel inside a bucket (and in a batch-affine pair).
TYPED_TEST_P(MsmTest, NegatedBasesCancel) {
  using Curve = typename TestFixture::Curve;
  using Fr = typename TestFixture::Fr;
  const size_t half = TypeParam::kMedium / 2;
  const auto points = this->random_bases(half);
  const auto half_scalars = this->shaped_scalars(half, 10, 40);
  std::vector<typename TestFixture::Affine> bases;
  std::vector<Fr> scalars;
  for (size_t i = 0; i < half; ++i) {
    bases.push_back(points[i]);
    bases.push_back(-points[i]);
    scalars.push_back(half_scalars[i]);
    scalars.push_back(half_scalars[i]);
  }
  this->expect_all_paths(bases, scalars, TestFixture::Jacobian::infinity());
  EXPECT_TRUE(msm::sum_selected<Curve>(bases, this->select_all(bases.size())).is_infinity());

  // Unequal scalars on opposite points: partial cancellations.
  for (size_t i = 0; i < bases.size(); i += 3) scalars[i] = Fr::random(this->rng_);
  this->expect_all_paths(bases, scalars, naive_msm<Curve>(bases, scalars));
}

// Batch-affine accumulation forced at narrow and wide windows, with batches of one addition
// and up: repeated bases (doublings inside a bucket), opposite bases (cancellations), bases at
// infinity, scalars zero, one, −1 and repeated, against the naive sum and XYZZ accumulation.
TYPED_TEST_P(MsmTest, BatchAffineAccumulationMatchesNaiveSum) {
  using Curve = typename TestFixture::Curve;
  using Fr = typename TestFixture::Fr;
  using Affine = typename TestFixture::Affine;
  const size_t n = TypeParam::kMedium;
  const auto distinct = this->random_bases(6);
  const std::vector<Fr> few = {Fr::zero(),      Fr::one(),  Fr::from_u64(2),
                               Fr::from_u64(5), -Fr::one(), Fr::random(this->rng_)};
  std::vector<Affine> bases(n);
  std::vector<Fr> scalars(n);
  for (size_t i = 0; i < n; ++i) {
    const unsigned roll = unsigned(this->rng_() % 10);
    const Affine& p = distinct[this->rng_() % distinct.size()];
    bases[i] = roll == 0 ? Affine::infinity() : roll < 4 ? -p : p;
    scalars[i] = this->rng_() % 4 == 0 ? Fr::random(this->rng_) : few[this->rng_() % few.size()];
  }
  const auto ints = this->canonical(scalars);
  const auto expected = naive_msm<Curve>(bases, scalars);
  for (unsigned c : {1u, 3u, 9u}) {
    for (size_t batch : {1u, 4u, 64u}) {
      SCOPED_TRACE("window bits " + std::to_string(c) + ", batch " + std::to_string(batch));
      EXPECT_EQ(msm::pippenger<Curve>(bases, ints,
                                      {.window_bits = c,
                                       .accumulation = msm::BucketAccumulation::kBatchAffine,
                                       .batch_size = batch}),
                expected);
      // Both bucket reductions: running sums and lanes.
      for (size_t lanes : {1u, 2u, 8u}) {
        EXPECT_EQ(msm::pippenger<Curve>(bases, ints,
                                        {.window_bits = c,
                                         .accumulation = msm::BucketAccumulation::kBatchAffine,
                                         .batch_size = batch,
                                         .reduction_lanes = lanes}),
                  expected)
            << "lanes " << lanes;
      }
    }
    EXPECT_EQ(msm::pippenger<Curve>(
                  bases, ints, {.window_bits = c, .accumulation = msm::BucketAccumulation::kXyzz}),
              expected);
  }
  // Random inputs in both modes, at the default and a wide window.
  const auto random_bases = this->random_bases(n);
  const auto random_scalars = this->random_scalars(n);
  const auto random_ints = this->canonical(random_scalars);
  const auto random_expected = naive_msm<Curve>(random_bases, random_scalars);
  for (auto mode : {msm::BucketAccumulation::kXyzz, msm::BucketAccumulation::kBatchAffine}) {
    for (unsigned c : {0u, 11u}) {
      EXPECT_EQ(msm::pippenger<Curve>(random_bases, random_ints,
                                      {.window_bits = c, .accumulation = mode}),
                random_expected);
    }
  }
}

TYPED_TEST_P(MsmTest, SumSelectedMatchesNaiveSum) {
  using Curve = typename TestFixture::Curve;
  const size_t n = TypeParam::kSumSize;
  const auto bases = this->random_bases(n);
  std::vector<uint64_t> bitmap(msm::selection_words(n), 0);
  std::vector<typename TestFixture::Affine> selected;
  for (size_t i = 0; i < n; ++i) {
    if (this->rng_() % 3 != 0) {
      bitmap[i / 64] |= uint64_t(1) << (i % 64);
      selected.push_back(bases[i]);
    }
  }
  EXPECT_EQ(msm::sum_selected<Curve>(bases, bitmap), naive_sum<Curve>(selected));
  EXPECT_EQ(msm::sum_selected<Curve>(bases, this->select_all(n)), naive_sum<Curve>(bases));
  // A selection smaller than one batch-affine round, and a single point.
  const std::span<const typename TestFixture::Affine> few(bases.data(), 37);
  EXPECT_EQ(msm::sum_selected<Curve>(few, this->select_all(few.size())), naive_sum<Curve>(few));
  std::vector<uint64_t> only_last(msm::selection_words(n), 0);
  only_last.back() = uint64_t(1) << ((n - 1) % 64);
  EXPECT_EQ(msm::sum_selected<Curve>(bases, only_last),
            TestFixture::Jacobian::from_affine(bases.back()));
}

// Tiles are fixed by the input alone: 1 and 2 threads give the same coordinates.
TYPED_TEST_P(MsmTest, ResultIsIndependentOfThreadCount) {
  using Curve = typename TestFixture::Curve;
  const size_t n = TypeParam::kLarge;
  const auto bases = this->random_bases(n);
  const auto scalars = this->shaped_scalars(n, 40, 30);
  const auto sum_bases = this->random_bases(TypeParam::kSumSize);
  const auto sum_selection = this->select_all(sum_bases.size());
  const msm::PippengerOptions chunked = {.window_bits = 6, .points_per_chunk = n / 7};
  // Batch-affine tiles with small batches: queues and XYZZ spills in every tile.
  const msm::PippengerOptions batched = {.window_bits = 9,
                                         .points_per_chunk = n / 5,
                                         .accumulation = msm::BucketAccumulation::kBatchAffine,
                                         .batch_size = 7};

  struct Results {
    typename TestFixture::Jacobian automatic, chunked, batched, classified, sum;
  };
  auto run = [&](size_t threads) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
    return Results{msm::pippenger<Curve>(bases, scalars),
                   msm::pippenger<Curve>(bases, scalars, chunked),
                   msm::pippenger<Curve>(bases, scalars, batched),
                   msm::msm_with_classification<Curve>(bases, scalars),
                   msm::sum_selected<Curve>(sum_bases, sum_selection)};
  };
  const Results one = run(1), two = run(2);
  EXPECT_TRUE(this->same_representation(one.automatic, two.automatic));
  EXPECT_TRUE(this->same_representation(one.chunked, two.chunked));
  EXPECT_TRUE(this->same_representation(one.batched, two.batched));
  EXPECT_TRUE(this->same_representation(one.classified, two.classified));
  EXPECT_TRUE(this->same_representation(one.sum, two.sum));
  const auto expected = naive_msm<Curve>(bases, scalars);
  EXPECT_EQ(two.automatic, expected);
  EXPECT_EQ(two.chunked, expected);
  EXPECT_EQ(two.batched, expected);
  EXPECT_EQ(two.classified, expected);
  EXPECT_EQ(two.sum, naive_sum<Curve>(sum_bases));
}

TYPED_TEST_P(MsmTest, BadInputIsRejected) {
  using Curve = typename TestFixture::Curve;
  using Fr = typename TestFixture::Fr;
  using Int = typename TestFixture::Int;
  const auto bases = this->random_bases(70);
  const auto scalars = this->random_scalars(70);
  const std::span<const Fr> short_scalars(scalars.data(), 69);
  auto expect_invalid = [](auto&& call, const char* what) {
    try {
      call();
      ADD_FAILURE() << what << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << what;
    }
  };
  expect_invalid([&] { msm::pippenger<Curve>(bases, short_scalars); }, "length mismatch");
  expect_invalid([&] { msm::msm_with_classification<Curve>(bases, short_scalars); },
                 "length mismatch (classified)");
  auto ints = this->canonical(scalars);
  ints[17] = Fr::kModulus;
  expect_invalid([&] { msm::pippenger<Curve>(bases, ints); }, "scalar equal to r");
  ints[17] = Int{};
  for (auto& limb : ints[17].limb) limb = ~uint64_t(0);
  expect_invalid([&] { msm::pippenger<Curve>(bases, ints); }, "scalar 2^256 − 1");
  expect_invalid(
      [&] { msm::pippenger<Curve>(bases, scalars, {.window_bits = msm::kMaxWindowBits + 1}); },
      "window too wide");
  std::vector<uint64_t> bitmap(msm::selection_words(bases.size()), 0);
  bitmap.back() = uint64_t(1) << (bases.size() % 64);  // the bit of index 70
  expect_invalid([&] { msm::sum_selected<Curve>(bases, bitmap); }, "selection past the end");
  bitmap.push_back(0);
  expect_invalid([&] { msm::sum_selected<Curve>(bases, bitmap); }, "selection too long");
}

REGISTER_TYPED_TEST_SUITE_P(MsmTest, RandomInputsMatchNaiveSum, WindowWidthsAndChunksMatchNaiveSum,
                            ZeroScalarsGiveInfinity, OneScalarsGiveSumOfBases,
                            WitnessShapedScalarsMatchNaiveSum, BoundaryScalarsMatchNaiveSum,
                            BasesAtInfinityAreSkipped, DuplicatedBasesTakeTheDoublingPath,
                            NegatedBasesCancel, BatchAffineAccumulationMatchesNaiveSum,
                            SumSelectedMatchesNaiveSum, ResultIsIndependentOfThreadCount,
                            BadInputIsRejected);

}  // namespace cuzk::test
