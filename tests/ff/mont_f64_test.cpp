// The FP64 Montgomery product (ff/mont_f64.hpp) on the host, where std::fma rounds exactly as
// the device's fma.rn: bit for bit against Field::operator* (itself checked against GMP in
// field_arith_test.cpp). Edge values (0, 1, p−1, saturated limbs, carries across every limb)
// meet each other pairwise, then random pairs from the logged seed; squares and products that
// alias their output too.

#include <gtest/gtest.h>

#include <bit>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "ff/mont_f64.hpp"
#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

using Fp = bls12_381::Fp;

struct Words {
  uint32_t w[ff::f64::kWords];
};

Words words(const Fp& x) {
  Words r{};
  for (size_t i = 0; i < Fp::kLimbs; ++i) {
    r.w[2 * i] = uint32_t(x.mont[i]);
    r.w[2 * i + 1] = uint32_t(x.mont[i] >> 32);
  }
  return r;
}

Fp element(const Words& x) {
  Fp r;
  for (size_t i = 0; i < Fp::kLimbs; ++i) {
    r.mont[i] = x.w[2 * i] | (uint64_t(x.w[2 * i + 1]) << 32);
  }
  return r;
}

Fp f64_product(const Fp& a, const Fp& b) {
  const Words wa = words(a), wb = words(b);
  Words r{};
  ff::f64::mont_mul<Fp>(r.w, wa.w, wb.w);
  return element(r);
}

TEST(MontF64, LimbsAndWordsRoundTrip) {
  auto gen = rng("mont_f64/limbs");
  for (int i = 0; i < 1000; ++i) {
    const Words w = words(Fp::random(gen));
    uint64_t limbs[ff::f64::kLimbs];
    ff::f64::limbs_of(limbs, w.w);
    for (uint64_t l : limbs) ASSERT_LE(l, ff::f64::kLimbMask);
    Words back{};
    ff::f64::words_of(back.w, limbs);
    for (size_t k = 0; k < ff::f64::kWords; ++k) ASSERT_EQ(back.w[k], w.w[k]);
  }
}

TEST(MontF64, ModulusLimbsRecomposeTheModulus) {
  using M = ff::f64::Modulus<Fp>;
  Words w{};
  ff::f64::words_of(w.w, M::kP.v);
  for (size_t i = 0; i < Fp::kLimbs; ++i) {
    EXPECT_EQ(w.w[2 * i] | (uint64_t(w.w[2 * i + 1]) << 32), Fp::kModulus.limb[i]) << i;
  }
  // −p⁻¹ mod 2^48: p·kInv ≡ −1.
  EXPECT_EQ((M::kP.v[0] * M::kInv) & ff::f64::kLimbMask, ff::f64::kLimbMask);
}

TEST(MontF64, ProductsEqualTheFieldsProducts) {
  GmpField<Fp> gmp;
  auto gen = rng("mont_f64/products");
  Inputs<Fp> inputs{gmp, gen};
  std::vector<Fp> edges;
  for (size_t i = 0; i < inputs.edge_count(); ++i) edges.push_back(inputs.next());
  // Saturated 48-bit limbs: representatives 2^(48j) − 1 for every j below 8.
  for (size_t j = 1; j < ff::f64::kLimbs; ++j) {
    ff::BigInt<Fp::kLimbs> m{};
    for (size_t bit = 0; bit < 48 * j; ++bit) m.limb[bit / 64] |= uint64_t(1) << (bit % 64);
    edges.push_back(Fp::from_montgomery(m));
  }
  const size_t k = edges.size();
  for (size_t i = 0; i < std::max(k * k, scaled(50000)); ++i) {
    const Fp a = i < k * k ? edges[i / k] : inputs.next();
    const Fp b = i < k * k ? edges[i % k] : inputs.next();
    ASSERT_EQ(f64_product(a, b), a * b) << "pair " << i;
    ASSERT_EQ(f64_product(a, a), a.sqr()) << "square " << i;
  }
}

TEST(MontF64, OutputMayAliasAnInput) {
  auto gen = rng("mont_f64/alias");
  for (int i = 0; i < 1000; ++i) {
    const Fp a = Fp::random(gen), b = Fp::random(gen);
    Words wa = words(a), wb = words(b);
    ff::f64::mont_mul<Fp>(wa.w, wa.w, wb.w);
    ASSERT_EQ(element(wa), a * b);
    wa = words(a);
    ff::f64::mont_mul<Fp>(wb.w, wa.w, wb.w);
    ASSERT_EQ(element(wb), a * b);
  }
}

}  // namespace
}  // namespace cuzk::test
