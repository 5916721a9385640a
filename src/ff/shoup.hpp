#pragma once
// Products by a fixed factor with a precomputed quotient (Shoup's method), for factors that are
// known long before they are used: an NTT's twiddles and its per-element scales.
//
// For a factor w < p, ShoupFactor keeps w itself (the integer, not its Montgomery form) and
// q_w = ⌊w·2^(32W)/p⌋. Then for any a < 2^(32W):
//   q = ⌊a·q_w / 2^(32W)⌋ ∈ {⌊a·w/p⌋ − 1, ⌊a·w/p⌋},   a·w − q·p ∈ [0, 2p),
// and only the low W words of a·w and of q·p are needed to get it. Since the factor is the plain
// integer w, a field element a = x·R in Montgomery form comes out as x·w·R: the product stays in
// Montgomery form, and its value (fully reduced) equals `a * F::from_int(w)` bit for bit.
//
// Cost on W = 8 words of 32 bits: the low half of a·w (36 word products), the high half of a·q_w
// (43: only the columns that can reach word W, see below), the low half of q·p (36): 115 word
// products against the Montgomery product's 128 + 8, and one conditional subtraction (needs
// 2p < 2^(32W): true for the scalar fields of BN254 and BLS12-381). The products left out of the
// high half sum to less than 16·2^(32(W−1)); they can change ⌊a·q_w / 2^(32W)⌋ only when word
// W−1 of the kept columns is ≥ 2^32 − 16, and then (about once in 2^28 products) the exact high
// half is computed, so q is always exact.
//
// The host version runs the same truncated steps on the same words (so the host emulation of the
// GPU NTT in the tests checks this arithmetic too); the device one is PTX carry chains
// (mont_ptx.cuh, `shoup_mul`).

#include <cstddef>
#include <cstdint>
#include <utility>

#include "ff/bigint.hpp"
#include "util/hd.hpp"

#if defined(__CUDACC__)
#include "ff/mont_ptx.cuh"
#endif

namespace cuzk::ff {

namespace shoup_detail {

// a·b mod 2^(64N) (the low N limbs of the product).
template <size_t N>
constexpr BigInt<N> low_product(const BigInt<N>& a, const BigInt<N>& b) {
  BigInt<N> r{};
  for (size_t i = 0; i < N; ++i) {
    unsigned __int128 carry = 0;
    for (size_t j = 0; i + j < N; ++j) {
      const unsigned __int128 t = (unsigned __int128)a.limb[i] * b.limb[j] + r.limb[i + j] + carry;
      r.limb[i + j] = uint64_t(t);
      carry = t >> 64;
    }
  }
  return r;
}

// p⁻¹ mod 2^(64N) for odd p, by Newton's iteration x ← x·(2 − p·x), which doubles the number of
// correct low bits; p·p ≡ 1 (mod 8) starts it at 3 bits.
template <size_t N>
constexpr BigInt<N> inverse_mod_word_power(const BigInt<N>& p) {
  BigInt<N> x = p;
  for (size_t bits = 3; bits < 64 * N; bits *= 2) {
    BigInt<N> two_minus_px{};
    two_minus_px.limb[0] = 2;
    sub_in_place(two_minus_px, low_product(p, x));  // mod 2^(64N): the borrow wraps
    x = low_product(x, two_minus_px);
  }
  return x;
}

// The portable steps on 32-bit words, as the device runs them (see the header comment).
template <size_t W>
constexpr void low_product_words(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  uint64_t low = 0;  // the column's running sum below 2^64 ...
  uint32_t top = 0;  // ... and its carries
  for (size_t k = 0; k < W; ++k) {
    for (size_t i = 0; i <= k; ++i) {
      const uint64_t product = uint64_t(a[i]) * b[k - i];
      low += product;
      top += low < product;
    }
    r[k] = uint32_t(low);
    low = (low >> 32) | (uint64_t(top) << 32);
    top = 0;
  }
}

// ⌊a·b / 2^(32W)⌋ as the device computes it: the columns that can reach word W, a guard on the
// carry the others could add, the exact product when the guard trips.
template <size_t W>
constexpr void high_product_words(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  uint64_t low = 0;
  uint32_t top = 0;
  for (size_t i = 0; i + 1 < W; ++i) low += (uint64_t(a[i]) * b[W - 2 - i]) >> 32;
  uint32_t guard = 0;
  for (size_t k = W - 1; k + 1 < 2 * W; ++k) {
    for (size_t i = k - (W - 1); i < W; ++i) {
      const uint64_t product = uint64_t(a[i]) * b[k - i];
      low += product;
      top += low < product;
    }
    if (k == W - 1) guard = uint32_t(low);
    if (k >= W) r[k - W] = uint32_t(low);
    low = (low >> 32) | (uint64_t(top) << 32);
    top = 0;
  }
  r[W - 1] = uint32_t(low);
  if (guard >= 0xfffffff0u) {
    uint32_t t[2 * W] = {};
    for (size_t i = 0; i < W; ++i) {
      uint64_t carry = 0;
      for (size_t j = 0; j < W; ++j) {
        const uint64_t v = uint64_t(a[i]) * b[j] + t[i + j] + carry;
        t[i + j] = uint32_t(v);
        carry = v >> 32;
      }
      t[i + W] = uint32_t(carry);
    }
    for (size_t k = 0; k < W; ++k) r[k] = t[W + k];
  }
}

// r = t − p if t ≥ p, else t (t < 2^(32W)).
template <size_t W>
constexpr void subtract_if_at_least(uint32_t* t, const uint32_t* p) {
  uint32_t d[W];
  uint64_t borrow = 0;
  for (size_t k = 0; k < W; ++k) {
    const uint64_t diff = uint64_t(t[k]) - p[k] - borrow;
    d[k] = uint32_t(diff);
    borrow = (diff >> 32) & 1;
  }
  if (borrow == 0) {
    for (size_t k = 0; k < W; ++k) t[k] = d[k];
  }
}

template <size_t W>
constexpr void shoup_mul_words(uint32_t* r, const uint32_t* a, const uint32_t* w,
                               const uint32_t* quotient, const uint32_t* p) {
  uint32_t aw[W], q[W], qp[W];
  low_product_words<W>(aw, a, w);
  high_product_words<W>(q, a, quotient);
  low_product_words<W>(qp, q, p);
  uint64_t borrow = 0;
  for (size_t k = 0; k < W; ++k) {
    const uint64_t diff = uint64_t(aw[k]) - qp[k] - borrow;
    r[k] = uint32_t(diff);
    borrow = (diff >> 32) & 1;
  }
  subtract_if_at_least<W>(r, p);
}

}  // namespace shoup_detail

// A fixed factor w of the field F, ready for `mul_shoup`. 2N limbs (64 bytes for a 4-limb field),
// aligned so that the device reads it in 16-byte words.
template <class F>
struct alignas(16) ShoupFactor {
  static constexpr size_t kLimbs = F::kLimbs;
  static constexpr size_t kWords = 2 * kLimbs;
  using Int = typename F::Int;

  static constexpr bool kModulusFits = [] {
    Int two_p = F::kModulus;
    return add_in_place(two_p, F::kModulus) == 0;
  }();
  static_assert(kModulusFits, "Shoup products need 2p < 2^(64N)");

  static constexpr Int kModulusInverse = shoup_detail::inverse_mod_word_power(F::kModulus);

  uint64_t value[kLimbs];     // w, canonical (not in Montgomery form)
  uint64_t quotient[kLimbs];  // ⌊w·2^(64N)/p⌋

  // w·2^(64N) = quotient·p + (w·R mod p), and w·R mod p is the Montgomery form F already holds:
  // the division is exact after subtracting it, so quotient = −(w·R mod p)·p⁻¹ mod 2^(64N).
  static constexpr ShoupFactor of(const F& w) {
    ShoupFactor f{};
    const Int v = w.to_int();
    Int minus_montgomery{};
    Int montgomery = w.as_int();
    sub_in_place(minus_montgomery, montgomery);
    const Int q = shoup_detail::low_product(minus_montgomery, kModulusInverse);
    for (size_t i = 0; i < kLimbs; ++i) {
      f.value[i] = v.limb[i];
      f.quotient[i] = q.limb[i];
    }
    return f;
  }

  template <size_t I>
  static constexpr uint32_t kModulusWord = uint32_t(F::kModulus.limb[I / 2] >> (32 * (I % 2)));
};

namespace shoup_detail {

template <class F, size_t... I>
CUZK_HD constexpr void modulus_words(uint32_t* p, std::index_sequence<I...>) {
  ((p[I] = ShoupFactor<F>::template kModulusWord<I>), ...);
}

template <size_t N>
CUZK_HD constexpr void split_words(uint32_t* w, const uint64_t* limbs) {
  for (size_t i = 0; i < N; ++i) {
    w[2 * i] = uint32_t(limbs[i]);
    w[2 * i + 1] = uint32_t(limbs[i] >> 32);
  }
}

}  // namespace shoup_detail

// a·w mod p with a in any form (Montgomery in, Montgomery out), fully reduced; a may be any
// value below 2^(64N), canonical or not.
template <class F>
CUZK_HD constexpr F mul_shoup(const F& a, const ShoupFactor<F>& f) {
  constexpr size_t W = ShoupFactor<F>::kWords;
  uint32_t x[W], w[W], q[W], p[W], r[W];
  shoup_detail::split_words<F::kLimbs>(x, a.mont);
  shoup_detail::split_words<F::kLimbs>(w, f.value);
  shoup_detail::split_words<F::kLimbs>(q, f.quotient);
  shoup_detail::modulus_words<F>(p, std::make_index_sequence<W>{});
#if defined(__CUDA_ARCH__)
  ptx::shoup_mul<W>(r, x, w, q, p);
#else
  shoup_detail::shoup_mul_words<W>(r, x, w, q, p);
#endif
  F out;
  for (size_t i = 0; i < F::kLimbs; ++i) out.mont[i] = r[2 * i] | (uint64_t(r[2 * i + 1]) << 32);
  return out;
}

}  // namespace cuzk::ff
