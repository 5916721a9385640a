// The signed-digit recoding (msm/signed_digits.hpp) and the window tuning table, on integers
// alone: digits stay in [−2^(c−1), 2^(c−1)], the last window needs no carry out, and
// Σ d_w·2^(cw) gives the scalar back, for every width the MSM accepts.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "ff/bigint.hpp"
#include "msm/signed_digits.hpp"
#include "msm/cpu_tuning.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::msm {
namespace {

// Σ d_w·2^(cw) by Horner's rule in 320-bit two's complement: every partial sum is below 2^300 in
// magnitude, so wrapping modulo 2^320 leaves the final value exact.
template <size_t N>
ff::BigInt<5> recompose(const ff::BigInt<N>& k, unsigned c, unsigned windows) {
  ff::BigInt<5> acc{};
  for (unsigned w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) ff::add_in_place(acc, acc);
    const int64_t d = signed_digit(k, c, w);
    const auto magnitude = ff::BigInt<5>::from_u64(uint64_t(d < 0 ? -d : d));
    if (d < 0) {
      ff::sub_in_place(acc, magnitude);
    } else {
      ff::add_in_place(acc, magnitude);
    }
  }
  return acc;
}

template <class Fr>
void check_recoding(const typename Fr::Int& k) {
  for (unsigned c = 1; c <= kMaxWindowBits; ++c) {
    const unsigned windows = signed_window_count(Fr::kBits, c);
    const int64_t half = int64_t(1) << (c - 1);
    for (unsigned w = 0; w < windows; ++w) {
      const int64_t d = signed_digit(k, c, w);
      ASSERT_TRUE(d >= -half && d <= half) << "c = " << c << ", window " << w << ": " << d;
    }
    // The top window ends below bit c·W − 1, so nothing carries out of it.
    ASSERT_GE(signed_digit(k, c, windows - 1), 0) << "c = " << c;
    ff::BigInt<5> expected{};
    for (size_t i = 0; i < Fr::kLimbs; ++i) expected.limb[i] = k.limb[i];
    ASSERT_EQ(recompose(k, c, windows), expected) << "c = " << c;
  }
}

template <class Fr>
void check_field(const std::string& name) {
  using Int = typename Fr::Int;
  std::vector<Int> cases = {Int{}, Int::from_u64(1), Int::from_u64(2)};
  Int r_minus_1 = Fr::kModulus;
  ff::sub_in_place(r_minus_1, Int::from_u64(1));
  cases.push_back(r_minus_1);
  for (size_t k = 0; k < Fr::kBits - 1; ++k) {
    Int power{};
    power.limb[k / 64] = uint64_t(1) << (k % 64);
    cases.push_back(power);
    ff::sub_in_place(power, Int::from_u64(1));
    cases.push_back(power);
  }
  auto rng = test::rng("signed_digits/" + name);
  for (size_t i = 0; i < test::scaled(200); ++i) cases.push_back(Fr::random(rng).to_int());
  for (const Int& k : cases) {
    check_recoding<Fr>(k);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(SignedDigits, RecodeBls12381Scalars) { check_field<bls12_381::Fr>("bls12_381"); }
TEST(SignedDigits, RecodeBn254Scalars) { check_field<bn254::Fr>("bn254"); }

TEST(SignedDigits, KnownDigits) {
  // 0b1011_0111 = 183 in 3-bit windows, raw 7, 6, 2: −1 (carry), 6 + 1 − 8 = −1 (carry),
  // 2 + 1 = 3; check: −1 − 8 + 3·64 = 183.
  const auto k = ff::BigInt<4>::from_u64(183);
  EXPECT_EQ(signed_digit(k, 3, 0), -1);
  EXPECT_EQ(signed_digit(k, 3, 1), -1);
  EXPECT_EQ(signed_digit(k, 3, 2), 3);
  EXPECT_EQ(signed_digit(k, 3, 3), 0);
  // c = 4: window 16 reads its carry from bit 63 (limb 0) and its bits from 64..67 (limb 1).
  ff::BigInt<4> high{};
  high.limb[0] = uint64_t(1) << 63;  // raw window 15 = 0b1000: digit −8, carry into window 16
  EXPECT_EQ(signed_digit(high, 4, 15), -8);
  EXPECT_EQ(signed_digit(high, 4, 16), 1);
  high.limb[1] = 0b0111;  // window 16 raw 7 plus the carry: 8, the positive extreme
  EXPECT_EQ(signed_digit(high, 4, 16), 8);
  EXPECT_EQ(signed_digit(high, 4, 17), 0);
}

TEST(WindowTuning, WidthsGrowWithSizeWithinLimits) {
  for (CoordinateField field : {CoordinateField::kPrime, CoordinateField::kQuadratic}) {
    unsigned previous = 1;
    for (size_t log_n = 0; log_n <= 40; ++log_n) {
      const unsigned c = window_bits_for(size_t(1) << log_n, field);
      EXPECT_GE(c, previous) << "n = 2^" << log_n;
      EXPECT_GE(c, 1u);
      EXPECT_LE(c, kMaxWindowBits);
      previous = c;
    }
    EXPECT_EQ(window_bits_for(0, field), window_bits_for(1, field));
  }
}

// Batch-affine parameters stay in range at every width: batches of at least one addition and
// at most a quarter of the buckets (beyond the smallest windows), reduction lanes either off or
// at least kMinReductionLanes and at most the buckets.
TEST(WindowTuning, BatchAffineParametersWithinLimits) {
  for (unsigned c = 1; c <= kMaxWindowBits; ++c) {
    const size_t buckets = size_t(1) << (c - 1);
    EXPECT_GE(batch_affine_size(c), 1u) << c;
    EXPECT_LE(batch_affine_size(c), std::max<size_t>(1, buckets / 4)) << c;
    const size_t lanes = reduction_lanes(c);
    if (lanes != 0) {
      EXPECT_GE(lanes, kMinReductionLanes) << c;
      EXPECT_LE(lanes, buckets) << c;
    }
  }
  EXPECT_LE(batch_affine_min_window_bits(CoordinateField::kQuadratic),
            batch_affine_min_window_bits(CoordinateField::kPrime));
}

}  // namespace
}  // namespace cuzk::msm
