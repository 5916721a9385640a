// Field arithmetic of the four prime fields against GMP: add, sub, neg, dbl, mul, sqr, pow,
// inverse and batch_inverse, on uniform values mixed with edge values and limb patterns.

#include <gtest/gtest.h>

#include <vector>

#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class F>
class FieldArith : public ::testing::Test {
 protected:
  GmpField<F> gmp;
  std::mt19937_64 rng = test::rng(std::string("ff_arith/") + field_name<F>() + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Inputs<F> inputs{gmp, rng};
  // Every edge value meets every other edge value in the pairwise tests.
  size_t pair_cases() const {
    return std::max(inputs.edge_count() * inputs.edge_count(), scaled(4000));
  }
};

using PrimeFields = ::testing::Types<bls12_381::Fp, bls12_381::Fr, bn254::Fp, bn254::Fr>;
TYPED_TEST_SUITE(FieldArith, PrimeFields, FieldNames);

TYPED_TEST(FieldArith, AddSubNegDblMatchGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  std::vector<F> edges;
  for (size_t i = 0; i < this->inputs.edge_count(); ++i) edges.push_back(this->inputs.next());
  for (size_t i = 0; i < this->pair_cases(); ++i) {
    size_t k = edges.size();
    F a = i < k * k ? edges[i / k] : this->inputs.next();
    F b = i < k * k ? edges[i % k] : this->inputs.next();
    Mpz va = gmp.value(a), vb = gmp.value(b);
    ASSERT_EQ(gmp.value(a + b), gmp.add(va, vb)) << "a=" << va << " b=" << vb;
    ASSERT_EQ(gmp.value(a - b), gmp.sub(va, vb)) << "a=" << va << " b=" << vb;
    ASSERT_EQ(gmp.value(-a), gmp.sub(Mpz(0), va)) << "a=" << va;
    ASSERT_EQ(gmp.value(a.dbl()), gmp.add(va, va)) << "a=" << va;
    // The representation stays canonical (< p), which the byte encodings and equality rely on.
    ASSERT_LT(ff::compare((a + b).as_int(), F::kModulus), 0);
    ASSERT_LT(ff::compare((a - b).as_int(), F::kModulus), 0);
  }
}

TYPED_TEST(FieldArith, MulSqrMatchGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  std::vector<F> edges;
  for (size_t i = 0; i < this->inputs.edge_count(); ++i) edges.push_back(this->inputs.next());
  for (size_t i = 0; i < this->pair_cases(); ++i) {
    size_t k = edges.size();
    F a = i < k * k ? edges[i / k] : this->inputs.next();
    F b = i < k * k ? edges[i % k] : this->inputs.next();
    Mpz va = gmp.value(a), vb = gmp.value(b);
    F ab = a * b;
    ASSERT_EQ(gmp.value(ab), gmp.mul(va, vb)) << "a=" << va << " b=" << vb;
    ASSERT_LT(ff::compare(ab.as_int(), F::kModulus), 0) << "a=" << va << " b=" << vb;
    F aa = a.sqr();
    ASSERT_EQ(gmp.value(aa), gmp.mul(va, va)) << "a=" << va;
    ASSERT_LT(ff::compare(aa.as_int(), F::kModulus), 0) << "a=" << va;
    F c = a;
    c *= b;
    ASSERT_EQ(c, ab);
  }
}

// a·b − c·d in one reduction (the x86 kernels' path on release builds, the plain expression
// elsewhere): edge pairs give both orders of magnitude of the two products and equal ones.
TYPED_TEST(FieldArith, DifferenceOfProductsMatchesGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  std::vector<F> edges;
  for (size_t i = 0; i < this->inputs.edge_count(); ++i) edges.push_back(this->inputs.next());
  const size_t k = edges.size();
  for (size_t i = 0; i < this->pair_cases(); ++i) {
    const bool edge = i < k * k;
    const F a = edge ? edges[i / k] : this->inputs.next();
    const F b = edge ? edges[i % k] : this->inputs.next();
    const F c = edge ? edges[i % k] : this->inputs.next();
    const F d = edge ? edges[(i / k + i) % k] : this->inputs.next();
    const F got = F::difference_of_products(a, b, c, d);
    const Mpz va = gmp.value(a), vb = gmp.value(b), vc = gmp.value(c), vd = gmp.value(d);
    ASSERT_EQ(gmp.value(got), gmp.sub(gmp.mul(va, vb), gmp.mul(vc, vd)))
        << "a=" << va << " b=" << vb << " c=" << vc << " d=" << vd;
    ASSERT_LT(ff::compare(got.as_int(), F::kModulus), 0);
    ASSERT_EQ(got, a * b - c * d);
  }
}

// Release builds on x86-64 multiply with the MULX/ADX kernels (ff/mont_x86.hpp); the portable
// CIOS still computes every compile-time constant and runs on other hosts, so it is checked
// here at run time too.
TYPED_TEST(FieldArith, PortableProductMatchesGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  for (size_t i = 0; i < this->pair_cases(); ++i) {
    F a = this->inputs.next(), b = this->inputs.next(), ab;
    ff::detail::mont_mul_cios<F::kLimbs>(ab.mont, a.mont, b.mont, F::kModulus.limb, F::kInv);
    ASSERT_EQ(gmp.value(ab), gmp.mul(gmp.value(a), gmp.value(b)))
        << "a=" << gmp.value(a) << " b=" << gmp.value(b);
    ASSERT_LT(ff::compare(ab.as_int(), F::kModulus), 0);
  }
}

TYPED_TEST(FieldArith, PowMatchesGmp) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  const auto& gmp = this->gmp;
  for (size_t i = 0; i < scaled(600); ++i) {
    F a = this->inputs.next();
    Mpz va = gmp.value(a);
    uint64_t small = this->rng() >> (this->rng() % 64);
    ASSERT_EQ(gmp.value(a.pow(small)), gmp.pow(va, Mpz(small))) << "a=" << va << " e=" << small;
    ff::BigInt<N> e;
    for (size_t j = 0; j < N; ++j) e.limb[j] = this->rng();  // exponents up to 2^(64N), not < p
    ASSERT_EQ(gmp.value(a.pow(e)), gmp.pow(va, to_mpz(e))) << "a=" << va << " e=" << to_mpz(e);
  }
  F a = F::from_u64(7);
  EXPECT_EQ(a.pow(uint64_t(0)), F::one());
  EXPECT_EQ(F::zero().pow(uint64_t(0)), F::one());  // 0^0 = 1, as in GMP
  EXPECT_EQ(F::zero().pow(uint64_t(5)), F::zero());
  ff::BigInt<N> p_minus_1 = F::kModulus;
  p_minus_1.limb[0] -= 1;
  EXPECT_EQ(a.pow(p_minus_1), F::one());  // Fermat
}

TYPED_TEST(FieldArith, InverseMatchesGmp) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  EXPECT_EQ(F::zero().inverse(), F::zero());
  for (size_t i = 0; i < scaled(3000); ++i) {
    F a = this->inputs.next();
    Mpz va = gmp.value(a);
    F inv = a.inverse();
    ASSERT_EQ(gmp.value(inv), gmp.inv(va)) << "a=" << va;
    if (!a.is_zero()) {
      ASSERT_EQ(a * inv, F::one()) << "a=" << va;
    }
  }
}

// The constant-time binary GCD (ff/binary_gcd.hpp) that Field::inverse runs on the host, called
// directly on Montgomery representatives y: y·y⁻¹ ≡ 1 against GMP's inverse, and the binary
// extended Euclid of constant evaluation (inverse_portable) through the public API. Edge values:
// 1, 2, p − 1, p − 2, every power of two below p and its neighbours 2^k ± 1 (operands whose
// top-bit approximations are exact or nearly so), plus the shared edge and random inputs.
TYPED_TEST(FieldArith, BinaryGcdInverseMatchesGmp) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  const auto& gmp = this->gmp;
  std::vector<ff::BigInt<N>> cases;
  for (size_t k = 0; k < F::kBits; ++k) {
    ff::BigInt<N> v{};
    v.limb[k / 64] = uint64_t(1) << (k % 64);
    if (ff::compare(v, F::kModulus) >= 0) continue;
    cases.push_back(v);
    ff::BigInt<N> w = v;
    ff::add_in_place(w, ff::BigInt<N>::from_u64(1));
    if (ff::compare(w, F::kModulus) < 0) cases.push_back(w);
    w = v;
    ff::sub_in_place(w, ff::BigInt<N>::from_u64(1));
    if (!w.is_zero()) cases.push_back(w);
  }
  for (uint64_t k : {1, 2}) {
    ff::BigInt<N> v = F::kModulus;
    ff::sub_in_place(v, ff::BigInt<N>::from_u64(k));
    cases.push_back(v);
  }
  for (size_t i = 0; i < scaled(5000); ++i) cases.push_back(this->inputs.next().as_int());
  for (const ff::BigInt<N>& y : cases) {
    if (y.is_zero()) continue;
    ff::BigInt<N> r;
    const bool converged =
        ff::detail::binary_gcd_inverse<N>(r.limb, y.limb, F::kModulus.limb, F::kInv, F::kBits);
    ASSERT_TRUE(converged) << "y=" << to_mpz(y);
    Mpz want;
    mpz_invert(want.get(), to_mpz(y).get(), gmp.p.get());
    ASSERT_EQ(to_mpz(r), want) << "y=" << to_mpz(y);
  }
  uint64_t zero[N] = {}, r[N];
  EXPECT_FALSE(ff::detail::binary_gcd_inverse<N>(r, zero, F::kModulus.limb, F::kInv, F::kBits));
}

TYPED_TEST(FieldArith, BatchInverseMatchesGmpWithZerosMixedIn) {
  using F = TypeParam;
  const auto& gmp = this->gmp;
  std::vector<F> empty;
  F::batch_inverse(empty);  // no-op, must not touch anything
  for (size_t round = 0; round < scaled(40); ++round) {
    // Lengths that are not powers of two, including 1 and all-zero batches.
    size_t n = round == 0 ? 1 : 1 + this->rng() % 257;
    std::vector<F> values(n);
    for (F& v : values) v = this->rng() % 5 == 0 ? F::zero() : this->inputs.next();
    if (round == 1) std::fill(values.begin(), values.end(), F::zero());
    std::vector<F> inverted = values;
    F::batch_inverse(inverted);
    for (size_t i = 0; i < n; ++i) {
      Mpz v = gmp.value(values[i]);
      ASSERT_EQ(gmp.value(inverted[i]), gmp.inv(v)) << "round " << round << " index " << i;
    }
  }
}

}  // namespace
}  // namespace cuzk::test
