#pragma once
// snarkjs's JSON point forms (proof.json, verification_key.json), for both curves: affine
// coordinates as decimal strings of their standard form, with a projective z.
//   G1: [x, y, "1"];                           infinity ["0", "1", "0"]
//   G2: [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]]; infinity [["0", "0"], ["1", "0"], ["0", "0"]]
// The decoder accepts exactly these shapes (snarkjs writes nothing else): z must be one or,
// for infinity, zero with (x, y) = (0, 1). Errors (kInvalidInput) are led by `role` and name
// the offending part ("proof pi_a y: ...").

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "io/field_codec.hpp"
#include "io/point_common.hpp"

namespace cuzk::io {

namespace detail {

template <class Field>
nlohmann::json coordinate_to_json(const Field& v) {
  if constexpr (QuadraticExtension<Field>) {
    return nlohmann::json::array({to_decimal(v.c0), to_decimal(v.c1)});
  } else {
    return to_decimal(v);
  }
}

inline std::string json_excerpt(const nlohmann::json& j) {
  constexpr size_t kMaxShown = 120;
  std::string text = j.dump();
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

template <class Field>
Field coordinate_from_json(const nlohmann::json& j, const std::string& role) {
  if constexpr (QuadraticExtension<Field>) {
    using Fp = typename Field::Base;
    if (!j.is_array() || j.size() != 2) {
      fail(role, "expected an array of 2 decimal strings [c0, c1], got " + json_excerpt(j));
    }
    return {coordinate_from_json<Fp>(j[0], role + ".c0"),
            coordinate_from_json<Fp>(j[1], role + ".c1")};
  } else {
    if (!j.is_string()) fail(role, "expected a decimal string, got " + json_excerpt(j));
    return from_decimal<Field>(j.get_ref<const std::string&>(), role);
  }
}

}  // namespace detail

template <class Point>
nlohmann::json to_snarkjs_json(const Point& p) {
  using Field = typename Point::Field;
  if (p.is_infinity()) {
    return nlohmann::json::array({detail::coordinate_to_json(Field::zero()),
                                  detail::coordinate_to_json(Field::one()),
                                  detail::coordinate_to_json(Field::zero())});
  }
  return nlohmann::json::array({detail::coordinate_to_json(p.x), detail::coordinate_to_json(p.y),
                                detail::coordinate_to_json(Field::one())});
}

template <class Point>
Point from_snarkjs_json(const nlohmann::json& j, SubgroupCheck check = SubgroupCheck::kOn,
                        std::string_view role = {}) {
  using Field = typename Point::Field;
  const std::string name = detail::point_role<typename CurveOf<Point>::type>(role);
  if (!j.is_array() || j.size() != 3) {
    detail::fail(
        name, "expected a JSON array [x, y, z] of 3 coordinates, got " + detail::json_excerpt(j));
  }
  const Field x = detail::coordinate_from_json<Field>(j[0], name + " x");
  const Field y = detail::coordinate_from_json<Field>(j[1], name + " y");
  const Field z = detail::coordinate_from_json<Field>(j[2], name + " z");
  if (z.is_zero()) {
    if (!x.is_zero() || y != Field::one()) {
      detail::fail(name, "z is 0 (the point at infinity) but (x, y) is not (0, 1)");
    }
    return Point::infinity();
  }
  if (z != Field::one()) {
    detail::fail(name, "z must be 1 for an affine point (or 0 for the point at infinity)");
  }
  Point p{x, y};
  detail::check_finite_point(p, check, name);
  return p;
}

}  // namespace cuzk::io
