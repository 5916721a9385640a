// Conversions of the four prime fields against GMP: from_int/to_int, from_u64, byte encodings
// (little- and big-endian, canonical only), and random().

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <vector>

#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class F>
class FieldEncoding : public ::testing::Test {
 protected:
  static constexpr size_t N = F::kLimbs;
  static constexpr size_t kBytes = F::kBytes;
  using Bytes = std::array<uint8_t, kBytes>;

  GmpField<F> gmp;
  std::mt19937_64 rng = test::rng(std::string("ff_encoding/") + field_name<F>() + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Inputs<F> inputs{gmp, rng};

  // v as kBytes little-endian bytes (v < 2^(8·kBytes)).
  static Bytes le_bytes(const Mpz& v) {
    Bytes out{};
    size_t written = 0;
    mpz_export(out.data(), &written, -1, 1, 0, 0, v.get());
    return out;
  }
  static Bytes reversed(Bytes b) {
    std::reverse(b.begin(), b.end());
    return b;
  }
  // 2^(8·kBytes) − 1: the largest integer an encoding can hold.
  static Mpz all_ones() {
    Mpz v;
    mpz_setbit(v.get(), 8 * kBytes);
    mpz_sub_ui(v.get(), v.get(), 1);
    return v;
  }
};

using PrimeFields = ::testing::Types<bls12_381::Fp, bls12_381::Fr, bn254::Fp, bn254::Fr>;
TYPED_TEST_SUITE(FieldEncoding, PrimeFields, FieldNames);

TYPED_TEST(FieldEncoding, FromIntToIntMatchGmp) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  const auto& gmp = this->gmp;
  for (size_t i = 0; i < scaled(4000); ++i) {
    F a = this->inputs.next();
    Mpz v = gmp.value(a);
    ff::BigInt<N> canonical = to_bigint<N>(v);
    ASSERT_EQ(a.to_int(), canonical) << "v=" << v;
    // from_int must give exactly the representative v·R mod p.
    ASSERT_EQ(F::from_int(canonical).as_int(), a.as_int()) << "v=" << v;
  }
  for (uint64_t k : {uint64_t(0), uint64_t(1), uint64_t(2), ~uint64_t(0), this->rng()}) {
    EXPECT_EQ(gmp.value(F::from_u64(k)), gmp.reduce(Mpz(k))) << k;
  }
  EXPECT_EQ(F::from_u64(1), F::one());
  EXPECT_TRUE(F::from_u64(0).is_zero());
}

TYPED_TEST(FieldEncoding, BytesRoundTripAndMatchGmp) {
  using F = TypeParam;
  using Bytes = typename TestFixture::Bytes;
  const auto& gmp = this->gmp;
  for (size_t i = 0; i < scaled(4000); ++i) {
    F a = this->inputs.next();
    Mpz v = gmp.value(a);
    Bytes le, be;
    a.to_bytes_le(le);
    a.to_bytes_be(be);
    ASSERT_EQ(le, this->le_bytes(v)) << "v=" << v;
    ASSERT_EQ(be, this->reversed(le)) << "v=" << v;
    std::optional<F> from_le = F::from_bytes_le(le);
    std::optional<F> from_be = F::from_bytes_be(be);
    ASSERT_TRUE(from_le.has_value()) << "v=" << v;
    ASSERT_TRUE(from_be.has_value()) << "v=" << v;
    ASSERT_EQ(*from_le, a);
    ASSERT_EQ(*from_be, a);
  }
}

TYPED_TEST(FieldEncoding, FromBytesRejectsEveryValueAtLeastModulus) {
  using F = TypeParam;
  using Bytes = typename TestFixture::Bytes;
  const auto& gmp = this->gmp;
  auto check_rejected = [&](const Mpz& v) {
    Bytes le = this->le_bytes(v);
    EXPECT_FALSE(F::from_bytes_le(le).has_value()) << "accepted " << v;
    EXPECT_FALSE(F::from_bytes_be(this->reversed(le)).has_value()) << "accepted " << v;
  };
  Mpz p_plus_1;
  mpz_add_ui(p_plus_1.get(), gmp.p.get(), 1);
  Mpz two_p;
  mpz_mul_2exp(two_p.get(), gmp.p.get(), 1);
  check_rejected(gmp.p);
  check_rejected(p_plus_1);
  check_rejected(this->all_ones());
  if (mpz_sizeinbase(two_p.get(), 2) <= 8 * F::kBytes) check_rejected(two_p);

  // Uniform in [p, 2^(8·kBytes)).
  Mpz span;
  mpz_sub(span.get(), this->all_ones().get(), gmp.p.get());
  gmp_randstate_t state;
  gmp_randinit_mt(state);
  gmp_randseed_ui(state, this->rng());
  for (size_t i = 0; i < scaled(2000); ++i) {
    Mpz v;
    mpz_urandomm(v.get(), state, span.get());
    mpz_add(v.get(), v.get(), gmp.p.get());
    check_rejected(v);
    if (::testing::Test::HasFailure()) break;
  }
  gmp_randclear(state);

  // Arbitrary byte strings: accepted exactly when GMP reads them as < p, with that value.
  for (size_t i = 0; i < scaled(4000); ++i) {
    Bytes le;
    for (uint8_t& byte : le) byte = uint8_t(this->rng());
    // Half of them get a top byte no larger than p's (with its low nibble free), so that both
    // outcomes, and values just around p, are frequent.
    constexpr size_t kTop = F::kBytes - 1;
    const uint8_t p_top = uint8_t(F::kModulus.limb[kTop / 8] >> (8 * (kTop % 8)));
    if (i % 2 == 0) le.back() &= p_top | 0x0f;
    Mpz v;
    mpz_import(v.get(), le.size(), -1, 1, 0, 0, le.data());
    bool below_p = mpz_cmp(v.get(), gmp.p.get()) < 0;
    std::optional<F> from_le = F::from_bytes_le(le);
    std::optional<F> from_be = F::from_bytes_be(this->reversed(le));
    ASSERT_EQ(from_le.has_value(), below_p) << "v=" << v;
    ASSERT_EQ(from_be.has_value(), below_p) << "v=" << v;
    if (below_p) {
      ASSERT_EQ(gmp.value(*from_le), v);
      ASSERT_EQ(gmp.value(*from_be), v);
    }
  }

  Mpz p_minus_1;
  mpz_sub_ui(p_minus_1.get(), gmp.p.get(), 1);
  std::optional<F> top = F::from_bytes_le(this->le_bytes(p_minus_1));
  ASSERT_TRUE(top.has_value());
  EXPECT_EQ(*top, -F::one());
}

TYPED_TEST(FieldEncoding, RandomIsBelowModulusAndSpreadOut) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  const size_t n = scaled(4000);
  std::set<std::vector<uint64_t>> seen;
  size_t upper_half = 0;
  ff::BigInt<N> half = ff::shr(F::kModulus, 1);
  for (size_t i = 0; i < n; ++i) {
    F a = F::random(this->rng);
    ASSERT_LT(ff::compare(a.as_int(), F::kModulus), 0);
    seen.insert(std::vector<uint64_t>(a.mont, a.mont + N));
    upper_half += ff::compare(a.as_int(), half) > 0;
  }
  // Collisions among n uniform draws from ≥ 2^253 values are impossible in practice; the upper
  // half of [0, p) (which rejection sampling must reach) gets about n/2 with σ = √n/2; the band
  // below is ±6σ, a false alarm about once in 10⁹ runs.
  EXPECT_EQ(seen.size(), n);
  EXPECT_GT(upper_half, n / 2 - 3 * size_t(std::sqrt(double(n))));
  EXPECT_LT(upper_half, n / 2 + 3 * size_t(std::sqrt(double(n))));
}

}  // namespace
}  // namespace cuzk::test
