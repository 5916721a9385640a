#pragma once
// Extended Jacobian "XYZZ" coordinates (X, Y, ZZ, ZZZ) ↦ (X/ZZ, Y/ZZZ), with ZZ³ = ZZZ²:
// the MSM bucket type. Its mixed addition (8M + 2S) is cheaper than Jacobian's full addition
// and needs no doubling-free assumptions, which is what bucket accumulation does all day.
// Each formula's Y3 is a difference of two products, A·B − C·D, computed by
// Field::difference_of_products: on the device and in the x86 host kernels both products
// share one Montgomery reduction (5-6% of a BLS12-381 G1 MSM on the GPU, ff/mont_ptx.cuh),
// elsewhere it is the plain expression.
//
// Formulas from the Explicit-Formulas Database, "XYZZ coordinates for short Weierstrass
// curves" (hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html), with a = 0. As in jacobian.hpp,
// each addition handles infinity and equal or opposite inputs before the generic formula.
//
// The point at infinity has ZZ = ZZZ = 0; infinity() returns (1, 1, 0, 0).

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "util/host_device.hpp"

namespace cuzk::ec {

template <class Curve>
struct Xyzz {
  using Field = typename Curve::Base;
  using AffinePoint = Affine<Curve>;
  Field X, Y, ZZ, ZZZ;

  CUZK_HD static constexpr Xyzz infinity() {
    return {Field::one(), Field::one(), Field::zero(), Field::zero()};
  }
  CUZK_HD static constexpr Xyzz from_affine(const AffinePoint& p) {
    if (p.is_infinity()) return infinity();
    return {p.x, p.y, Field::one(), Field::one()};
  }
  // (X : Y : Z) Jacobian is (X, Y, Z², Z³) here: 1M + 1S.
  CUZK_HD static constexpr Xyzz from_jacobian(const Jacobian<Curve>& p) {
    if (p.is_infinity()) return infinity();
    Field zz = p.Z.sqr();
    return {p.X, p.Y, zz, zz * p.Z};
  }

  CUZK_HD constexpr bool is_infinity() const { return ZZ.is_zero(); }

  // With the implicit Z = ZZZ/ZZ, rescale by ZZ to avoid the division: the Jacobian point
  // (X·ZZ², Y·ZZZ², ZZZ) has X'/Z'² = X·ZZ²/ZZ³ = X/ZZ and Y'/Z'³ = Y/ZZZ. 2M + 2S.
  CUZK_HD constexpr Jacobian<Curve> to_jacobian() const {
    if (is_infinity()) return Jacobian<Curve>::infinity();
    return {X * ZZ.sqr(), Y * ZZZ.sqr(), ZZZ};
  }

  // 1/ZZZ by one inversion, then 1/Z = ZZ/ZZZ and 1/ZZ = (1/Z)²: 1I + 3M + 1S.
  CUZK_HD constexpr AffinePoint to_affine() const {
    if (is_infinity()) return AffinePoint::infinity();
    return to_affine_given(ZZZ.inverse());
  }

  // The same with 1/ZZZ already known (a batch inversion of many points' ZZZ): 3M + 1S. Not
  // for the point at infinity.
  CUZK_HD constexpr AffinePoint to_affine_given(const Field& zzz_inverse) const {
    const Field z_inv = zzz_inverse * ZZ;
    return {X * z_inv.sqr(), Y * zzz_inverse};
  }

  CUZK_HD constexpr Xyzz operator-() const { return {X, -Y, ZZ, ZZZ}; }

  // Same point: X1·ZZ2 = X2·ZZ1 and Y1·ZZZ2 = Y2·ZZZ1 (4M after the infinity checks).
  CUZK_HD constexpr bool operator==(const Xyzz& o) const {
    if (is_infinity() || o.is_infinity()) return is_infinity() && o.is_infinity();
    return X * o.ZZ == o.X * ZZ && Y * o.ZZZ == o.Y * ZZZ;
  }
  CUZK_HD constexpr bool operator!=(const Xyzz& o) const { return !(*this == o); }

  // dbl-2008-s-1 with a = 0: 6M + 3S.
  //   U = 2Y, V = U², W = U·V, S = X·V, M = 3X²
  //   X3 = M² − 2S, Y3 = M(S − X3) − W·Y, ZZ3 = V·ZZ, ZZZ3 = W·ZZZ
  // Infinity maps to infinity (ZZ3 = 0).
  CUZK_HD_OUTLINE constexpr Xyzz dbl() const {
    Field u = Y.dbl();
    Field v = u.sqr();
    Field w = u * v;
    Field s = X * v;
    Field x_sq = X.sqr();
    Field m = x_sq.dbl() + x_sq;
    Field x3 = m.sqr() - s.dbl();
    Field y3 = Field::difference_of_products(m, s - x3, w, Y);
    return {x3, y3, v * ZZ, w * ZZZ};
  }

  // add-2008-s: 12M + 2S.
  //   U1 = X1·ZZ2, U2 = X2·ZZ1, S1 = Y1·ZZZ2, S2 = Y2·ZZZ1, P = U2 − U1, R = S2 − S1
  //   PP = P², PPP = P·PP, Q = U1·PP
  //   X3 = R² − PPP − 2Q, Y3 = R(Q − X3) − S1·PPP, ZZ3 = ZZ1·ZZ2·PP, ZZZ3 = ZZZ1·ZZZ2·PPP
  CUZK_HD_OUTLINE constexpr Xyzz operator+(const Xyzz& q) const {
    if (is_infinity()) return q;
    if (q.is_infinity()) return *this;
    Field u1 = X * q.ZZ;
    Field u2 = q.X * ZZ;
    Field s1 = Y * q.ZZZ;
    Field s2 = q.Y * ZZZ;
    Field p = u2 - u1;
    Field r = s2 - s1;
    if (p.is_zero()) return r.is_zero() ? dbl() : infinity();
    Field pp = p.sqr();
    Field ppp = p * pp;
    Field q_term = u1 * pp;
    Field x3 = r.sqr() - ppp - q_term.dbl();
    Field y3 = Field::difference_of_products(r, q_term - x3, s1, ppp);
    return {x3, y3, ZZ * q.ZZ * pp, ZZZ * q.ZZZ * ppp};
  }

  // madd-2008-s (mixed addition, ZZ2 = ZZZ2 = 1): 8M + 2S.
  //   U2 = X2·ZZ1, S2 = Y2·ZZZ1, P = U2 − X1, R = S2 − Y1, PP = P², PPP = P·PP, Q = X1·PP
  //   X3 = R² − PPP − 2Q, Y3 = R(Q − X3) − Y1·PPP, ZZ3 = ZZ1·PP, ZZZ3 = ZZZ1·PPP
  CUZK_HD_OUTLINE constexpr Xyzz add(const AffinePoint& q) const {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return from_affine(q);
    Field u2 = q.x * ZZ;
    Field s2 = q.y * ZZZ;
    Field p = u2 - X;
    Field r = s2 - Y;
    if (p.is_zero()) return r.is_zero() ? dbl() : infinity();
    Field pp = p.sqr();
    Field ppp = p * pp;
    Field q_term = X * pp;
    Field x3 = r.sqr() - ppp - q_term.dbl();
    Field y3 = Field::difference_of_products(r, q_term - x3, Y, ppp);
    return {x3, y3, ZZ * pp, ZZZ * ppp};
  }

  CUZK_HD constexpr Xyzz operator+(const AffinePoint& q) const { return add(q); }
  CUZK_HD constexpr Xyzz operator-(const Xyzz& q) const { return *this + (-q); }
  CUZK_HD constexpr Xyzz operator-(const AffinePoint& q) const { return add(-q); }
  CUZK_HD constexpr Xyzz& operator+=(const Xyzz& q) { return *this = *this + q; }
  CUZK_HD constexpr Xyzz& operator+=(const AffinePoint& q) { return *this = add(q); }
};

// madd-2008-s applied to a sum held in `slots`, which load and store one coordinate at a time:
//   Field x() const, y(), zz(), zzz();  void set_x(const Field&), set_y, set_zz, set_zzz;
//   Xyzz<Curve> load() const;  void store(const Xyzz<Curve>&).
// Same result as Xyzz::add. The order keeps few coordinates live at once: each is read where it
// is needed and written as soon as it is final, so a sum kept in memory (the GPU MSM keeps its
// bucket sums in shared memory) is never held whole in registers alongside the formula's
// temporaries (at most four field elements besides the product in flight, against eight for
// Xyzz::add).
template <class Curve, class Slots>
CUZK_HD void add_in_place(Slots& acc, const Affine<Curve>& q) {
  using Field = typename Curve::Base;
  if (q.is_infinity()) return;
  if (acc.zz().is_zero()) {
    acc.store(Xyzz<Curve>::from_affine(q));
    return;
  }
  const Field p = q.x * acc.zz() - acc.x();
  const Field r = q.y * acc.zzz() - acc.y();
  if (p.is_zero()) {
    acc.store(r.is_zero() ? acc.load().dbl() : Xyzz<Curve>::infinity());
    return;
  }
  const Field pp = p.sqr();
  const Field ppp = p * pp;
  acc.set_zz(acc.zz() * pp);
  acc.set_zzz(acc.zzz() * ppp);
  const Field r_sq_ppp = r.sqr() - ppp;
  const Field q_term = acc.x() * pp;
  const Field x3 = r_sq_ppp - q_term.dbl();
  acc.set_x(x3);
  acc.set_y(Field::difference_of_products(r, q_term - x3, acc.y(), ppp));
}

}  // namespace cuzk::ec
