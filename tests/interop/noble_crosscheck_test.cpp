// Byte-for-byte agreement with @noble/curves (an independent implementation) on both curves:
// k·G1 and k·G2 for random and edge scalars, BLS12-381's zcash encodings of those points, and
// the pairing e(a·G1, b·G2) as its 12 Fp coefficients.
//
// The vectors come from tests/interop/noble/make_vectors.mjs: from the file named by
// CUZK_NOBLE_VECTORS, or else generated for this run with the logged test seed (node and the
// locked npm packages are required; CI installs them with scripts/setup.sh, so their absence
// fails the test instead of skipping it).
//
// Pairing values: cuzk computes e = f^((p¹² − 1)/r) exactly; noble's pairing() returns e^k with
// k = 3 (BLS12-381) or 2x(6x² + 3x + 1) (BN254) because of its shortened final
// exponentiations. The vectors carry both e (derived by the script from noble's values and
// checked there against noble's Miller loop raised to (p¹² − 1)/r) and noble's raw e^k; this
// test compares cuzk's e with the first and cuzk's e^k with the second.

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "io/field_codec.hpp"
#include "io/integer_text.hpp"
#include "io/zcash_codec.hpp"
#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::io {
namespace {

using nlohmann::json;

constexpr size_t kMinRandomCases = 16;

// What the configure step found (tests/interop/CMakeLists.txt).
const std::filesystem::path kNobleDir = CUZK_NOBLE_DIR;
const std::string kConfiguredNode = CUZK_NODE_EXECUTABLE;

const char* const kSetupHint =
    "install the interop packages with scripts/setup.sh (or: npm ci --prefix tests/interop/noble), "
    "or point CUZK_NOBLE_VECTORS at a vectors file made by tests/interop/noble/make_vectors.mjs";

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

struct Vectors {
  json data;
  std::string error;  // why there are no vectors; empty when loaded
};

Vectors read_vectors(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return {{}, "cannot open noble vectors file " + path.string()};
  try {
    return {json::parse(in), {}};
  } catch (const json::exception& e) {
    return {{}, "noble vectors file " + path.string() + " is not valid JSON: " + e.what()};
  }
}

Vectors generate_vectors() {
  std::string node = kConfiguredNode;
  if (node.empty() || !std::filesystem::exists(node)) node = "node";  // from PATH
  if (std::system((shell_quote(node) + " --version > /dev/null 2>&1").c_str()) != 0) {
    return {{}, "node (Node.js) was not found; " + std::string(kSetupHint)};
  }
  if (!std::filesystem::exists(kNobleDir / "node_modules/@noble/curves/package.json")) {
    return {{},
            "@noble/curves is not installed in " + (kNobleDir / "node_modules").string() + "; " +
                kSetupHint};
  }
  const auto out = std::filesystem::temp_directory_path() /
                   ("cuzk-noble-vectors-" + std::to_string(::getpid()) + ".json");
  const size_t count = std::max(kMinRandomCases, test::scaled(kMinRandomCases));
  const std::string command = shell_quote(node) + " " +
                              shell_quote((kNobleDir / "make_vectors.mjs").string()) + " --seed " +
                              std::to_string(test::seed()) + " --count " + std::to_string(count) +
                              " --out " + shell_quote(out.string());
  if (std::system(command.c_str()) != 0) {
    return {{}, "generating noble vectors failed: " + command + "; " + kSetupHint};
  }
  Vectors v = read_vectors(out);
  std::filesystem::remove(out);
  return v;
}

const Vectors& vectors() {
  static const Vectors loaded = [] {
    if (const char* path = std::getenv("CUZK_NOBLE_VECTORS"); path && *path) {
      return read_vectors(path);
    }
    return generate_vectors();
  }();
  return loaded;
}

// The curve-specific parts of the comparison.
struct Bls12_381 {
  using G1Curve = bls12_381::G1Curve;
  using G2Curve = bls12_381::G2Curve;
  using Fr = bls12_381::Fr;
  static constexpr const char* kKey = "bls12_381";
  static bls12_381::Fp12 pairing(const bls12_381::G1Affine& p, const bls12_381::G2Affine& q) {
    return bls12_381::pairing(p, q);
  }
};
struct Bn254 {
  using G1Curve = bn254::G1Curve;
  using G2Curve = bn254::G2Curve;
  using Fr = bn254::Fr;
  static constexpr const char* kKey = "bn254";
  static bn254::Fp12 pairing(const bn254::G1Affine& p, const bn254::G2Affine& q) {
    return bn254::pairing(p, q);
  }
};

template <class Curve>
class NobleCrosscheck : public ::testing::Test {
 protected:
  // The vectors of this curve, or a fatal failure saying why there are none.
  static const json* curve_vectors() {
    const Vectors& v = vectors();
    if (!v.error.empty()) return nullptr;
    return &v.data.at(Curve::kKey);
  }
};
using Curves = ::testing::Types<Bls12_381, Bn254>;
TYPED_TEST_SUITE(NobleCrosscheck, Curves);

#define REQUIRE_CURVE_VECTORS(name)                \
  const json* name = TestFixture::curve_vectors(); \
  ASSERT_NE(name, nullptr) << vectors().error;     \
  ASSERT_TRUE(name->contains("cases")) << "no cases for " << TypeParam::kKey

std::string case_label(const json& c, size_t i) {
  return "case " + std::to_string(i) + " (a = 0x" + c.at("a").get<std::string>() + ", b = 0x" +
         c.at("b").get<std::string>() + ")";
}

template <class Fp12>
json fp12_coefficients(const Fp12& f) {
  json out = json::array();
  for (const auto* half : {&f.c0, &f.c1}) {
    for (const auto* fp2 : {&half->c0, &half->c1, &half->c2}) {
      out.push_back(to_hex(fp2->c0));
      out.push_back(to_hex(fp2->c1));
    }
  }
  return out;
}

template <class Bytes>
std::string bytes_hex(const Bytes& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t b : bytes) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

std::vector<uint8_t> hex_bytes(const std::string& hex) {
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = uint8_t(std::stoul(hex.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}

TYPED_TEST(NobleCrosscheck, VectorsCoverRandomAndEdgeScalars) {
  using Fr = typename TypeParam::Fr;
  REQUIRE_CURVE_VECTORS(v);
  EXPECT_EQ(vectors().data.at("source").get<std::string>().rfind("@noble/curves 1.", 0), 0u);
  EXPECT_EQ(v->at("r").get<std::string>(), limbs_to_hex(Fr::kModulus.limb, 32));
  const json& cases = v->at("cases");
  EXPECT_GE(cases.size(), kMinRandomCases + 3);
  bool has_zero = false, has_one = false, has_minus_one = false;
  for (const json& c : cases) {
    for (const char* key : {"a", "b"}) {
      Fr k = from_hex<Fr>(c.at(key).get<std::string>(), key);
      has_zero |= k.is_zero();
      has_one |= k == Fr::one();
      has_minus_one |= k == -Fr::one();
    }
  }
  EXPECT_TRUE(has_zero && has_one && has_minus_one) << "edge scalars 0, 1, r - 1 missing";
}

TYPED_TEST(NobleCrosscheck, ScalarMultiplesOfTheGenerators) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  REQUIRE_CURVE_VECTORS(v);
  const json& cases = v->at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    SCOPED_TRACE(case_label(c, i));
    auto p = ec::mul_generator<typename Curve::G1Curve>(from_hex<Fr>(c.at("a").get<std::string>()))
                 .to_affine();
    auto q = ec::mul_generator<typename Curve::G2Curve>(from_hex<Fr>(c.at("b").get<std::string>()))
                 .to_affine();
    EXPECT_EQ(to_hex(p.x), c.at("a_g1").at("x"));
    EXPECT_EQ(to_hex(p.y), c.at("a_g1").at("y"));
    EXPECT_EQ(to_hex(q.x.c0), c.at("b_g2").at("x")[0]);
    EXPECT_EQ(to_hex(q.x.c1), c.at("b_g2").at("x")[1]);
    EXPECT_EQ(to_hex(q.y.c0), c.at("b_g2").at("y")[0]);
    EXPECT_EQ(to_hex(q.y.c1), c.at("b_g2").at("y")[1]);
  }
}

TEST(NobleCrosscheckBls12_381, ZcashEncodings) {
  const Vectors& all = vectors();
  ASSERT_TRUE(all.error.empty()) << all.error;
  const json& cases = all.data.at("bls12_381").at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    SCOPED_TRACE(case_label(c, i));
    auto p =
        ec::mul_generator<bls12_381::G1Curve>(from_hex<bls12_381::Fr>(c.at("a").get<std::string>()))
            .to_affine();
    auto q =
        ec::mul_generator<bls12_381::G2Curve>(from_hex<bls12_381::Fr>(c.at("b").get<std::string>()))
            .to_affine();
    EXPECT_EQ(bytes_hex(to_zcash_compressed(p)), c.at("a_g1_compressed"));
    EXPECT_EQ(bytes_hex(to_zcash_uncompressed(p)), c.at("a_g1_uncompressed"));
    EXPECT_EQ(bytes_hex(to_zcash_compressed(q)), c.at("b_g2_compressed"));
    EXPECT_EQ(bytes_hex(to_zcash_uncompressed(q)), c.at("b_g2_uncompressed"));
    EXPECT_EQ(g1_from_zcash_compressed(hex_bytes(c.at("a_g1_compressed"))), p);
    EXPECT_EQ(g1_from_zcash_uncompressed(hex_bytes(c.at("a_g1_uncompressed"))), p);
    EXPECT_EQ(g2_from_zcash_compressed(hex_bytes(c.at("b_g2_compressed"))), q);
    EXPECT_EQ(g2_from_zcash_uncompressed(hex_bytes(c.at("b_g2_uncompressed"))), q);
  }
}

TYPED_TEST(NobleCrosscheck, Pairings) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  REQUIRE_CURVE_VECTORS(v);
  ff::BigInt<4> noble_exponent{};
  ASSERT_EQ(
      decimal_to_limbs(v->at("noble_pairing_exponent").get<std::string>(), noble_exponent.limb),
      IntegerTextError::kNone);
  const json& cases = v->at("cases");
  for (size_t i = 0; i < cases.size(); ++i) {
    const json& c = cases[i];
    SCOPED_TRACE(case_label(c, i));
    auto p = ec::mul_generator<typename Curve::G1Curve>(from_hex<Fr>(c.at("a").get<std::string>()))
                 .to_affine();
    auto q = ec::mul_generator<typename Curve::G2Curve>(from_hex<Fr>(c.at("b").get<std::string>()))
                 .to_affine();
    auto e = Curve::pairing(p, q);
    EXPECT_EQ(fp12_coefficients(e), c.at("pairing"));
    EXPECT_EQ(fp12_coefficients(e.pow(noble_exponent)), c.at("pairing_noble"));
  }
}

}  // namespace
}  // namespace cuzk::io
