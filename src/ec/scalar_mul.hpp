#pragma once
// Scalar multiplication k·P for any point type of this layer.
//
// scalar_mul: width-5 NAF (signed odd digits in [-15, 15], at least four zeros after each
// non-zero digit). For a b-bit scalar that is b doublings and about b/6 additions from a
// table of 8 odd multiples P, 3P, ..., 15P (7 additions to build), against b/2 additions for
// plain double-and-add. The scalar is any BigInt, not only a reduced Fr: the torsion test
// multiplies by r itself and cofactor clearing by h.
//
// scalar_mul_binary: left-to-right double-and-add with mixed additions, for public constants
// of low Hamming weight such as the BLS parameter |x| = 0xd201000000010000 (6 bits set:
// 63 doublings + 5 mixed additions, no table).
//
// The loops are CUZK_HD_NOINLINE: on the device each becomes one function instead of being
// force-inlined into every caller, which kept a kernel that calls several of them in the
// optimizer for over half an hour.
//
// Both run in time that depends on the scalar: meant for public scalars (subgroup checks,
// cofactors, tests) and for the prover's epilogue, whose few multiplications by the blinding
// factors are not exposed to a timing observer in this engine's deployment.

#include <cstddef>
#include <cstdint>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ff/bigint.hpp"
#include "util/host_device.hpp"

namespace cuzk::ec {

namespace detail {

inline constexpr int kNafWidth = 5;
inline constexpr int kNafTableSize = 1 << (kNafWidth - 2);  // odd multiples 1, 3, ..., 15

// Width-5 NAF of k, least significant digit first; returns the number of digits (at most
// 64·M + 1). Each odd remainder n mod 32 is mapped into (-16, 16) and subtracted, which
// leaves n divisible by 32; the extra limb absorbs the carry of a negative digit.
template <size_t M>
CUZK_HD constexpr size_t naf_digits(const ff::BigInt<M>& k, int8_t (&digits)[64 * M + 1]) {
  ff::BigInt<M + 1> n{};
  for (size_t i = 0; i < M; ++i) n.limb[i] = k.limb[i];
  size_t len = 0;
  while (!n.is_zero()) {
    int digit = 0;
    if (n.is_odd()) {
      digit = int(n.limb[0] & ((1u << kNafWidth) - 1));
      if (digit >= (1 << (kNafWidth - 1))) digit -= 1 << kNafWidth;
      ff::BigInt<M + 1> small{};
      small.limb[0] = uint64_t(digit > 0 ? digit : -digit);
      if (digit > 0) {
        ff::sub_in_place(n, small);
      } else {
        ff::add_in_place(n, small);
      }
    }
    digits[len++] = int8_t(digit);
    ff::shr1_in_place(n);
  }
  return len;
}

}  // namespace detail

template <class Curve, size_t M>
CUZK_HD_NOINLINE constexpr Jacobian<Curve> scalar_mul(const Jacobian<Curve>& p,
                                                      const ff::BigInt<M>& k) {
  using Point = Jacobian<Curve>;
  int8_t digits[64 * M + 1];
  size_t len = detail::naf_digits(k, digits);
  if (len == 0 || p.is_infinity()) return Point::infinity();

  Point odd_multiples[detail::kNafTableSize];  // odd_multiples[i] = (2i + 1)·P
  odd_multiples[0] = p;
  Point p2 = p.dbl();
  for (int i = 1; i < detail::kNafTableSize; ++i) odd_multiples[i] = odd_multiples[i - 1] + p2;

  Point acc = Point::infinity();
  for (size_t i = len; i-- > 0;) {
    if (!acc.is_infinity()) acc = acc.dbl();
    int digit = digits[i];
    if (digit > 0) acc += odd_multiples[(digit - 1) / 2];
    if (digit < 0) acc -= odd_multiples[(-digit - 1) / 2];
  }
  return acc;
}

template <class Curve, size_t M>
CUZK_HD constexpr Jacobian<Curve> scalar_mul(const Affine<Curve>& p, const ff::BigInt<M>& k) {
  return scalar_mul(Jacobian<Curve>::from_affine(p), k);
}

// By an element of the scalar field (its canonical integer, < r).
template <class Curve>
CUZK_HD constexpr Jacobian<Curve> scalar_mul(const Jacobian<Curve>& p,
                                             const typename Curve::Scalar& k) {
  return scalar_mul(p, k.to_int());
}
template <class Curve>
CUZK_HD constexpr Jacobian<Curve> scalar_mul(const Affine<Curve>& p,
                                             const typename Curve::Scalar& k) {
  return scalar_mul(Jacobian<Curve>::from_affine(p), k.to_int());
}

// k·G for the curve's generator.
template <class Curve>
CUZK_HD constexpr Jacobian<Curve> mul_generator(const typename Curve::Scalar& k) {
  return scalar_mul(Jacobian<Curve>::generator(), k.to_int());
}

namespace detail {
// Left-to-right double-and-add: bit_length(k) − 1 doublings and popcount(k) − 1 additions
// of p (mixed when p is affine).
template <class Curve, class Addend, size_t M>
CUZK_HD_NOINLINE constexpr Jacobian<Curve> double_and_add(const Addend& p, const ff::BigInt<M>& k) {
  size_t bits = k.bit_length();
  Jacobian<Curve> acc = Jacobian<Curve>::infinity();
  if (bits == 0) return acc;
  acc = acc + p;
  for (size_t i = bits - 1; i-- > 0;) {
    acc = acc.dbl();
    if (k.bit(i)) acc = acc + p;
  }
  return acc;
}
}  // namespace detail

template <class Curve, size_t M>
CUZK_HD constexpr Jacobian<Curve> scalar_mul_binary(const Affine<Curve>& p,
                                                    const ff::BigInt<M>& k) {
  return detail::double_and_add<Curve>(p, k);
}
template <class Curve, size_t M>
CUZK_HD constexpr Jacobian<Curve> scalar_mul_binary(const Jacobian<Curve>& p,
                                                    const ff::BigInt<M>& k) {
  return detail::double_and_add<Curve>(p, k);
}

}  // namespace cuzk::ec
