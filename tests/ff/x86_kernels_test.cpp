// The x86-64 assembly kernels of src/ff (add_x86.hpp, mont_x86.hpp) called directly, against
// the portable code and GMP: modular add/sub/dbl/neg, the 2N-limb product, REDC on its whole
// input range [0, p·R), and the lazily reduced Fp2 product. Edge values (0, 1, p−1, saturated
// limbs, carries across every limb) meet each other pairwise, then random inputs from the
// logged seed. Builds that do not select the kernels (CUZK_FF_MONT_X86 = 0) skip these tests;
// field_arith_test.cpp checks whichever path the build selected through the operators.

#include <gtest/gtest.h>

#include <vector>

#include "ff/fp2.hpp"
#include "tests/ff/gmp_oracle.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::test {
namespace {

template <class F>
class X86Kernels : public ::testing::Test {
 protected:
  static constexpr size_t N = F::kLimbs;
  GmpField<F> gmp;
  std::mt19937_64 rng = test::rng(std::string("ff_x86/") + field_name<F>() + "/" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Inputs<F> inputs{gmp, rng};

  // Every edge value against every other, then random pairs.
  template <class Check>
  void for_pairs(Check&& check) {
    std::vector<F> edges;
    for (size_t i = 0; i < inputs.edge_count(); ++i) edges.push_back(inputs.next());
    const size_t k = edges.size();
    for (size_t i = 0; i < std::max(k * k, scaled(20000)); ++i) {
      F a = i < k * k ? edges[i / k] : inputs.next();
      F b = i < k * k ? edges[i % k] : inputs.next();
      check(a, b);
    }
  }
  Mpz raw(const F& x) const { return to_mpz(x.as_int()); }  // the Montgomery representative
};

using PrimeFields = ::testing::Types<bls12_381::Fp, bls12_381::Fr, bn254::Fp, bn254::Fr>;
TYPED_TEST_SUITE(X86Kernels, PrimeFields, FieldNames);

#if CUZK_FF_MONT_X86

TYPED_TEST(X86Kernels, AddSubDblNegMatchPortableAndGmp) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  const auto& p = F::kModulus;
  const auto& gmp = this->gmp;
  this->for_pairs([&](const F& a, const F& b) {
    F sum, diff, twice, neg;
    ff::x86::mod_add<N>(sum.mont, a.mont, b.mont, p.limb);
    ff::x86::mod_sub<N>(diff.mont, a.mont, b.mont, p.limb);
    ff::x86::mod_dbl<N>(twice.mont, a.mont, p.limb);
    ff::x86::mod_sub<N>(neg.mont, F::zero().mont, a.mont, p.limb);
    const Mpz va = this->raw(a), vb = this->raw(b);
    // Addition commutes with the Montgomery map, so the representatives add mod p directly.
    ASSERT_EQ(sum.as_int(), ff::detail::mod_add_portable(a.as_int(), b.as_int(), p));
    ASSERT_EQ(this->raw(sum), gmp.add(va, vb)) << "a=" << va << " b=" << vb;
    ASSERT_EQ(diff.as_int(), ff::detail::mod_sub_portable(a.as_int(), b.as_int(), p));
    ASSERT_EQ(this->raw(diff), gmp.sub(va, vb)) << "a=" << va << " b=" << vb;
    ASSERT_EQ(this->raw(twice), gmp.add(va, va)) << "a=" << va;
    ASSERT_EQ(this->raw(neg), gmp.sub(Mpz(0), va)) << "a=" << va;
    // In place, as the operators call them.
    F c = a;
    ff::x86::mod_add<N>(c.mont, c.mont, b.mont, p.limb);
    ASSERT_EQ(c, sum);
    c = b;
    ff::x86::mod_sub<N>(c.mont, a.mont, c.mont, p.limb);
    ASSERT_EQ(c, diff);
  });
}

TYPED_TEST(X86Kernels, WideProductAndRedcMatchGmp) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  this->for_pairs([&](const F& a, const F& b) {
    ff::BigInt<2 * N> w;
    ff::x86::mul_wide<N>(w.limb, a.mont, b.mont);
    Mpz product;
    mpz_mul(product.get(), this->raw(a).get(), this->raw(b).get());
    ASSERT_EQ(to_mpz(w), product) << "a=" << this->raw(a) << " b=" << this->raw(b);
    F r;
    ff::x86::redc<N>(r.mont, w.limb, F::kModulus.limb, F::kInv);
    ASSERT_EQ(r, a * b);
    ff::detail::mont_mul_cios<N>(r.mont, a.mont, b.mont, F::kModulus.limb, F::kInv);
    ASSERT_EQ(r, a * b);
  });
}

// REDC on its whole contract, w < p·R: the extremes (0, 1, p·R − 1, R·(p−1), every limb
// saturated below the top) and uniform values, against w·R⁻¹ mod p from GMP.
TYPED_TEST(X86Kernels, RedcMatchesGmpOnItsWholeRange) {
  using F = TypeParam;
  constexpr size_t N = F::kLimbs;
  const auto& gmp = this->gmp;
  Mpz bound = gmp.p;  // p·R
  mpz_mul_2exp(bound.get(), bound.get(), 64 * N);
  std::vector<Mpz> cases = {Mpz(0), Mpz(1)};
  Mpz v;
  mpz_sub_ui(v.get(), bound.get(), 1);
  cases.push_back(v);
  mpz_sub_ui(v.get(), gmp.p.get(), 1);
  mpz_mul_2exp(v.get(), v.get(), 64 * N);
  cases.push_back(v);
  mpz_setbit(v.get(), 0);
  cases.push_back(v);
  mpz_set_ui(v.get(), 0);
  mpz_setbit(v.get(), 64 * N);
  mpz_sub_ui(v.get(), v.get(), 1);  // R − 1: the low half saturated
  cases.push_back(v);
  gmp_randstate_t state;
  gmp_randinit_default(state);
  gmp_randseed_ui(state, (unsigned long)this->rng());
  for (size_t i = 0; i < scaled(20000); ++i) {
    mpz_urandomm(v.get(), state, bound.get());
    cases.push_back(v);
  }
  gmp_randclear(state);
  for (const Mpz& w : cases) {
    const ff::BigInt<2 * N> limbs = to_bigint<2 * N>(w);
    F r;
    ff::x86::redc<N>(r.mont, limbs.limb, F::kModulus.limb, F::kInv);
    Mpz want;
    mpz_mul(want.get(), w.get(), gmp.r_inv.get());
    mpz_mod(want.get(), want.get(), gmp.p.get());
    ASSERT_EQ(this->raw(r), want) << "w=" << w;
  }
}

// The lazily reduced Fp2 product against the Karatsuba of Montgomery products (the portable
// path) and GMP, with every pair of edge values in each coordinate.
TYPED_TEST(X86Kernels, Fp2ProductMatchesPortableAndGmp) {
  using F = TypeParam;
  if constexpr (std::is_same_v<F, bls12_381::Fp> || std::is_same_v<F, bn254::Fp>) {
    using Fp2 = ff::Fp2<F>;
    constexpr size_t N = F::kLimbs;
    const auto& gmp = this->gmp;
    std::vector<F> edges;
    for (size_t i = 0; i < this->inputs.edge_count(); ++i) edges.push_back(this->inputs.next());
    const size_t k = edges.size();
    auto check = [&](const Fp2& x, const Fp2& y) {
      Fp2 got;
      ff::x86::fp2_mul<N>(got.c0.mont, got.c1.mont, x.c0.mont, x.c1.mont, y.c0.mont, y.c1.mont,
                          F::kModulus.limb, F::kInv);
      const F v0 = x.c0 * y.c0, v1 = x.c1 * y.c1;
      ASSERT_EQ(got.c0, v0 - v1);
      ASSERT_EQ(got.c1, (x.c0 + x.c1) * (y.c0 + y.c1) - v0 - v1);
      const Mpz a = gmp.value(x.c0), b = gmp.value(x.c1), c = gmp.value(y.c0),
                d = gmp.value(y.c1);
      ASSERT_EQ(gmp.value(got.c0), gmp.sub(gmp.mul(a, c), gmp.mul(b, d)));
      ASSERT_EQ(gmp.value(got.c1), gmp.add(gmp.mul(a, d), gmp.mul(b, c)));
      ASSERT_EQ(x * y, got);  // the operator takes this path on this build
    };
    // (e_i + e_j·u)·(e_j + e_i·u) over all edge pairs, then random elements.
    for (size_t i = 0; i < k * k; ++i) {
      check({edges[i / k], edges[i % k]}, {edges[i % k], edges[i / k]});
      check({edges[i / k], edges[i / k]}, {edges[i % k], edges[i % k]});
    }
    for (size_t i = 0; i < scaled(20000); ++i) {
      check({this->inputs.next(), this->inputs.next()}, {this->inputs.next(), this->inputs.next()});
    }
  } else {
    GTEST_SKIP() << "Fp2 exists over the base fields only";
  }
}

#else

TYPED_TEST(X86Kernels, SelectedOnlyOnOptimizedX86Builds) {
  GTEST_SKIP() << "this build uses the portable field code (CUZK_FF_MONT_X86 = 0)";
}

#endif

}  // namespace
}  // namespace cuzk::test
