// zcash encodings of BLS12-381 points: the generators' published bytes, random round trips,
// and every malformed input rejected with a message naming the problem.

#include "io/zcash_codec.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/field_codec.hpp"
#include "tests/io/point_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::io {
namespace {

using bls12_381::Fp;
using bls12_381::Fp2;
using bls12_381::G1Affine;
using bls12_381::G2Affine;

std::vector<uint8_t> from_hex_bytes(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  return out;
}
template <class Bytes>
std::string to_hex_bytes(const Bytes& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

// Generator coordinates from draft-irtf-cfrg-pairing-friendly-curves-11 §4.2.1 (BLS12-381:
// x, y of G1; x'_0, x'_1, y'_0, y'_1 of G2), laid out by the zcash rules. The compressed G1
// generator 0x97f1d3a7... and G2 generator 0x93e02b60... are the values zkcrypto/bls12_381
// and @noble/curves print for G1.BASE / G2.BASE.
const std::string kG1x =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6"
    "bb";
const std::string kG1y =
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7"
    "e1";
const std::string kG2x0 =
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bd"
    "b8";
const std::string kG2x1 =
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b"
    "7e";
const std::string kG2y0 =
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b828"
    "01";
const std::string kG2y1 =
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79"
    "be";

TEST(ZcashCodec, GeneratorsMatchPublishedBytes) {
  EXPECT_EQ(to_hex_bytes(to_zcash_compressed(G1Affine::generator())),
            "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af"
            "00adb22c6bb");
  EXPECT_EQ(to_hex_bytes(to_zcash_uncompressed(G1Affine::generator())), kG1x + kG1y);
  EXPECT_EQ(to_hex_bytes(to_zcash_compressed(G2Affine::generator())),
            "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7"
            "d055d042b7e" +
                kG2x0);
  EXPECT_EQ(to_hex_bytes(to_zcash_uncompressed(G2Affine::generator())),
            kG2x1 + kG2x0 + kG2y1 + kG2y0);
  // −G has the larger y: only the sign flag changes (0x97 → 0xb7, 0x93 → 0xb3).
  EXPECT_EQ(to_zcash_compressed(-G1Affine::generator())[0], 0xb7);
  EXPECT_EQ(to_zcash_compressed(-G2Affine::generator())[0], 0xb3);

  EXPECT_EQ(g1_from_zcash_compressed(from_hex_bytes("97" + kG1x.substr(2))), G1Affine::generator());
  EXPECT_EQ(g1_from_zcash_uncompressed(from_hex_bytes(kG1x + kG1y)), G1Affine::generator());
  EXPECT_EQ(g2_from_zcash_compressed(from_hex_bytes("93" + kG2x1.substr(2) + kG2x0)),
            G2Affine::generator());
  EXPECT_EQ(g2_from_zcash_uncompressed(from_hex_bytes(kG2x1 + kG2x0 + kG2y1 + kG2y0)),
            G2Affine::generator());
}

TEST(ZcashCodec, InfinityEncodings) {
  auto g1c = to_zcash_compressed(G1Affine::infinity());
  auto g1u = to_zcash_uncompressed(G1Affine::infinity());
  auto g2c = to_zcash_compressed(G2Affine::infinity());
  auto g2u = to_zcash_uncompressed(G2Affine::infinity());
  EXPECT_EQ(to_hex_bytes(g1c), "c0" + std::string(94, '0'));
  EXPECT_EQ(to_hex_bytes(g1u), "40" + std::string(190, '0'));
  EXPECT_EQ(to_hex_bytes(g2c), "c0" + std::string(190, '0'));
  EXPECT_EQ(to_hex_bytes(g2u), "40" + std::string(382, '0'));
  EXPECT_TRUE(g1_from_zcash_compressed(g1c).is_infinity());
  EXPECT_TRUE(g1_from_zcash_uncompressed(g1u).is_infinity());
  EXPECT_TRUE(g2_from_zcash_compressed(g2c).is_infinity());
  EXPECT_TRUE(g2_from_zcash_uncompressed(g2u).is_infinity());
}

TEST(ZcashCodec, RandomRoundTrips) {
  auto rng = test::rng("io zcash round trips");
  for (size_t i = 0; i < test::scaled(16); ++i) {
    G1Affine p = test_support::random_point<G1Affine>(rng);
    G2Affine q = test_support::random_point<G2Affine>(rng);
    EXPECT_EQ(g1_from_zcash_compressed(to_zcash_compressed(p)), p);
    EXPECT_EQ(g1_from_zcash_uncompressed(to_zcash_uncompressed(p)), p);
    EXPECT_EQ(g2_from_zcash_compressed(to_zcash_compressed(q)), q);
    EXPECT_EQ(g2_from_zcash_uncompressed(to_zcash_uncompressed(q)), q);
    // The compressed forms of ±P differ exactly in the sign flag.
    auto pc = to_zcash_compressed(p), nc = to_zcash_compressed(-p);
    EXPECT_EQ(pc[0] ^ nc[0], 0x20);
    EXPECT_TRUE(std::equal(pc.begin() + 1, pc.end(), nc.begin() + 1));
    auto qc = to_zcash_compressed(q), mc = to_zcash_compressed(-q);
    EXPECT_EQ(qc[0] ^ mc[0], 0x20);
    EXPECT_TRUE(std::equal(qc.begin() + 1, qc.end(), mc.begin() + 1));
  }
}

// "Lexicographically largest" (zcash rules): the larger integer of {y, p − y}; for Fp2, of
// y.c1 and then of y.c0 when c1 = 0.
bool larger_of_pair(const Fp& v) { return compare(v.to_int(), (-v).to_int()) > 0; }

// A point of E'(Fp2) whose y lies in Fp, so that c0 decides the sign. With x = a + b·u,
// x³ = (a³ − 3ab²) + (3a²b − b³)·u; choosing a² = (b² − 4/b)/3 makes the u-part −4, which
// cancels the u-part of the twist's b = 4 + 4u, and leaves y² = a³ − 3ab² + 4 ∈ Fp.
G2Affine g2_point_with_y_in_fp() {
  for (uint64_t i = 1;; ++i) {
    Fp b = Fp::from_u64(i);
    auto a = ((b.sqr() - Fp::from_u64(4) * b.inverse()) * Fp::from_u64(3).inverse()).sqrt();
    if (!a) continue;
    auto y = (a->sqr() * *a - Fp::from_u64(3) * *a * b.sqr() + Fp::from_u64(4)).sqrt();
    if (!y || y->is_zero()) continue;
    return {Fp2{*a, b}, Fp2{*y, Fp::zero()}};
  }
}

TEST(ZcashCodec, SignFlagFollowsTheLexicographicRule) {
  auto rng = test::rng("io zcash sign");
  for (size_t i = 0; i < test::scaled(8); ++i) {
    G1Affine p = test_support::random_point<G1Affine>(rng);
    EXPECT_EQ(to_zcash_compressed(p)[0] & 0x20, larger_of_pair(p.y) ? 0x20 : 0);
    G2Affine q = test_support::random_point<G2Affine>(rng);
    ASSERT_FALSE(q.y.c1.is_zero());
    EXPECT_EQ(to_zcash_compressed(q)[0] & 0x20, larger_of_pair(q.y.c1) ? 0x20 : 0);
  }
  G2Affine q = g2_point_with_y_in_fp();
  ASSERT_TRUE(q.is_on_curve());
  for (const G2Affine& r : {q, -q}) {
    auto bytes = to_zcash_compressed(r);
    EXPECT_EQ(bytes[0] & 0x20, larger_of_pair(r.y.c0) ? 0x20 : 0);
    EXPECT_EQ(g2_from_zcash_compressed(bytes, SubgroupCheck::kOff), r);
  }
}

TEST(ZcashCodec, RejectsWrongLengths) {
  auto rng = test::rng("io zcash lengths");
  auto p = to_zcash_compressed(test_support::random_point<G1Affine>(rng));
  std::vector<uint8_t> shorter(p.begin(), p.end() - 1), longer(p.begin(), p.end());
  longer.push_back(0);
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(shorter),
                       "expected 48 bytes for the compressed zcash encoding, got 47");
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(longer), "expected 48 bytes");
  EXPECT_INVALID_INPUT(g1_from_zcash_uncompressed(p), "expected 96 bytes");
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(std::vector<uint8_t>{}), "got 0");
  EXPECT_INVALID_INPUT(g2_from_zcash_compressed(shorter, SubgroupCheck::kOn, "proof B"),
                       "proof B: expected 96 bytes");
}

TEST(ZcashCodec, RejectsInconsistentFlags) {
  auto rng = test::rng("io zcash flags");
  G1Affine p = test_support::random_point<G1Affine>(rng);
  G2Affine q = test_support::random_point<G2Affine>(rng);
  // An uncompressed G1 point has the length of a compressed G2 point: the flag tells them apart.
  EXPECT_INVALID_INPUT(g2_from_zcash_compressed(to_zcash_uncompressed(p)),
                       "compression flag (0x80) is not set in a compressed encoding");
  auto u = to_zcash_uncompressed(q);
  u[0] |= 0x80;
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(u),
                       "compression flag (0x80) is set in an uncompressed encoding");
  auto s = to_zcash_uncompressed(p);
  s[0] |= 0x20;
  EXPECT_INVALID_INPUT(g1_from_zcash_uncompressed(s), "sign flag (0x20) is set in an uncompressed");

  auto inf_c = to_zcash_compressed(G1Affine::infinity());
  inf_c[0] |= 0x20;
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(inf_c),
                       "infinity flag (0x40) is set together with the sign flag (0x20)");
  auto inf_u = to_zcash_uncompressed(G2Affine::infinity());
  inf_u[150] = 1;
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(inf_u), "coordinate bytes are not all zero");
  auto inf_low = to_zcash_compressed(G2Affine::infinity());
  inf_low[0] |= 0x01;  // a payload bit in the flag byte
  EXPECT_INVALID_INPUT(g2_from_zcash_compressed(inf_low), "coordinate bytes are not all zero");
  // The infinity flag on a real point's bytes.
  auto flagged = to_zcash_compressed(p);
  flagged[0] = uint8_t((flagged[0] & ~0x20) | 0x40);  // sign cleared: only the payload is wrong
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(flagged), "coordinate bytes are not all zero");
}

TEST(ZcashCodec, RejectsCoordinatesNotBelowModulus) {
  std::array<uint8_t, 48> modulus;
  write_be(Fp::zero(), std::span(modulus));
  for (size_t i = 0; i < 48; ++i)
    modulus[47 - i] = uint8_t(Fp::kModulus.limb[i / 8] >> (8 * (i % 8)));
  std::vector<uint8_t> g1c(modulus.begin(), modulus.end());
  g1c[0] |= 0x80;
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(g1c, SubgroupCheck::kOn, "params alpha_g1"),
                       "params alpha_g1 x: 0x1a0111ea");
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(g1c), "is not below the field modulus");

  auto gen = to_zcash_uncompressed(G1Affine::generator());
  std::copy(modulus.begin(), modulus.end(), gen.begin() + 48);
  EXPECT_INVALID_INPUT(g1_from_zcash_uncompressed(gen), "bls12_381_g1 point y: 0x1a0111ea");

  auto g2 = to_zcash_compressed(G2Affine::generator());
  std::copy(modulus.begin(), modulus.end(), g2.begin() + 48);  // x.c0 = p
  EXPECT_INVALID_INPUT(g2_from_zcash_compressed(g2), "x.c0: 0x1a0111ea");
  auto g2u = to_zcash_uncompressed(G2Affine::generator());
  std::copy(modulus.begin(), modulus.end(), g2u.begin() + 96);  // y.c1 = p
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(g2u), "y.c1: 0x1a0111ea");
  // 2^381 − 1 in the 381 payload bits, behind the compression flag.
  std::vector<uint8_t> ones(48, 0xff);
  ones[0] = 0x9f;
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(ones), "is not below the field modulus");
}

TEST(ZcashCodec, RejectsPointsOffTheCurve) {
  // x with no y: the first x = 1, 2, ... for which x³ + 4 is not a square in Fp.
  for (uint64_t i = 1;; ++i) {
    Fp x = Fp::from_u64(i);
    if (G1Affine::from_x(x)) continue;
    std::array<uint8_t, 48> bytes;
    write_be(x, std::span(bytes));
    bytes[0] |= 0x80;
    EXPECT_INVALID_INPUT(g1_from_zcash_compressed(bytes),
                         "is not the x-coordinate of a curve point");
    break;
  }
  for (uint64_t i = 1;; ++i) {
    Fp2 x{Fp::from_u64(i), Fp::one()};
    if (G2Affine::from_x(x)) continue;
    G2Affine fake{x, Fp2::one()};  // the encoder writes x without checking it
    EXPECT_INVALID_INPUT(g2_from_zcash_compressed(to_zcash_compressed(fake)),
                         "is not the x-coordinate of a curve point");
    break;
  }
  G1Affine p = G1Affine::generator();
  p.y = p.y + Fp::one();
  EXPECT_INVALID_INPUT(g1_from_zcash_uncompressed(to_zcash_uncompressed(p)),
                       "bls12_381_g1 point: point is not on the curve bls12_381_g1");
  G2Affine q = G2Affine::generator();
  q.x = q.x + Fp2::one();
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(to_zcash_uncompressed(q)),
                       "point is not on the curve bls12_381_g2");
  // (0, 0) is our in-memory infinity; without the infinity flag it is just an invalid point.
  EXPECT_INVALID_INPUT(g1_from_zcash_uncompressed(std::vector<uint8_t>(96, 0)),
                       "point is not on the curve");
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(std::vector<uint8_t>(192, 0)),
                       "point is not on the curve");
}

TEST(ZcashCodec, RejectsPointsOutsideTheSubgroupUnlessTrusted) {
  G1Affine p = test_support::point_outside_subgroup<G1Affine>();
  G2Affine q = test_support::point_outside_subgroup<G2Affine>();
  ASSERT_TRUE(p.is_on_curve() && q.is_on_curve());
  EXPECT_INVALID_INPUT(g1_from_zcash_compressed(to_zcash_compressed(p)),
                       "point is on the curve but not in the prime-order subgroup of bls12_381_g1");
  EXPECT_INVALID_INPUT(g1_from_zcash_uncompressed(to_zcash_uncompressed(p)),
                       "prime-order subgroup");
  EXPECT_INVALID_INPUT(g2_from_zcash_compressed(to_zcash_compressed(q)),
                       "not in the prime-order subgroup of bls12_381_g2");
  EXPECT_INVALID_INPUT(g2_from_zcash_uncompressed(to_zcash_uncompressed(q)),
                       "prime-order subgroup");
  EXPECT_EQ(g1_from_zcash_compressed(to_zcash_compressed(p), SubgroupCheck::kOff), p);
  EXPECT_EQ(g2_from_zcash_uncompressed(to_zcash_uncompressed(q), SubgroupCheck::kOff), q);
}

}  // namespace
}  // namespace cuzk::io
