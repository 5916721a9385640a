#pragma once
// What every point codec shares: the checks (on the curve, in the prime-order subgroup), the
// wording of their errors, and type traits of the affine point types. A decoder first settles
// whether its encoding denotes the point at infinity (each format has its own marker); everything
// else must be a finite point and passes through check_finite_point.
//
// The subgroup check costs about two 64-bit scalar multiplications per point (see the curves'
// is_in_subgroup). Bulk readers of trusted files (a key this engine wrote and hashed) may skip
// it with SubgroupCheck::kOff; the on-curve check always runs, it is a few multiplications.

#include <string>
#include <string_view>

#include "ec/affine.hpp"
#include "util/error.hpp"

namespace cuzk::io {

enum class SubgroupCheck {
  kOn,   // reject points outside the prime-order subgroup (default; untrusted input)
  kOff,  // trusted bulk input: on-curve check only
};

// Coordinates in the quadratic extension (G2) rather than the base field (G1).
template <class Field>
concept QuadraticExtension = requires(const Field& f) {
  f.c0;
  f.c1;
};

// The prime field under a coordinate field: Fp for both Fp and Fp2.
template <class Field>
struct BaseFieldOf {
  using type = Field;
};
template <QuadraticExtension Field>
struct BaseFieldOf<Field> {
  using type = typename Field::Base;
};

// The curve record of an affine point type.
template <class Point>
struct CurveOf;
template <class Curve>
struct CurveOf<ec::Affine<Curve>> {
  using type = Curve;
};

namespace detail {

[[noreturn]] inline void fail(std::string_view role, std::string_view problem) {
  CUZK_INVALID_INPUT(std::string(role) + ": " + std::string(problem));
}

// The message prefix: the caller's role ("zkey alpha_1"), or the group's name.
template <class Curve>
std::string point_role(std::string_view role) {
  if (!role.empty()) return std::string(role);
  return std::string(Curve::kName) + " point";
}

inline std::string sub_role(std::string_view role, std::string_view part) {
  return std::string(role) + " " + std::string(part);
}

// The pair (0, 0) is our in-memory marker for infinity, so an encoding that claims to be a
// finite point must not produce it: it is not on the curve (b ≠ 0), and accepting it would
// turn a corrupt record into the identity silently.
template <class Curve>
void check_finite_point(const ec::Affine<Curve>& p, SubgroupCheck check, std::string_view role) {
  if (p.is_infinity() || !p.is_on_curve()) {
    fail(role, std::string("point is not on the curve ") + Curve::kName);
  }
  // is_in_subgroup is declared with each curve (found by argument-dependent lookup).
  if (check == SubgroupCheck::kOn && !is_in_subgroup(p)) {
    fail(role, std::string("point is on the curve but not in the prime-order subgroup of ") +
                   Curve::kName);
  }
}

}  // namespace detail
}  // namespace cuzk::io
