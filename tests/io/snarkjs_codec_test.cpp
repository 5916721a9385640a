// snarkjs point forms (binary Montgomery layout of .zkey files, and the JSON of proof.json and
// verification_key.json) for the four groups: round trips, layouts, published JSON values of
// the generators, and every malformed input rejected with a message naming the problem.

#include "io/snarkjs_codec.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "io/snarkjs_json.hpp"
#include "tests/io/point_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::io {
namespace {

using nlohmann::json;

template <class Point>
class SnarkjsCodecTest : public ::testing::Test {};
using Groups =
    ::testing::Types<bn254::G1Affine, bn254::G2Affine, bls12_381::G1Affine, bls12_381::G2Affine>;
TYPED_TEST_SUITE(SnarkjsCodecTest, Groups);

template <class Point>
std::vector<uint8_t> snarkjs_bytes(const Point& p) {
  std::vector<uint8_t> out(kSnarkjsPointBytes<Point>);
  write_snarkjs_point(p, std::span<uint8_t, kSnarkjsPointBytes<Point>>(out));
  return out;
}

// The little-endian Montgomery bytes of each base-field coordinate in snarkjs's order.
template <class Field>
void append_montgomery(const Field& v, std::vector<uint8_t>& out) {
  if constexpr (QuadraticExtension<Field>) {
    append_montgomery(v.c0, out);
    append_montgomery(v.c1, out);
  } else {
    std::array<uint8_t, kSnarkjsBytes<Field>> bytes;
    write_le_montgomery(v, std::span(bytes));
    out.insert(out.end(), bytes.begin(), bytes.end());
  }
}

template <class Field>
std::string modulus_decimal() {
  if constexpr (QuadraticExtension<Field>) {
    return limbs_to_decimal(Field::Base::kModulus.limb);
  } else {
    return limbs_to_decimal(Field::kModulus.limb);
  }
}

TYPED_TEST(SnarkjsCodecTest, BinaryRoundTripsAndLayout) {
  using Point = TypeParam;
  auto rng = test::rng("io snarkjs binary");
  for (size_t i = 0; i < test::scaled(12); ++i) {
    Point p = test_support::random_point<Point>(rng);
    std::vector<uint8_t> bytes = snarkjs_bytes(p);
    std::vector<uint8_t> expected;
    append_montgomery(p.x, expected);
    append_montgomery(p.y, expected);
    EXPECT_EQ(bytes, expected);
    EXPECT_EQ(read_snarkjs_point<Point>(bytes), p);
  }
  std::vector<uint8_t> zeros(kSnarkjsPointBytes<Point>, 0);
  EXPECT_EQ(snarkjs_bytes(Point::infinity()), zeros);
  EXPECT_TRUE(read_snarkjs_point<Point>(zeros).is_infinity());
}

TYPED_TEST(SnarkjsCodecTest, BinaryArrayNamesTheBadIndex) {
  using Point = TypeParam;
  auto rng = test::rng("io snarkjs array");
  std::vector<Point> points = {test_support::random_point<Point>(rng), Point::infinity(),
                               test_support::random_point<Point>(rng)};
  std::vector<uint8_t> bytes;
  for (const Point& p : points) {
    auto b = snarkjs_bytes(p);
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  std::vector<Point> decoded(points.size());
  read_snarkjs_points<Point>(bytes, decoded);
  EXPECT_EQ(decoded, points);
  bytes[2 * kSnarkjsPointBytes<Point> + 5] ^= 1;  // corrupt the third point's x
  EXPECT_INVALID_INPUT(
      read_snarkjs_points<Point>(bytes, decoded, SubgroupCheck::kOn, "zkey section 5"),
      "zkey section 5[2]: point is not on the curve");
  bytes.pop_back();
  EXPECT_INVALID_INPUT(
      read_snarkjs_points<Point>(bytes, decoded),
      "expected 3 points of " + std::to_string(kSnarkjsPointBytes<Point>) + " bytes");
}

TYPED_TEST(SnarkjsCodecTest, BinaryRejectsMalformedPoints) {
  using Point = TypeParam;
  using Curve = test_support::CurveT<Point>;
  using Fp = typename BaseFieldOf<typename Point::Field>::type;
  const std::string name = std::string(Curve::kName) + " point";
  std::vector<uint8_t> good = snarkjs_bytes(Point::generator());
  std::vector<uint8_t> shorter(good.begin(), good.end() - 1);
  EXPECT_INVALID_INPUT(read_snarkjs_point<Point>(shorter),
                       name + ": expected " + std::to_string(good.size()) +
                           " bytes for a snarkjs point, got " + std::to_string(shorter.size()));

  std::vector<uint8_t> big_x = good;
  std::fill(big_x.begin(), big_x.begin() + kSnarkjsBytes<Fp>, 0xff);
  const char* x_part = QuadraticExtension<typename Point::Field> ? " x.c0: " : " x: ";
  EXPECT_INVALID_INPUT(read_snarkjs_point<Point>(big_x, SubgroupCheck::kOn, "zkey alpha"),
                       std::string("zkey alpha") + x_part + "Montgomery value 0xffff");
  EXPECT_INVALID_INPUT(read_snarkjs_point<Point>(big_x), "is not below the field modulus");

  Point off = Point::generator();
  off.y = off.y + Point::Field::one();
  EXPECT_INVALID_INPUT(read_snarkjs_point<Point>(snarkjs_bytes(off)),
                       name + ": point is not on the curve " + Curve::kName);

  if constexpr (!std::is_same_v<Point, bn254::G1Affine>) {  // BN254's G1 has cofactor 1
    Point outside = test_support::point_outside_subgroup<Point>();
    EXPECT_INVALID_INPUT(
        read_snarkjs_point<Point>(snarkjs_bytes(outside)),
        name + ": point is on the curve but not in the prime-order subgroup of " + Curve::kName);
    EXPECT_EQ(read_snarkjs_point<Point>(snarkjs_bytes(outside), SubgroupCheck::kOff), outside);
  }
}

TYPED_TEST(SnarkjsCodecTest, JsonRoundTripsAndInfinity) {
  using Point = TypeParam;
  auto rng = test::rng("io snarkjs json");
  for (size_t i = 0; i < test::scaled(12); ++i) {
    Point p = test_support::random_point<Point>(rng);
    json j = to_snarkjs_json(p);
    EXPECT_EQ(from_snarkjs_json<Point>(j), p);
    EXPECT_EQ(from_snarkjs_json<Point>(json::parse(j.dump())), p);
  }
  json infinity = to_snarkjs_json(Point::infinity());
  if constexpr (QuadraticExtension<typename Point::Field>) {
    EXPECT_EQ(infinity, json::parse(R"([["0","0"],["1","0"],["0","0"]])"));
  } else {
    EXPECT_EQ(infinity, json::parse(R"(["0","1","0"])"));
  }
  EXPECT_TRUE(from_snarkjs_json<Point>(infinity).is_infinity());
}

TYPED_TEST(SnarkjsCodecTest, JsonRejectsMalformedPoints) {
  using Point = TypeParam;
  using Curve = test_support::CurveT<Point>;
  using Field = typename Point::Field;
  constexpr bool kG2 = QuadraticExtension<Field>;
  const std::string name = std::string(Curve::kName) + " point";
  const json good = to_snarkjs_json(Point::generator());
  auto with = [&](size_t index, const json& value) {
    json j = good;
    j[index] = value;
    return j;
  };
  auto coordinate = [&](const std::string& text) {
    return kG2 ? json::array({text, "0"}) : json(text);
  };

  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(json::object()),
                       name + ": expected a JSON array [x, y, z] of 3 coordinates, got {}");
  json two = good;
  two.erase(2);
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(two), "expected a JSON array [x, y, z]");
  if constexpr (kG2) {
    EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(0, "1"), SubgroupCheck::kOn, "vk_beta_2"),
                         "vk_beta_2 x: expected an array of 2 decimal strings [c0, c1], got \"1\"");
    EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(1, json::array({"1", 2}))),
                         name + " y.c1: expected a decimal string, got 2");
  } else {
    EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(1, 2), SubgroupCheck::kOn, "proof pi_a"),
                         "proof pi_a y: expected a decimal string, got 2");
  }
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(0, coordinate("0x1"))),
                       "\"0x1\" is not a decimal number");
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(0, coordinate("-1"))),
                       "is not a decimal number");
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(0, coordinate(""))), "empty string");
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(1, coordinate(modulus_decimal<Field>()))),
                       "is not below the field modulus");
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(2, coordinate("2"))),
                       name + ": z must be 1 for an affine point (or 0 for the point at infinity)");
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(with(2, coordinate("0"))),
                       "z is 0 (the point at infinity) but (x, y) is not (0, 1)");

  Point off = Point::generator();
  off.x = off.x + Field::one();
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(to_snarkjs_json(off)),
                       name + ": point is not on the curve " + Curve::kName);
  // (0, 0) with z = 1 is not a point; only z = 0 means infinity.
  json origin = good;
  origin[0] = coordinate("0");
  origin[1] = coordinate("0");
  EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(origin), "point is not on the curve");
  if constexpr (!std::is_same_v<Point, bn254::G1Affine>) {
    Point outside = test_support::point_outside_subgroup<Point>();
    EXPECT_INVALID_INPUT(from_snarkjs_json<Point>(to_snarkjs_json(outside)),
                         "not in the prime-order subgroup");
    EXPECT_EQ(from_snarkjs_json<Point>(to_snarkjs_json(outside), SubgroupCheck::kOff), outside);
  }
}

// The generators as snarkjs prints them: BN254 from EIP-196 (G1 = (1, 2)) and EIP-197 (G2;
// the same decimals are vk_gamma_2 of every snarkjs bn128 verification key); BLS12-381 from
// draft-irtf-cfrg-pairing-friendly-curves-11 §4.2.1, converted from hex to decimal.
TEST(SnarkjsJson, GeneratorsMatchPublishedDecimals) {
  EXPECT_EQ(to_snarkjs_json(bn254::G1Affine::generator()), json::parse(R"(["1","2","1"])"));
  EXPECT_EQ(to_snarkjs_json(bn254::G2Affine::generator()), json::parse(R"([
    ["10857046999023057135944570762232829481370756359578518086990519993285655852781",
     "11559732032986387107991004021392285783925812861821192530917403151452391805634"],
    ["8495653923123431417604973247489272438418190587263600148770280649306958101930",
     "4082367875863433681332203403145435568316851327593401208105741076214120093531"],
    ["1", "0"]])"));
  json g1 = to_snarkjs_json(bls12_381::G1Affine::generator());
  EXPECT_EQ(g1[0],
            "3685416753713387016781088315183077757961620795782546409894578378688607592378"
            "376318836054947676345821548104185464507");
  EXPECT_EQ(g1[1],
            "1339506544944476473020471379941921221584933875938349620426543736416511423956"
            "333506472724655353366534992391756441569");
  EXPECT_EQ(g1[2], "1");
}

}  // namespace
}  // namespace cuzk::io
