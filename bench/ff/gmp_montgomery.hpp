#pragma once
// The baseline the field benchmarks are measured against: Montgomery arithmetic for the same
// moduli and the same representation (a·R mod p, N little-endian 64-bit limbs), built only from
// GMP's mpn layer, the way a careful user of GMP would write it. Product with mpn_mul_n (or
// mpn_sqr), then word-by-word REDC as in GMP's own mpn_redc_1: N rows of mpn_addmul_1 by
// m = t_i·(−p⁻¹) mod 2^64, each row's carry parked in the limb it zeroed and added back at the
// end, and one conditional mpn_sub_n.

#include <gmp.h>

#include <cstddef>
#include <cstdint>

namespace cuzk::bench {

template <class F>
class GmpMontgomery {
 public:
  static constexpr size_t N = F::kLimbs;
  static_assert(sizeof(mp_limb_t) == sizeof(uint64_t), "the baseline assumes 64-bit GMP limbs");

  // r = a·b·R⁻¹ mod p. r may alias a or b.
  static void mul(mp_limb_t r[N], const mp_limb_t a[N], const mp_limb_t b[N]) {
    mp_limb_t t[2 * N];
    mpn_mul_n(t, a, b, N);
    redc(r, t);
  }
  static void sqr(mp_limb_t r[N], const mp_limb_t a[N]) {
    mp_limb_t t[2 * N];
    mpn_sqr(t, a, N);
    redc(r, t);
  }
  static void add(mp_limb_t r[N], const mp_limb_t a[N], const mp_limb_t b[N]) {
    mp_limb_t carry = mpn_add_n(r, a, b, N);
    if (carry || mpn_cmp(r, modulus(), N) >= 0) mpn_sub_n(r, r, modulus(), N);
  }

 private:
  static const mp_limb_t* modulus() { return reinterpret_cast<const mp_limb_t*>(F::kModulus.limb); }

  // t (2N limbs, < p·R) ↦ t·R⁻¹ mod p in N limbs. Cost: N² + N multiplications.
  static void redc(mp_limb_t r[N], mp_limb_t t[2 * N]) {
    const mp_limb_t* p = modulus();
    mp_limb_t* row = t;
    for (size_t i = 0; i < N; ++i, ++row) {
      mp_limb_t m = row[0] * F::kInv;
      row[0] = mpn_addmul_1(row, p, N, m);  // the row's low limb is now 0: keep the carry there
    }
    // row = t + N: the upper half; t[0..N) holds the N parked carries, one limb higher each.
    mp_limb_t carry = mpn_add_n(r, row, t, N);
    if (carry || mpn_cmp(r, p, N) >= 0) mpn_sub_n(r, r, p, N);
  }
};

}  // namespace cuzk::bench
