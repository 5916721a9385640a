#pragma once
// Cubic extension Fp6 = Fp2[v]/(v³ − ξ), the middle floor of the pairing tower
// Fp2 → Fp6 → Fp12 (Fp12 = Fp6[w]/(w² − v), see fp12.hpp). This is the tower of the curves'
// specifications and of zcash, arkworks, gnark and @noble/curves, so coefficient order matches
// theirs: an Fp6 element is c0 + c1·v + c2·v².
//
// A tower record is data: the Fp2 type and the small integers of ξ = kXiC0 + kXiC1·u, a
// non-residue for both squares and cubes in Fp2 (checked in the tests). Everything else, the
// Frobenius coefficients included, is derived here at compile time:
//
//   struct Tower {
//     using Fp2 = ...;
//     static constexpr uint64_t kXiC0 = 1, kXiC1 = 1;  // ξ = 1 + u (BLS12-381)
//   };
//
// Costs below are in Fp2 multiplications (M2, 3 base-field M each with Karatsuba) and squarings
// (S2, 2 M); additions are not counted. The pairing runs on the host; the arithmetic is built
// from Fp2 operations and carries CUZK_HD like them, except the Frobenius maps, which read the
// host-side coefficient tables.

#include <array>
#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/fp2.hpp"
#include "util/host_device.hpp"

namespace cuzk::ff {

namespace detail {

// k·a for a small constant k by double-and-add; with k known at compile time the loop unrolls
// into a few additions, cheaper than a Montgomery product.
template <uint64_t k, class F>
CUZK_HD constexpr F mul_by_small(const F& a) {
  static_assert(k > 0);
  if constexpr (k == 1) {
    return a;
  } else {
    F r = a;
    for (int i = 62 - __builtin_clzll(k); i >= 0; --i) {
      r = r.dbl();
      if ((k >> i) & 1) r += a;
    }
    return r;
  }
}

// a / d for a small divisor d that divides a exactly (checked at compile time by the callers'
// static_asserts through `remainder`): long division on 64-bit limbs, most significant first.
template <size_t N>
struct SmallDivision {
  BigInt<N> quotient;
  uint64_t remainder;
};
template <size_t N>
constexpr SmallDivision<N> divide_small(const BigInt<N>& a, uint64_t d) {
  SmallDivision<N> r{};
  unsigned __int128 rem = 0;
  for (size_t i = N; i-- > 0;) {
    rem = (rem << 64) | a.limb[i];
    r.quotient.limb[i] = uint64_t(rem / d);
    rem %= d;
  }
  r.remainder = uint64_t(rem);
  return r;
}

}  // namespace detail

// The tower's constants, derived once at compile time from ξ and p.
template <class Tower>
struct TowerConstants {
  using Fp2 = typename Tower::Fp2;
  using Fp = typename Fp2::Base;

  static constexpr Fp2 kXi = {Fp::from_u64(Tower::kXiC0), Fp::from_u64(Tower::kXiC1)};

  // Frobenius coefficients γ[k][m] = ξ^(m·(p^k − 1)/6) for k < 12, m < 6.
  //
  // Why: Fp12 = Fp2[w]/(w⁶ − ξ) (w² = v), and (Σ g_m·w^m)^(p^k) = Σ g_m^(p^k)·w^(m·p^k) with
  // w^(m·p^k) = w^m·(w⁶)^(m(p^k − 1)/6) = w^m·γ[k][m]; p ≡ 1 (mod 6) makes the exponent whole.
  // Only γ[1][1] = ξ^((p−1)/6) needs an exponentiation: ξ^((p^(k+1) − 1)/6) =
  // ξ^((p−1)/6)·(ξ^((p^k − 1)/6))^p, and the p-power of an Fp2 element is its conjugate, so
  // γ[k+1][1] = γ[1][1]·conj(γ[k][1]); then γ[k][m] = γ[k][1]^m.
  static constexpr std::array<std::array<Fp2, 6>, 12> kFrobenius = [] {
    constexpr auto division = [] {
      auto p_minus_1 = Fp::kModulus;
      p_minus_1.limb[0] -= 1;  // p is odd: no borrow
      return detail::divide_small(p_minus_1, 6);
    }();
    static_assert(division.remainder == 0, "the tower needs p ≡ 1 (mod 6)");
    std::array<std::array<Fp2, 6>, 12> g{};
    Fp2 gamma_1 = kXi.pow(division.quotient);
    Fp2 gamma_k = Fp2::one();  // γ[0][1]
    for (size_t k = 0; k < 12; ++k) {
      g[k][0] = Fp2::one();
      for (size_t m = 1; m < 6; ++m) g[k][m] = g[k][m - 1] * gamma_k;
      gamma_k = gamma_1 * gamma_k.conjugate();
    }
    return g;
  }();

  // a·ξ for ξ = c0 + c1·u: (c0·a0 − c1·a1) + (c0·a1 + c1·a0)·u, small constants as additions.
  CUZK_HD static constexpr Fp2 mul_by_xi(const Fp2& a) {
    Fp a0 = detail::mul_by_small<Tower::kXiC0>(a.c0);
    Fp a1 = detail::mul_by_small<Tower::kXiC0>(a.c1);
    Fp b0 = detail::mul_by_small<Tower::kXiC1>(a.c0);
    Fp b1 = detail::mul_by_small<Tower::kXiC1>(a.c1);
    return {a0 - b1, a1 + b0};
  }
};

template <class Tower>
struct Fp6 {
  using Fp2 = typename Tower::Fp2;
  using Constants = TowerConstants<Tower>;
  Fp2 c0, c1, c2;  // c0 + c1·v + c2·v²

  CUZK_HD static constexpr Fp6 zero() { return {Fp2::zero(), Fp2::zero(), Fp2::zero()}; }
  CUZK_HD static constexpr Fp6 one() { return {Fp2::one(), Fp2::zero(), Fp2::zero()}; }

  CUZK_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  CUZK_HD constexpr bool operator==(const Fp6& o) const {
    return c0 == o.c0 && c1 == o.c1 && c2 == o.c2;
  }
  CUZK_HD constexpr bool operator!=(const Fp6& o) const { return !(*this == o); }

  CUZK_HD constexpr Fp6 operator+(const Fp6& o) const { return {c0 + o.c0, c1 + o.c1, c2 + o.c2}; }
  CUZK_HD constexpr Fp6 operator-(const Fp6& o) const { return {c0 - o.c0, c1 - o.c1, c2 - o.c2}; }
  CUZK_HD constexpr Fp6 operator-() const { return {-c0, -c1, -c2}; }
  CUZK_HD constexpr Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }
  CUZK_HD constexpr Fp6& operator+=(const Fp6& o) { return *this = *this + o; }
  CUZK_HD constexpr Fp6& operator-=(const Fp6& o) { return *this = *this - o; }
  CUZK_HD constexpr Fp6& operator*=(const Fp6& o) { return *this = *this * o; }

  // Karatsuba over three terms (Devegili, Ó hÉigeartaigh, Scott, Dahab, "Multiplication and
  // squaring on pairing-friendly fields", 2006, §4): with v_i = a_i·b_i and v³ = ξ,
  //   c0 = v0 + ξ·((a1 + a2)(b1 + b2) − v1 − v2)
  //   c1 = (a0 + a1)(b0 + b1) − v0 − v1 + ξ·v2
  //   c2 = (a0 + a2)(b0 + b2) − v0 − v2 + v1
  // 6 M2 instead of 9.
  CUZK_HD constexpr Fp6 operator*(const Fp6& o) const {
    Fp2 v0 = c0 * o.c0;
    Fp2 v1 = c1 * o.c1;
    Fp2 v2 = c2 * o.c2;
    return {v0 + Constants::mul_by_xi((c1 + c2) * (o.c1 + o.c2) - v1 - v2),
            (c0 + c1) * (o.c0 + o.c1) - v0 - v1 + Constants::mul_by_xi(v2),
            (c0 + c2) * (o.c0 + o.c2) - v0 - v2 + v1};
  }

  // Chung–Hasan SQR2 ("Asymmetric squaring formulae", 2007): with
  //   s0 = a0², s1 = 2·a0·a1, s2 = (a0 − a1 + a2)², s3 = 2·a1·a2, s4 = a2²,
  // (a0 + a1·v + a2·v²)² = (s0 + ξ·s3) + (s1 + ξ·s4)·v + (s1 + s2 + s3 − s0 − s4)·v².
  // 2 M2 + 3 S2.
  CUZK_HD constexpr Fp6 sqr() const {
    Fp2 s0 = c0.sqr();
    Fp2 s1 = (c0 * c1).dbl();
    Fp2 s2 = (c0 - c1 + c2).sqr();
    Fp2 s3 = (c1 * c2).dbl();
    Fp2 s4 = c2.sqr();
    return {s0 + Constants::mul_by_xi(s3), s1 + Constants::mul_by_xi(s4), s1 + s2 + s3 - s0 - s4};
  }

  // Multiplication by v: (a0 + a1·v + a2·v²)·v = ξ·a2 + a0·v + a1·v². No multiplication.
  CUZK_HD constexpr Fp6 mul_by_v() const { return {Constants::mul_by_xi(c2), c0, c1}; }

  // Multiplication by an element of Fp2 (the subfield): 3 M2.
  CUZK_HD constexpr Fp6 operator*(const Fp2& s) const { return {c0 * s, c1 * s, c2 * s}; }

  // Multiplication by the sparse b0 + b1·v, as it comes from line functions:
  //   c0 = a0·b0 + ξ·a2·b1, c1 = (a0 + a1)(b0 + b1) − a0·b0 − a1·b1, c2 = a1·b1 + a2·b0.
  // 5 M2.
  CUZK_HD constexpr Fp6 mul_by_01(const Fp2& b0, const Fp2& b1) const {
    Fp2 v0 = c0 * b0;
    Fp2 v1 = c1 * b1;
    return {v0 + Constants::mul_by_xi(c2 * b1), (c0 + c1) * (b0 + b1) - v0 - v1, v1 + c2 * b0};
  }

  // Multiplication by the sparse b1·v: ξ·a2·b1 + a0·b1·v + a1·b1·v². 3 M2.
  CUZK_HD constexpr Fp6 mul_by_1(const Fp2& b1) const {
    return {Constants::mul_by_xi(c2 * b1), c0 * b1, c1 * b1};
  }

  // Inverse through the norm to Fp2 (adjugate of the multiplication matrix):
  //   t0 = a0² − ξ·a1·a2, t1 = ξ·a2² − a0·a1, t2 = a1² − a0·a2,
  //   a⁻¹ = (t0 + t1·v + t2·v²) / (a0·t0 + ξ·(a2·t1 + a1·t2)).
  // 6 M2 + 3 S2 + one Fp2 inversion. Zero maps to zero.
  CUZK_HD constexpr Fp6 inverse() const {
    Fp2 t0 = c0.sqr() - Constants::mul_by_xi(c1 * c2);
    Fp2 t1 = Constants::mul_by_xi(c2.sqr()) - c0 * c1;
    Fp2 t2 = c1.sqr() - c0 * c2;
    Fp2 inv_norm = (c0 * t0 + Constants::mul_by_xi(c2 * t1 + c1 * t2)).inverse();
    return {t0 * inv_norm, t1 * inv_norm, t2 * inv_norm};
  }

  // this^(p^k), k < 12: c_i·v^i ↦ c_i^(p^k)·γ[k][2i]·v^i (v = w², see TowerConstants), where
  // c^(p^k) is the conjugate for odd k. At most 2 M2.
  constexpr Fp6 frobenius_map(size_t k) const {
    const auto& g = Constants::kFrobenius[k % 12];
    bool odd = k & 1;
    return {odd ? c0.conjugate() : c0, (odd ? c1.conjugate() : c1) * g[2],
            (odd ? c2.conjugate() : c2) * g[4]};
  }

  // this^e (square-and-multiply, left to right).
  template <size_t M>
  CUZK_HD constexpr Fp6 pow(const BigInt<M>& e) const {
    Fp6 r = one();
    for (size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }

  template <class Rng>
  static Fp6 random(Rng& rng) {
    Fp2 a = Fp2::random(rng);
    Fp2 b = Fp2::random(rng);
    return {a, b, Fp2::random(rng)};
  }
};

}  // namespace cuzk::ff
