#pragma once
// The field checks of the GPU differential test, as a typed test suite that each curve's
// translation unit instantiates for its fields (one TU per curve keeps nvcc's work per file
// small). Inputs: every pair of edge values, then random elements drawn with the logged seed.

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/gpu/gpu_test_support.cuh"
#include "tests/support/test_random.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::test {

struct MulOp {
  template <class F>
  CUZK_HD F operator()(const F& a, const F& b) const {
    return a * b;
  }
};
// a·b − b·(a − b): both products large and their difference anywhere in [0, p).
struct DifferenceOfProductsOp {
  template <class F>
  CUZK_HD F operator()(const F& a, const F& b) const {
    return F::difference_of_products(a, b, b, a - b);
  }
};
struct AddOp {
  template <class F>
  CUZK_HD F operator()(const F& a, const F& b) const {
    return a + b;
  }
};
struct SubOp {
  template <class F>
  CUZK_HD F operator()(const F& a, const F& b) const {
    return a - b;
  }
};
struct SqrOp {
  template <class F>
  CUZK_HD F operator()(const F& a) const {
    return a.sqr();
  }
};
struct NegOp {
  template <class F>
  CUZK_HD F operator()(const F& a) const {
    return -a;
  }
};
struct InverseOp {
  template <class F>
  CUZK_HD F operator()(const F& a) const {
    return a.inverse();
  }
};

// Values where carries and reductions are most likely to go wrong: 0, 1, p − 1 and small
// neighbours as field elements, and extreme Montgomery representations (1, p − 1, p − 2, the
// largest and smallest kBits-bit patterns below p, a word of all ones).
template <class F>
std::vector<F> edge_values() {
  using Int = typename F::Int;
  auto minus = [](Int v, uint64_t k) {  // p − k for small k: p's low limb is ≥ k for both curves
    v.limb[0] -= k;
    return v;
  };
  Int below_top{};  // 2^(kBits−1) − 1: all ones under p's top bit
  Int top{};        // 2^(kBits−1)
  for (size_t bit = 0; bit + 1 < F::kBits; ++bit)
    below_top.limb[bit / 64] |= uint64_t(1) << (bit % 64);
  top.limb[(F::kBits - 1) / 64] = uint64_t(1) << ((F::kBits - 1) % 64);
  Int low_ones = Int::from_u64(~uint64_t(0));
  return {F::zero(),
          F::one(),
          -F::one(),
          F::from_u64(2),
          -F::from_u64(2),
          F::from_montgomery(Int::from_u64(1)),
          F::from_montgomery(minus(F::kModulus, 1)),
          F::from_montgomery(minus(F::kModulus, 2)),
          F::from_montgomery(below_top),
          F::from_montgomery(top),
          F::from_montgomery(low_ones)};
}

// Every pair of edge values, then `random_count` random pairs.
template <class F>
std::pair<std::vector<F>, std::vector<F>> binary_inputs(size_t random_count, std::mt19937_64& rng) {
  std::vector<F> a, b;
  const std::vector<F> edges = edge_values<F>();
  for (const F& x : edges) {
    for (const F& y : edges) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  for (size_t i = 0; i < random_count; ++i) {
    a.push_back(F::random(rng));
    b.push_back(F::random(rng));
  }
  return {std::move(a), std::move(b)};
}

template <class F>
std::vector<F> unary_inputs(size_t random_count, std::mt19937_64& rng) {
  std::vector<F> a = edge_values<F>();
  for (size_t i = 0; i < random_count; ++i) a.push_back(F::random(rng));
  return a;
}

// Pairs (a, b) whose Montgomery product meets, at each of its reduction steps, a low word t_0
// of 0 or 2^32 − 1 (the step's carry and its m = t_0·(-p⁻¹) at their extremes), which random
// inputs reach once in 2^31 steps. Step i's t_0 is word 0 of T + a·b_i, T the running value
// of CIOS; a_0 odd is invertible mod 2^32, so b_i is solved for the wanted t_0 row after row,
// tracking T on the host. A pair is kept when b < p (so that b is an element).
template <class F>
std::pair<std::vector<F>, std::vector<F>> reduction_edge_inputs(size_t count,
                                                                std::mt19937_64& rng) {
  constexpr size_t W = 2 * F::kLimbs;
  const auto p = ff::detail::words_of(F::kModulus);
  const uint32_t inv = uint32_t(F::kInv);
  std::vector<F> as, bs;
  while (as.size() < count) {
    const F a = F::random(rng);
    const auto aw = ff::detail::words_of(std::bit_cast<typename F::Int>(a));
    if ((aw.w[0] & 1) == 0) continue;
    uint32_t a0_inverse = aw.w[0];  // Newton: each step doubles the correct low bits
    for (int k = 0; k < 5; ++k) a0_inverse *= 2 - aw.w[0] * a0_inverse;
    uint64_t t[W + 2] = {};  // 32-bit words of T in 64-bit slots
    const auto add_product = [&t](const uint32_t* words, uint32_t factor) {  // T += words·factor
      uint64_t carry = 0;
      for (size_t j = 0; j < W + 2; ++j) {
        const uint64_t v = t[j] + (j < W ? uint64_t(words[j]) * factor : 0) + carry;
        t[j] = uint32_t(v);
        carry = v >> 32;
      }
    };
    typename F::Int b{};
    for (size_t i = 0; i < W; ++i) {
      const uint32_t target = (rng() & 1) != 0 ? 0xffffffffu : 0u;
      const uint32_t bi = (target - uint32_t(t[0])) * a0_inverse;
      b.limb[i / 2] |= uint64_t(bi) << (32 * (i % 2));
      add_product(aw.w, bi);
      add_product(p.w, uint32_t(t[0]) * inv);  // T += m·p, then T /= 2^32
      for (size_t j = 0; j + 1 < W + 2; ++j) t[j] = t[j + 1];
      t[W + 1] = 0;
    }
    if (ff::compare(b, F::kModulus) >= 0) continue;
    as.push_back(a);
    bs.push_back(F::from_montgomery(b));
  }
  return {std::move(as), std::move(bs)};
}

// 2^20 random cases per operation (2^16 for inversions, each some 600 multiplications),
// times CUZK_TEST_SCALE.
inline size_t field_case_count() { return cuzk::test::scaled(size_t(1) << 20); }
inline size_t inverse_case_count() { return cuzk::test::scaled(size_t(1) << 16); }

// TypeParam: a record with `using Field = ...;` and `static constexpr const char* kName`.
template <class Case>
class FieldDiffTest : public ::testing::Test {};
TYPED_TEST_SUITE_P(FieldDiffTest);

TYPED_TEST_P(FieldDiffTest, Mul) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-mul-") + TypeParam::kName);
  auto [a, b] = binary_inputs<F>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "mul", MulOp{}, a, b);
}

TYPED_TEST_P(FieldDiffTest, MulReductionEdges) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-mul-reduction-edges-") + TypeParam::kName);
  auto [a, b] = reduction_edge_inputs<F>(cuzk::test::scaled(size_t(1) << 16), rng);
  expect_same_on_device(TypeParam::kName, "mul (reduction edges)", MulOp{}, a, b);
}

TYPED_TEST_P(FieldDiffTest, DifferenceOfProducts) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-difference-of-products-") + TypeParam::kName);
  auto [a, b] = binary_inputs<F>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "ab-cd", DifferenceOfProductsOp{}, a, b);
}

TYPED_TEST_P(FieldDiffTest, Sqr) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-sqr-") + TypeParam::kName);
  auto a = unary_inputs<F>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "sqr", SqrOp{}, a);
}

TYPED_TEST_P(FieldDiffTest, Add) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-add-") + TypeParam::kName);
  auto [a, b] = binary_inputs<F>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "add", AddOp{}, a, b);
}

TYPED_TEST_P(FieldDiffTest, Sub) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-sub-") + TypeParam::kName);
  auto [a, b] = binary_inputs<F>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "sub", SubOp{}, a, b);
}

TYPED_TEST_P(FieldDiffTest, Neg) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-neg-") + TypeParam::kName);
  auto a = unary_inputs<F>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "neg", NegOp{}, a);
}

TYPED_TEST_P(FieldDiffTest, Inverse) {
  CUZK_SKIP_WITHOUT_GPU();
  using F = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-inverse-") + TypeParam::kName);
  auto a = unary_inputs<F>(inverse_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "inverse", InverseOp{}, a);
}

REGISTER_TYPED_TEST_SUITE_P(FieldDiffTest, Mul, MulReductionEdges, DifferenceOfProducts, Sqr, Add,
                            Sub, Neg, Inverse);

// Fp2: products and squares, on pairs of base-field edge values and random elements.
template <class Case>
class Fp2DiffTest : public ::testing::Test {};
TYPED_TEST_SUITE_P(Fp2DiffTest);

template <class E>
std::vector<E> fp2_inputs(size_t random_count, std::mt19937_64& rng) {
  using F = typename E::Base;
  std::vector<E> a;
  const std::vector<F> edges = edge_values<F>();
  for (const F& x : edges) {
    for (const F& y : edges) a.push_back(E{x, y});
  }
  for (size_t i = 0; i < random_count; ++i) a.push_back(E::random(rng));
  return a;
}

TYPED_TEST_P(Fp2DiffTest, Mul) {
  CUZK_SKIP_WITHOUT_GPU();
  using E = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-mul-") + TypeParam::kName);
  auto a = fp2_inputs<E>(field_case_count(), rng);
  auto b = fp2_inputs<E>(field_case_count(), rng);
  std::shuffle(b.begin(), b.end(), rng);  // edge values meet random ones too
  expect_same_on_device(TypeParam::kName, "mul", MulOp{}, a, b);
}

TYPED_TEST_P(Fp2DiffTest, Sqr) {
  CUZK_SKIP_WITHOUT_GPU();
  using E = typename TypeParam::Field;
  auto rng = cuzk::test::rng(std::string("gpu-sqr-") + TypeParam::kName);
  auto a = fp2_inputs<E>(field_case_count(), rng);
  expect_same_on_device(TypeParam::kName, "sqr", SqrOp{}, a);
}

REGISTER_TYPED_TEST_SUITE_P(Fp2DiffTest, Mul, Sqr);

}  // namespace cuzk::gpu::test
