#pragma once
// Montgomery multiplication on the FP64 pipe: the same product as ptx::mont_mul, for a modulus
// of a multiple of three 64-bit limbs (BLS12-381 Fp: 6 limbs, 384 bits), computed with
// double-precision fused multiply-adds instead of 32-bit integer multiply-adds.
//
// Why: ptx::mont_mul keeps the integer multiply-add pipe busy (588 of its 659 instructions for
// BLS12-381 Fp), and the MSM's bucket additions run at 95% of that pipe's bound. An H200 issues
// FP64 fused multiply-adds at the same rate (64 per SM per clock) on a separate pipe, and the
// integer product leaves about 45% of the issue slots free. Products of both kinds in one
// kernel can then share an SM's clock cycles.
//
// Representation: L = 64N/48 limbs of 48 bits, each held exactly in a double (an integer in
// [0, 2^48)). R = 2^(48L) = 2^(64N) is the integer product's R, so a value in Montgomery form
// is the same integer in both representations; to_limbs and from_limbs only re-cut its bits.
//
// Exact products of limbs: for integers a, b < 2^48, with b_s = b·2^-48 (exact),
//   fma_rz(a, b_s, A) = A + ⌊a·b/2^48⌋   for an integer A with 2^52 ≤ A and A + a·b/2^48 < 2^53
// (the spacing of doubles in [2^52, 2^53) is 1 and rounding toward zero truncates), and with
// h = ⌊a·b/2^48⌋, fma_rn(a, b_s, −h) = (a·b mod 2^48)·2^-48 exactly (a multiple of 2^-48 in
// [0, 1)). So a column accumulator `hi` that starts at 2^52 collects high halves with one FMA
// each, and `lo` collects low halves as fractions of 2^48, which stay exact up to 16 of them.
// Four FP64 instructions per limb product (FMA, subtraction, FMA, addition), against two
// integer multiply-adds for a 32-bit limb product: 48² / 4 = 576 against 32² / 2 = 512 bit
// products per instruction.
//
// The reduction is separated operand scanning by 48-bit columns. A column's value t (its high
// and low sums and the carry from below) is < 2^53, exact; m = (t mod 2^48)·(−p⁻¹) mod 2^48 by
// the same split, and m·p goes to the columns above. The low half of m·p_0 is not added: it
// makes the column a multiple of 2^48, so the carry out is ⌊t/2^48⌋ + [t mod 2^48 ≠ 0].
//
// Bounds: inputs < 2p (lazy: the output is < 2p too, since (a·b + M·p)/R < 4p²/R + p < 2p for
// 4p < R). A column holds at most 16 low halves (8 of a·b, 8 of the m·p, less the skipped one)
// and 16 high halves, each < 2^48, plus a carry below 32: t < 2^53.

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"
#include "util/hd.hpp"

namespace cuzk::ff::f64 {

inline constexpr double kTwo48 = 0x1p48;
inline constexpr double kTwoMinus48 = 0x1p-48;
inline constexpr double kTwo52 = 0x1p52;
inline constexpr double kTwo53 = 0x1p53;
inline constexpr uint64_t kMask48 = (uint64_t(1) << 48) - 1;
// The bits of 2^52 as a double: OR-ing an integer x < 2^52 into its mantissa gives 2^52 + x.
inline constexpr uint64_t kTwo52Bits = 0x4330000000000000ull;

// Limbs of 48 bits for a value of N 64-bit limbs.
template <size_t N>
inline constexpr size_t kLimbs48 = N * 64 / 48;

// The 48-bit limb i of x.
template <size_t N>
CUZK_HD constexpr uint64_t limb48(const BigInt<N>& x, size_t i) {
  const size_t bit = 48 * i, word = bit / 64, shift = bit % 64;
  uint64_t v = x.limb[word] >> shift;
  if (shift > 16 && word + 1 < N) v |= x.limb[word + 1] << (64 - shift);
  return v & kMask48;
}

// The constants of a modulus p (N 64-bit limbs) for mont_mul.
template <size_t N>
struct Modulus {
  static_assert(N % 3 == 0, "R = 2^(64N) must be a whole number of 48-bit limbs");
  static constexpr size_t L = kLimbs48<N>;
  double p_scaled[L];  // p_j·2^-48
  double inv_scaled;   // (−p⁻¹ mod 2^48)·2^-48

  // neg_inv64 = −p⁻¹ mod 2^64 (ff::Field::kInv); its low 48 bits are −p⁻¹ mod 2^48.
  CUZK_HD static constexpr Modulus make(const BigInt<N>& p, uint64_t neg_inv64) {
    Modulus m{};
    for (size_t j = 0; j < L; ++j) m.p_scaled[j] = double(limb48(p, j)) * kTwoMinus48;
    m.inv_scaled = double(neg_inv64 & kMask48) * kTwoMinus48;
    return m;
  }
};

#if defined(__CUDACC__)

// x (N 64-bit limbs) as L exact 48-bit doubles.
template <size_t N>
CUZK_DEVICE void to_limbs(double* out, const uint64_t* x) {
#pragma unroll
  for (size_t i = 0; i < kLimbs48<N>; ++i) {
    const size_t bit = 48 * i, word = bit / 64, shift = bit % 64;
    uint64_t v = x[word] >> shift;
    if (shift > 16) v |= x[word + 1] << (64 - shift);
    out[i] = __dsub_rn(__longlong_as_double((long long)(kTwo52Bits | (v & kMask48))), kTwo52);
  }
}

// The inverse of to_limbs: L doubles, integers in [0, 2^48), to N 64-bit limbs.
template <size_t N>
CUZK_DEVICE void from_limbs(uint64_t* x, const double* in) {
#pragma unroll
  for (size_t k = 0; k < N; ++k) x[k] = 0;
#pragma unroll
  for (size_t i = 0; i < kLimbs48<N>; ++i) {
    const uint64_t v = uint64_t(__double_as_longlong(__dadd_rn(in[i], kTwo52))) & kMask48;
    const size_t bit = 48 * i, word = bit / 64, shift = bit % 64;
    x[word] |= v << shift;
    if (shift > 16) x[word + 1] |= v >> (64 - shift);
  }
}

namespace detail {

// hi += ⌊a·b/2^48⌋ and lo += (a·b mod 2^48)·2^-48, with b_scaled = b·2^-48 (see the top).
CUZK_DEVICE void limb_product(double& hi, double& lo, double a, double b_scaled) {
  const double next = __fma_rz(a, b_scaled, hi);
  const double high = __dsub_rn(next, hi);
  hi = next;
  lo = __dadd_rn(lo, __fma_rn(a, b_scaled, -high));
}

}  // namespace detail

// r = a·b·2^(-64N) mod p, lazily reduced: a, b < 2p in, r < 2p out. r may alias a or b.
// Cost: 8L² + 13L + 8 FP64 instructions (L = 8: 624): 4 per limb product of a·b and of the
// m·p, 12 more per reduction step, 5 per carried limb at the end, and b's L scalings.
template <size_t N>
CUZK_DEVICE void mont_mul(double* r, const double* a, const double* b, const Modulus<N>& m) {
  constexpr size_t L = Modulus<N>::L;
  double b_scaled[L];
#pragma unroll
  for (size_t j = 0; j < L; ++j) b_scaled[j] = __dmul_rn(b[j], kTwoMinus48);
  // Column k of the running value is (hi[k] − 2^52) + 2^48·lo[k].
  double hi[2 * L], lo[2 * L];
#pragma unroll
  for (size_t k = 0; k < 2 * L; ++k) {
    hi[k] = kTwo52;
    lo[k] = 0;
  }
#pragma unroll
  for (size_t i = 0; i < L; ++i) {
#pragma unroll
    for (size_t j = 0; j < L; ++j) detail::limb_product(hi[i + j + 1], lo[i + j], a[i], b_scaled[j]);
  }
  // The carry into the next column, kept as 2^52 − carry: the column's value is then
  // hi − (2^52 − carry), one exact subtraction.
  double carry_complement = kTwo52;
#pragma unroll
  for (size_t k = 0; k < L; ++k) {
    const double t = __fma_rn(lo[k], kTwo48, __dsub_rn(hi[k], carry_complement));
    const double q_biased = __fma_rz(t, kTwoMinus48, kTwo52);  // 2^52 + ⌊t/2^48⌋
    const double t_low = __fma_rn(__dsub_rn(kTwo52, q_biased), kTwo48, t);  // t mod 2^48
    const double m_high = __dsub_rn(__fma_rz(t_low, m.inv_scaled, kTwo52), kTwo52);
    const double mk = __dmul_rn(__fma_rn(t_low, m.inv_scaled, -m_high), kTwo48);
    // 2^52 + ⌊t/2^48⌋ + [t mod 2^48 ≠ 0], rounded up from the fraction t_low/2^48.
    carry_complement = __dsub_rn(kTwo53, __fma_ru(t_low, kTwoMinus48, q_biased));
    hi[k + 1] = __fma_rz(mk, m.p_scaled[0], hi[k + 1]);
#pragma unroll
    for (size_t j = 1; j < L; ++j) detail::limb_product(hi[k + j + 1], lo[k + j], mk, m.p_scaled[j]);
  }
  // The upper L columns, carried into 48-bit limbs.
#pragma unroll
  for (size_t k = L; k < 2 * L; ++k) {
    const double t = __fma_rn(lo[k], kTwo48, __dsub_rn(hi[k], carry_complement));
    const double q_biased = __fma_rz(t, kTwoMinus48, kTwo52);
    r[k - L] = __fma_rn(__dsub_rn(kTwo52, q_biased), kTwo48, t);
    carry_complement = __dsub_rn(kTwo53, q_biased);
  }
}

#endif  // __CUDACC__

}  // namespace cuzk::ff::f64
