#include "io/zcash_codec.hpp"

#include <algorithm>
#include <string>

#include "io/field_codec.hpp"

namespace cuzk::io {
namespace {

using bls12_381::Fp;
using bls12_381::Fp2;

constexpr uint8_t kCompressedFlag = 0x80;
constexpr uint8_t kInfinityFlag = 0x40;
constexpr uint8_t kSignFlag = 0x20;
constexpr uint8_t kFlagMask = kCompressedFlag | kInfinityFlag | kSignFlag;

// (p − 1)/2: the elements above it are the "lexicographically largest" of each pair ±y.
constexpr Fp::Int kHalfModulus = [] {
  Fp::Int m = Fp::kModulus;
  m.limb[0] -= 1;
  return ff::shr(m, 1);
}();

bool is_lexicographically_largest(const Fp& y) { return compare(y.to_int(), kHalfModulus) > 0; }
bool is_lexicographically_largest(const Fp2& y) {
  return y.c1.is_zero() ? is_lexicographically_largest(y.c0) : is_lexicographically_largest(y.c1);
}

template <class Field>
constexpr size_t kCoordinateBytes = std::is_same_v<Field, Fp> ? Fp::kBytes : 2 * Fp::kBytes;

void write_coordinate(const Fp& v, std::span<uint8_t> out) { write_be(v, out.first<Fp::kBytes>()); }
void write_coordinate(const Fp2& v, std::span<uint8_t> out) {
  write_be(v.c1, out.first<Fp::kBytes>());
  write_be(v.c0, out.subspan<Fp::kBytes, Fp::kBytes>());
}

template <class Field>
Field read_coordinate(std::span<const uint8_t> in, const std::string& role);
template <>
Fp read_coordinate<Fp>(std::span<const uint8_t> in, const std::string& role) {
  return read_be<Fp>(in, role);
}
template <>
Fp2 read_coordinate<Fp2>(std::span<const uint8_t> in, const std::string& role) {
  Fp c1 = read_be<Fp>(in.first(Fp::kBytes), role + ".c1");
  Fp c0 = read_be<Fp>(in.subspan(Fp::kBytes), role + ".c0");
  return {c0, c1};
}

template <class Point>
auto encode(const Point& p, bool compressed) {
  constexpr size_t kCoord = kCoordinateBytes<typename Point::Field>;
  std::array<uint8_t, 2 * kCoord> out{};
  if (p.is_infinity()) {
    out[0] = kInfinityFlag | (compressed ? kCompressedFlag : 0);
    return out;
  }
  write_coordinate(p.x, std::span(out).first(kCoord));
  if (compressed) {
    out[0] |= kCompressedFlag | (is_lexicographically_largest(p.y) ? kSignFlag : 0);
  } else {
    write_coordinate(p.y, std::span(out).subspan(kCoord));
  }
  return out;
}

template <size_t N, size_t M>
std::array<uint8_t, N> first_bytes(const std::array<uint8_t, M>& in) {
  std::array<uint8_t, N> out;
  std::copy_n(in.begin(), N, out.begin());
  return out;
}

template <class Point>
Point decode(std::span<const uint8_t> in, bool compressed, SubgroupCheck check,
             std::string_view role_in) {
  using Curve = typename CurveOf<Point>::type;
  using Field = typename Point::Field;
  constexpr size_t kCoord = kCoordinateBytes<Field>;
  const std::string role = detail::point_role<Curve>(role_in);
  const char* form = compressed ? "compressed" : "uncompressed";

  const size_t expected = compressed ? kCoord : 2 * kCoord;
  if (in.size() != expected) {
    detail::fail(role, "expected " + std::to_string(expected) + " bytes for the " + form +
                           " zcash encoding, got " + std::to_string(in.size()));
  }
  const uint8_t flags = in[0] & kFlagMask;
  const bool infinity = flags & kInfinityFlag, sign = flags & kSignFlag;
  if (bool(flags & kCompressedFlag) != compressed) {
    detail::fail(role, compressed ? "compression flag (0x80) is not set in a compressed encoding"
                                  : "compression flag (0x80) is set in an uncompressed encoding");
  }
  std::array<uint8_t, 2 * kCoord> body{};
  std::copy(in.begin(), in.end(), body.begin());
  body[0] &= uint8_t(~kFlagMask);
  if (infinity) {
    if (sign) detail::fail(role, "infinity flag (0x40) is set together with the sign flag (0x20)");
    if (std::any_of(body.begin(), body.end(), [](uint8_t b) { return b != 0; })) {
      detail::fail(role, "infinity flag (0x40) is set but the coordinate bytes are not all zero");
    }
    return Point::infinity();
  }
  if (!compressed && sign)
    detail::fail(role, "sign flag (0x20) is set in an uncompressed encoding");

  const Field x = read_coordinate<Field>(std::span(body).first(kCoord), role + " x");
  Point p;
  if (compressed) {
    auto on_curve = Point::from_x(x);
    if (!on_curve)
      detail::fail(role, "x is not the x-coordinate of a curve point (x³ + b is not a square)");
    p = *on_curve;
    if (is_lexicographically_largest(p.y) != sign) p.y = -p.y;
  } else {
    p = {x, read_coordinate<Field>(std::span(body).subspan(kCoord, kCoord), role + " y")};
  }
  detail::check_finite_point(p, check, role);
  return p;
}

}  // namespace

std::array<uint8_t, kZcashG1CompressedBytes> to_zcash_compressed(const bls12_381::G1Affine& p) {
  return first_bytes<kZcashG1CompressedBytes>(encode(p, true));
}
std::array<uint8_t, kZcashG1UncompressedBytes> to_zcash_uncompressed(const bls12_381::G1Affine& p) {
  return encode(p, false);
}
std::array<uint8_t, kZcashG2CompressedBytes> to_zcash_compressed(const bls12_381::G2Affine& p) {
  return first_bytes<kZcashG2CompressedBytes>(encode(p, true));
}
std::array<uint8_t, kZcashG2UncompressedBytes> to_zcash_uncompressed(const bls12_381::G2Affine& p) {
  return encode(p, false);
}

bls12_381::G1Affine g1_from_zcash_compressed(std::span<const uint8_t> bytes, SubgroupCheck check,
                                             std::string_view role) {
  return decode<bls12_381::G1Affine>(bytes, true, check, role);
}
bls12_381::G1Affine g1_from_zcash_uncompressed(std::span<const uint8_t> bytes, SubgroupCheck check,
                                               std::string_view role) {
  return decode<bls12_381::G1Affine>(bytes, false, check, role);
}
bls12_381::G2Affine g2_from_zcash_compressed(std::span<const uint8_t> bytes, SubgroupCheck check,
                                             std::string_view role) {
  return decode<bls12_381::G2Affine>(bytes, true, check, role);
}
bls12_381::G2Affine g2_from_zcash_uncompressed(std::span<const uint8_t> bytes, SubgroupCheck check,
                                               std::string_view role) {
  return decode<bls12_381::G2Affine>(bytes, false, check, role);
}

}  // namespace cuzk::io
