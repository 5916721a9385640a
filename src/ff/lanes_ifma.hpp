#pragma once
// Eight elements of a prime field at a time on AVX-512 IFMA (52-bit multiply-adds): the
// arithmetic of the CPU MSM's batch-affine additions (msm/affine_batch_simd.hpp).
//
// An element is held as L limbs of 52 bits, limb k of all eight lanes in one 512-bit register
// (L = 5 for the 254-bit BN254 base field, 8 for BLS12-381's 381 bits). Values are canonical
// (< p) between operations and in the same Montgomery form as Field (R = 2^(64·words)), so an
// element converts to and from Field by regrouping its bits, and results equal Field's bit for
// bit.
//
// The product: schoolbook 52×52-bit half products (vpmadd52luq / vpmadd52huq) into 2L
// accumulators of 64 bits, which hold far more than the 2L + 2 terms each receives, then L
// word-by-word Montgomery reduction steps: L − 1 of 52 bits and a last one of the remaining
// 64·words − 52·(L − 1) bits (48 for BN254, 20 for BLS12-381), so that the steps divide by
// exactly R. Inputs below p give a result below 2p, made canonical by one conditional
// subtraction. About 4L² multiply-adds for eight products; a 64-bit scalar
// product takes about 2·words² multiplications for one.
//
// Every function carries the target attribute instead of the whole translation unit being
// compiled for AVX-512: templates from shared headers (Field) instantiated here then keep the
// baseline instruction set, so the linker can never pick an AVX-512 copy of them for callers
// on machines without it. Callers check cpu_has_ifma() before calling anything here.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "ff/field.hpp"

#define CUZK_IFMA_TARGET_ISA "avx512f,avx512ifma,avx512vl,avx512dq,avx512bw"
// Functions that call the ones below: compiled for AVX-512 IFMA, called after cpu_has_ifma().
#define CUZK_IFMA_TARGET [[gnu::target(CUZK_IFMA_TARGET_ISA)]]
#define CUZK_IFMA [[gnu::target(CUZK_IFMA_TARGET_ISA), gnu::always_inline]] inline

namespace cuzk::ff::ifma {

// Whether this CPU executes AVX-512F and IFMA (and the OS saves the 512-bit registers).
inline bool cpu_has_ifma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512bw");
}

inline constexpr uint64_t kLimbMask = (uint64_t(1) << 52) - 1;

// Shifts of each 64-bit lane. (The unmasked intrinsics start from an undefined register, which
// GCC 12 reports as maybe-uninitialized once they are inlined; with a full mask they are the
// same instruction.)
CUZK_IFMA __m512i shift_left(__m512i v, unsigned bits) {
  return _mm512_maskz_slli_epi64(__mmask8(0xff), v, bits);
}
CUZK_IFMA __m512i shift_right(__m512i v, unsigned bits) {
  return _mm512_maskz_srli_epi64(__mmask8(0xff), v, bits);
}

template <class F>
struct Lanes {
  static constexpr size_t kWords = F::kLimbs;  // 64-bit words of Field
  static constexpr size_t kRBits = 64 * kWords;
  static constexpr size_t kLimbs = (kRBits + 51) / 52;
  static constexpr unsigned kLastStepBits = unsigned(kRBits - 52 * (kLimbs - 1));
  static_assert(kLastStepBits > 0 && kLastStepBits <= 52);
  // A product of canonical inputs is below (p² + R·p)/R < 2p, which the limbs hold.
  static_assert(F::kBits + 1 <= 52 * kLimbs);

  struct Vec {
    __m512i limb[kLimbs];
  };

  // p and -p⁻¹ mod 2^52 as limbs.
  static constexpr uint64_t modulus_limb(size_t k) { return word_bits(F::kModulus.limb, k); }
  static constexpr uint64_t kInv52 = F::kInv & kLimbMask;

  // Limb k (bits 52k .. 52k + 51) of a little-endian value of kWords words.
  static constexpr uint64_t word_bits(const uint64_t* words, size_t k) {
    const size_t bit = 52 * k, w = bit / 64, offset = bit % 64;
    uint64_t v = w < kWords ? words[w] >> offset : 0;
    if (offset > 12 && w + 1 < kWords) v |= words[w + 1] << (64 - offset);
    return v & kLimbMask;
  }
};

// Every lane holds the same element (Montgomery words of a Field).
template <class F>
CUZK_IFMA typename Lanes<F>::Vec broadcast(const F& x) {
  typename Lanes<F>::Vec r;
  for (size_t k = 0; k < Lanes<F>::kLimbs; ++k) {
    r.limb[k] = _mm512_set1_epi64(static_cast<long long>(Lanes<F>::word_bits(x.mont, k)));
  }
  return r;
}

// Regroups kWords 64-bit word vectors (word i of each lane) into limbs.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec from_words(const __m512i* words) {
  using L = Lanes<F>;
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kLimbMask));
  typename L::Vec r;
  for (size_t k = 0; k < L::kLimbs; ++k) {
    const size_t bit = 52 * k, w = bit / 64, offset = bit % 64;
    __m512i v = shift_right(words[w], unsigned(offset));
    if (offset > 12 && w + 1 < L::kWords) {
      v = _mm512_or_si512(v, shift_left(words[w + 1], unsigned(64 - offset)));
    }
    r.limb[k] = _mm512_and_si512(v, mask);
  }
  return r;
}

// The inverse of from_words, for canonical (hence normalized) limbs.
template <class F>
CUZK_IFMA void to_words(const typename Lanes<F>::Vec& a, __m512i* words) {
  using L = Lanes<F>;
  for (size_t i = 0; i < L::kWords; ++i) {
    __m512i w = _mm512_setzero_si512();
    for (size_t k = 0; k < L::kLimbs; ++k) {
      const long shift = long(52 * k) - long(64 * i);  // where limb k lands in word i
      if (shift <= -52 || shift >= 64) continue;
      w = _mm512_or_si512(w, shift >= 0 ? shift_left(a.limb[k], unsigned(shift))
                                        : shift_right(a.limb[k], unsigned(-shift)));
    }
    words[i] = w;
  }
}

// Eight Fields into lanes, and back.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec from_fields(const F* in) {
  __m512i words[F::kLimbs];
  alignas(64) uint64_t lane_words[8];
  for (size_t w = 0; w < F::kLimbs; ++w) {
    for (size_t lane = 0; lane < 8; ++lane) lane_words[lane] = in[lane].mont[w];
    words[w] = _mm512_load_si512(lane_words);
  }
  return from_words<F>(words);
}

template <class F>
CUZK_IFMA void to_fields(const typename Lanes<F>::Vec& v, F* out) {
  __m512i words[F::kLimbs];
  to_words<F>(v, words);
  alignas(64) uint64_t lane_words[8];
  for (size_t w = 0; w < F::kLimbs; ++w) {
    _mm512_store_si512(lane_words, words[w]);
    for (size_t lane = 0; lane < 8; ++lane) out[lane].mont[w] = lane_words[lane];
  }
}

// Lanes where a and b hold equal values.
template <class F>
CUZK_IFMA __mmask8 equal(const typename Lanes<F>::Vec& a, const typename Lanes<F>::Vec& b) {
  __mmask8 m = 0xff;
  for (size_t k = 0; k < Lanes<F>::kLimbs; ++k) {
    m &= _mm512_cmpeq_epi64_mask(a.limb[k], b.limb[k]);
  }
  return m;
}

// p, every lane.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec modulus() {
  typename Lanes<F>::Vec p;
  for (size_t k = 0; k < Lanes<F>::kLimbs; ++k) {
    p.limb[k] = _mm512_set1_epi64(static_cast<long long>(Lanes<F>::modulus_limb(k)));
  }
  return p;
}

// a + b on normalized limbs, each carry passed up, the carry out of the top limb dropped.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec add_limbs(const typename Lanes<F>::Vec& a,
                                           const typename Lanes<F>::Vec& b) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kLimbMask));
  typename Lanes<F>::Vec s;
  __m512i carry = _mm512_setzero_si512();
  for (size_t k = 0; k < Lanes<F>::kLimbs; ++k) {
    const __m512i v = _mm512_add_epi64(_mm512_add_epi64(a.limb[k], b.limb[k]), carry);
    carry = shift_right(v, 52);
    s.limb[k] = _mm512_and_si512(v, mask);
  }
  return s;
}

// a − b on normalized limbs, each borrow passed up: where a < b (the lanes set in `negative`)
// the limbs hold a − b + 2^(52L).
template <class F>
CUZK_IFMA typename Lanes<F>::Vec subtract_limbs(const typename Lanes<F>::Vec& a,
                                                const typename Lanes<F>::Vec& b,
                                                __mmask8& negative) {
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kLimbMask));
  typename Lanes<F>::Vec d;
  __m512i borrow = _mm512_setzero_si512();
  for (size_t k = 0; k < Lanes<F>::kLimbs; ++k) {
    const __m512i v = _mm512_sub_epi64(_mm512_sub_epi64(a.limb[k], b.limb[k]), borrow);
    borrow = shift_right(v, 63);
    d.limb[k] = _mm512_and_si512(v, mask);
  }
  negative = _mm512_test_epi64_mask(borrow, borrow);
  return d;
}

// Lane by lane, `where ? b : a`.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec select(__mmask8 where, const typename Lanes<F>::Vec& a,
                                        const typename Lanes<F>::Vec& b) {
  typename Lanes<F>::Vec r;
  for (size_t k = 0; k < Lanes<F>::kLimbs; ++k) {
    r.limb[k] = _mm512_mask_blend_epi64(where, a.limb[k], b.limb[k]);
  }
  return r;
}

// a − p where that is not negative, else a: a < 2p with normalized limbs to a < p.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec subtract_modulus_if_above(const typename Lanes<F>::Vec& a) {
  __mmask8 below;
  const typename Lanes<F>::Vec d = subtract_limbs<F>(a, modulus<F>(), below);
  return select<F>(below, d, a);
}

template <class F>
CUZK_IFMA typename Lanes<F>::Vec add(const typename Lanes<F>::Vec& a,
                                     const typename Lanes<F>::Vec& b) {
  return subtract_modulus_if_above<F>(add_limbs<F>(a, b));  // a + b < 2p < 2^(52L)
}

template <class F>
CUZK_IFMA typename Lanes<F>::Vec sub(const typename Lanes<F>::Vec& a,
                                     const typename Lanes<F>::Vec& b) {
  __mmask8 negative;
  const typename Lanes<F>::Vec d = subtract_limbs<F>(a, b, negative);
  // a < b: adding p to a − b + 2^(52L) and dropping the carry out gives a − b + p.
  return select<F>(negative, d, add_limbs<F>(d, modulus<F>()));
}

// t·R⁻¹ mod p, canonical, for the 2L accumulators of a product of canonical values (see the
// top of the file).
template <class F>
CUZK_IFMA typename Lanes<F>::Vec montgomery_reduce(__m512i (&t)[2 * Lanes<F>::kLimbs]) {
  using L = Lanes<F>;
  constexpr size_t n = L::kLimbs;
  const __m512i mask = _mm512_set1_epi64(static_cast<long long>(kLimbMask));
  const __m512i zero = _mm512_setzero_si512();
  const __m512i inv = _mm512_set1_epi64(static_cast<long long>(L::kInv52));
  for (size_t i = 0; i < n; ++i) {
    // m = -t·p⁻¹ mod 2^52 (of the step's bits in the last step): t + m·p ends in zeros there.
    __m512i m = _mm512_madd52lo_epu64(zero, t[i], inv);
    if (i + 1 == n && L::kLastStepBits < 52) {
      m = _mm512_and_si512(
          m, _mm512_set1_epi64(static_cast<long long>((uint64_t(1) << L::kLastStepBits) - 1)));
    }
    for (size_t j = 0; j < n; ++j) {
      const __m512i pj = _mm512_set1_epi64(static_cast<long long>(L::modulus_limb(j)));
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, pj);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, pj);
    }
    if (i + 1 < n) t[i + 1] = _mm512_add_epi64(t[i + 1], shift_right(t[i], 52));
  }
  // Normalize the upper half, then shift it down by the last step's bits: the quotient by R.
  for (size_t k = n - 1; k + 1 < 2 * n; ++k) {
    t[k + 1] = _mm512_add_epi64(t[k + 1], shift_right(t[k], 52));
    t[k] = _mm512_and_si512(t[k], mask);
  }
  typename L::Vec r;
  constexpr unsigned s = L::kLastStepBits;
  for (size_t k = 0; k < n; ++k) {
    // t[2n − 1] < 2^s: the result is below 2p.
    r.limb[k] = _mm512_or_si512(shift_right(t[n - 1 + k], s),
                                _mm512_and_si512(shift_left(t[n + k], 52 - s), mask));
  }
  return subtract_modulus_if_above<F>(r);
}

// a·b·R⁻¹ mod p: 2L² multiply-adds for the product, 2L² + L for the reduction.
template <class F>
CUZK_IFMA typename Lanes<F>::Vec mul(const typename Lanes<F>::Vec& a,
                                     const typename Lanes<F>::Vec& b) {
  constexpr size_t n = Lanes<F>::kLimbs;
  __m512i t[2 * n];
  for (size_t k = 0; k < 2 * n; ++k) t[k] = _mm512_setzero_si512();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.limb[i], b.limb[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.limb[i], b.limb[j]);
    }
  }
  return montgomery_reduce<F>(t);
}

// a²·R⁻¹ mod p: each cross product a_i·a_j (i < j) once, the sum doubled (the accumulators
// have room), then the squares a_i²: L² + L multiply-adds for the product instead of 2L².
template <class F>
CUZK_IFMA typename Lanes<F>::Vec sqr(const typename Lanes<F>::Vec& a) {
  constexpr size_t n = Lanes<F>::kLimbs;
  __m512i t[2 * n];
  for (size_t k = 0; k < 2 * n; ++k) t[k] = _mm512_setzero_si512();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.limb[i], a.limb[j]);
      t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.limb[i], a.limb[j]);
    }
  }
  for (size_t k = 0; k < 2 * n; ++k) t[k] = _mm512_add_epi64(t[k], t[k]);
  for (size_t i = 0; i < n; ++i) {
    t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.limb[i], a.limb[i]);
    t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.limb[i], a.limb[i]);
  }
  return montgomery_reduce<F>(t);
}

}  // namespace cuzk::ff::ifma
