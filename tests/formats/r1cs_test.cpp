// .r1cs: round trips of random systems for both curves, a hand-built file with known values,
// and every malformed input refused with a message naming the file, section and value.

#include "formats/r1cs.hpp"

#include <gtest/gtest.h>

#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::formats::test {
namespace {

constexpr ContainerSpec kR1cs{"r1cs", 1};

template <class Curve>
class R1csTest : public ::testing::Test {};
TYPED_TEST_SUITE(R1csTest, Curves);

// The header section of the format, field by field (FORMATS.md, r1csfile's writeR1csHeader).
template <class Curve>
std::vector<uint8_t> header_body(uint32_t n_wires, uint32_t n_constraints) {
  using Fr = typename Curve::Fr;
  std::vector<uint8_t> b = {32, 0, 0, 0};
  std::vector<uint8_t> prime = le_bytes<Fr>(Fr::kModulus);
  b.insert(b.end(), prime.begin(), prime.end());
  for (uint32_t v : {n_wires, 1u, 1u, 0u}) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  for (int i = 0; i < 8; ++i) b.push_back(i == 0 ? uint8_t(n_wires) : 0);  // nLabels
  for (int i = 0; i < 4; ++i) b.push_back(uint8_t(n_constraints >> (8 * i)));
  return b;
}

// One linear combination: u32 count, then (u32 wire, 32-byte little-endian value) per term.
template <class Curve>
void append_lc(std::vector<uint8_t>& out,
               const std::vector<std::pair<uint32_t, typename Curve::Fr::Int>>& terms) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(terms.size() >> (8 * i)));
  for (const auto& [wire, value] : terms) {
    for (int i = 0; i < 4; ++i) out.push_back(uint8_t(wire >> (8 * i)));
    std::vector<uint8_t> v = le_bytes<typename Curve::Fr>(value);
    out.insert(out.end(), v.begin(), v.end());
  }
}

TYPED_TEST(R1csTest, HandBuiltFileReadsAsWritten) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  using Int = typename Fr::Int;
  // Two constraints over 4 wires: (w1 + 5·w2)·(w3) = (7·w0) and ()·(w2) = (r−1)·w1, in
  // circom's section order 2, 1, 3.
  Int minus_one = Fr::kModulus;
  minus_one.limb[0] -= 1;
  std::vector<uint8_t> constraints;
  append_lc<Curve>(constraints, {{1, Int::from_u64(1)}, {2, Int::from_u64(5)}});
  append_lc<Curve>(constraints, {{3, Int::from_u64(1)}});
  append_lc<Curve>(constraints, {{0, Int::from_u64(7)}});
  append_lc<Curve>(constraints, {});
  append_lc<Curve>(constraints, {{2, Int::from_u64(1)}});
  append_lc<Curve>(constraints, {{1, minus_one}});
  std::vector<uint8_t> labels(4 * 8, 0);
  for (int w = 0; w < 4; ++w) labels[8 * w] = uint8_t(10 + w);
  std::vector<uint8_t> file =
      build_container("r1cs", 1, {{2, constraints}, {1, header_body<Curve>(4, 2)}, {3, labels}});

  R1csHeader header = parse_r1cs_header(file, "hand.r1cs");
  EXPECT_EQ(header, (R1csHeader{Curve::kId, 4, 1, 1, 0, 4, 2}));
  EXPECT_EQ(header.n_public(), 2u);
  R1cs<Curve> r = parse_r1cs<Curve>(file, "hand.r1cs", {.read_labels = true});
  EXPECT_EQ(r.header, header);
  EXPECT_EQ(r.a.row_start, (std::vector<uint64_t>{0, 2, 2}));
  EXPECT_EQ(r.a.column, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(r.a.value, (std::vector<Fr>{Fr::one(), Fr::from_u64(5)}));
  EXPECT_EQ(r.b.row_start, (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(r.b.column, (std::vector<uint32_t>{3, 2}));
  EXPECT_EQ(r.c.column, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(r.c.value, (std::vector<Fr>{Fr::from_u64(7), -Fr::one()}));
  EXPECT_EQ(r.c.row_values(1)[0], -Fr::one());
  EXPECT_EQ(r.wire_labels, (std::vector<uint64_t>{10, 11, 12, 13}));
  EXPECT_EQ(sniff_curve(file, "hand.r1cs"), Curve::kId);

  // Our writer produces the same bytes, but in r1csfile's section order 1, 2, 3.
  EXPECT_EQ(
      r1cs_to_bytes(r),
      build_container("r1cs", 1, {{1, header_body<Curve>(4, 2)}, {2, constraints}, {3, labels}}));
}

TYPED_TEST(R1csTest, RandomRoundTrips) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("R1csTest.RandomRoundTrips");
  for (size_t trial = 0; trial < cuzk::test::scaled(6); ++trial) {
    uint32_t n_wires = 5 + uint32_t(rng() % 200);
    uint32_t n_constraints = uint32_t(rng() % 300);
    R1cs<Curve> original = random_r1cs<Curve>(rng, n_constraints, n_wires, 4);
    std::vector<uint8_t> file = r1cs_to_bytes(original);
    R1cs<Curve> back = parse_r1cs<Curve>(file, "random.r1cs");
    EXPECT_TRUE(back.wire_labels.empty());  // not asked for
    back.wire_labels.clear();
    EXPECT_EQ(back, original) << "trial " << trial;
    original.wire_labels.resize(n_wires);
    for (auto& l : original.wire_labels) l = rng();
    EXPECT_EQ(parse_r1cs<Curve>(r1cs_to_bytes(original), "labels.r1cs", {.read_labels = true}),
              original);
  }
}

// More constraints than one parallel chunk (2^14 rows): every thread count gives the same
// matrices, and the chunk boundaries lose nothing.
TYPED_TEST(R1csTest, ParallelFillAcrossChunks) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("R1csTest.ParallelFillAcrossChunks");
  R1cs<Curve> original = random_r1cs<Curve>(rng, 3 * (1u << 14) + 123, 1000, 2);
  std::vector<uint8_t> file = r1cs_to_bytes(original);
  for (unsigned threads : {1u, 2u, 3u, 0u}) {
    EXPECT_EQ(parse_r1cs<Curve>(file, "big.r1cs", {.threads = threads}), original)
        << threads << " threads";
  }
}

TYPED_TEST(R1csTest, EmptySystem) {
  using Curve = TypeParam;
  R1cs<Curve> empty{};
  empty.header = {Curve::kId, 1, 0, 0, 0, 1, 0};
  R1cs<Curve> back = parse_r1cs<Curve>(r1cs_to_bytes(empty), "empty.r1cs");
  EXPECT_EQ(back.header, empty.header);
  EXPECT_EQ(back.a.rows(), 0u);
  EXPECT_EQ(back.c.nnz(), 0u);
}

TYPED_TEST(R1csTest, EveryTruncationIsRefused) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("R1csTest.EveryTruncationIsRefused");
  std::vector<uint8_t> file = r1cs_to_bytes(random_r1cs<Curve>(rng, 6, 10, 2));
  for (size_t cut = 0; cut < file.size(); ++cut) {
    std::span<const uint8_t> prefix(file.data(), cut);
    std::string message = invalid_input_message([&] { parse_r1cs<Curve>(prefix, "cut.r1cs"); });
    EXPECT_EQ(message.rfind("cut.r1cs: ", 0), 0u) << "cut at " << cut << ": " << message;
  }
}

TYPED_TEST(R1csTest, BadInputs) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("R1csTest.BadInputs");
  R1cs<Curve> r = random_r1cs<Curve>(rng, 8, 20, 3, 1);
  r.a.column[0] = 19;
  std::vector<uint8_t> file = r1cs_to_bytes(r);
  const std::vector<Section> good = split_container(file, kR1cs);
  auto parse = [](const std::vector<Section>& sections) {
    std::vector<uint8_t> bytes = build_container("r1cs", 1, sections);
    parse_r1cs<Curve>(bytes, "bad.r1cs");
  };

  std::vector<uint8_t> magic = file;
  magic[3] = 'x';
  EXPECT_INVALID_INPUT(parse_r1cs<Curve>(magic, "bad.r1cs"), "not a .r1cs file (it does not begin with \"r1cs\")");
  std::vector<uint8_t> version = file;
  put_u32(version, 4, 2);
  EXPECT_INVALID_INPUT(parse_r1cs<Curve>(version, "bad.r1cs"), ".r1cs version 2 is not supported");

  // Section 2 larger than what remains of the file.
  std::vector<uint8_t> oversized = file;
  BinaryContainer c = BinaryContainer::parse(file, "x", kR1cs);
  const SectionEntry& constraints = c.entry(2, "constraints");
  oversized[constraints.offset - 3] = 1;  // byte 5 of the u64 size: 2^40 more
  EXPECT_INVALID_INPUT(parse_r1cs<Curve>(oversized, "bad.r1cs"),
                       "bad.r1cs: section 2 declares " +
                           std::to_string(constraints.size + (uint64_t(1) << 40)) +
                           " bytes at byte " + std::to_string(constraints.offset) + ", but only " +
                           std::to_string(file.size() - constraints.offset) + " bytes remain");

  auto sections = good;
  sections.erase(sections.begin() + 1);  // the constraints
  EXPECT_INVALID_INPUT(parse(sections), "bad.r1cs: section 2 (constraints) is missing");
  sections = good;
  sections.erase(sections.begin());
  EXPECT_INVALID_INPUT(parse(sections), "bad.r1cs: section 1 (header) is missing");
  sections = good;
  sections.push_back(good[1]);
  EXPECT_INVALID_INPUT(parse(sections), "section 2 (constraints) appears more than once");
  sections = good;
  sections.push_back({4, {0, 0, 0, 0}});
  EXPECT_INVALID_INPUT(parse(sections), "uses custom gates");

  // The first term of A in constraint 0 is wire 19 (set above), at byte 4 of section 2.
  sections = good;
  put_u32(find_section(sections, 2).body, 4, 20);
  EXPECT_INVALID_INPUT(parse(sections),
                       "bad.r1cs: section 2 (constraints): constraint 0, A term 0: wire 20 is out "
                       "of range (nWires = 20)");
  // Its coefficient, bytes 8..39, set to r.
  sections = good;
  std::vector<uint8_t> r_bytes = le_bytes<Fr>(Fr::kModulus);
  std::copy(r_bytes.begin(), r_bytes.end(), find_section(sections, 2).body.begin() + 8);
  EXPECT_INVALID_INPUT(parse(sections), "constraint 0, A term 0: coefficient 0x" +
                                            io::limbs_to_hex(Fr::kModulus.limb, 32) +
                                            " is not below the scalar field modulus r");
  // nConstraints one more than section 2 holds, then one less.
  sections = good;
  put_u32(find_section(sections, 1).body, 4 + 32 + 24, 9);
  EXPECT_INVALID_INPUT(parse(sections), "inside constraint 8, A term count");
  put_u32(find_section(sections, 1).body, 4 + 32 + 24, 7);
  EXPECT_INVALID_INPUT(parse(sections), "bytes left over after the 7 constraints");
  // nWires too small for the declared inputs (1 output, 2 public, 1 private).
  sections = good;
  put_u32(find_section(sections, 1).body, 4 + 32, 4);
  EXPECT_INVALID_INPUT(parse(sections), "nWires = 4 cannot hold the constant wire plus 1 outputs");
  // Labels of the wrong length.
  sections = good;
  find_section(sections, 3).body.pop_back();
  EXPECT_INVALID_INPUT(parse(sections),
                       "section 3 (wire labels) holds 159 bytes, expected nWires "
                       "20 × 8 = 160");
}

TYPED_TEST(R1csTest, WrongOrUnknownCurve) {
  using Curve = TypeParam;
  using Other = std::conditional_t<std::is_same_v<Curve, Bn254>, Bls12_381, Bn254>;
  auto rng = cuzk::test::rng("R1csTest.WrongOrUnknownCurve");
  std::vector<uint8_t> file = r1cs_to_bytes(random_r1cs<Other>(rng, 3, 5, 2));
  EXPECT_INVALID_INPUT(
      parse_r1cs<Curve>(file, "other.r1cs"),
      "other.r1cs: section 1 (header): holds " + std::string(curve_display_name(Other::kId)) +
          "'s scalar field prime r, but " + std::string(curve_display_name(Curve::kId)) +
          "'s scalar field prime r was expected");
  EXPECT_EQ(parse_r1cs_header(file, "other.r1cs").curve, Other::kId);

  auto sections = split_container(file, kR1cs);
  find_section(sections, 1).body[4] ^= 2;  // the prime's low byte
  std::vector<uint8_t> unknown = build_container("r1cs", 1, sections);
  EXPECT_INVALID_INPUT(parse_r1cs_header(unknown, "u.r1cs"),
                       "u.r1cs: section 1 (header): unknown curve: holds the prime 0x");
  EXPECT_INVALID_INPUT(parse_r1cs<Curve>(unknown, "u.r1cs"), "unknown curve");
  EXPECT_INVALID_INPUT(sniff_curve(unknown, "u.r1cs"), "neither BN254's nor BLS12-381's");
}

TYPED_TEST(R1csTest, WriterRefusesInconsistentSystems) {
  using Curve = TypeParam;
  auto rng = cuzk::test::rng("R1csTest.WriterRefusesInconsistentSystems");
  R1cs<Curve> r = random_r1cs<Curve>(rng, 4, 6, 2, 1);
  r.b.column.push_back(1);
  r.b.value.push_back(Curve::Fr::one());
  EXPECT_INVALID_INPUT(r1cs_to_bytes(r), "matrix B is not a CSR matrix");
  r = random_r1cs<Curve>(rng, 4, 6, 2);
  r.header.n_constraints = 5;
  EXPECT_INVALID_INPUT(r1cs_to_bytes(r), "nConstraints = 5 rows");
  r = random_r1cs<Curve>(rng, 4, 6, 3, 1);
  r.header.n_wires = 5;
  r.a.column.assign(r.a.column.size(), 5);
  EXPECT_INVALID_INPUT(r1cs_to_bytes(r), "uses wire 5 ≥ nWires = 5");
  r = random_r1cs<Curve>(rng, 4, 6, 3);
  r.wire_labels = {1, 2};
  EXPECT_INVALID_INPUT(r1cs_to_bytes(r), "2 wire labels for 6 wires");
}

}  // namespace
}  // namespace cuzk::formats::test
