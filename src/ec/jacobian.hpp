#pragma once
// Jacobian coordinates (X : Y : Z) ↦ (X/Z², Y/Z³) for y² = x³ + b: the general compute type.
//
// Formulas from the Explicit-Formulas Database, "Jacobian coordinates with a4 = 0 for short
// Weierstrass curves" (hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html). The EFD
// formulas assume distinct, finite inputs; each addition here checks for infinity and for
// equal or opposite inputs first, so every pair of points gives the right sum.
// Cost notation: M multiplication, S squaring in the coordinate field (additions not counted).
//
// The point at infinity is any (X : Y : 0); infinity() returns (1 : 1 : 0).

#include <cstddef>
#include <span>
#include <string>

#include "ec/affine.hpp"
#include "util/error.hpp"
#include "util/host_device.hpp"

namespace cuzk::ec {

template <class Curve>
struct Jacobian {
  using Field = typename Curve::Base;
  using AffinePoint = Affine<Curve>;
  Field X, Y, Z;

  CUZK_HD static constexpr Jacobian infinity() {
    return {Field::one(), Field::one(), Field::zero()};
  }
  CUZK_HD static constexpr Jacobian generator() { return from_affine(AffinePoint::generator()); }
  CUZK_HD static constexpr Jacobian from_affine(const AffinePoint& p) {
    if (p.is_infinity()) return infinity();
    return {p.x, p.y, Field::one()};
  }

  CUZK_HD constexpr bool is_infinity() const { return Z.is_zero(); }

  // x = X/Z², y = Y/Z³: one inversion, 3M + 1S.
  CUZK_HD constexpr AffinePoint to_affine() const {
    if (is_infinity()) return AffinePoint::infinity();
    Field z_inv = Z.inverse();
    Field z_inv2 = z_inv.sqr();
    return {X * z_inv2, Y * z_inv2 * z_inv};
  }

  // Y² = X³ + b·Z⁶ (the curve equation scaled by Z⁶); true for infinity.
  CUZK_HD constexpr bool is_on_curve() const {
    if (is_infinity()) return true;
    Field z2 = Z.sqr();
    Field z6 = z2.sqr() * z2;
    return Y.sqr() == X.sqr() * X + Curve::b() * z6;
  }

  CUZK_HD constexpr Jacobian operator-() const { return {X, -Y, Z}; }

  // Same point: X1·Z2² = X2·Z1² and Y1·Z2³ = Y2·Z1³ (4M + 2S after the infinity checks).
  CUZK_HD constexpr bool operator==(const Jacobian& o) const {
    if (is_infinity() || o.is_infinity()) return is_infinity() && o.is_infinity();
    Field z1z1 = Z.sqr(), z2z2 = o.Z.sqr();
    return X * z2z2 == o.X * z1z1 && Y * (o.Z * z2z2) == o.Y * (Z * z1z1);
  }
  CUZK_HD constexpr bool operator!=(const Jacobian& o) const { return !(*this == o); }
  CUZK_HD constexpr bool operator==(const AffinePoint& o) const { return *this == from_affine(o); }
  CUZK_HD constexpr bool operator!=(const AffinePoint& o) const { return !(*this == o); }

  // dbl-2009-l (Lange): 2M + 5S.
  //   A = X², B = Y², C = B², D = 2((X + B)² − A − C) = 4XY², E = 3A, F = E²
  //   X3 = F − 2D, Y3 = E(D − X3) − 8C, Z3 = 2YZ
  // Infinity maps to infinity (Z3 = 0); curves of odd order have no point with Y = 0.
  CUZK_HD_OUTLINE constexpr Jacobian dbl() const {
    Field a = X.sqr();
    Field b = Y.sqr();
    Field c = b.sqr();
    Field d = ((X + b).sqr() - a - c).dbl();
    Field e = a.dbl() + a;
    Field f = e.sqr();
    Field x3 = f - d.dbl();
    Field eight_c = c.dbl().dbl().dbl();
    return {x3, e * (d - x3) - eight_c, (Y * Z).dbl()};
  }

  // add-2007-bl (Bernstein–Lange): 11M + 5S.
  //   U1 = X1·Z2², U2 = X2·Z1², S1 = Y1·Z2³, S2 = Y2·Z1³, H = U2 − U1, r = 2(S2 − S1)
  //   I = (2H)², J = H·I, V = U1·I
  //   X3 = r² − J − 2V, Y3 = r(V − X3) − 2·S1·J, Z3 = ((Z1 + Z2)² − Z1² − Z2²)·H
  // H = 0 means equal x: the same point (double) or opposite points (infinity).
  CUZK_HD_OUTLINE constexpr Jacobian operator+(const Jacobian& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    Field z1z1 = Z.sqr();
    Field z2z2 = q.Z.sqr();
    Field u1 = X * z2z2;
    Field u2 = q.X * z1z1;
    Field s1 = Y * q.Z * z2z2;
    Field s2 = q.Y * Z * z1z1;
    Field h = u2 - u1;
    Field s_diff = s2 - s1;
    if (h.is_zero()) return s_diff.is_zero() ? dbl() : infinity();
    Field i = h.dbl().sqr();
    Field j = h * i;
    Field r = s_diff.dbl();
    Field v = u1 * i;
    Field x3 = r.sqr() - j - v.dbl();
    Field y3 = r * (v - x3) - (s1 * j).dbl();
    Field z3 = ((Z + q.Z).sqr() - z1z1 - z2z2) * h;
    return {x3, y3, z3};
  }

  // madd-2007-bl (mixed addition, Z2 = 1): 7M + 4S.
  //   U2 = X2·Z1², S2 = Y2·Z1³, H = U2 − X1, HH = H², I = 4HH, J = H·I, r = 2(S2 − Y1),
  //   V = X1·I
  //   X3 = r² − J − 2V, Y3 = r(V − X3) − 2·Y1·J, Z3 = (Z1 + H)² − Z1² − HH
  CUZK_HD_OUTLINE constexpr Jacobian add(const AffinePoint& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    Field z1z1 = Z.sqr();
    Field u2 = q.x * z1z1;
    Field s2 = q.y * Z * z1z1;
    Field h = u2 - X;
    Field s_diff = s2 - Y;
    if (h.is_zero()) return s_diff.is_zero() ? dbl() : infinity();
    Field hh = h.sqr();
    Field i = hh.dbl().dbl();
    Field j = h * i;
    Field r = s_diff.dbl();
    Field v = X * i;
    Field x3 = r.sqr() - j - v.dbl();
    Field y3 = r * (v - x3) - (Y * j).dbl();
    Field z3 = (Z + h).sqr() - z1z1 - hh;
    return {x3, y3, z3};
  }

  CUZK_HD constexpr Jacobian operator+(const AffinePoint& q) const { return add(q); }
  CUZK_HD constexpr Jacobian operator-(const Jacobian& q) const { return *this + (-q); }
  CUZK_HD constexpr Jacobian operator-(const AffinePoint& q) const { return add(-q); }
  CUZK_HD constexpr Jacobian& operator+=(const Jacobian& q) { return *this = *this + q; }
  CUZK_HD constexpr Jacobian& operator+=(const AffinePoint& q) { return *this = add(q); }
  CUZK_HD constexpr Jacobian& operator-=(const Jacobian& q) { return *this = *this - q; }
};

// Converts points[0..count) into out[0..count) with one field inversion (Montgomery's trick):
// per point 3M for the running products and 4M + 1S to unwind, plus one inversion in all.
// Infinities are allowed and come out as (0, 0). The prefix products are parked in the
// output's x coordinates, so no scratch memory is needed; out must not overlap points. Host
// and device: GPU kernels normalize a thread's run of points with it.
template <class Curve>
CUZK_HD constexpr void batch_to_affine(const Jacobian<Curve>* points, Affine<Curve>* out,
                                       size_t count) {
  using Field = typename Curve::Base;
  Field product = Field::one();
  for (size_t i = 0; i < count; ++i) {
    if (points[i].is_infinity()) continue;
    out[i].x = product;  // Z_0 ··· Z_(i-1) over the finite points
    product *= points[i].Z;
  }
  Field inv = product.inverse();  // (Z_0 ··· Z_(n-1))⁻¹
  for (size_t i = count; i-- > 0;) {
    if (points[i].is_infinity()) {
      out[i] = Affine<Curve>::infinity();
      continue;
    }
    const Field z_inv = inv * out[i].x;
    inv *= points[i].Z;
    const Field z_inv2 = z_inv.sqr();
    out[i] = {points[i].X * z_inv2, points[i].Y * z_inv2 * z_inv};
  }
}

// The same for spans; throws kInvalidInput if they differ in length.
template <class Curve>
void batch_to_affine(std::span<const Jacobian<Curve>> points, std::span<Affine<Curve>> out) {
  if (points.size() != out.size()) {
    CUZK_INVALID_INPUT("batch_to_affine: " + std::to_string(points.size()) +
                       " points but room for " + std::to_string(out.size()));
  }
  batch_to_affine(points.data(), out.data(), points.size());
}

}  // namespace cuzk::ec
