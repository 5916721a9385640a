#pragma once
// The GLV endomorphism (Gallant, Lambert, Vanstone, CRYPTO 2001) of the curves y² = x³ + b:
// φ(x, y) = (β·x, y), β a primitive cube root of unity in Fp, maps the curve to itself, and on
// a group of prime order r it is multiplication by a cube root of unity λ of Fr. A scalar k
// then splits as
//   k ≡ k1 + k2·λ (mod r),  |k1|, |k2| < 2^127,
// so k·P = k1·P + k2·φ(P): two half-length scalars for the price of one multiplication in Fp
// (two on G2, whose x lies in Fp2 while β stays in Fp). The CPU MSM (msm/pippenger.hpp) uses
// it to run Pippenger over 2n points with 127-bit scalars instead of n points with 255-bit
// ones: the same number of bucket additions at a given window width, but half the windows,
// so each bucket reduction serves twice the points and the windows can be wider.
//
// The split is Babai's rounding in a short basis (a1, b1), (a2, b2) of the lattice
// {(a, b) : a + b·λ ≡ 0 (mod r)} (found by the extended Euclidean algorithm on r and λ, the
// method of the paper, §4):
//   c1 = round(b2·k/r),  c2 = round(−b1·k/r),  k1 = k − c1·a1 − c2·a2,  k2 = −c1·b1 − c2·b2,
// with the divisions replaced by g1 = round(2^256·b2/r), g2 = round(−2^256·b1/r):
// c_i = sign(g_i)·⌊(k·|g_i| + 2^255)/2^256⌋. k1 + k2·λ ≡ k holds whatever the c_i are; the
// bound holds because c_i is within 1/2 + 1/8 of k·b/r (the fixed point errs by less than 1/8
// for k < 2^255), so |k1| ≤ 5/8·(|a1| + |a2|) and |k2| ≤ 5/8·(|b1| + |b2|), both below 2^127
// for the two curves (asserted per decomposition, checked in tests/ec/glv_test.cpp).
//
// The constants of each curve are in src/curves/glv_constants.hpp, as a specialization of ec::Glv.

#include <concepts>
#include <cstddef>
#include <cstdint>

#include "ec/affine.hpp"
#include "ff/bigint.hpp"
#include "util/error.hpp"

namespace cuzk::ec {

// An integer given by sign and magnitude.
template <size_t N>
struct SignedInt {
  ff::BigInt<N> magnitude;
  bool negative;
};

// "-89d3…" or "6f4d…": hex digits with an optional leading minus.
template <size_t N>
consteval SignedInt<N> signed_hex(const char* s) {
  const bool negative = s[0] == '-';
  return {ff::parse_hex<N>(negative ? s + 1 : s), negative};
}

// The short lattice basis and the rounding constants of the split (top of this file).
struct GlvLattice {
  SignedInt<2> a1, b1, a2, b2;
  SignedInt<3> g1, g2;
};

// k ≡ ±k1 ± k2·λ (mod r) with k1, k2 < 2^127.
struct GlvScalar {
  ff::BigInt<2> k1, k2;
  bool k1_negative, k2_negative;
};

inline constexpr size_t kGlvScalarBits = 127;

// Specialized per group (src/curves/glv_constants.hpp) with
//   static constexpr GlvLattice kLattice;
//   static constexpr <Fp> beta();  the β with φ = λ on this group
//   static constexpr ff::BigInt<4> kLambda;
template <class Curve>
struct Glv;

template <class Curve>
concept HasGlv = requires {
  { Glv<Curve>::kLattice } -> std::convertible_to<GlvLattice>;
  Glv<Curve>::beta();
};

// φ(P) = (β·x, y); the point at infinity (0, 0) stays itself.
template <class Curve>
  requires HasGlv<Curve>
constexpr Affine<Curve> glv_endomorphism(const Affine<Curve>& p) {
  return {p.x * Glv<Curve>::beta(), p.y};
}

namespace detail {

// Two's complement integers of W limbs (arithmetic mod 2^(64W)): the split's intermediate values
// stay far below 2^(64W − 1) in magnitude, so wrapping never loses information.
template <size_t W, size_t A, size_t B>
constexpr ff::BigInt<W> mul_low(const ff::BigInt<A>& a, const ff::BigInt<B>& b) {
  ff::BigInt<W> r{};
  for (size_t i = 0; i < A && i < W; ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < B && i + j < W; ++j) {
      const unsigned __int128 t =
          (unsigned __int128)a.limb[i] * b.limb[j] + r.limb[i + j] + carry;
      r.limb[i + j] = uint64_t(t);
      carry = uint64_t(t >> 64);
    }
    if (i + B < W) r.limb[i + B] = carry;
  }
  return r;
}

template <size_t W>
constexpr ff::BigInt<W> negated(ff::BigInt<W> a) {
  uint64_t carry = 1;
  for (size_t i = 0; i < W; ++i) {
    const uint64_t v = ~a.limb[i] + carry;
    carry = carry != 0 && v == 0;
    a.limb[i] = v;
  }
  return a;
}

// acc += s·|x|·|y| with s the product of the signs.
template <size_t W, size_t A, size_t B>
constexpr void add_signed_product(ff::BigInt<W>& acc, const SignedInt<A>& x,
                                  const SignedInt<B>& y) {
  ff::BigInt<W> p = mul_low<W>(x.magnitude, y.magnitude);
  if (x.negative != y.negative) p = negated(p);
  ff::add_in_place(acc, p);
}

// round(k·g/2^256) for k < 2^255 and 0 ≤ g < 2^192, as sign and magnitude (g's sign).
template <size_t N>
constexpr SignedInt<3> rounded_quotient(const ff::BigInt<N>& k, const SignedInt<3>& g) {
  ff::BigInt<N + 3> p = mul_low<N + 3>(k, g.magnitude);
  ff::BigInt<N + 3> half{};
  half.limb[3] = uint64_t(1) << 63;
  ff::add_in_place(p, half);
  SignedInt<3> c{{}, g.negative};
  for (size_t i = 0; i < 3; ++i) c.magnitude.limb[i] = 4 + i < N + 3 ? p.limb[4 + i] : 0;
  return c;
}

// The sign and the low two limbs of a W-limb two's complement value below 2^127 in magnitude.
template <size_t W>
constexpr bool split_magnitude(ff::BigInt<W> v, ff::BigInt<2>& magnitude) {
  const bool negative = v.limb[W - 1] >> 63;
  if (negative) v = negated(v);
  for (size_t i = 2; i < W; ++i) {
    if (v.limb[i] != 0) CUZK_THROW(ErrorKind::kInternal, "GLV split: a half exceeds 2^128");
  }
  if (v.limb[1] >> 63) CUZK_THROW(ErrorKind::kInternal, "GLV split: a half exceeds 2^127");
  magnitude = {{v.limb[0], v.limb[1]}};
  return negative;
}

}  // namespace detail

// The split of k < r (canonical, at most 4 limbs) in the lattice (top of this file).
template <size_t N>
constexpr GlvScalar glv_split(const ff::BigInt<N>& k, const GlvLattice& lattice) {
  static_assert(N <= 4, "scalars of at most 256 bits");
  constexpr size_t W = 5;  // |c·a| < 2^(130 + 128): 320 bits hold every term with its sign
  const SignedInt<3> c1 = detail::rounded_quotient(k, lattice.g1);
  const SignedInt<3> c2 = detail::rounded_quotient(k, lattice.g2);
  ff::BigInt<W> k1{};
  for (size_t i = 0; i < N; ++i) k1.limb[i] = k.limb[i];
  const SignedInt<3> minus_c1{c1.magnitude, !c1.negative};
  const SignedInt<3> minus_c2{c2.magnitude, !c2.negative};
  detail::add_signed_product(k1, minus_c1, lattice.a1);
  detail::add_signed_product(k1, minus_c2, lattice.a2);
  ff::BigInt<W> k2{};
  detail::add_signed_product(k2, minus_c1, lattice.b1);
  detail::add_signed_product(k2, minus_c2, lattice.b2);
  GlvScalar out{};
  out.k1_negative = detail::split_magnitude(k1, out.k1);
  out.k2_negative = detail::split_magnitude(k2, out.k2);
  return out;
}

}  // namespace cuzk::ec
