// snarkjs's JSON files: the text layout, vk_alphabeta_12 against ffjavascript, and the
// refusals of the decoders.

#include <gtest/gtest.h>

#include <string>

#include "ec/scalar_mul.hpp"
#include "groth16/json.hpp"
#include "tests/support/error_messages.hpp"
#include "util/error.hpp"

namespace cuzk::groth16::test {
namespace {

using ::cuzk::test::invalid_input_message;

TEST(SnarkjsJsonText, MatchesJsonStringifyWithIndentOne) {
  // node -e 'console.log(JSON.stringify({a:[["1","2"]],b:"x",c:[],n:3,e:{}},null,1))' (Node 20)
  const auto value =
      nlohmann::ordered_json::parse(R"({"a":[["1","2"]],"b":"x","c":[],"n":3,"e":{}})");
  EXPECT_EQ(snarkjs_text(value),
            "{\n \"a\": [\n  [\n   \"1\",\n   \"2\"\n  ]\n ],\n \"b\": \"x\",\n \"c\": [],\n"
            " \"n\": 3,\n \"e\": {}\n}");
}

// e(5·G1, 7·G2) as ffjavascript 0.3.1 writes it (curve.Gt.toObject(await curve.pairing(
// G1.timesScalar(G1.g, 5), G2.timesScalar(G2.g, 7))) with buildBn128 / buildBls12381, the
// library snarkjs 0.7.6 uses for vk_alphabeta_12).
const char* const kBn254AlphaBeta =
    R"([[["309654566350849281917578666334328562836226772706119523910039242209561316654","15261520751189187071983041328933934493276848364274766153474909424330131095019"],["9283143853101024248307038356021187385850039548531041192331428210063636827519","14104900563917761399776737346844306583273817122563479529692802983063474184526"],["19116552793509192751981621175148530671485304448281329520072353467238009204403","20353924911392943295503873344363487982073200658308116704091389739079916750903"]],[["21528791845817256026751458879438563657117995165517394759211309080231861149685","5318227102782300989355345056201585336140635600111774890518843863754761347246"],["10459259425367446382458438305751502830496383350363704115227633487457714977071","6243399695483168094300016564224795767116698484664682411567990877669950850090"],["7553178484082581490935180386206583627214592485489566510897753455229261393342","8359106112515256656438157687579596477062548633142920594430442968209354320171"]]])";
const char* const kBls12_381AlphaBeta =
    R"([[["219249166766799606375541343273467764404808767259585319107783361664400282517223498663036400186633210280664906106342","1794394803074031747553468231458598199688860240535421499903414924688069496596890399265793486993745201469786037870355"],["2730904643798830060246675070520629373297222224513684177876076811058156275452948937687990922978448813090225356540670","2896165299020471694974538591570763784022958227218072639666123164750067159071280107965960688145631752291441530105671"],["61501900904737155435737909765140961545850868023545302008504029660046126908842710194395734735421982903321978095975","2987752501104120707474826017932614939306700735878234795459309603900531544050209824420527014779154334090649443035209"]],[["275665616336424533508130253948829874376891839535962691108169158339819233127877442222587896256305909086717843701646","3186474913187089424978268488525200599338930813036057899000129300708019135375019627847907837743627583743702630098159"],["3578233245875418419368241313304317857411183732219421118860728674744574651132931408802271546354117213063547937198446","1731658935841460858911444219783861229492546439885096938325475722820802311872624330572561383111799933798164627643817"],["137421689552251466452181851482928994439504954582215818350812707321317068265426512714165161571491582505160047388975","3519059428296357354876324873480294265140523017197246307019781801164091630742783257576865462887635220900524640844099"]]])";

template <class Curve>
VerifyingKey<Curve> small_verifying_key() {
  using Fr = typename Curve::Fr;
  const auto g1 = [](uint64_t k) {
    return ec::mul_generator<G1CurveOf<Curve>>(Fr::from_u64(k)).to_affine();
  };
  const auto g2 = [](uint64_t k) {
    return ec::mul_generator<G2CurveOf<Curve>>(Fr::from_u64(k)).to_affine();
  };
  return {g1(5), g2(7), g2(11), g2(13), {g1(17), g1(19)}};
}

template <class Curve>
void check_alphabeta(const char* expected) {
  const auto json = verifying_key_to_json(small_verifying_key<Curve>());
  EXPECT_EQ(json["vk_alphabeta_12"], nlohmann::ordered_json::parse(expected));
}

TEST(VerificationKeyJson, AlphaBetaIsFfjavascriptsPairingBn254) {
  check_alphabeta<formats::Bn254>(kBn254AlphaBeta);
}
TEST(VerificationKeyJson, AlphaBetaIsFfjavascriptsPairingBls12_381) {
  check_alphabeta<formats::Bls12_381>(kBls12_381AlphaBeta);
}

TEST(VerificationKeyJson, FieldsInSnarkjsOrderAndRoundTrip) {
  using Curve = formats::Bn254;
  const auto vk = small_verifying_key<Curve>();
  const auto json = verifying_key_to_json(vk);
  std::vector<std::string> keys;
  for (const auto& item : json.items()) keys.push_back(item.key());
  EXPECT_EQ(keys,
            (std::vector<std::string>{"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2",
                                      "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"}));
  EXPECT_EQ(json["nPublic"], 1);
  EXPECT_EQ(json["curve"], "bn128");
  EXPECT_EQ(verifying_key_from_json<Curve>(nlohmann::json::parse(json.dump())), vk);
}

TEST(VerificationKeyJson, RefusesInconsistentFiles) {
  using Curve = formats::Bls12_381;
  const auto good =
      nlohmann::json::parse(verifying_key_to_json(small_verifying_key<Curve>()).dump());
  auto bad = good;
  bad["nPublic"] = 2;
  EXPECT_NE(
      invalid_input_message([&] { verifying_key_from_json<Curve>(bad); }).find("nPublic is 2"),
      std::string::npos);
  bad = good;
  bad["curve"] = "bn128";
  EXPECT_NE(invalid_input_message([&] { verifying_key_from_json<Curve>(bad); }).find("curve"),
            std::string::npos);
  bad = good;
  bad.erase("vk_delta_2");
  EXPECT_NE(invalid_input_message([&] {
              verifying_key_from_json<Curve>(bad);
            }).find("\"vk_delta_2\" is missing"),
            std::string::npos);
  bad = good;
  bad["IC"] = nlohmann::json::array();
  EXPECT_NE(invalid_input_message([&] { verifying_key_from_json<Curve>(bad); }).find("IC"),
            std::string::npos);
}

TEST(ProofJson, RefusesOtherProtocolsAndCurves) {
  using Curve = formats::Bn254;
  const auto vk = small_verifying_key<Curve>();
  const auto good =
      nlohmann::json::parse(proof_to_json(Proof<Curve>{vk.alpha1, vk.beta2, vk.ic[0]}).dump());
  EXPECT_EQ(good["protocol"], "groth16");
  auto bad = good;
  bad["protocol"] = "plonk";
  EXPECT_NE(invalid_input_message([&] { proof_from_json<Curve>(bad); }).find("protocol"),
            std::string::npos);
  bad = good;
  bad["curve"] = "bls12381";
  EXPECT_NE(invalid_input_message([&] { proof_from_json<Curve>(bad); }).find("is not \"bn128\""),
            std::string::npos);
  bad = good;
  bad.erase("pi_c");
  EXPECT_NE(invalid_input_message([&] { proof_from_json<Curve>(bad); }).find("\"pi_c\" is missing"),
            std::string::npos);
}

TEST(PublicJson, RefusesNonStrings) {
  using Curve = formats::Bn254;
  EXPECT_NE(invalid_input_message([] {
              public_inputs_from_json<Curve>(nlohmann::json::parse(R"(["1", 2])"));
            }).find("public input 1: expected a decimal string"),
            std::string::npos);
  EXPECT_NE(invalid_input_message([] {
              public_inputs_from_json<Curve>(nlohmann::json::parse(R"(["-1"])"));
            }).find("public input 0"),
            std::string::npos);
  EXPECT_EQ(public_inputs_from_json<Curve>(nlohmann::json::parse(R"(["0", "12"])")),
            (std::vector<Curve::Fr>{Curve::Fr::zero(), Curve::Fr::from_u64(12)}));
}

}  // namespace
}  // namespace cuzk::groth16::test
