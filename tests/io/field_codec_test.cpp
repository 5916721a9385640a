// Field element codecs: round trips on random elements of all four fields, published decimal
// values of the moduli, and every malformed input rejected with a message naming the problem.

#include "io/field_codec.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "tests/support/error_messages.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::io {
namespace {

// Decimal moduli from the curves' specifications: BN254 from EIP-196/197 (p, r), BLS12-381
// from draft-irtf-cfrg-pairing-friendly-curves-11 §4.2.1 (p, r).
template <class F>
struct Published;
template <>
struct Published<bn254::Fp> {
  static constexpr const char* kModulus =
      "21888242871839275222246405745257275088696311157297823662689037894645226208583";
};
template <>
struct Published<bn254::Fr> {
  static constexpr const char* kModulus =
      "21888242871839275222246405745257275088548364400416034343698204186575808495617";
};
template <>
struct Published<bls12_381::Fp> {
  static constexpr const char* kModulus =
      "4002409555221667393417789825735904156556882819939007885332058136124031650490837864442687629"
      "129015664037894272559787";
};
template <>
struct Published<bls12_381::Fr> {
  static constexpr const char* kModulus =
      "52435875175126190479447740508185965837690552500527637822603658699938581184513";
};

// Decimal p − 1 from the decimal p (the last digit of every modulus above is non-zero).
template <class F>
std::string modulus_minus_one() {
  std::string s = Published<F>::kModulus;
  s.back() = char(s.back() - 1);
  return s;
}

template <class F>
class FieldCodecTest : public ::testing::Test {};
using Fields = ::testing::Types<bn254::Fp, bn254::Fr, bls12_381::Fp, bls12_381::Fr>;
TYPED_TEST_SUITE(FieldCodecTest, Fields);

using ::cuzk::test::invalid_input_message;

TYPED_TEST(FieldCodecTest, DecimalMatchesPublishedModulus) {
  using F = TypeParam;
  EXPECT_EQ(to_decimal(-F::one()), modulus_minus_one<F>());
  EXPECT_EQ(from_decimal<F>(modulus_minus_one<F>()), -F::one());
  EXPECT_EQ(to_decimal(F::zero()), "0");
  EXPECT_EQ(to_decimal(F::from_u64(1234567890123456789ull)), "1234567890123456789");
  EXPECT_EQ(from_decimal<F>("0"), F::zero());
  EXPECT_EQ(from_decimal<F>("000"), F::zero());
  EXPECT_EQ(from_decimal<F>("0010000000000000000000"), F::from_u64(10000000000000000000ull));
}

TYPED_TEST(FieldCodecTest, RandomRoundTrips) {
  using F = TypeParam;
  auto rng = test::rng("io field round trips");
  for (size_t i = 0; i < test::scaled(200); ++i) {
    F x = F::random(rng);
    EXPECT_EQ(from_decimal<F>(to_decimal(x)), x);
    EXPECT_EQ(from_hex<F>(to_hex(x)), x);
    EXPECT_EQ(from_hex<F>("0x" + to_hex(x)), x);

    std::array<uint8_t, kSnarkjsBytes<F>> le;
    write_le_standard(x, std::span(le));
    EXPECT_EQ(read_le_standard<F>(le), x);
    write_le_montgomery(x, std::span(le));
    EXPECT_EQ(read_le_montgomery<F>(le), x);
    std::array<uint8_t, F::kBytes> be;
    write_be(x, std::span(be));
    EXPECT_EQ(read_be<F>(be), x);
  }
}

// The byte layouts checked against their definitions, computed another way: standard form is
// the integer's bytes; snarkjs's Montgomery form is the standard form of x·2^(8·n8) mod p.
TYPED_TEST(FieldCodecTest, BinaryLayoutsFollowTheirDefinitions) {
  using F = TypeParam;
  auto rng = test::rng("io field layouts");
  const F snarkjs_radix = F::from_u64(2).pow(uint64_t(8 * kSnarkjsBytes<F>));
  for (size_t i = 0; i < test::scaled(50); ++i) {
    F x = F::random(rng);
    std::string hex = to_hex(x);  // big-endian digits of the integer
    std::array<uint8_t, kSnarkjsBytes<F>> le;
    write_le_standard(x, std::span(le));
    std::array<uint8_t, F::kBytes> be;
    write_be(x, std::span(be));
    for (size_t b = 0; b < F::kBytes; ++b) {
      unsigned byte = std::stoul(hex.substr(2 * b, 2), nullptr, 16);
      ASSERT_EQ(be[b], byte);
      ASSERT_EQ(le[F::kBytes - 1 - b], byte);
    }
    std::array<uint8_t, kSnarkjsBytes<F>> mont, expected;
    write_le_montgomery(x, std::span(mont));
    write_le_standard(x * snarkjs_radix, std::span(expected));
    EXPECT_EQ(mont, expected);
  }
  EXPECT_EQ(to_hex(F::from_u64(0x1234)).substr(2 * F::kBytes - 4), "1234");
  EXPECT_EQ(from_hex<F>("0X00aBcD"), F::from_u64(0xabcd));
}

TYPED_TEST(FieldCodecTest, DecimalRejectsMalformedText) {
  using F = TypeParam;
  const std::string p = Published<F>::kModulus;
  EXPECT_NE(invalid_input_message([] {
              from_decimal<F>("", "public input 3");
            }).find("public input 3: empty string is not a decimal number"),
            std::string::npos);
  for (const char* bad : {"+1", "-1", " 1", "1 ", "12a", "0x10", "1.0", "1e3", "１"}) {
    std::string message = invalid_input_message([&] { from_decimal<F>(bad, "vk_alpha_1 x"); });
    EXPECT_NE(message.find("vk_alpha_1 x: "), std::string::npos) << message;
    EXPECT_NE(message.find("is not a decimal number"), std::string::npos) << message;
  }
  const std::string too_large[] = {p, "0" + p, p + "0", std::string(200, '9')};
  for (const std::string& bad : too_large) {
    std::string message = invalid_input_message([&] { from_decimal<F>(bad); });
    EXPECT_NE(message.find("field element: "), std::string::npos) << message;
    EXPECT_NE(message.find("is not below the field modulus"), std::string::npos) << message;
  }
}

TYPED_TEST(FieldCodecTest, HexRejectsMalformedText) {
  using F = TypeParam;
  for (const char* bad : {"", "0x"}) {
    EXPECT_NE(invalid_input_message([&] { from_hex<F>(bad); }).find("has no hex digits"),
              std::string::npos);
  }
  for (const char* bad : {"-0x1", "0x 1", "0xg", "x12", "12h"}) {
    EXPECT_NE(invalid_input_message([&] { from_hex<F>(bad); }).find("is not a hexadecimal number"),
              std::string::npos)
        << bad;
  }
  std::string modulus_hex = limbs_to_hex(F::kModulus.limb, F::kBytes);
  EXPECT_NE(invalid_input_message([&] {
              from_hex<F>(modulus_hex);
            }).find("is not below the field modulus"),
            std::string::npos);
  EXPECT_NE(invalid_input_message([&] {
              from_hex<F>("1" + std::string(16 * F::kLimbs, '0'));
            }).find("is not below the field modulus"),
            std::string::npos);
}

TYPED_TEST(FieldCodecTest, BinaryDecodersRejectNonCanonicalValuesAndWrongLengths) {
  using F = TypeParam;
  std::vector<uint8_t> modulus_le(kSnarkjsBytes<F>), modulus_be(F::kBytes);
  for (size_t i = 0; i < F::kBytes; ++i) {
    uint8_t byte = uint8_t(F::kModulus.limb[i / 8] >> (8 * (i % 8)));
    modulus_le[i] = byte;
    modulus_be[F::kBytes - 1 - i] = byte;
  }
  std::vector<uint8_t> all_ones(kSnarkjsBytes<F>, 0xff);
  for (const auto& bad : {modulus_le, all_ones}) {
    EXPECT_NE(
        invalid_input_message([&] { read_le_standard<F>(bad, "witness 7"); }).find("witness 7: 0x"),
        std::string::npos);
    EXPECT_NE(invalid_input_message([&] {
                read_le_standard<F>(bad);
              }).find("is not below the field modulus"),
              std::string::npos);
    EXPECT_NE(
        invalid_input_message([&] { read_le_montgomery<F>(bad); }).find("Montgomery value 0x"),
        std::string::npos);
  }
  EXPECT_NE(
      invalid_input_message([&] { read_be<F>(modulus_be); }).find("is not below the field modulus"),
      std::string::npos);
  // p − 1 is the largest accepted value.
  modulus_le[0] -= 1;  // the low byte of every modulus here is odd: no borrow
  EXPECT_EQ(read_le_standard<F>(modulus_le), -F::one());

  std::vector<uint8_t> short_input(kSnarkjsBytes<F> - 1), long_input(kSnarkjsBytes<F> + 1);
  EXPECT_NE(invalid_input_message([&] { read_le_standard<F>(short_input); })
                .find("expected " + std::to_string(kSnarkjsBytes<F>) + " bytes, got " +
                      std::to_string(kSnarkjsBytes<F> - 1)),
            std::string::npos);
  EXPECT_NE(invalid_input_message([&] { read_le_montgomery<F>(long_input); }).find("bytes, got"),
            std::string::npos);
  EXPECT_NE(invalid_input_message([&] { read_be<F>(short_input); }).find("bytes, got"),
            std::string::npos);
}

}  // namespace
}  // namespace cuzk::io
