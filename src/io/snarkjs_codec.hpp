#pragma once
// snarkjs's binary point layout (.zkey sections), for the groups of both curves.
//
// A point is affine, each coordinate n8 bytes little-endian in Montgomery form (field_codec.hpp):
//   G1 = x ‖ y                           (2·n8 bytes: 64 for BN254, 96 for BLS12-381)
//   G2 = x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1       (4·n8 bytes: 128 for BN254, 192 for BLS12-381)
// The point at infinity is all zero bytes, which is also our in-memory (0, 0): no other
// encoding decodes to it, because (0, 0) is not on either curve.
//
// Decoders reject (kInvalidInput, message led by `role`) a wrong length, a coordinate ≥ p, a
// point off the curve and, unless SubgroupCheck::kOff, a point outside the prime-order
// subgroup.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "io/field_codec.hpp"
#include "io/point_common.hpp"

namespace cuzk::io {

template <class Field>
inline constexpr size_t kSnarkjsCoordinateBytes =
    (QuadraticExtension<Field> ? 2 : 1) * kSnarkjsBytes<typename BaseFieldOf<Field>::type>;

template <class Point>
inline constexpr size_t kSnarkjsPointBytes = 2 * kSnarkjsCoordinateBytes<typename Point::Field>;

namespace detail {

template <class Field>
void write_snarkjs_coordinate(const Field& v, std::span<uint8_t> out) {
  if constexpr (QuadraticExtension<Field>) {
    constexpr size_t n8 = kSnarkjsBytes<typename Field::Base>;
    write_le_montgomery(v.c0, out.template first<n8>());
    write_le_montgomery(v.c1, out.template subspan<n8, n8>());
  } else {
    write_le_montgomery(v, out.template first<kSnarkjsBytes<Field>>());
  }
}

template <class Field>
Field read_snarkjs_coordinate(std::span<const uint8_t> in, const std::string& role) {
  if constexpr (QuadraticExtension<Field>) {
    using Fp = typename Field::Base;
    constexpr size_t n8 = kSnarkjsBytes<Fp>;
    return {read_le_montgomery<Fp>(in.first(n8), role + ".c0"),
            read_le_montgomery<Fp>(in.subspan(n8, n8), role + ".c1")};
  } else {
    return read_le_montgomery<Field>(in, role);
  }
}

}  // namespace detail

template <class Point>
void write_snarkjs_point(const Point& p, std::span<uint8_t, kSnarkjsPointBytes<Point>> out) {
  constexpr size_t kCoord = kSnarkjsCoordinateBytes<typename Point::Field>;
  // Infinity is (0, 0) in memory, and zero is all zero bytes in Montgomery form too.
  detail::write_snarkjs_coordinate(p.x, std::span<uint8_t>(out).first(kCoord));
  detail::write_snarkjs_coordinate(p.y, std::span<uint8_t>(out).subspan(kCoord));
}

template <class Point>
Point read_snarkjs_point(std::span<const uint8_t> in, SubgroupCheck check = SubgroupCheck::kOn,
                         std::string_view role = {}) {
  using Field = typename Point::Field;
  constexpr size_t kCoord = kSnarkjsCoordinateBytes<Field>;
  const std::string name = detail::point_role<typename CurveOf<Point>::type>(role);
  if (in.size() != kSnarkjsPointBytes<Point>) {
    detail::fail(name, "expected " + std::to_string(kSnarkjsPointBytes<Point>) +
                           " bytes for a snarkjs point, got " + std::to_string(in.size()));
  }
  Point p{detail::read_snarkjs_coordinate<Field>(in.first(kCoord), name + " x"),
          detail::read_snarkjs_coordinate<Field>(in.subspan(kCoord), name + " y")};
  if (p.is_infinity()) return p;  // all zero bytes
  detail::check_finite_point(p, check, name);
  return p;
}

// A packed array of points (a .zkey section body). Errors name the index: "<role>[i]".
template <class Point>
void read_snarkjs_points(std::span<const uint8_t> in, std::span<Point> out,
                         SubgroupCheck check = SubgroupCheck::kOn, std::string_view role = {}) {
  const std::string name = detail::point_role<typename CurveOf<Point>::type>(role);
  if (in.size() != out.size() * kSnarkjsPointBytes<Point>) {
    detail::fail(name, "expected " + std::to_string(out.size()) + " points of " +
                           std::to_string(kSnarkjsPointBytes<Point>) + " bytes (" +
                           std::to_string(out.size() * kSnarkjsPointBytes<Point>) +
                           " bytes), got " + std::to_string(in.size()) + " bytes");
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = read_snarkjs_point<Point>(
        in.subspan(i * kSnarkjsPointBytes<Point>, kSnarkjsPointBytes<Point>), check,
        name + "[" + std::to_string(i) + "]");
  }
}

}  // namespace cuzk::io
