// bellman .params and .vk files: round trips of random keys, the layout bellman's own test
// fixes, and one case per rejection rule with a check of its message.

#include <gtest/gtest.h>

#include <unistd.h>
#include <filesystem>
#include <random>
#include <set>

#include "formats/params.hpp"
#include "io/zcash_codec.hpp"
#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::formats::test {
namespace {

using G1 = bls12_381::G1Affine;
using G2 = bls12_381::G2Affine;
using bls12_381::Fp;

constexpr size_t kG1Bytes = 96, kG2Bytes = 192;
constexpr size_t kVkFixedBytes = 3 * kG1Bytes + 3 * kG2Bytes;  // α1 β1 β2 γ2 δ1 δ2

struct Sizes {
  size_t ic, h, l, a, b;
};

BellmanParams random_params(std::mt19937_64& rng, const Sizes& s) {
  BellmanParams p;
  auto g1 = random_points<G1>(rng, 3);
  auto g2 = random_points<G2>(rng, 3);
  p.vk = {g1[0], g1[1], g2[0], g2[1], g1[2], g2[2], random_points<G1>(rng, s.ic)};
  p.h = random_points<G1>(rng, s.h);
  p.l = random_points<G1>(rng, s.l);
  p.a = random_points<G1>(rng, s.a);
  p.b_g1 = random_points<G1>(rng, s.b);
  p.b_g2 = random_points<G2>(rng, s.b);
  return p;
}

// Byte offsets of a key's parts in its file.
struct Offsets {
  size_t ic_count, h_count, l_count, a_count, b_g1_count, b_g2_count, end;
};
Offsets offsets_of(const Sizes& s) {
  Offsets o;
  o.ic_count = kVkFixedBytes;
  o.h_count = o.ic_count + 4 + s.ic * kG1Bytes;
  o.l_count = o.h_count + 4 + s.h * kG1Bytes;
  o.a_count = o.l_count + 4 + s.l * kG1Bytes;
  o.b_g1_count = o.a_count + 4 + s.a * kG1Bytes;
  o.b_g2_count = o.b_g1_count + 4 + s.b * kG1Bytes;
  o.end = o.b_g2_count + 4 + s.b * kG2Bytes;
  return o;
}

void put_u32_be(std::vector<uint8_t>& bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes.at(at + i) = uint8_t(v >> (24 - 8 * i));
}

template <size_t N>
void put(std::vector<uint8_t>& bytes, size_t at, const std::array<uint8_t, N>& what) {
  std::copy(what.begin(), what.end(), bytes.begin() + at);
}

// The zcash infinity encoding of an uncompressed point: 0x40 then zeros.
std::array<uint8_t, kG1Bytes> g1_infinity() {
  std::array<uint8_t, kG1Bytes> b{};
  b[0] = 0x40;
  return b;
}

// A point of E(Fp) outside G1: the first x ≥ 1 with x³ + 4 a square. E(Fp) has cofactor
// h ≈ 2^126 over G1, so such a point is in G1 with probability 1/h.
G1 g1_point_outside_subgroup() {
  for (uint64_t x = 1;; ++x) {
    auto p = G1::from_x(Fp::from_u64(x));
    if (p && !bls12_381::is_in_subgroup(*p)) return *p;
  }
}

const Sizes kSmall{2, 7, 3, 4, 2};

TEST(BellmanParams, RandomKeysRoundTrip) {
  auto rng = cuzk::test::rng("params round trip");
  for (size_t round = 0; round < cuzk::test::scaled(6); ++round) {
    Sizes s{1 + rng() % 3, (size_t(1) << (rng() % 5)) - 1, rng() % 6, rng() % 7, rng() % 5};
    BellmanParams params = random_params(rng, s);
    std::vector<uint8_t> bytes = bellman_params_to_bytes(params);
    ASSERT_EQ(bytes.size(), offsets_of(s).end);
    EXPECT_EQ(parse_bellman_params(bytes, "random.params"), params);
    EXPECT_EQ(parse_bellman_params(bytes, "random.params",
                                   {.subgroup_check = io::SubgroupCheck::kOff, .threads = 2}),
              params);
    // Counts are big-endian u32 right after the fixed points (bellman's write_u32::<BigEndian>).
    EXPECT_EQ(bytes[kVkFixedBytes + 3], s.ic);
    EXPECT_EQ(bytes[kVkFixedBytes], 0);
  }
}

// bellman's own serialization test (src/groth16/mod.rs, test_with_bls12_381::serialization):
// the key of `c = a·b` with c public is 2136 bytes. Its shape: IC for the constant and c; a
// domain of 4 (one constraint plus two input constraints) so h has 3 points; l for a and b;
// A non-zero for the constant, c and a; B for b only.
TEST(BellmanParams, SizeOfBellmansSerializationTestKey) {
  auto rng = cuzk::test::rng("params bellman size");
  Sizes s{2, 3, 2, 3, 1};
  EXPECT_EQ(bellman_params_to_bytes(random_params(rng, s)).size(), 2136u);
}

TEST(BellmanParams, FilesAndVerifyingKey) {
  auto rng = cuzk::test::rng("params files");
  BellmanParams params = random_params(rng, kSmall);
  const auto dir = std::filesystem::temp_directory_path();
  const auto params_path = dir / ("cuzk_params_test_" + std::to_string(getpid()) + ".params");
  const auto vk_path = dir / ("cuzk_params_test_" + std::to_string(getpid()) + ".vk");
  write_bellman_params(params_path, params);
  write_bellman_verifying_key(vk_path, params.vk);
  EXPECT_EQ(read_bellman_params(params_path), params);
  EXPECT_EQ(read_bellman_verifying_key(vk_path), params.vk);

  // A .vk file is exactly the first part of a .params file.
  std::vector<uint8_t> all = bellman_params_to_bytes(params);
  std::vector<uint8_t> vk = bellman_verifying_key_to_bytes(params.vk);
  ASSERT_EQ(vk.size(), offsets_of(kSmall).h_count);
  EXPECT_TRUE(std::equal(vk.begin(), vk.end(), all.begin()));
  EXPECT_EQ(std::filesystem::file_size(vk_path), vk.size());
  EXPECT_INVALID_INPUT(parse_bellman_verifying_key(all, "key.params"),
                       "key.params: " + std::to_string(all.size() - vk.size()) +
                           " unexpected bytes after the verifying key");

  // A refused key leaves the file it would have replaced as it was, and no partial file.
  BellmanParams bad = params;
  bad.a.back() = G1::infinity();
  EXPECT_INVALID_INPUT(write_bellman_params(params_path, bad), "a[3]: is the point at infinity");
  EXPECT_EQ(read_bellman_params(params_path), params);
  auto partial = params_path;
  partial += ".partial";
  EXPECT_FALSE(std::filesystem::exists(partial));
  std::filesystem::remove(params_path);
  std::filesystem::remove(vk_path);
}

TEST(BellmanParams, LayoutDecodesInPieces) {
  auto rng = cuzk::test::rng("params layout");
  BellmanParams params = random_params(rng, kSmall);
  std::vector<uint8_t> bytes = bellman_params_to_bytes(params);
  BellmanParamsLayout layout = parse_bellman_params_layout(bytes, "key.params");
  EXPECT_EQ(layout.vk, params.vk);
  EXPECT_EQ(layout.h.size(), kSmall.h * kG1Bytes);
  EXPECT_EQ(layout.b_g2.data() + layout.b_g2.size(), bytes.data() + bytes.size());
  std::vector<G2> b_g2(kSmall.b);
  decode_bellman_points(layout.b_g2, std::span(b_g2), {}, "key.params: b_g2");
  EXPECT_EQ(b_g2, params.b_g2);
  std::vector<G1> l_tail(kSmall.l - 1);
  decode_bellman_points(layout.l.subspan(kG1Bytes), std::span(l_tail), {}, "l");
  EXPECT_TRUE(std::equal(l_tail.begin(), l_tail.end(), params.l.begin() + 1));
}

TEST(BellmanParams, TruncatedAnywhere) {
  auto rng = cuzk::test::rng("params truncated");
  Sizes s{1, 1, 1, 1, 1};
  std::vector<uint8_t> bytes = bellman_params_to_bytes(random_params(rng, s));
  Offsets o = offsets_of(s);
  // Every field boundary and its neighbours, and a stride through the points.
  std::set<size_t> cuts;
  for (size_t boundary : {size_t(0), kG1Bytes, 2 * kG1Bytes, 2 * kG1Bytes + kG2Bytes,
                          2 * kG1Bytes + 2 * kG2Bytes, 3 * kG1Bytes + 2 * kG2Bytes, o.ic_count,
                          o.h_count, o.l_count, o.a_count, o.b_g1_count, o.b_g2_count}) {
    for (size_t d : {0, 1, 2, 3, 4, 5}) {
      if (boundary + d < o.end) cuts.insert(boundary + d);
      if (boundary >= d + 1) cuts.insert(boundary - d - 1);
    }
  }
  for (size_t cut = 0; cut < o.end; cut += 37) cuts.insert(cut);
  cuts.insert(o.end - 1);
  for (size_t cut : cuts) {
    std::span<const uint8_t> prefix(bytes.data(), cut);
    std::string message =
        invalid_input_message([&] { parse_bellman_params(prefix, "cut.params"); });
    EXPECT_EQ(message.rfind("cut.params: ", 0), 0u) << cut << ": " << message;
    EXPECT_TRUE(message.find("truncated") != std::string::npos ||
                message.find("remain") != std::string::npos)
        << cut << ": " << message;
  }
  EXPECT_INVALID_INPUT(parse_bellman_params(std::span(bytes).first(o.h_count + 2), "cut.params"),
                       "cut.params: truncated: h count needs 4 bytes at offset " +
                           std::to_string(o.h_count) + ", only 2 remain");
  EXPECT_INVALID_INPUT(parse_bellman_params(std::span(bytes).first(100), "cut.params"),
                       "truncated: vk beta_g1 needs 96 bytes at offset 96, only 4 remain");
}

TEST(BellmanParams, CountsLargerThanTheFile) {
  auto rng = cuzk::test::rng("params counts");
  std::vector<uint8_t> good = bellman_params_to_bytes(random_params(rng, kSmall));
  Offsets o = offsets_of(kSmall);
  std::vector<uint8_t> bytes = good;
  put_u32_be(bytes, o.h_count, 0xffffffff);
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "big.params"),
                       "big.params: h count 4294967295 needs 4294967295 × 96 = 412316860320 bytes "
                       "of points at offset " +
                           std::to_string(o.h_count + 4));
  bytes = good;
  put_u32_be(bytes, o.ic_count, 1000);
  EXPECT_INVALID_INPUT(parse_bellman_verifying_key(bytes, "big.vk"), "big.vk: ic count 1000 needs");
  bytes = good;
  put_u32_be(bytes, o.b_g2_count, kSmall.b + 1);
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "big.params"),
                       "b_g2 count 3 needs 3 × 192 = 576 bytes");
}

TEST(BellmanParams, InfinityIsRefused) {
  auto rng = cuzk::test::rng("params infinity");
  std::vector<uint8_t> good = bellman_params_to_bytes(random_params(rng, kSmall));
  Offsets o = offsets_of(kSmall);
  std::vector<uint8_t> bytes = good;
  put(bytes, o.l_count + 4 + kG1Bytes, g1_infinity());
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "inf.params"),
                       "inf.params: l[1]: is the point at infinity");
  bytes = good;
  put(bytes, 0, g1_infinity());
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "inf.params"),
                       "inf.params: vk alpha_g1: is the point at infinity");
  bytes = good;
  put(bytes, o.ic_count + 4 + kG1Bytes, g1_infinity());
  EXPECT_INVALID_INPUT(parse_bellman_verifying_key(std::span(bytes).first(o.h_count), "inf.vk"),
                       "inf.vk: ic[1]: is the point at infinity");
  bytes = good;
  std::array<uint8_t, kG2Bytes> g2_inf{};
  g2_inf[0] = 0x40;
  put(bytes, o.b_g2_count + 4 + kG2Bytes, g2_inf);
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "inf.params", {.threads = 1}),
                       "inf.params: b_g2[1]: is the point at infinity");
  // An infinity flag with other bits set is malformed, not infinity.
  bytes = good;
  bytes[o.a_count + 4] = 0x40;
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "inf.params"),
                       "inf.params: a[0]: infinity flag (0x40) is set but the coordinate bytes");
}

TEST(BellmanParams, MalformedPointsNameTheirVectorAndIndex) {
  auto rng = cuzk::test::rng("params malformed");
  std::vector<uint8_t> good = bellman_params_to_bytes(random_params(rng, kSmall));
  Offsets o = offsets_of(kSmall);
  auto broken = [&](size_t at, auto&& edit) {
    std::vector<uint8_t> bytes = good;
    edit(bytes, at);
    return bytes;
  };
  // Off the curve: y changed in its last byte.
  auto flip_last = [](std::vector<uint8_t>& b, size_t at) { b[at + kG1Bytes - 1] ^= 1; };
  EXPECT_INVALID_INPUT(parse_bellman_params(broken(o.a_count + 4 + 2 * kG1Bytes, flip_last), "k"),
                       "k: a[2]: point is not on the curve bls12_381_g1");
  EXPECT_INVALID_INPUT(parse_bellman_params(broken(2 * kG1Bytes, flip_last), "k"),
                       "k: vk beta_g2: point is not on the curve bls12_381_g2");
  // A coordinate ≥ p: x replaced by p itself.
  auto x_is_p = [](std::vector<uint8_t>& b, size_t at) {
    std::array<uint8_t, 48> p;
    for (size_t i = 0; i < 48; ++i) p[47 - i] = uint8_t(Fp::kModulus.limb[i / 8] >> (8 * (i % 8)));
    std::copy(p.begin(), p.end(), b.begin() + at);
  };
  EXPECT_INVALID_INPUT(
      parse_bellman_params(broken(o.b_g1_count + 4, x_is_p), "k"),
      "k: b_g1[0] x: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0"
      "f6241eabfffeb153ffffb9feffffffffaaab is not below the field modulus");
  EXPECT_INVALID_INPUT(parse_bellman_params(broken(o.b_g2_count + 4, x_is_p), "k"),
                       "k: b_g2[0] x.c1: 0x1a0111ea");
  // Flags of the other forms.
  auto set_bits = [](uint8_t bits) {
    return [bits](std::vector<uint8_t>& b, size_t at) { b[at] |= bits; };
  };
  EXPECT_INVALID_INPUT(parse_bellman_params(broken(o.h_count + 4, set_bits(0x80)), "k"),
                       "k: h[0]: compression flag (0x80) is set in an uncompressed encoding");
  EXPECT_INVALID_INPUT(parse_bellman_params(broken(o.h_count + 4 + kG1Bytes, set_bits(0x20)), "k"),
                       "k: h[1]: sign flag (0x20) is set in an uncompressed encoding");
  EXPECT_INVALID_INPUT(parse_bellman_params(broken(o.ic_count + 4, set_bits(0xa0)), "k"),
                       "k: ic[0]: compression flag (0x80) is set in an uncompressed encoding");
}

TEST(BellmanParams, SubgroupCheckIsSelectable) {
  auto rng = cuzk::test::rng("params subgroup");
  BellmanParams params = random_params(rng, kSmall);
  const G1 outside = g1_point_outside_subgroup();
  std::vector<uint8_t> bytes = bellman_params_to_bytes(params);
  put(bytes, offsets_of(kSmall).l_count + 4, io::to_zcash_uncompressed(outside));
  EXPECT_INVALID_INPUT(parse_bellman_params(bytes, "k"),
                       "k: l[0]: point is on the curve but not in the prime-order subgroup");
  BellmanParams trusted =
      parse_bellman_params(bytes, "k", {.subgroup_check = io::SubgroupCheck::kOff});
  EXPECT_EQ(trusted.l[0], outside);
  // The verifying key is always checked fully.
  put(bytes, 0, io::to_zcash_uncompressed(outside));
  EXPECT_INVALID_INPUT(
      parse_bellman_params(bytes, "k", {.subgroup_check = io::SubgroupCheck::kOff}),
      "k: vk alpha_g1: point is on the curve but not in the prime-order subgroup");
}

TEST(BellmanParams, InconsistentSizes) {
  auto rng = cuzk::test::rng("params sizes");
  const std::vector<uint8_t> good = bellman_params_to_bytes(random_params(rng, kSmall));
  const Offsets o = offsets_of(kSmall);
  // Removes `points` points of `unit` bytes after the count at `count_at`, and fixes the count.
  auto shrink = [&](size_t count_at, size_t old_count, size_t points, size_t unit) {
    std::vector<uint8_t> bytes = good;
    auto first = bytes.begin() + count_at + 4;
    bytes.erase(first, first + points * unit);
    put_u32_be(bytes, count_at, uint32_t(old_count - points));
    return bytes;
  };
  EXPECT_INVALID_INPUT(parse_bellman_params(shrink(o.h_count, kSmall.h, 1, kG1Bytes), "k"),
                       "k: h holds 6 points, but bellman's H query has the domain size minus one");
  EXPECT_INVALID_INPUT(parse_bellman_params(shrink(o.b_g2_count, kSmall.b, 1, kG2Bytes), "k"),
                       "k: b_g2 holds 1 points but b_g1 holds 2");
  EXPECT_INVALID_INPUT(
      parse_bellman_params(shrink(o.ic_count, kSmall.ic, kSmall.ic, kG1Bytes), "k"),
      "k: ic holds no points");
  std::vector<uint8_t> longer = good;
  longer.insert(longer.end(), {1, 2, 3, 4, 5});
  EXPECT_INVALID_INPUT(
      parse_bellman_params(longer, "k"),
      "k: 5 unexpected bytes after the last vector (b_g2) at offset " + std::to_string(o.end));
}

TEST(BellmanParams, FirstBadPointIsReportedWhateverTheThreads) {
  auto rng = cuzk::test::rng("params first bad point");
  Sizes s{1, (size_t(1) << 14) - 1, 0, 0, 0};
  std::vector<uint8_t> bytes = bellman_params_to_bytes(random_params(rng, s));
  size_t h_points = offsets_of(s).h_count + 4;
  bytes[h_points + 12000 * kG1Bytes + kG1Bytes - 1] ^= 1;  // off the curve, late chunk
  put(bytes, h_points + 5000 * kG1Bytes, g1_infinity());   // infinity, earlier chunk
  for (unsigned threads : {1u, 4u}) {
    EXPECT_INVALID_INPUT(
        parse_bellman_params(bytes, "k",
                             {.subgroup_check = io::SubgroupCheck::kOff, .threads = threads}),
        "k: h[5000]: is the point at infinity");
  }
}

TEST(BellmanParams, WriterRefusesWhatTheReaderRefuses) {
  auto rng = cuzk::test::rng("params writer");
  BellmanParams good = random_params(rng, kSmall);
  BellmanParams p = good;
  p.l[1] = G1::infinity();
  EXPECT_INVALID_INPUT(bellman_params_to_bytes(p),
                       "params to write: l[1]: is the point at infinity");
  p = good;
  p.b_g2[0].y = p.b_g2[0].y + bls12_381::Fp2::one();
  EXPECT_INVALID_INPUT(bellman_params_to_bytes(p),
                       "params to write: b_g2[0]: point is not on the curve bls12_381_g2");
  p = good;
  p.vk.delta_g2 = G2::infinity();
  EXPECT_INVALID_INPUT(bellman_params_to_bytes(p), "vk delta_g2: is the point at infinity");
  p = good;
  p.h.pop_back();
  EXPECT_INVALID_INPUT(bellman_params_to_bytes(p), "h holds 6 points, but bellman's H query");
  p = good;
  p.b_g2.pop_back();
  EXPECT_INVALID_INPUT(bellman_params_to_bytes(p), "b_g2 holds 1 points but b_g1 holds 2");
  p = good;
  p.vk.ic.clear();
  EXPECT_INVALID_INPUT(bellman_params_to_bytes(p), "ic is empty");
}

}  // namespace
}  // namespace cuzk::formats::test
