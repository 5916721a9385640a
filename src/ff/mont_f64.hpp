#pragma once
// Montgomery multiplication of 384-bit elements (BLS12-381 Fp) on the FP64 units.
//
// The device's products run on the integer multiply-add pipe, which they keep about 94% busy
// (src/gpu/msm/README.md). The FP64 pipe is a second multiplier of the same width (64 fused
// multiply-adds per clock and multiprocessor on sm_90) that integer code leaves idle. This is
// the product rebuilt on it: same inputs, same outputs, bit for bit, as ptx::mont_mul and the
// host's Field::operator* (R = 2^384, inputs and output fully reduced).
//
// Radix 2^48: an element is 8 limbs of 48 bits (8·48 = 384, so R is the same as the 12-word
// form's and no conversion factor appears), each an exact integer in a double. A product of
// two limbs is below 2^96 and is split exactly by two fused multiply-adds, all rounding to
// nearest (so the host, with std::fma, computes the same bits):
//
//   hi = fma(x, y, 2^100)              = 2^100 + k·2^48,   k = round(x·y / 2^48) ≤ 2^48
//   lo = fma(x, y, (2^100 + 1.5·2^52) − hi) = 1.5·2^52 + s, s = x·y − k·2^48, |s| ≤ 2^47
//
// Both sums are exact: hi's unit in the last place is 2^48 and lo lies in [2^52, 2^53) where it
// is 1. The bit patterns of hi and lo are then k and s plus constants (the exponent fields),
// so the columns of the product are sums of raw bit patterns in 64-bit integers, and the
// constants are subtracted once, by starting each column at minus their total. Every constant
// is a multiple of 2^48, so a column read modulo 2^48 (for the Montgomery digit) needs no
// correction at all.
//
// The reduction is separated from the product (all 64 limb products first, then 8 rounds of
// m_i = c_i·(−p⁻¹) mod 2^48 and c += m_i·p·2^(48i)), since the columns are plain integers and
// carries between them wait until a column is read. Each limb product costs 2 DFMA + 1 DADD on
// the FP64 pipe and one 64-bit addition per half on the integer ALU; the IMAD pipe only
// computes the 8 digits m_i.
//
// Arrays are indexed by compile-time constants in fully unrolled loops, so on the device every
// value lives in a register.

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "ff/bigint.hpp"
#include "util/hd.hpp"

namespace cuzk::ff::f64 {

inline constexpr size_t kWords = 12;  // 32-bit words of an element
inline constexpr size_t kLimbs = 8;   // 48-bit limbs of an element
inline constexpr uint64_t kLimbMask = (uint64_t(1) << 48) - 1;

namespace detail {

inline constexpr double kTwo52 = 0x1p52;
inline constexpr double kSplit = 0x1p100;
inline constexpr double kLowBias = 0x1p100 + 0x1p52 + 0x1p51;
// Bit patterns of hi and lo minus k and s respectively.
inline constexpr uint64_t kHighOffset = 0x4630000000000000;                 // 2^100
inline constexpr uint64_t kLowOffset = 0x4330000000000000 + (uint64_t(1) << 51);  // 1.5·2^52
static_assert(std::bit_cast<uint64_t>(kSplit) == kHighOffset);
static_assert(std::bit_cast<uint64_t>(kTwo52 + 0x1p51) == kLowOffset);
static_assert(kHighOffset % (uint64_t(1) << 48) == 0 && kLowOffset % (uint64_t(1) << 48) == 0);

CUZK_HD double fma_rn(double x, double y, double z) {
#ifdef __CUDA_ARCH__
  return __fma_rn(x, y, z);
#else
  return std::fma(x, y, z);
#endif
}

CUZK_HD double sub_rn(double x, double y) {
#ifdef __CUDA_ARCH__
  return __dsub_rn(x, y);
#else
  return x - y;
#endif
}

CUZK_HD uint64_t bits_of(double x) {
#ifdef __CUDA_ARCH__
  return uint64_t(__double_as_longlong(x));
#else
  return std::bit_cast<uint64_t>(x);
#endif
}

CUZK_HD double double_of_bits(uint64_t x) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double((long long)x);
#else
  return std::bit_cast<double>(x);
#endif
}

// An integer below 2^52 as a double: placed in the mantissa of 2^52, then 2^52 subtracted.
CUZK_HD double exact_double(uint64_t v) {
  return sub_rn(double_of_bits(0x4330000000000000 | v), kTwo52);
}

// The column sums start at minus the offsets of every half that will land in them: the lows of
// the pairs (i, j) with i + j = t and the highs of those with i + j + 1 = t, twice (a·b, then
// the reduction's m·p). Unsigned arithmetic, modulo 2^64.
constexpr uint64_t initial_column(size_t t) {
  uint64_t lows = 0, highs = 0;
  for (size_t i = 0; i < kLimbs; ++i) {
    for (size_t j = 0; j < kLimbs; ++j) {
      if (i + j == t) lows += 2;
      if (i + j + 1 == t) highs += 2;
    }
  }
  return uint64_t(0) - (lows * kLowOffset + highs * kHighOffset);
}

template <size_t... I>
constexpr auto initial_columns(std::index_sequence<I...>) {
  struct Columns {
    uint64_t c[sizeof...(I)];
  };
  return Columns{{initial_column(I)...}};
}

// c[t] += lo(x·y), c[t + 1] += hi(x·y).
CUZK_HD void add_product(uint64_t* c, size_t t, double x, double y) {
  const double hi = fma_rn(x, y, kSplit);
  const double lo = fma_rn(x, y, sub_rn(kLowBias, hi));
  c[t] += bits_of(lo);
  c[t + 1] += bits_of(hi);
}

CUZK_HD uint64_t shift_down(uint64_t c) { return uint64_t(int64_t(c) >> 48); }

}  // namespace detail

// The 48-bit limbs of a 12-word element.
CUZK_HD void limbs_of(uint64_t* limbs, const uint32_t* w) {
#pragma unroll
  for (size_t k = 0; k < kLimbs / 2; ++k) {
    limbs[2 * k] = w[3 * k] | (uint64_t(w[3 * k + 1] & 0xffff) << 32);
    limbs[2 * k + 1] = (w[3 * k + 1] >> 16) | (uint64_t(w[3 * k + 2]) << 16);
  }
}

// The 12 words of 8 limbs below 2^48.
CUZK_HD void words_of(uint32_t* w, const uint64_t* limbs) {
#pragma unroll
  for (size_t k = 0; k < kLimbs / 2; ++k) {
    w[3 * k] = uint32_t(limbs[2 * k]);
    w[3 * k + 1] = uint32_t(limbs[2 * k] >> 32) | uint32_t(limbs[2 * k + 1] << 16);
    w[3 * k + 2] = uint32_t(limbs[2 * k + 1] >> 16);
  }
}

// The modulus' constants in radix 2^48, derived from the field's 64-bit limbs.
template <class F>
struct Modulus {
  static_assert(F::kLimbs == 6, "the FP64 product is written for 384-bit elements");

  static constexpr auto limbs() {
    struct Limbs {
      uint64_t v[kLimbs];
    };
    Limbs r{};
    for (size_t k = 0; k < kLimbs; ++k) {
      const size_t bit = 48 * k, limb = bit / 64, shift = bit % 64;
      uint64_t v = F::kModulus.limb[limb] >> shift;
      if (shift > 16 && limb + 1 < F::kLimbs) v |= F::kModulus.limb[limb + 1] << (64 - shift);
      r.v[k] = v & kLimbMask;
    }
    return r;
  }
  static constexpr auto kP = limbs();
  // The same limbs as doubles (exact: below 2^48), so that no conversion runs per product.
  static constexpr auto doubles() {
    struct Doubles {
      double v[kLimbs];
    };
    Doubles r{};
    for (size_t k = 0; k < kLimbs; ++k) r.v[k] = double(kP.v[k]);
    return r;
  }
  static constexpr auto kPDouble = doubles();
  // −p⁻¹ mod 2^48 is −p⁻¹ mod 2^64 reduced.
  static constexpr uint64_t kInv = F::kInv & kLimbMask;
};

// r = a·b·2^−384 mod p, on 12-word elements below p. r may alias a or b.
template <class F>
CUZK_HD void mont_mul(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  // Local copies: device code cannot name a static member, but folds a local constexpr.
  constexpr auto kP = Modulus<F>::kP;
  constexpr auto kPDouble = Modulus<F>::kPDouble;
  constexpr uint64_t kInv = Modulus<F>::kInv;
  uint64_t la[kLimbs], lb[kLimbs];
  limbs_of(la, a);
  limbs_of(lb, b);
  double x[kLimbs], y[kLimbs];
#pragma unroll
  for (size_t k = 0; k < kLimbs; ++k) {
    x[k] = detail::exact_double(la[k]);
    y[k] = detail::exact_double(lb[k]);
  }

  constexpr auto kInit = detail::initial_columns(std::make_index_sequence<2 * kLimbs>{});
  uint64_t c[2 * kLimbs];
#pragma unroll
  for (size_t t = 0; t < 2 * kLimbs; ++t) c[t] = kInit.c[t];

#pragma unroll
  for (size_t i = 0; i < kLimbs; ++i) {
#pragma unroll
    for (size_t j = 0; j < kLimbs; ++j) detail::add_product(c, i + j, x[i], y[j]);
  }

  // Reduction: column i is complete once round i − 1 has carried into it.
#pragma unroll
  for (size_t i = 0; i < kLimbs; ++i) {
    const uint64_t m = (c[i] * kInv) & kLimbMask;
    const double md = detail::exact_double(m);
#pragma unroll
    for (size_t j = 0; j < kLimbs; ++j) {
      detail::add_product(c, i + j, md, kPDouble.v[j]);
    }
    c[i + 1] += detail::shift_down(c[i]);  // c[i] is now a multiple of 2^48
  }

  // c[8..15] hold (a·b + m·p) / 2^384 < 2p in signed columns: normalize to 48-bit limbs, and
  // subtract p once if the value is not below it.
  uint64_t v[kLimbs], d[kLimbs];
#pragma unroll
  for (size_t k = 0; k < kLimbs; ++k) {
    if (k + 1 < kLimbs) c[kLimbs + k + 1] += detail::shift_down(c[kLimbs + k]);
    v[k] = c[kLimbs + k] & kLimbMask;
  }
  uint64_t borrow = 0;  // 0 or all ones
#pragma unroll
  for (size_t k = 0; k < kLimbs; ++k) {
    const uint64_t diff = v[k] - kP.v[k] + borrow;
    d[k] = diff & kLimbMask;
    borrow = detail::shift_down(diff);
  }
  const bool below_p = borrow != 0;
#pragma unroll
  for (size_t k = 0; k < kLimbs; ++k) v[k] = below_p ? v[k] : d[k];
  words_of(r, v);
}

}  // namespace cuzk::ff::f64
