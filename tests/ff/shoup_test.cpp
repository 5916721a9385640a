// Products by a fixed factor (ff/shoup.hpp): the precomputed quotient against GMP's division,
// the truncated high product (and its guard) against the whole product, and a·w against the
// Montgomery product a·w and GMP, on edge values, limb patterns and random inputs, all four
// prime fields. The device's PTX version is checked against this one in tests/gpu.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "ff/shoup.hpp"
#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class F>
class ShoupProduct : public ::testing::Test {
 protected:
  static constexpr size_t W = ff::ShoupFactor<F>::kWords;
  GmpField<F> gmp;
  std::mt19937_64 rng = test::rng(std::string("ff_shoup/") + field_name<F>() + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Inputs<F> inputs{gmp, rng};

  static Mpz limbs_to_mpz(const uint64_t* limbs) {
    ff::BigInt<F::kLimbs> v;
    for (size_t i = 0; i < F::kLimbs; ++i) v.limb[i] = limbs[i];
    return to_mpz(v);
  }
  static Mpz words_to_mpz(const uint32_t* w, size_t count) {
    Mpz r;
    for (size_t k = count; k-- > 0;) {
      mpz_mul_2exp(r.get(), r.get(), 32);
      mpz_add_ui(r.get(), r.get(), w[k]);
    }
    return r;
  }
};
using PrimeFields = ::testing::Types<bls12_381::Fp, bls12_381::Fr, bn254::Fp, bn254::Fr>;
TYPED_TEST_SUITE(ShoupProduct, PrimeFields, FieldNames);

TYPED_TEST(ShoupProduct, QuotientIsTheFloorOfTheScaledFactor) {
  using F = TypeParam;
  for (size_t i = 0; i < scaled(2000); ++i) {
    const F w = this->inputs.next();
    const ff::ShoupFactor<F> f = ff::ShoupFactor<F>::of(w);
    Mpz expected = this->gmp.value(w);
    ASSERT_EQ(this->limbs_to_mpz(f.value), expected);
    mpz_mul_2exp(expected.get(), expected.get(), 64 * F::kLimbs);
    mpz_fdiv_q(expected.get(), expected.get(), this->gmp.p.get());
    ASSERT_EQ(this->limbs_to_mpz(f.quotient), expected) << "case " << i;
  }
}

// The high half from the columns that reach it must be exact for any operands, also where the
// guard trips: all-ones operands put word W−1 of the kept columns at 2^32 − 6 with a carry
// still to come from the dropped ones.
TYPED_TEST(ShoupProduct, HighProductIsExact) {
  constexpr size_t W = TestFixture::W;
  std::vector<std::array<uint32_t, W>> operands;
  std::array<uint32_t, W> ones, top_bit{}, low{}, ones_but_low;
  ones.fill(~uint32_t(0));
  top_bit[W - 1] = uint32_t(1) << 31;
  low[0] = ~uint32_t(0);
  ones_but_low = ones;
  ones_but_low[0] = 0;
  operands = {ones, top_bit, low, ones_but_low};
  for (size_t i = 0; i < scaled(20000); ++i) {
    std::array<uint32_t, W> x;
    for (auto& word : x) {
      const uint64_t kind = this->rng() % 4;
      word = kind == 0 ? 0 : kind == 1 ? ~uint32_t(0) : uint32_t(this->rng());
    }
    operands.push_back(x);
  }
  size_t guard_trips = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const auto& a = operands[i];
    const auto& b = operands[(i * 7 + 3) % operands.size()];
    for (const auto& [x, y] : {std::pair{a, b}, std::pair{a, a}}) {
      std::array<uint32_t, W> got;
      ff::shoup_detail::high_product_words<W>(got.data(), x.data(), y.data());
      Mpz expected = this->words_to_mpz(x.data(), W);
      mpz_mul(expected.get(), expected.get(), this->words_to_mpz(y.data(), W).get());
      mpz_fdiv_q_2exp(expected.get(), expected.get(), 32 * W);
      ASSERT_EQ(this->words_to_mpz(got.data(), W), expected) << "case " << i;
      // The guard, recomputed: word W−1 of the kept columns.
      Mpz kept, term;
      for (size_t u = 0; u < W; ++u) {
        for (size_t v = 0; v < W; ++v) {
          mpz_set_ui(term.get(), x[u]);
          mpz_mul_ui(term.get(), term.get(), y[v]);
          if (u + v + 2 == W) mpz_fdiv_q_2exp(term.get(), term.get(), 32);
          if (u + v + 2 < W) continue;
          mpz_mul_2exp(term.get(), term.get(), 32 * (u + v + 2 == W ? u + v + 1 : u + v));
          mpz_add(kept.get(), kept.get(), term.get());
        }
      }
      mpz_fdiv_q_2exp(kept.get(), kept.get(), 32 * (W - 1));
      guard_trips += mpz_fdiv_ui(kept.get(), uint64_t(1) << 32) >= 0xfffffff0u;
    }
  }
  EXPECT_GT(guard_trips, 0u) << "no case exercised the exact fallback";
}

TYPED_TEST(ShoupProduct, EqualsTheMontgomeryProduct) {
  using F = TypeParam;
  std::vector<F> edges;
  for (size_t i = 0; i < this->inputs.edge_count(); ++i) edges.push_back(this->inputs.next());
  const size_t k = edges.size();
  for (size_t i = 0; i < std::max(k * k, scaled(20000)); ++i) {
    const F a = i < k * k ? edges[i / k] : this->inputs.next();
    const F w = i < k * k ? edges[i % k] : this->inputs.next();
    const F got = ff::mul_shoup(a, ff::ShoupFactor<F>::of(w));
    ASSERT_EQ(got, a * w) << "case " << i;
    Mpz expected;
    mpz_mul(expected.get(), this->gmp.value(a).get(), this->gmp.value(w).get());
    mpz_mod(expected.get(), expected.get(), this->gmp.p.get());
    ASSERT_EQ(this->gmp.value(got), expected) << "case " << i;
  }
}

}  // namespace
}  // namespace cuzk::test
