// The FP64-pipe Montgomery product (ff/mont_f64.cuh) against the host's field product, for
// BLS12-381 Fp: single products on edge values and random values below 2p (its inputs may be
// lazily reduced), and chains of dependent products, whose lazily reduced outputs feed the
// next product as they would inside a formula.

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "ff/mont_f64.cuh"
#include "gpu/cuda_check.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"
#include "tests/gpu/gpu_skip.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::test {
namespace {

using Fp = bls12_381::Fp;
using Int = Fp::Int;
constexpr size_t kN = Fp::kLimbs;

// r_i = a_i·b_i, then `chain` − 1 more times r_i ← r_i·b_i, all in FP64 limbs.
__global__ void f64_product_kernel(Int* r, const Int* a, const Int* b, size_t n, int chain) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  constexpr ff::f64::Modulus<kN> m = ff::f64::Modulus<kN>::make(Fp::kModulus, Fp::kInv);
  double x[m.L], y[m.L];
  ff::f64::to_limbs<kN>(x, a[i].limb);
  ff::f64::to_limbs<kN>(y, b[i].limb);
  for (int k = 0; k < chain; ++k) ff::f64::mont_mul<kN>(x, x, y, m);
  ff::f64::from_limbs<kN>(r[i].limb, x);
}

Int twice_p() {
  Int v = Fp::kModulus;
  add_in_place(v, Fp::kModulus);
  return v;
}

// The residue of a lazily reduced value v < 2p.
Fp residue(Int v) {
  if (compare(v, Fp::kModulus) >= 0) sub_in_place(v, Fp::kModulus);
  return Fp::from_montgomery(v);
}

Int random_below(const Int& bound, std::mt19937_64& rng) {
  for (;;) {
    Int v;
    for (auto& limb : v.limb) limb = rng();
    v = shr(v, 64 * kN - bound.bit_length());
    if (compare(v, bound) < 0) return v;
  }
}

// Runs the kernel and checks every result against the host: below 2p, and the product's residue.
void check(const std::vector<Int>& a, const std::vector<Int>& b, int chain, const char* what) {
  Stream stream;
  DeviceBuffer<Int> da(a.size(), stream), db(b.size(), stream), dr(a.size(), stream);
  da.upload(a, stream);
  db.upload(b, stream);
  const unsigned threads = 128;
  f64_product_kernel<<<unsigned((a.size() + threads - 1) / threads), threads, 0, stream>>>(
      dr.data(), da.data(), db.data(), a.size(), chain);
  CUZK_CHECK_LAUNCH();
  std::vector<Int> r(a.size());
  dr.download(r, stream);
  stream.synchronize();
  const Int bound = twice_p();
  size_t mismatches = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    Fp expected = residue(a[i]);
    for (int k = 0; k < chain; ++k) expected = expected * residue(b[i]);
    const bool below = compare(r[i], bound) < 0;
    if (below && residue(r[i]) == expected) continue;
    if (++mismatches <= 3) {
      std::printf("  mismatch at %zu (%s)\n", i, below ? "wrong residue" : "not below 2p");
    }
  }
  std::printf("[gpu-diff] bls12_381.Fp f64 product, %s: %zu cases, %zu mismatches\n", what,
              a.size(), mismatches);
  EXPECT_EQ(mismatches, 0u) << what;
}

TEST(FieldF64Product, EdgeValuesAndRandom) {
  CUZK_SKIP_WITHOUT_GPU();
  const Int p = Fp::kModulus, two_p = twice_p();
  auto minus = [](Int v, uint64_t k) {
    sub_in_place(v, Int::from_u64(k));
    return v;
  };
  Int ones_below_2p{};  // 2^381 − 1 < 2p: every limb below the top full
  for (size_t bit = 0; bit < Fp::kBits; ++bit) ones_below_2p.limb[bit / 64] |= uint64_t(1) << (bit % 64);
  const std::vector<Int> edges = {Int{},          Int::from_u64(1), Fp::kR,       minus(p, 1),
                                  p,              minus(two_p, 1),  minus(two_p, 2),
                                  ones_below_2p,  Int::from_u64(~uint64_t(0))};
  std::vector<Int> a, b;
  for (const Int& x : edges) {
    for (const Int& y : edges) {
      a.push_back(x);
      b.push_back(y);
    }
  }
  auto rng = cuzk::test::rng("gpu-f64-product");
  for (int k = 0; k < 1 << 14; ++k) {
    const Int& bound = k % 2 == 0 ? p : two_p;  // reduced and lazily reduced inputs
    a.push_back(random_below(bound, rng));
    b.push_back(random_below(bound, rng));
  }
  check(a, b, 1, "single products");
  check(a, b, 33, "chains of 33");
}

}  // namespace
}  // namespace cuzk::gpu::test
