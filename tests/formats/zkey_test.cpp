// .zkey (Groth16): round trips of random keys for both curves, the coefficient convention,
// and every malformed input refused with a message naming the file, section and value.

#include "formats/zkey.hpp"

#include <gtest/gtest.h>

#include "io/snarkjs_codec.hpp"
#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::formats::test {
namespace {

constexpr ContainerSpec kZkey{"zkey", 1};

template <class Curve>
class ZkeyTest : public ::testing::Test {
 protected:
  using Fr = typename Curve::Fr;
  using Fq = typename Curve::Fq;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  static constexpr size_t kN8q = 8 * Fq::kLimbs;
  static constexpr size_t kG1 = io::kSnarkjsPointBytes<G1>;
  static constexpr size_t kG2 = io::kSnarkjsPointBytes<G2>;
  // Offsets in section 2 (zkey_utils.js readHeaderGroth16).
  static constexpr size_t kNVarsAt = 4 + kN8q + 4 + 32;
  static constexpr size_t kDomainAt = kNVarsAt + 8;
  static constexpr size_t kAlpha1At = kDomainAt + 4;

  // nVars 9, nPublic 2, domain 16, 20 coefficients.
  Groth16Zkey<Curve> small_key(std::mt19937_64& rng) {
    return random_zkey<Curve>(rng, 9, 2, 16, 20);
  }
};
TYPED_TEST_SUITE(ZkeyTest, Curves);

// A point on the curve outside the prime-order subgroup: a random x with a square x³ + b,
// not multiplied by the cofactor (in the subgroup with probability 1/h, negligible).
template <class Point>
Point point_outside_subgroup(std::mt19937_64& rng) {
  for (;;) {
    auto p = Point::from_x(Point::Field::random(rng));
    if (p && !is_in_subgroup(*p)) return *p;
  }
}

TYPED_TEST(ZkeyTest, RandomRoundTrips) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("ZkeyTest.RandomRoundTrips");
  for (size_t trial = 0; trial < cuzk::test::scaled(3); ++trial) {
    uint32_t n_public = uint32_t(rng() % 4);
    uint32_t n_vars = n_public + 1 + uint32_t(rng() % 40);
    uint32_t domain = 1u << (1 + rng() % 6);
    Groth16Zkey<Curve> key = random_zkey<Curve>(rng, n_vars, n_public, domain, rng() % 100);
    std::vector<uint8_t> file = zkey_to_bytes(key);
    for (unsigned threads : {1u, 0u}) {
      EXPECT_EQ(parse_zkey<Curve>(file, "k.zkey", {.threads = threads}), key) << trial;
    }
    EXPECT_EQ(sniff_curve(file, "k.zkey"), Curve::kId);
  }
}

TYPED_TEST(ZkeyTest, SectionOrderOfAFreshKeyAndAnyOtherOrderReads) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("ZkeyTest.SectionOrder");
  Groth16Zkey<Curve> key = this->small_key(rng);
  key.mpc_params.clear();  // written as a fresh section: zero hash, no contributions
  std::vector<uint8_t> file = zkey_to_bytes(key);
  std::vector<Section> sections = split_container(file, kZkey);
  std::vector<uint32_t> ids;
  for (const Section& s : sections) ids.push_back(s.id);
  // zkey_new.js writes 1, 2, 4, 3, 9, 8, 5, 6, 7, 10.
  EXPECT_EQ(ids, (std::vector<uint32_t>{1, 2, 4, 3, 9, 8, 5, 6, 7, 10}));
  EXPECT_EQ(find_section(sections, 10).body, std::vector<uint8_t>(68, 0));

  std::sort(sections.begin(), sections.end(),
            [](const Section& a, const Section& b) { return a.id < b.id; });
  Groth16Zkey<Curve> back = parse_zkey<Curve>(build_container("zkey", 1, sections), "s.zkey");
  key.mpc_params = std::vector<uint8_t>(68, 0);
  EXPECT_EQ(back, key);

  // Section 10 is optional on reading (snarkjs's prover does not read it).
  sections.pop_back();
  back = parse_zkey<Curve>(build_container("zkey", 1, sections), "s.zkey");
  EXPECT_TRUE(back.mpc_params.empty());
}

// Section 4 holds c·R² mod r (zkey_new.js writeCoef: Fr.mul(n, R2r) written as an integer);
// multiplying its limbs by a standard-form witness value gives Montgomery(c·w).
TYPED_TEST(ZkeyTest, CoefficientConvention) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("ZkeyTest.CoefficientConvention");
  Groth16Zkey<Curve> key = this->small_key(rng);
  Fr c = Fr::random(rng);
  typename Fr::Int c_r2 = (c * Fr::from_int(Fr::kR2)).to_int();  // the integer c·R² mod r
  key.coefficients[0] = {1, 3, 4, Fr::from_montgomery(c_r2)};
  std::vector<uint8_t> file = zkey_to_bytes(key);
  std::vector<Section> sections = split_container(file, kZkey);
  const std::vector<uint8_t>& coefficients = find_section(sections, 4).body;
  std::vector<uint8_t> expected_record = {1, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0};
  std::vector<uint8_t> value = le_bytes<Fr>(c_r2);
  expected_record.insert(expected_record.end(), value.begin(), value.end());
  EXPECT_TRUE(std::equal(expected_record.begin(), expected_record.end(), coefficients.begin() + 4));

  ZkeyCoefficient<Fr> e = parse_zkey<Curve>(file, "c.zkey").coefficients[0];
  EXPECT_EQ(e.coefficient(), c);
  typename Fr::Int w = Fr::random(rng).to_int();  // a witness value, standard form
  EXPECT_EQ(e.value * Fr::from_montgomery(w), c * Fr::from_int(w));
}

TYPED_TEST(ZkeyTest, EveryTruncationIsRefused) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("ZkeyTest.EveryTruncationIsRefused");
  std::vector<uint8_t> file = zkey_to_bytes(random_zkey<Curve>(rng, 4, 1, 2, 3));
  for (size_t cut = 0; cut < file.size(); ++cut) {
    std::span<const uint8_t> prefix(file.data(), cut);
    std::string message = invalid_input_message([&] { parse_zkey<Curve>(prefix, "cut.zkey"); });
    EXPECT_EQ(message.rfind("cut.zkey: ", 0), 0u) << "cut at " << cut << ": " << message;
  }
}

TYPED_TEST(ZkeyTest, BadContainerAndHeader) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  using Other = std::conditional_t<std::is_same_v<Curve, Bn254>, Bls12_381, Bn254>;
  auto rng = cuzk::test::rng("ZkeyTest.BadContainerAndHeader");
  std::vector<uint8_t> file = zkey_to_bytes(this->small_key(rng));
  const std::vector<Section> good = split_container(file, kZkey);
  auto parse = [](const std::vector<Section>& sections) {
    std::vector<uint8_t> bytes = build_container("zkey", 1, sections);
    parse_zkey<Curve>(bytes, "bad.zkey");
  };

  std::vector<uint8_t> magic = file;
  magic[0] = 'Z';
  EXPECT_INVALID_INPUT(parse_zkey<Curve>(magic, "bad.zkey"), "bad.zkey: not a .zkey file");
  std::vector<uint8_t> version = file;
  put_u32(version, 4, 2);
  EXPECT_INVALID_INPUT(parse_zkey<Curve>(version, "bad.zkey"), ".zkey version 2 is not supported");

  // H's declared size 2^40 bytes larger than the file.
  std::vector<uint8_t> oversized = file;
  const SectionEntry& h = BinaryContainer::parse(file, "x", kZkey).entry(9, "H points");
  oversized[h.offset - 3] = 1;
  EXPECT_INVALID_INPUT(parse_zkey<Curve>(oversized, "bad.zkey"),
                       "bad.zkey: section 9 declares " +
                           std::to_string(h.size + (uint64_t(1) << 40)) + " bytes at byte " +
                           std::to_string(h.offset) + ", but only");

  auto sections = good;
  put_u32(find_section(sections, 1).body, 0, 2);
  EXPECT_INVALID_INPUT(parse(sections),
                       "bad.zkey: section 1 (protocol header): protocol 2 (PLONK) is not Groth16");

  std::vector<uint8_t> other = zkey_to_bytes(random_zkey<Other>(rng, 4, 1, 4, 2));
  EXPECT_INVALID_INPUT(
      parse_zkey<Curve>(other, "other.zkey"),
      "other.zkey: section 2 (Groth16 header): holds " +
          std::string(curve_display_name(Other::kId)) + "'s base field prime q, but " +
          std::string(curve_display_name(Curve::kId)) + "'s base field prime q was expected");

  sections = good;
  put_u32(find_section(sections, 2).body, this->kDomainAt, 12);
  EXPECT_INVALID_INPUT(parse(sections),
                       "bad.zkey: section 2 (Groth16 header): domain size 12 is "
                       "not a power of two");
  if constexpr (Fr::kTwoAdicity < 31) {
    put_u32(find_section(sections, 2).body, this->kDomainAt, 1u << (Fr::kTwoAdicity + 1));
    EXPECT_INVALID_INPUT(parse(sections),
                         "exceeds the largest, 2^" + std::to_string(Fr::kTwoAdicity));
  }
  sections = good;
  put_u32(find_section(sections, 2).body, this->kNVarsAt, 2);  // nPublic is 2
  EXPECT_INVALID_INPUT(parse(sections), "nVars = 2 cannot hold the constant wire and nPublic = 2");

  sections = good;
  std::fill_n(find_section(sections, 2).body.begin() + this->kAlpha1At, this->kG1, 0);
  EXPECT_INVALID_INPUT(parse(sections),
                       "section 2 (Groth16 header): alpha_1: is the point at "
                       "infinity");
  sections = good;
  find_section(sections, 2).body[this->kAlpha1At + this->kN8q] ^= 1;  // y of alpha_1
  EXPECT_INVALID_INPUT(parse(sections),
                       "section 2 (Groth16 header): alpha_1: point is not on the "
                       "curve");
  sections = good;
  find_section(sections, 2).body.push_back(0);
  EXPECT_INVALID_INPUT(parse(sections), "1 bytes left over after the header fields and points");

  for (uint32_t id : {2u, 3u, 4u, 9u}) {
    sections = good;
    sections.erase(std::find_if(sections.begin(), sections.end(),
                                [&](const Section& s) { return s.id == id; }));
    EXPECT_INVALID_INPUT(parse(sections), "section " + std::to_string(id) + " (");
    EXPECT_INVALID_INPUT(parse(sections), ") is missing");
  }
  sections = good;
  sections.push_back(find_section(sections, 5));
  EXPECT_INVALID_INPUT(parse(sections), "bad.zkey: section 5 (A points) appears more than once");
}

TYPED_TEST(ZkeyTest, SectionSizesMustMatchTheHeader) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("ZkeyTest.SectionSizesMustMatchTheHeader");
  const std::vector<Section> good = split_container(zkey_to_bytes(this->small_key(rng)), kZkey);
  auto parse = [](const std::vector<Section>& sections) {
    std::vector<uint8_t> bytes = build_container("zkey", 1, sections);
    parse_zkey<Curve>(bytes, "bad.zkey");
  };
  const std::string g1 = std::to_string(this->kG1), g2 = std::to_string(this->kG2);
  auto with_size = [&](uint32_t id, size_t size) {
    auto sections = good;
    find_section(sections, id).body.resize(size);
    return sections;
  };
  EXPECT_INVALID_INPUT(parse(with_size(9, 1000)),
                       "bad.zkey: section 9 (H points) holds 1000 bytes, expected 2^4 × " + g1 +
                           " = " + std::to_string(16 * this->kG1));
  EXPECT_INVALID_INPUT(parse(with_size(3, 10)),
                       "section 3 (IC points) holds 10 bytes, expected nPublic + 1 = 3 × " + g1);
  EXPECT_INVALID_INPUT(parse(with_size(5, 8 * this->kG1)), "section 5 (A points) holds " +
                                                               std::to_string(8 * this->kG1) +
                                                               " bytes, expected nVars 9 × " + g1);
  EXPECT_INVALID_INPUT(parse(with_size(6, 10 * this->kG1)), "section 6 (B1 points)");
  EXPECT_INVALID_INPUT(parse(with_size(7, 9 * this->kG1)), "section 7 (B2 points) holds " +
                                                               std::to_string(9 * this->kG1) +
                                                               " bytes, expected nVars 9 × " + g2);
  EXPECT_INVALID_INPUT(
      parse(with_size(8, 0)),
      "section 8 (C points) holds 0 bytes, expected nVars − nPublic − 1 = 6 × " + g1);
  EXPECT_INVALID_INPUT(parse(with_size(4, 4 + 19 * 44)),
                       "section 4 (coefficients) holds 840 bytes, expected 4 + 20 × 44 = 880 for "
                       "its 20 coefficients");
  EXPECT_INVALID_INPUT(parse(with_size(4, 3)),
                       "section 4 (coefficients): ends while reading the "
                       "coefficient count");
}

TYPED_TEST(ZkeyTest, BadPoints) {
  using Curve = TypeParam;
  using Fq = typename Curve::Fq;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  auto rng = cuzk::test::rng("ZkeyTest.BadPoints");
  const std::vector<Section> good = split_container(zkey_to_bytes(this->small_key(rng)), kZkey);
  auto parse = [](const std::vector<Section>& sections, ZkeyReadOptions options = {}) {
    std::vector<uint8_t> bytes = build_container("zkey", 1, sections);
    return parse_zkey<Curve>(bytes, "bad.zkey", options);
  };

  auto sections = good;
  find_section(sections, 9).body[3 * this->kG1 + this->kN8q] ^= 1;  // y of H[3]
  EXPECT_INVALID_INPUT(parse(sections),
                       "bad.zkey: section 9 (H points): point 3: point is not on "
                       "the curve");
  sections = good;
  std::vector<uint8_t> q = le_bytes<Fq>(Fq::kModulus);
  std::copy(q.begin(), q.end(), find_section(sections, 8).body.begin() + 2 * this->kG1);
  EXPECT_INVALID_INPUT(parse(sections), "bad.zkey: section 8 (C points): point 2 x");
  EXPECT_INVALID_INPUT(parse(sections), "is not below the field modulus");
  sections = good;
  std::copy(q.begin(), q.end(), find_section(sections, 7).body.begin() + this->kG2 + this->kN8q);
  EXPECT_INVALID_INPUT(parse(sections), "bad.zkey: section 7 (B2 points): point 1 x.c1");

  // Outside the subgroup: refused by default, accepted when the caller skips the check.
  G2 outside2 = point_outside_subgroup<G2>(rng);
  sections = good;
  io::write_snarkjs_point(outside2,
                          std::span<uint8_t, io::kSnarkjsPointBytes<G2>>(
                              find_section(sections, 7).body.data() + 4 * this->kG2, this->kG2));
  EXPECT_INVALID_INPUT(parse(sections),
                       "bad.zkey: section 7 (B2 points): point 4: point is on the "
                       "curve but not in the prime-order subgroup");
  EXPECT_EQ(parse(sections, {.subgroup_check = io::SubgroupCheck::kOff}).b2[4], outside2);
  if constexpr (std::is_same_v<Curve, Bls12_381>) {  // BN254's G1 has cofactor 1
    G1 outside1 = point_outside_subgroup<G1>(rng);
    sections = good;
    io::write_snarkjs_point(outside1, std::span<uint8_t, io::kSnarkjsPointBytes<G1>>(
                                          find_section(sections, 5).body.data(), this->kG1));
    EXPECT_INVALID_INPUT(parse(sections),
                         "section 5 (A points): point 0: point is on the curve "
                         "but not in the prime-order subgroup");
    EXPECT_EQ(parse(sections, {.subgroup_check = io::SubgroupCheck::kOff}).a[0], outside1);
    // The header's points are always checked fully.
    sections = good;
    io::write_snarkjs_point(
        outside1, std::span<uint8_t, io::kSnarkjsPointBytes<G1>>(
                      find_section(sections, 2).body.data() + this->kAlpha1At, this->kG1));
    EXPECT_INVALID_INPUT(parse(sections, {.subgroup_check = io::SubgroupCheck::kOff}),
                         "alpha_1: point is on the curve but not in the prime-order subgroup");
  }
}

TYPED_TEST(ZkeyTest, BadCoefficientsAndMpcParameters) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("ZkeyTest.BadCoefficients");
  const std::vector<Section> good = split_container(zkey_to_bytes(this->small_key(rng)), kZkey);
  auto parse = [](const std::vector<Section>& sections) {
    std::vector<uint8_t> bytes = build_container("zkey", 1, sections);
    parse_zkey<Curve>(bytes, "bad.zkey");
  };
  auto with_field = [&](size_t record, size_t field, uint32_t v) {
    auto sections = good;
    put_u32(find_section(sections, 4).body, 4 + record * 44 + 4 * field, v);
    return sections;
  };
  EXPECT_INVALID_INPUT(parse(with_field(0, 0, 2)),
                       "bad.zkey: section 4 (coefficients): "
                       "coefficient 0: matrix 2 is neither A (0) nor "
                       "B (1)");
  EXPECT_INVALID_INPUT(parse(with_field(7, 1, 16)),
                       "coefficient 7: row 16 is outside the domain (size 16)");
  EXPECT_INVALID_INPUT(parse(with_field(19, 2, 9)),
                       "coefficient 19: wire 9 is out of range (nVars = 9)");
  auto sections = good;
  std::vector<uint8_t> r = le_bytes<Fr>(Fr::kModulus);
  std::copy(r.begin(), r.end(), find_section(sections, 4).body.begin() + 4 + 5 * 44 + 12);
  EXPECT_INVALID_INPUT(parse(sections), "coefficient 5: value 0x" +
                                            io::limbs_to_hex(Fr::kModulus.limb, 32) +
                                            " is not below the scalar field modulus r");

  sections = good;
  put_u32(find_section(sections, 10).body, 64, 1);  // one contribution, none present
  EXPECT_INVALID_INPUT(parse(sections),
                       "bad.zkey: section 10 (MPC parameters): ends while "
                       "reading contribution 0 (points and transcript)");
  sections = good;
  find_section(sections, 10).body.resize(60);
  EXPECT_INVALID_INPUT(parse(sections), "ends while reading the circuit hash");
}

TYPED_TEST(ZkeyTest, WriterRefusesInconsistentKeys) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("ZkeyTest.WriterRefusesInconsistentKeys");
  Groth16Zkey<Curve> key = this->small_key(rng);
  key.h.pop_back();
  EXPECT_INVALID_INPUT(zkey_to_bytes(key), "zkey to write: H has 15 points, the header implies 16");
  key = this->small_key(rng);
  key.header.domain_size = 24;
  EXPECT_INVALID_INPUT(zkey_to_bytes(key), "domain size 24 is not a power of two");
  key = this->small_key(rng);
  key.coefficients[3].wire = 9;
  EXPECT_INVALID_INPUT(zkey_to_bytes(key), "coefficient 3 (matrix");
  key = this->small_key(rng);
  key.mpc_params.resize(10);
  EXPECT_INVALID_INPUT(zkey_to_bytes(key), "MPC parameters: ends while reading");
}

}  // namespace
}  // namespace cuzk::formats::test
