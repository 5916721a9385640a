#pragma once
// Fixed-width unsigned integers as little-endian 64-bit limbs, with the constexpr arithmetic
// used to derive field constants at compile time (R, R², -p⁻¹, roots of unity). Nothing here
// is on a hot path; the field type has its own tuned multiplication.

#include <cstddef>
#include <cstdint>

#include "util/host_device.hpp"

namespace cuzk::ff {

template <size_t N>
struct BigInt {
  uint64_t limb[N];

  constexpr bool operator==(const BigInt&) const = default;

  CUZK_HD constexpr bool is_zero() const {
    uint64_t acc = 0;
    for (size_t i = 0; i < N; ++i) acc |= limb[i];
    return acc == 0;
  }
  CUZK_HD constexpr bool bit(size_t i) const { return (limb[i / 64] >> (i % 64)) & 1; }
  CUZK_HD constexpr bool is_odd() const { return limb[0] & 1; }

  // Number of significant bits (0 for zero).
  CUZK_HD constexpr size_t bit_length() const {
    for (size_t i = N; i-- > 0;) {
      if (limb[i] != 0) {
        size_t b = 64;
        while (!((limb[i] >> (b - 1)) & 1)) --b;
        return i * 64 + b;
      }
    }
    return 0;
  }

  static constexpr BigInt from_u64(uint64_t v) {
    BigInt r{};
    r.limb[0] = v;
    return r;
  }
};

// Three-way comparison: -1, 0, 1.
template <size_t N>
CUZK_HD constexpr int compare(const BigInt<N>& a, const BigInt<N>& b) {
  for (size_t i = N; i-- > 0;) {
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i] ? -1 : 1;
  }
  return 0;
}

// a += b; returns the carry out.
template <size_t N>
CUZK_HD constexpr uint64_t add_in_place(BigInt<N>& a, const BigInt<N>& b) {
  uint64_t carry = 0;
  for (size_t i = 0; i < N; ++i) {
    uint64_t s = a.limb[i] + carry;
    uint64_t c1 = s < carry;
    uint64_t t = s + b.limb[i];
    uint64_t c2 = t < s;
    a.limb[i] = t;
    carry = c1 | c2;
  }
  return carry;
}

// a -= b; returns the borrow out.
template <size_t N>
CUZK_HD constexpr uint64_t sub_in_place(BigInt<N>& a, const BigInt<N>& b) {
  uint64_t borrow = 0;
  for (size_t i = 0; i < N; ++i) {
    uint64_t d = a.limb[i] - b.limb[i];
    uint64_t b1 = a.limb[i] < b.limb[i];
    uint64_t e = d - borrow;
    uint64_t b2 = d < borrow;
    a.limb[i] = e;
    borrow = b1 | b2;
  }
  return borrow;
}

template <size_t N>
CUZK_HD constexpr void shr1_in_place(BigInt<N>& a, uint64_t top = 0) {
  for (size_t i = 0; i + 1 < N; ++i) a.limb[i] = (a.limb[i] >> 1) | (a.limb[i + 1] << 63);
  a.limb[N - 1] = (a.limb[N - 1] >> 1) | (top << 63);
}

template <size_t N>
CUZK_HD constexpr BigInt<N> shr(BigInt<N> a, size_t bits) {
  for (size_t k = 0; k < bits; ++k) shr1_in_place(a);
  return a;
}

// Parses a hexadecimal literal (optional "0x", no separators) at compile time.
template <size_t N>
consteval BigInt<N> parse_hex(const char* s) {
  BigInt<N> r{};
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
  size_t len = 0;
  while (s[len] != '\0') ++len;
  if (len == 0 || len > 16 * N) throw "hex literal does not fit";
  for (size_t k = 0; k < len; ++k) {
    char c = s[len - 1 - k];
    uint64_t d = (c >= '0' && c <= '9')   ? uint64_t(c - '0')
                 : (c >= 'a' && c <= 'f') ? uint64_t(c - 'a' + 10)
                 : (c >= 'A' && c <= 'F') ? uint64_t(c - 'A' + 10)
                                          : throw "bad hex digit";
    r.limb[k / 16] |= d << (4 * (k % 16));
  }
  return r;
}

// 2^k mod m by repeated doubling; m must leave the top bit of the top limb clear.
template <size_t N>
constexpr BigInt<N> pow2_mod(size_t k, const BigInt<N>& m) {
  BigInt<N> r = BigInt<N>::from_u64(1);
  for (size_t i = 0; i < k; ++i) {
    add_in_place(r, r);
    if (compare(r, m) >= 0) sub_in_place(r, m);
  }
  return r;
}

// -m⁻¹ mod 2^64 for odd m, by Newton iteration (each step doubles the correct low bits).
constexpr uint64_t neg_inverse_u64(uint64_t m) {
  uint64_t x = 1;
  for (int i = 0; i < 7; ++i) x *= 2 - m * x;
  return ~x + 1;
}

}  // namespace cuzk::ff
