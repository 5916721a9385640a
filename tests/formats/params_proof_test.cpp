// The 192-byte Groth16 proof of bellman (A, B, C compressed), alone and in batches: round
// trips, proofs that bellman made, and one case per rejection rule.

#include <gtest/gtest.h>

#include <string_view>

#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "formats/params.hpp"
#include "io/zcash_codec.hpp"
#include "pairing/bls12_381_pairing.hpp"
#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::formats::test {
namespace {

using G1 = bls12_381::G1Affine;
using G2 = bls12_381::G2Affine;
using bls12_381::Fp;
using bls12_381::Fr;

std::vector<uint8_t> from_hex(std::string_view hex) {
  std::vector<uint8_t> out;
  auto nibble = [](char c) { return uint8_t(c <= '9' ? c - '0' : c - 'a' + 10); };
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(uint8_t(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

std::vector<BellmanProof> random_proofs(std::mt19937_64& rng, size_t n) {
  auto g1 = random_points<G1>(rng, 2 * n);
  auto g2 = random_points<G2>(rng, n);
  std::vector<BellmanProof> proofs;
  for (size_t i = 0; i < n; ++i) proofs.push_back({g1[2 * i], g2[i], g1[2 * i + 1]});
  return proofs;
}

TEST(BellmanProof, RandomProofsRoundTrip) {
  auto rng = cuzk::test::rng("bellman proof round trip");
  for (const BellmanProof& proof : random_proofs(rng, cuzk::test::scaled(8))) {
    auto bytes = encode_bellman_proof(proof);
    static_assert(bytes.size() == 192);
    // Each part is compressed: flag 0x80 at the start of A, B (offset 48) and C (offset 144).
    EXPECT_EQ(bytes[0] & 0xc0, 0x80);
    EXPECT_EQ(bytes[48] & 0xc0, 0x80);
    EXPECT_EQ(bytes[144] & 0xc0, 0x80);
    EXPECT_EQ(decode_bellman_proof(bytes), proof);
  }
  std::vector<BellmanProof> batch = random_proofs(rng, 5);
  std::vector<uint8_t> bytes = encode_bellman_proofs(batch);
  ASSERT_EQ(bytes.size(), 5 * kBellmanProofBytes);
  EXPECT_EQ(decode_bellman_proofs(bytes, "proofs", 5), batch);
  EXPECT_EQ(decode_bellman_proofs(bytes), batch);
  auto second = encode_bellman_proof(batch[1]);
  EXPECT_TRUE(std::equal(second.begin(), second.end(), bytes.begin() + kBellmanProofBytes));
  EXPECT_TRUE(decode_bellman_proofs({}).empty());
}

// Proofs and verifying keys that bellman wrote, from the test vectors of
// github.com/esuwu/groth16-verifier-bls12381 as gnark carries them
// (internal/backend/bls381/groth16/bellman_test.go, TestVeriyBellmanProof; base64 there, hex
// here). The keys are in that project's compressed layout (α1, β2, γ2, δ2 then IC points, 48 or
// 96 bytes each); public inputs are 32-byte big-endian scalars. The source marks the first and
// third cases valid and the second invalid.
struct BellmanVector {
  std::string_view vk, proof, inputs;
  bool valid;
};

constexpr std::string_view kVk1 =
    "87093cf37814953282c97600e975996bc1fdff1288619689d3112cd0ce6140e331886a71a1cb97ffc99a48399e0a4d"
    "db"
    "a3956268305d3bb641c4084b49ee64ff94c54321792efeca376b4b2a7c20a1632a075e8e2fc59d6de3c8c130ae3ed2"
    "4d"
    "0052a84d9ca52c36d27f4da472431c6500cf17d88687e242f7d3e2a3be2f0e9c13123531e6d43df60350c3150bb73b"
    "6c"
    "a8346c3e712f2af2e6b311edf0b4150641019b63c124563e3977f530d5b4db5be20c1a51d74997e1643acebb062f92"
    "f4"
    "198e1cc1fe2d95b87e39b8adf8b9cdfd24139d111ff1f3e974a675b1afee8b7a468bc94c4fa8a8e03ed48e5c31d917"
    "42"
    "90117e8ac7cc7fbec70841ac640370d214ab3b6146835e12976eb12c022885d696f0eee011a6a0f09755019dce54b7"
    "79"
    "0dfd4d919044afbe775dbf16c1a5ec26313bab1c0834bd4a76a038f848985b879d6fbf9af5b6c178e3ed6faed9c661"
    "6a"
    "8324cd4bfe286f16a17b33648e4d34cadb30b04360fff11ee9d581259c8b1fe406b1a5368cefd6e16bd1c9986628a3"
    "dd"
    "8a93a18b3e1196b7765d882c7c7b1f59fe6fe063932fed77641db8756d7f9b7f67db0a09fafebce9f5db356f395cff"
    "eb";
constexpr std::string_view kProof1 =
    "96f40b53f2aa80586c2e4b7fe42fec72ab3b9d647e798b723dd5a22d506ec7d19b953e0084760c74283041f48972e7"
    "6f"
    "b2057a7d7a0af8351246027ef8daadf96bdbec6958947a710b2b10873dba4d3bbc372a3bce99953c7f76f946266ef6"
    "d0"
    "092bd7d81856b6f91f1e6a83563992210e1150c7debde0352996d27fdf7d344e2a28af03a3ef285dc9933382d95668"
    "75"
    "ae5caace721d1573cdef1de90f813481bebfcbaf71b5630286ff7ae7814c834e5b01db9e2adf6e0380447006e991d1"
    "c5";
constexpr std::string_view kVk2 =
    "918602012f2f3364fdf46782af8b6843e890cef9797c8f3d98fae7718ab1dc2d5def90506c593c2ccb5c9cb5b09ed7"
    "7a"
    "9279334b072c89a95c85e83af5e6583caf04cca45523916b4472a2f2b801f91e63c8f57bd1e8e6604c759de4e67d82"
    "8e"
    "0d198046bfe577aa594f30566037eb0a4892d5007edeadccd3c39081870bcecfef8d6e1ea5eb430a69342b508419c5"
    "9d"
    "87bc8bcddaabec71d034ea5923c99d8ffee5474201a81f73bd17f24ebfa0b941b6da4668e32d8a20d0e9dbbdb11a09"
    "4a"
    "11e4e0953c720d4ae2649345ffe4fa17cc3bd0c47fad5f9f96fba8e84274f8703e03666705b4e338897dc238ac055f"
    "b4"
    "8e095de28029a403b3bd0edea08c76b5bbae29549d6c99bae4a0f197f4fe6e86989e3466de899d1136276119371c08"
    "6b"
    "01e5a979f5fe74cfe4ecfadc85e2279f11d4ca3cd2cea94dd37c588e0dbc91d75af45649695b102aa74427f4adf62b"
    "d7"
    "969efe74f0c839f9bbee1692167bebdf7570607fca6c86a57ce24f46f04bcea9470fc071ba735e6ccafa1abe92faef"
    "a7";
constexpr std::string_view kProof2 =
    "b12b552ddcb1a889e6bfbea268d9d1141e3ae251aae3c8957aa6164a2da58a713d0d24f47d3361c529ef4970283e9b"
    "7c"
    "b45b1a9e3e6f3da7c2fa28ff161f7c74e52531b3b8d9b7f6f34a4e678966fb3afadc0594a4e388ba0493f92ea9abdc"
    "de"
    "074387a76358f17166ae23842a1c5e69b86e57cf658ea0838e585705e359c0ce73b62e3383cf4777c4db29cc38ea30"
    "2c"
    "8c825ed928b0dd387b10b410291e6e717e747f41884a69ce49c79e3cf76f8db189f1f4853a74a64a9f1d2bbbb27a1a"
    "d4";

const BellmanVector kBellmanVectors[] = {
    {kVk1, kProof1, "2dc313dce3a59072f32412822a38f3cd5320fabf85560779d8b96164f0784458", true},
    {kVk1, kProof1, "726cd509c4559dc930dd050f8661b8064a697a0e0ae74a0343043d107f85ab5b", false},
    {kVk2, kProof2, "", true},
};

bool verifies(const BellmanVector& v) {
  std::vector<uint8_t> vk = from_hex(v.vk);
  std::span<const uint8_t> bytes(vk);
  G1 alpha = io::g1_from_zcash_compressed(bytes.first(48));
  G2 beta = io::g2_from_zcash_compressed(bytes.subspan(48, 96));
  G2 gamma = io::g2_from_zcash_compressed(bytes.subspan(144, 96));
  G2 delta = io::g2_from_zcash_compressed(bytes.subspan(240, 96));
  std::vector<G1> ic;
  for (size_t at = 336; at < bytes.size(); at += 48) {
    ic.push_back(io::g1_from_zcash_compressed(bytes.subspan(at, 48)));
  }
  std::vector<uint8_t> proof_bytes = from_hex(v.proof);
  BellmanProof proof = decode_bellman_proof(proof_bytes, "bellman proof");
  // bellman writes what it reads: the encoding round-trips byte for byte.
  auto again = encode_bellman_proof(proof);
  EXPECT_TRUE(std::equal(again.begin(), again.end(), proof_bytes.begin()));

  std::vector<uint8_t> inputs = from_hex(v.inputs);
  EXPECT_EQ(inputs.size(), 32 * (ic.size() - 1));
  ec::Jacobian<bls12_381::G1Curve> acc = ec::Jacobian<bls12_381::G1Curve>::from_affine(ic[0]);
  for (size_t i = 0; i + 1 < ic.size(); ++i) {
    auto x = Fr::from_bytes_be(std::span(inputs).subspan(32 * i).first<32>());
    EXPECT_TRUE(x.has_value());
    acc += ec::scalar_mul(ic[i + 1], *x);
  }
  // e(A, B) = e(α, β)·e(Σ x_i·IC_i, γ)·e(C, δ)
  const bls12_381::G1G2Pair pairs[] = {
      {proof.a, proof.b}, {-alpha, beta}, {-acc.to_affine(), gamma}, {-proof.c, delta}};
  return bls12_381::pairing_product_is_one(pairs);
}

TEST(BellmanProof, ProofsThatBellmanWrote) {
  for (const BellmanVector& v : kBellmanVectors) EXPECT_EQ(verifies(v), v.valid) << v.inputs;
  // The two valid proofs as one batch, as a multi-partition proof is stored.
  std::vector<uint8_t> batch = from_hex(kProof1);
  std::vector<uint8_t> second = from_hex(kProof2);
  batch.insert(batch.end(), second.begin(), second.end());
  std::vector<BellmanProof> proofs = decode_bellman_proofs(batch, "batch", 2);
  EXPECT_EQ(proofs[1], decode_bellman_proof(second));
}

// A point of E(Fp) outside G1 (see params_test.cpp).
G1 g1_point_outside_subgroup() {
  for (uint64_t x = 1;; ++x) {
    auto p = G1::from_x(Fp::from_u64(x));
    if (p && !bls12_381::is_in_subgroup(*p)) return *p;
  }
}

TEST(BellmanProof, MalformedProofsAreRefused) {
  auto rng = cuzk::test::rng("bellman proof malformed");
  const auto good = encode_bellman_proof(random_proofs(rng, 1)[0]);
  auto edited = [&](auto&& edit) {
    std::array<uint8_t, kBellmanProofBytes> bytes = good;
    edit(bytes);
    return bytes;
  };
  EXPECT_INVALID_INPUT(decode_bellman_proof(std::span(good).first(191), "p"),
                       "p: holds 191 bytes, a Groth16 proof has 192 (A 48, B 96, C 48)");
  EXPECT_INVALID_INPUT(decode_bellman_proof(edited([](auto& b) { b[0] &= 0x7f; }), "p"),
                       "p: A: compression flag (0x80) is not set in a compressed encoding");
  EXPECT_INVALID_INPUT(decode_bellman_proof(edited([](auto& b) {
                                              std::fill(b.begin() + 48, b.begin() + 144, 0);
                                              b[48] = 0xc0;
                                            }),
                                            "p"),
                       "p: B: is the point at infinity, which bellman's Proof::read refuses");
  EXPECT_INVALID_INPUT(
      decode_bellman_proof(edited([](auto& b) { b[48] = uint8_t((b[48] & ~0x20) | 0x40); }), "p"),
      "p: B: infinity flag (0x40) is set but the coordinate bytes are not all zero");
  // x = p in C.
  EXPECT_INVALID_INPUT(
      decode_bellman_proof(edited([](auto& b) {
                             for (size_t i = 0; i < 48; ++i) {
                               b[144 + 47 - i] = uint8_t(Fp::kModulus.limb[i / 8] >> (8 * (i % 8)));
                             }
                             b[144] |= 0x80;
                           }),
                           "p"),
      "p: C x: 0x1a0111ea");
  // An x with x³ + 4 not a square: x = 0 gives 4, a square; search a small one that is not.
  uint64_t x = 1;
  while (G1::from_x(Fp::from_u64(x))) ++x;
  EXPECT_INVALID_INPUT(decode_bellman_proof(edited([&](auto& b) {
                                              std::fill(b.begin() + 144, b.end(), 0);
                                              b[144] = 0x80;
                                              b[191] = uint8_t(x);
                                            }),
                                            "p"),
                       "p: C: x is not the x-coordinate of a curve point");
  EXPECT_INVALID_INPUT(
      decode_bellman_proof(edited([](auto& b) {
                             auto outside = io::to_zcash_compressed(g1_point_outside_subgroup());
                             std::copy(outside.begin(), outside.end(), b.begin());
                           }),
                           "p"),
      "p: A: point is on the curve but not in the prime-order subgroup");
}

TEST(BellmanProof, MalformedBatchesNameTheProof) {
  auto rng = cuzk::test::rng("bellman proof batch");
  std::vector<uint8_t> bytes = encode_bellman_proofs(random_proofs(rng, 4));
  EXPECT_INVALID_INPUT(decode_bellman_proofs(std::span(bytes).first(500), "proof.bin"),
                       "proof.bin: holds 500 bytes, not a whole number of 192-byte proofs");
  EXPECT_INVALID_INPUT(decode_bellman_proofs(bytes, "proof.bin", 10),
                       "proof.bin: holds 4 proofs, expected 10");
  bytes[3 * kBellmanProofBytes + 144] &= 0x7f;  // proof 3's C
  bytes[2 * kBellmanProofBytes + 48] &= 0x7f;   // proof 2's B: the first bad one
  EXPECT_INVALID_INPUT(decode_bellman_proofs(bytes, "proof.bin"),
                       "proof.bin: proof 2: B: compression flag (0x80) is not set");
}

TEST(BellmanProof, EncoderRefusesWhatTheDecoderRefuses) {
  auto rng = cuzk::test::rng("bellman proof encoder");
  std::vector<BellmanProof> proofs = random_proofs(rng, 2);
  BellmanProof p = proofs[0];
  p.b = G2::infinity();
  EXPECT_INVALID_INPUT(encode_bellman_proof(p), "proof to write: B: is the point at infinity");
  proofs[1].a.x = proofs[1].a.x + Fp::one();
  EXPECT_INVALID_INPUT(encode_bellman_proofs(proofs),
                       "proofs to write: proof 1: A: point is not on the curve bls12_381_g1");
}

}  // namespace
}  // namespace cuzk::formats::test
