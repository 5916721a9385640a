#pragma once
// Quadratic extension Fp2 = Fp[u]/(u² + 1), the first floor of the pairing tower and the
// coordinate field of G2. Both supported curves (BLS12-381 and BN254) have p ≡ 3 (mod 4), so
// -1 is a non-residue and u² = -1 serves both. Host and device: it is built only from the base
// field's operations, so it runs wherever they do, with the same memory layout (c0 then c1,
// as in snarkjs's and zcash's G2 encodings apart from their byte order).

#include <optional>
#include <type_traits>

#include "ff/bigint.hpp"
#include "ff/field.hpp"
#include "util/host_device.hpp"

namespace cuzk::ff {

template <class Fp>
struct Fp2 {
  using Base = Fp;
  Fp c0, c1;  // c0 + c1·u

  CUZK_HD static constexpr Fp2 zero() { return {Fp::zero(), Fp::zero()}; }
  CUZK_HD static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }

  CUZK_FF_HOT constexpr bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  CUZK_FF_HOT constexpr bool operator==(const Fp2& o) const { return c0 == o.c0 && c1 == o.c1; }
  CUZK_FF_HOT constexpr bool operator!=(const Fp2& o) const { return !(*this == o); }

  CUZK_FF_HOT constexpr Fp2 operator+(const Fp2& o) const { return {c0 + o.c0, c1 + o.c1}; }
  CUZK_FF_HOT constexpr Fp2 operator-(const Fp2& o) const { return {c0 - o.c0, c1 - o.c1}; }
  CUZK_FF_HOT constexpr Fp2 operator-() const { return {-c0, -c1}; }
  CUZK_FF_HOT constexpr Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }

  // Karatsuba: 3M + 5A instead of 4M + 2A. The x86 host path reduces lazily: three products
  // to double width, two Montgomery reductions (mont_x86.hpp, fp2_mul). So does the device for
  // 4-limb fields (mont_ptx.cuh, fp2_mul), where the G2 MSM gains from it. On the H200 the lazy
  // product runs faster alone for both fields (tests/gpu/field_throughput_test.cu), but inside
  // the G2 bucket additions, which run at the register limit, its double-width temporaries cost
  // BLS12-381 more than they save (its G2 MSM 5% slower) while BN254's G2 MSM gains 6%.
  CUZK_FF_HOT constexpr Fp2 operator*(const Fp2& o) const {
#if defined(__CUDA_ARCH__)
    if constexpr (Fp::kLimbs == 4) {
      if (!std::is_constant_evaluated()) {
        Fp2 r;
        Fp::fp2_mul(r.c0, r.c1, c0, c1, o.c0, o.c1);
        return r;
      }
    }
#elif CUZK_FF_MONT_X86
    if constexpr (Fp::kLimbs == 4 || Fp::kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Fp2 r;
        x86::fp2_mul<Fp::kLimbs>(r.c0.mont, r.c1.mont, c0.mont, c1.mont, o.c0.mont, o.c1.mont,
                                 Fp::kModulus.limb, Fp::kInv);
        return r;
      }
    }
#endif
    Fp v0 = c0 * o.c0;
    Fp v1 = c1 * o.c1;
    return {v0 - v1, (c0 + c1) * (o.c0 + o.c1) - v0 - v1};
  }
  CUZK_FF_HOT constexpr Fp2 operator*(const Fp& s) const { return {c0 * s, c1 * s}; }
  // (a + bu)² = (a + b)(a - b) + 2ab·u: 2M.
  CUZK_FF_HOT constexpr Fp2 sqr() const {
    Fp ab = c0 * c1;
    return {(c0 + c1) * (c0 - c1), ab.dbl()};
  }
  CUZK_FF_HOT constexpr Fp2& operator+=(const Fp2& o) { return *this = *this + o; }
  CUZK_FF_HOT constexpr Fp2& operator-=(const Fp2& o) { return *this = *this - o; }
  // a·b − c·d, Field's operation of the same name; here two products and a subtraction (a
  // lazy form would hold double-width Fp2 temporaries, which the register-bound G2 MSM of
  // BLS12-381 pays for, as with fp2_mul above).
  CUZK_FF_HOT static constexpr Fp2 difference_of_products(const Fp2& a, const Fp2& b,
                                                          const Fp2& c, const Fp2& d) {
    return a * b - c * d;
  }
  CUZK_FF_HOT constexpr Fp2& operator*=(const Fp2& o) { return *this = *this * o; }

  // Complex conjugate: also the p-power Frobenius map, since u^p = -u.
  CUZK_FF_HOT constexpr Fp2 conjugate() const { return {c0, -c1}; }
  CUZK_FF_HOT constexpr Fp norm() const { return c0.sqr() + c1.sqr(); }
  // (a - bu)/(a² + b²); zero maps to zero.
  CUZK_HD constexpr Fp2 inverse() const {
    Fp t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }

  template <size_t M>
  CUZK_HD constexpr Fp2 pow(const BigInt<M>& e) const {
    Fp2 r = one();
    for (size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }

  // Square root for p ≡ 3 (mod 4) (Adj and Rodríguez-Henríquez, "Square root computation over
  // even extension fields", Algorithm 9): two exponentiations by ~(p-1)/2-sized exponents.
  std::optional<Fp2> sqrt() const {
    if (is_zero()) return zero();
    auto p_minus_3_over_4 = [] {
      auto m = Fp::kModulus;
      m.limb[0] -= 3;  // p ≡ 3 (mod 4) and p > 3
      return shr(m, 2);
    }();
    auto p_minus_1_over_2 = [] {
      auto m = Fp::kModulus;
      m.limb[0] -= 1;
      return shr(m, 1);
    }();
    Fp2 a1 = pow(p_minus_3_over_4);
    Fp2 alpha = a1.sqr() * *this;  // a^((p-1)/2)
    Fp2 x0 = a1 * *this;           // a^((p+1)/4)
    Fp2 x;
    if (alpha == -one()) {
      x = {-x0.c1, x0.c0};  // u·x0
    } else {
      Fp2 b = (one() + alpha).pow(p_minus_1_over_2);
      x = b * x0;
    }
    if (x.sqr() != *this) return std::nullopt;
    return x;
  }

  template <class Rng>
  static Fp2 random(Rng& rng) {
    Fp a = Fp::random(rng);
    return {a, Fp::random(rng)};
  }
};

}  // namespace cuzk::ff
