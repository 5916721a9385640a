#pragma once
// Signed-digit windows of a scalar for Pippenger's method.
//
// A c-bit window w of k holds raw_w = bits [cw, cw + c) of k, in [0, 2^c). Plain windows need
// 2^c − 1 buckets; signed digits need half as many, because a negative digit −d is served by
// the bucket of d with the base negated (free in affine coordinates: y ↦ −y).
//
// Recoding (Booth's, as in blst's pippenger): when raw_w has its top bit set, take
// raw_w − 2^c as the digit and carry 1 into window w + 1. The carry into window w is thus
// bit cw − 1 of k itself, and
//   d_w = raw_w + b_(cw−1) − 2^c · b_(cw+c−1)                  (b_(−1) = 0)
// a function of the c + 1 bits [cw − 1, cw + c) alone, so any window can be recoded on its own
// (no pass over the lower windows). The range is [−2^(c−1), 2^(c−1)]: top bit clear gives
// [0, 2^(c−1) − 1] plus the carry; top bit set gives [2^(c−1) − 2^c, −1] plus the carry.
// The sum telescopes back to k: bit cw + c − 1 counts −2^(c−1)·2^(cw) in window w and
// +1·2^(c(w+1)) in window w + 1, net +2^(cw+c−1), its weight.
// The last window must see a clear top bit, so a b-bit scalar needs c·W ≥ b + 1, i.e.
// W = ⌊b/c⌋ + 1 windows.
//
// Cost: one or two limb loads, shifts and a subtraction per (scalar, window).

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"

namespace cuzk::msm {

// Windows of c bits enough for every scalar of `bits` bits, with the final carry.
constexpr unsigned signed_window_count(size_t bits, unsigned c) { return unsigned(bits / c) + 1; }

// Bits [pos, pos + count) of k as an integer, count ≤ 63; bits beyond the top limb read 0.
template <size_t N>
constexpr uint64_t extract_bits(const ff::BigInt<N>& k, size_t pos, unsigned count) {
  const size_t limb = pos / 64, shift = pos % 64;
  if (limb >= N) return 0;
  uint64_t v = k.limb[limb] >> shift;
  if (shift + count > 64 && limb + 1 < N) v |= k.limb[limb + 1] << (64 - shift);
  return v & ((uint64_t(1) << count) - 1);
}

// The signed digit d_w of window w (width c, 1 ≤ c ≤ 32), in [−2^(c−1), 2^(c−1)].
template <size_t N>
constexpr int64_t signed_digit(const ff::BigInt<N>& k, unsigned c, unsigned w) {
  // bits [cw − 1, cw + c): bit 0 is the incoming carry b_(cw−1).
  const uint64_t bits =
      w == 0 ? extract_bits(k, 0, c) << 1 : extract_bits(k, size_t(c) * w - 1, c + 1);
  const int64_t raw = int64_t(bits >> 1);
  const int64_t carry_in = int64_t(bits & 1);
  const int64_t top = raw >> (c - 1);
  return raw + carry_in - (top << c);
}

}  // namespace cuzk::msm
