#pragma once
// Quadratic extension Fp12 = Fp6[w]/(w² − v), the top of the pairing tower and the target
// group's field. An element is c0 + c1·w with c0, c1 in Fp6 (fp6.hpp); written over Fp2 it is
// Σ g_m·w^m (m < 6, w⁶ = ξ) with g_0, g_2, g_4 = c0.c0, c0.c1, c0.c2 and g_1, g_3, g_5 =
// c1.c0, c1.c1, c1.c2. The layout of zcash, arkworks, gnark and @noble/curves.
//
// Costs in Fp2 multiplications (M2) and squarings (S2); additions not counted.

#include <cstddef>
#include <cstdint>

#include "ff/bigint.hpp"
#include "ff/fp6.hpp"
#include "util/host_device.hpp"

namespace cuzk::ff {

template <class Tower>
struct Fp12 {
  using Fp2 = typename Tower::Fp2;
  using Fp6 = ff::Fp6<Tower>;
  using Constants = TowerConstants<Tower>;
  Fp6 c0, c1;  // c0 + c1·w

  CUZK_HD static constexpr Fp12 zero() { return {Fp6::zero(), Fp6::zero()}; }
  CUZK_HD static constexpr Fp12 one() { return {Fp6::one(), Fp6::zero()}; }

  CUZK_HD constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_HD constexpr bool is_one() const { return *this == one(); }
  CUZK_HD constexpr bool operator==(const Fp12& o) const { return c0 == o.c0 && c1 == o.c1; }
  CUZK_HD constexpr bool operator!=(const Fp12& o) const { return !(*this == o); }

  CUZK_HD constexpr Fp12 operator+(const Fp12& o) const { return {c0 + o.c0, c1 + o.c1}; }
  CUZK_HD constexpr Fp12 operator-(const Fp12& o) const { return {c0 - o.c0, c1 - o.c1}; }
  CUZK_HD constexpr Fp12 operator-() const { return {-c0, -c1}; }
  CUZK_HD constexpr Fp12& operator+=(const Fp12& o) { return *this = *this + o; }
  CUZK_HD constexpr Fp12& operator-=(const Fp12& o) { return *this = *this - o; }
  CUZK_HD constexpr Fp12& operator*=(const Fp12& o) { return *this = *this * o; }

  // Karatsuba: (a0 + a1·w)(b0 + b1·w) = a0b0 + a1b1·v + ((a0 + a1)(b0 + b1) − a0b0 − a1b1)·w.
  // 3 Fp6 products = 18 M2.
  CUZK_HD constexpr Fp12 operator*(const Fp12& o) const {
    Fp6 t0 = c0 * o.c0;
    Fp6 t1 = c1 * o.c1;
    return {t0 + t1.mul_by_v(), (c0 + c1) * (o.c0 + o.c1) - t0 - t1};
  }

  // Complex squaring: with t = a0·a1, (a0 + a1·w)² = (a0 + a1)(a0 + v·a1) − t − v·t + 2t·w.
  // 2 Fp6 products = 12 M2.
  CUZK_HD constexpr Fp12 sqr() const {
    Fp6 t = c0 * c1;
    return {(c0 + c1) * (c0 + c1.mul_by_v()) - t - t.mul_by_v(), t.dbl()};
  }

  // a⁻¹ = (a0 − a1·w) / (a0² − v·a1²): the denominator is the norm to Fp6.
  // 2 Fp6 squarings + 2 Fp6 products + one Fp6 inversion. Zero maps to zero.
  CUZK_HD constexpr Fp12 inverse() const {
    Fp6 inv_norm = (c0.sqr() - c1.sqr().mul_by_v()).inverse();
    return {c0 * inv_norm, -(c1 * inv_norm)};
  }

  // w ↦ −w, which is the p⁶-power Frobenius map (w^(p⁶) = w·ξ^((p⁶−1)/2) = −w, ξ being a
  // non-square in Fp2). On the cyclotomic subgroup (after the easy part of the final
  // exponentiation) it is the inverse.
  CUZK_HD constexpr Fp12 conjugate() const { return {c0, -c1}; }

  // this^(p^k), k < 12: g_m·w^m ↦ g_m^(p^k)·γ[k][m]·w^m (TowerConstants). At most 5 M2.
  constexpr Fp12 frobenius_map(size_t k) const {  // host: reads TowerConstants' tables
    const auto& g = Constants::kFrobenius[k % 12];
    bool odd = k & 1;
    auto frob = [odd](const Fp2& a) { return odd ? a.conjugate() : a; };
    return {c0.frobenius_map(k), {frob(c1.c0) * g[1], frob(c1.c1) * g[3], frob(c1.c2) * g[5]}};
  }

  // Multiplication by a line of a D-type twist, a0 + (b0 + b1·v)·w (nonzero g_0, g_1, g_3):
  // with f = f0 + f1·w, t0 = f0·a0, t1 = f1·(b0 + b1·v),
  //   f·l = t0 + v·t1 + ((f0 + f1)(a0 + b0 + b1·v) − t0 − t1)·w.
  // 3 + 5 + 5 = 13 M2 instead of 18.
  CUZK_HD constexpr Fp12 mul_by_034(const Fp2& a0, const Fp2& b0, const Fp2& b1) const {
    Fp6 t0 = c0 * a0;
    Fp6 t1 = c1.mul_by_01(b0, b1);
    return {t0 + t1.mul_by_v(), (c0 + c1).mul_by_01(a0 + b0, b1) - t0 - t1};
  }

  // Multiplication by a line of an M-type twist, (a0 + a1·v) + b1·v·w (nonzero g_0, g_2, g_3):
  // with t0 = f0·(a0 + a1·v), t1 = f1·b1·v,
  //   f·l = t0 + v·t1 + ((f0 + f1)(a0 + (a1 + b1)·v) − t0 − t1)·w.
  // 5 + 3 + 5 = 13 M2 instead of 18.
  CUZK_HD constexpr Fp12 mul_by_014(const Fp2& a0, const Fp2& a1, const Fp2& b1) const {
    Fp6 t0 = c0.mul_by_01(a0, a1);
    Fp6 t1 = c1.mul_by_1(b1);
    return {t0 + t1.mul_by_v(), (c0 + c1).mul_by_01(a0, a1 + b1) - t0 - t1};
  }

  // Squaring in the cyclotomic subgroup G_Φ6(p²) = {f : f^(p⁴ − p² + 1) = 1}, where every
  // value lies after the easy part of the final exponentiation (Granger and Scott, "Faster
  // squaring in the cyclotomic subgroup of sixth degree extensions", PKC 2010, §3.2).
  // Over Fp4 = Fp2[s]/(s² − ξ) with s = w³, f = A0 + A1·w + A2·w² where
  //   A0 = g_0 + g_3·s, A1 = g_1 + g_4·s, A2 = g_2 + g_5·s  (w³ = s),
  // and in that subgroup
  //   f² = (3·A0² − 2·Ā0) + (3·s·A2² + 2·Ā1)·w + (3·A1² − 2·Ā2)·w²,   Ā = a − b·s.
  // Each Fp4 square (a + b·s)² = (a² + ξ·b²) + ((a + b)² − a² − b²)·s costs 3 S2:
  // 9 S2 in all, against 12 M2 for the general squaring.
  CUZK_HD constexpr Fp12 cyclotomic_sqr() const {
    struct Fp4 {
      Fp2 a, b;  // a + b·s
    };
    auto fp4_sqr = [](const Fp2& a, const Fp2& b) {
      Fp2 a2 = a.sqr();
      Fp2 b2 = b.sqr();
      return Fp4{a2 + Constants::mul_by_xi(b2), (a + b).sqr() - a2 - b2};
    };
    // 3·X − 2·a and 3·Y + 2·b for X + Y·s = A², A = a + b·s.
    auto three_sq_minus_two_conj = [](const Fp4& sq, const Fp2& a, const Fp2& b) {
      return Fp4{(sq.a - a).dbl() + sq.a, (sq.b + b).dbl() + sq.b};
    };
    const Fp2 &g0 = c0.c0, &g2 = c0.c1, &g4 = c0.c2;
    const Fp2 &g1 = c1.c0, &g3 = c1.c1, &g5 = c1.c2;
    Fp4 a0_sq = fp4_sqr(g0, g3);
    Fp4 a1_sq = fp4_sqr(g1, g4);
    Fp4 a2_sq = fp4_sqr(g2, g5);
    Fp4 r0 = three_sq_minus_two_conj(a0_sq, g0, g3);
    // s·A2² = ξ·Y + X·s for A2² = X + Y·s; then 3·(s·A2²) + 2·Ā1.
    Fp2 s_a2_a = Constants::mul_by_xi(a2_sq.b);
    Fp2 s_a2_b = a2_sq.a;
    Fp4 r1{(s_a2_a + g1).dbl() + s_a2_a, (s_a2_b - g4).dbl() + s_a2_b};
    Fp4 r2 = three_sq_minus_two_conj(a1_sq, g2, g5);
    return {{r0.a, r2.a, r1.b}, {r1.a, r0.b, r2.b}};
  }

  // this^e in the cyclotomic subgroup, left-to-right square-and-multiply with cyclotomic
  // squarings: (bits(e) − 1) cyclotomic squarings + (weight(e) − 1) products.
  CUZK_HD constexpr Fp12 cyclotomic_pow(uint64_t e) const {
    if (e == 0) return one();
    Fp12 r = *this;
    for (int i = 62 - __builtin_clzll(e); i >= 0; --i) {
      r = r.cyclotomic_sqr();
      if ((e >> i) & 1) r *= *this;
    }
    return r;
  }

  // this^e for any element and exponent (square-and-multiply, general squaring).
  template <size_t M>
  CUZK_HD constexpr Fp12 pow(const BigInt<M>& e) const {
    Fp12 r = one();
    for (size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }

  template <class Rng>
  static Fp12 random(Rng& rng) {
    Fp6 a = Fp6::random(rng);
    return {a, Fp6::random(rng)};
  }
};

}  // namespace cuzk::ff
