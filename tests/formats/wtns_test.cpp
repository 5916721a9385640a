// .wtns: round trips for both curves, a hand-built file, and every malformed input refused.

#include "formats/wtns.hpp"

#include <gtest/gtest.h>

#include <bit>

#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::formats::test {
namespace {

constexpr ContainerSpec kWtns{"wtns", 2};

template <class Curve>
class WtnsTest : public ::testing::Test {};
TYPED_TEST_SUITE(WtnsTest, Curves);

template <class Curve>
std::vector<typename Curve::Fr> random_witness(std::mt19937_64& rng, size_t n) {
  using Fr = typename Curve::Fr;
  std::vector<Fr> w(n);
  w[0] = Fr::one();
  for (size_t i = 1; i < n; ++i) w[i] = rng() % 3 == 0 ? Fr::from_u64(rng() % 2) : Fr::random(rng);
  return w;
}

TYPED_TEST(WtnsTest, HandBuiltFileReadsAsWritten) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  // wtns_utils.js write(): section 1 = n8, prime, count; section 2 = values, standard form.
  std::vector<uint8_t> header = {32, 0, 0, 0};
  std::vector<uint8_t> prime = le_bytes<Fr>(Fr::kModulus);
  header.insert(header.end(), prime.begin(), prime.end());
  header.insert(header.end(), {3, 0, 0, 0});
  std::vector<uint8_t> values(3 * 32, 0);
  values[0] = 1;                         // 1
  values[32] = 0x34, values[33] = 0x12;  // 0x1234
  std::vector<uint8_t> minus_one = le_bytes<Fr>(Fr::kModulus);
  minus_one[0] -= 1;  // r − 1 (r is odd)
  std::copy(minus_one.begin(), minus_one.end(), values.begin() + 64);
  std::vector<uint8_t> file = build_container("wtns", 2, {{1, header}, {2, values}});

  std::vector<Fr> w = parse_wtns<Curve>(file, "hand.wtns");
  EXPECT_EQ(w, (std::vector<Fr>{Fr::one(), Fr::from_u64(0x1234), -Fr::one()}));
  EXPECT_EQ(wtns_to_bytes<Curve>(w), file);
  EXPECT_EQ(sniff_curve(file, "hand.wtns"), Curve::kId);
}

TYPED_TEST(WtnsTest, WriterRefusesAFirstValueOtherThanOne) {
  using Fr = typename TypeParam::Fr;
  const std::vector<Fr> montgomery = {Fr::from_u64(2), Fr::one()};
  EXPECT_THROW(wtns_to_bytes<TypeParam>(montgomery), Error);
  // In standard form the constant wire is the integer 1, not Montgomery's one.
  const std::vector<Fr> standard = {Fr::one(), Fr::one()};
  EXPECT_THROW(wtns_to_bytes_from_standard<TypeParam>(standard), Error);
}

TYPED_TEST(WtnsTest, RandomRoundTrips) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("WtnsTest.RandomRoundTrips");
  for (size_t n : {size_t(1), size_t(2), size_t(100), size_t(3 * 65536 + 5)}) {
    auto w = random_witness<Curve>(rng, n);
    std::vector<uint8_t> file = wtns_to_bytes<Curve>(w);
    EXPECT_EQ(file.size(), 12 + 12 + 40 + 12 + 32 * n);
    EXPECT_EQ(file.capacity(), file.size()) << "sized once, not grown";
    // The same file from the integers themselves (as the GPU prover's pinned staging holds a
    // witness: standard form in an Fr's words).
    using Fr = typename Curve::Fr;
    std::vector<Fr> standard(n);
    for (size_t i = 0; i < n; ++i) standard[i] = std::bit_cast<Fr>(w[i].to_int());
    EXPECT_EQ(wtns_to_bytes_from_standard<Curve>(standard), file) << n;
    for (unsigned threads : {1u, 0u}) {
      EXPECT_EQ(parse_wtns<Curve>(file, "w.wtns", {.threads = threads}), w) << n;
    }
    EXPECT_EQ(parse_wtns<Curve>(file, "w.wtns", {.expected_count = uint32_t(n)}).size(), n);
  }
}

TYPED_TEST(WtnsTest, EveryTruncationIsRefused) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("WtnsTest.EveryTruncationIsRefused");
  std::vector<uint8_t> file = wtns_to_bytes<Curve>(random_witness<Curve>(rng, 4));
  for (size_t cut = 0; cut < file.size(); ++cut) {
    std::span<const uint8_t> prefix(file.data(), cut);
    std::string message = invalid_input_message([&] { parse_wtns<Curve>(prefix, "cut.wtns"); });
    EXPECT_EQ(message.rfind("cut.wtns: ", 0), 0u) << "cut at " << cut << ": " << message;
  }
}

TYPED_TEST(WtnsTest, BadInputs) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  using Other = std::conditional_t<std::is_same_v<Curve, Bn254>, Bls12_381, Bn254>;
  auto rng = cuzk::test::rng("WtnsTest.BadInputs");
  std::vector<uint8_t> file = wtns_to_bytes<Curve>(random_witness<Curve>(rng, 10));
  const std::vector<Section> good = split_container(file, kWtns);
  auto parse = [](const std::vector<Section>& sections, WtnsReadOptions options = {}) {
    std::vector<uint8_t> bytes = build_container("wtns", 2, sections);
    parse_wtns<Curve>(bytes, "bad.wtns", options);
  };

  std::vector<uint8_t> magic = file;
  magic[0] = 'r';
  EXPECT_INVALID_INPUT(parse_wtns<Curve>(magic, "bad.wtns"), "not a .wtns file");
  std::vector<uint8_t> version = file;
  put_u32(version, 4, 1);
  EXPECT_INVALID_INPUT(parse_wtns<Curve>(version, "bad.wtns"), ".wtns version 1 is not supported");

  EXPECT_INVALID_INPUT(parse(good, {.expected_count = 11}),
                       "bad.wtns: section 1 (witness header): the witness has 10 values but the "
                       "circuit has 11 wires");
  auto sections = good;
  put_u32(find_section(sections, 1).body, 36, 11);
  EXPECT_INVALID_INPUT(parse(sections),
                       "section 2 (witness values) holds 320 bytes, expected "
                       "nWitness 11 × 32 = 352");
  put_u32(find_section(sections, 1).body, 36, 0);
  EXPECT_INVALID_INPUT(parse(sections), "nWitness = 0");
  sections = good;
  find_section(sections, 2).body[0] = 2;
  EXPECT_INVALID_INPUT(parse(sections), "value 0 is 0x" + std::string(63, '0') +
                                            "2, but the constant wire must be 1");
  sections = good;
  std::vector<uint8_t> r = le_bytes<Fr>(Fr::kModulus);
  std::copy(r.begin(), r.end(), find_section(sections, 2).body.begin() + 5 * 32);
  EXPECT_INVALID_INPUT(parse(sections), "bad.wtns: section 2 (witness values): value 5 = 0x" +
                                            io::limbs_to_hex(Fr::kModulus.limb, 32) +
                                            " is not below the scalar field modulus r");
  sections = good;
  sections.pop_back();
  EXPECT_INVALID_INPUT(parse(sections), "section 2 (witness values) is missing");
  sections = good;
  sections.push_back(good[0]);
  EXPECT_INVALID_INPUT(parse(sections), "section 1 (witness header) appears more than once");

  std::vector<uint8_t> other = wtns_to_bytes<Other>(random_witness<Other>(rng, 3));
  EXPECT_INVALID_INPUT(parse_wtns<Curve>(other, "other.wtns"),
                       "holds " + std::string(curve_display_name(Other::kId)) +
                           "'s scalar field prime r, but " +
                           std::string(curve_display_name(Curve::kId)));

  std::vector<Fr> not_one = {Fr::from_u64(2)};
  EXPECT_INVALID_INPUT(wtns_to_bytes<Curve>(not_one), "the first value (the constant wire)");
  EXPECT_INVALID_INPUT(wtns_to_bytes<Curve>(std::span<const Fr>()), "must be 1");
}

}  // namespace
}  // namespace cuzk::formats::test
