#pragma once
// Constant-time modular inversion on the host: the binary GCD with approximated operands of
// T. Pornin, "Optimized Binary GCD for Modular Inversion" (IACR ePrint 2020/972), for any odd
// modulus of N 64-bit limbs with the top bit free.
//
// The plain binary GCD keeps a ≡ u·y and b ≡ v·y (mod p), starting from a = y, b = p, u = 1,
// v = 0, and repeats: if a is odd { if a < b swap (a, u) with (b, v); a ← a − b; u ← u − v };
// a ← a/2; u ← u/2 mod p. Every step shortens len(a) + len(b) by at least one bit, so after
// 2·len(p) − 1 steps a = 0 and b = gcd = 1, and v = y⁻¹. Run with masks instead of branches,
// each step costs a few operations on every limb.
//
// Pornin's optimization runs 31 steps at a time on 64-bit stand-ins: ā holds the low 31 bits of
// a and its 33 bits from the top position n of max(a, b) (exact when both fit in 64 bits), b̄
// likewise. The low bits decide parity exactly; the top bits decide the comparisons, nearly
// always rightly. The 31 steps are recorded as a matrix (f0 g0; f1 g1) with entries of at most
// 2^31 in magnitude and then applied once to the full values:
//   a ← (f0·a + g0·b)/2^31,  b ← (f1·a + g1·b)/2^31     exact divisions; negated if negative
//   u ← (f0·u + g0·v)/2^31,  v ← (f1·u + g1·v)/2^31     mod p (Montgomery-style division)
// A wrong comparison only makes a or b negative, which the negation (applied to the matrix row
// too) repairs; the paper shows that the 2·len(p) − 1 steps still suffice. The step count is
// fixed, so the time does not depend on the value. As a guard against a bound that would not
// hold, the result is used only if b ended at 1 (a branch that is never taken in practice; the
// tests check every input they draw).
//
// Cost: ⌈(2·len(p) − 1)/31⌉ rounds of 31 branch-free steps and four N-limb linear combinations;
// measured in src/ff/README.md.

#include <bit>
#include <cstddef>
#include <cstdint>

namespace cuzk::ff::detail {

// Montgomery-style exact division: the value t (N + 1 limbs, two's complement) plus k·p with
// k = −t·p⁻¹ mod 2^31 is divisible by 2^31. Returns ((t + k·p) >> 31), of N + 1 limbs signed.
template <size_t N>
inline void divide_by_2_31_mod(uint64_t t[N + 1], const uint64_t p[N], uint64_t neg_p_inv) {
  using i128 = __int128;
  const uint64_t k = (t[0] * neg_p_inv) & ((uint64_t(1) << 31) - 1);
  i128 acc = 0;
  for (size_t j = 0; j < N; ++j) {
    acc += i128((unsigned __int128)t[j]) + i128((unsigned __int128)p[j] * k);
    t[j] = uint64_t(acc);
    acc >>= 64;
  }
  acc += i128(int64_t(t[N]));
  t[N] = uint64_t(acc);
  for (size_t j = 0; j < N; ++j) t[j] = (t[j] >> 31) | (t[j + 1] << 33);
  t[N] = uint64_t(int64_t(t[N]) >> 31);
}

// t = f·x + g·y over N + 1 limbs, two's complement; x, y < 2^(64N−1), |f|, |g| ≤ 2^31.
template <size_t N>
inline void linear_combination(uint64_t t[N + 1], const uint64_t x[N], int64_t f,
                               const uint64_t y[N], int64_t g) {
  using i128 = __int128;
  i128 acc = 0;
  for (size_t j = 0; j < N; ++j) {
    acc += i128((unsigned __int128)x[j]) * f + i128((unsigned __int128)y[j]) * g;
    t[j] = uint64_t(acc);
    acc >>= 64;
  }
  t[N] = uint64_t(acc);
}

// x ← −x where mask is all ones (two's complement over M limbs); unchanged where it is zero.
template <size_t M>
inline void negate_if(uint64_t x[M], uint64_t mask) {
  unsigned __int128 carry = mask & 1;
  for (size_t j = 0; j < M; ++j) {
    carry += x[j] ^ mask;
    x[j] = uint64_t(carry);
    carry >>= 64;
  }
}

// x ← x + (mask & p) over N limbs (the carry out is dropped: callers know it cancels).
template <size_t N>
inline void add_masked(uint64_t x[N], const uint64_t p[N], uint64_t mask) {
  unsigned __int128 carry = 0;
  for (size_t j = 0; j < N; ++j) {
    carry += (unsigned __int128)x[j] + (p[j] & mask);
    x[j] = uint64_t(carry);
    carry >>= 64;
  }
}

// A value of (−p, 2p) given as N + 1 limbs, two's complement, into [0, p).
template <size_t N>
inline void normalize_mod(uint64_t r[N], const uint64_t t[N + 1], const uint64_t p[N]) {
  uint64_t x[N];
  for (size_t j = 0; j < N; ++j) x[j] = t[j];
  add_masked<N>(x, p, uint64_t(int64_t(t[N]) >> 63));  // negative: + p, now in [0, 2p)
  uint64_t d[N];
  unsigned __int128 borrow = 0;
  for (size_t j = 0; j < N; ++j) {
    const unsigned __int128 diff = (unsigned __int128)x[j] - p[j] - borrow;
    d[j] = uint64_t(diff);
    borrow = (diff >> 64) & 1;
  }
  const uint64_t keep = uint64_t(0) - uint64_t(borrow);  // x < p
  for (size_t j = 0; j < N; ++j) r[j] = (x[j] & keep) | (d[j] & ~keep);
}

// r = y⁻¹ mod p for 0 < y < p, p odd and below 2^(64N−1), neg_p_inv = −p⁻¹ mod 2^64,
// p_bits = len(p). Returns false (and leaves r unspecified) if the step bound did not suffice,
// which the analysis rules out; y = 0 gives false too.
template <size_t N>
inline bool binary_gcd_inverse(uint64_t r[N], const uint64_t y[N], const uint64_t p[N],
                               uint64_t neg_p_inv, size_t p_bits) {
  constexpr int kSteps = 31;
  const uint64_t kLow = (uint64_t(1) << kSteps) - 1;
  uint64_t a[N], b[N], u[N] = {1}, v[N] = {};
  for (size_t j = 0; j < N; ++j) {
    a[j] = y[j];
    b[j] = p[j];
  }
  const size_t rounds = (2 * p_bits - 1 + kSteps - 1) / kSteps;
  for (size_t round = 0; round < rounds; ++round) {
    // The two limbs of a and b at the top position of a | b (limbs 1 and 0 if both are below
    // 2^64), selected with masks.
    uint64_t a_hi = 0, a_lo = 0, b_hi = 0, b_lo = 0, found = 0;
    for (size_t i = N; i-- > 1;) {
      const uint64_t c = a[i] | b[i];
      const uint64_t take = ~found & (uint64_t(0) - uint64_t((c | (uint64_t(0) - c)) >> 63));
      const uint64_t take_here = i == 1 ? ~found : take;  // limb 1 is the last choice
      a_hi |= a[i] & take_here;
      a_lo |= a[i - 1] & take_here;
      b_hi |= b[i] & take_here;
      b_lo |= b[i - 1] & take_here;
      found |= take_here;
    }
    const unsigned shift = unsigned(std::countl_zero(a_hi | b_hi));  // 64 if both zero (LZCNT)
    const uint64_t a_top =
        uint64_t((((unsigned __int128)a_hi << 64) | a_lo) << shift >> 64);
    const uint64_t b_top =
        uint64_t((((unsigned __int128)b_hi << 64) | b_lo) << shift >> 64);
    uint64_t as = (a_top & ~kLow) | (a[0] & kLow);
    uint64_t bs = (b_top & ~kLow) | (b[0] & kLow);

    int64_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
    for (int step = 0; step < kSteps; ++step) {
      const uint64_t odd = uint64_t(0) - (as & 1);
      const uint64_t swap = odd & (uint64_t(0) - uint64_t(as < bs));
      const uint64_t x = (as ^ bs) & swap;
      as ^= x;
      bs ^= x;
      const int64_t xf = (f0 ^ f1) & int64_t(swap), xg = (g0 ^ g1) & int64_t(swap);
      f0 ^= xf;
      f1 ^= xf;
      g0 ^= xg;
      g1 ^= xg;
      as -= bs & odd;
      f0 -= f1 & int64_t(odd);
      g0 -= g1 & int64_t(odd);
      as >>= 1;
      f1 <<= 1;
      g1 <<= 1;
    }

    uint64_t na[N + 1], nb[N + 1], nu[N + 1], nv[N + 1];
    linear_combination<N>(na, a, f0, b, g0);
    linear_combination<N>(nb, a, f1, b, g1);
    // Exact divisions by 2^31 (the low bits were tracked exactly), then signs fixed.
    for (size_t j = 0; j < N; ++j) {
      na[j] = (na[j] >> kSteps) | (na[j + 1] << (64 - kSteps));
      nb[j] = (nb[j] >> kSteps) | (nb[j + 1] << (64 - kSteps));
    }
    na[N] = uint64_t(int64_t(na[N]) >> kSteps);
    nb[N] = uint64_t(int64_t(nb[N]) >> kSteps);
    const uint64_t a_negative = uint64_t(int64_t(na[N]) >> 63);
    const uint64_t b_negative = uint64_t(int64_t(nb[N]) >> 63);
    negate_if<N + 1>(na, a_negative);
    negate_if<N + 1>(nb, b_negative);
    f0 = (f0 ^ int64_t(a_negative)) - int64_t(a_negative);
    g0 = (g0 ^ int64_t(a_negative)) - int64_t(a_negative);
    f1 = (f1 ^ int64_t(b_negative)) - int64_t(b_negative);
    g1 = (g1 ^ int64_t(b_negative)) - int64_t(b_negative);

    linear_combination<N>(nu, u, f0, v, g0);
    linear_combination<N>(nv, u, f1, v, g1);
    divide_by_2_31_mod<N>(nu, p, neg_p_inv);
    divide_by_2_31_mod<N>(nv, p, neg_p_inv);
    for (size_t j = 0; j < N; ++j) {
      a[j] = na[j];
      b[j] = nb[j];
    }
    normalize_mod<N>(u, nu, p);
    normalize_mod<N>(v, nv, p);
  }
  uint64_t not_one = b[0] ^ 1;
  for (size_t j = 1; j < N; ++j) not_one |= b[j];
  for (size_t j = 0; j < N; ++j) r[j] = v[j];
  return not_one == 0;
}

}  // namespace cuzk::ff::detail
