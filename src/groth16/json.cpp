// snarkjs's Groth16 JSON files (json.hpp), instantiated for both curves.

#include "groth16/json.hpp"

#include <string_view>

#include "groth16/pairing_engine.hpp"
#include "io/field_codec.hpp"
#include "io/snarkjs_json.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

const nlohmann::json& member(const nlohmann::json& object, const char* key, std::string_view file) {
  if (!object.is_object()) CUZK_INVALID_INPUT(std::string(file) + ": expected a JSON object");
  const auto it = object.find(key);
  if (it == object.end()) {
    CUZK_INVALID_INPUT(std::string(file) + ": the field \"" + key + "\" is missing");
  }
  return *it;
}

// "protocol" must be "groth16" and "curve" the key's curve, when present (snarkjs always
// writes both; hand-made files may omit them).
template <class Curve>
void check_protocol_and_curve(const nlohmann::json& object, std::string_view file) {
  if (!object.is_object()) CUZK_INVALID_INPUT(std::string(file) + ": expected a JSON object");
  if (const auto it = object.find("protocol"); it != object.end()) {
    if (!it->is_string() || it->get<std::string>() != "groth16") {
      CUZK_INVALID_INPUT(std::string(file) + ": protocol " + it->dump() + " is not \"groth16\"");
    }
  }
  if (const auto it = object.find("curve"); it != object.end()) {
    const std::string_view expected = formats::snarkjs_curve_name(Curve::kId);
    if (!it->is_string() || it->get<std::string>() != expected) {
      CUZK_INVALID_INPUT(std::string(file) + ": curve " + it->dump() + " is not \"" +
                         std::string(expected) + "\" (" +
                         std::string(formats::curve_display_name(Curve::kId)) + ")");
    }
  }
}

template <class Field>
nlohmann::ordered_json fp2_json(const Field& x) {
  return nlohmann::ordered_json::array({io::to_decimal(x.c0), io::to_decimal(x.c1)});
}

// The power of this library's pairing that ffjavascript returns (see json.hpp).
template <class Curve>
typename Curve::Fr snarkjs_pairing_exponent() {
  using Fr = typename Curve::Fr;
  if constexpr (Curve::kId == formats::CurveId::kBn254) {
    const Fr x = Fr::from_u64(bn254::PairingData::kAbsX);  // x > 0 for BN254
    return x.dbl() * (Fr::from_u64(6) * x.sqr() + Fr::from_u64(3) * x + Fr::one());
  } else {
    return Fr::from_u64(3);
  }
}

}  // namespace

std::string snarkjs_text(const nlohmann::ordered_json& value) { return value.dump(1); }

template <class Curve>
nlohmann::ordered_json proof_to_json(const Proof<Curve>& proof) {
  nlohmann::ordered_json json;
  json["pi_a"] = io::to_snarkjs_json(proof.a);
  json["pi_b"] = io::to_snarkjs_json(proof.b);
  json["pi_c"] = io::to_snarkjs_json(proof.c);
  json["protocol"] = "groth16";
  json["curve"] = formats::snarkjs_curve_name(Curve::kId);
  return json;
}

template <class Curve>
Proof<Curve> proof_from_json(const nlohmann::json& json) {
  constexpr std::string_view kFile = "proof.json";
  check_protocol_and_curve<Curve>(json, kFile);
  const auto point = [&](const char* key, auto tag) {
    using Point = decltype(tag);
    return io::from_snarkjs_json<Point>(member(json, key, kFile), io::SubgroupCheck::kOn,
                                        std::string("proof ") + key);
  };
  return {point("pi_a", typename Curve::G1{}), point("pi_b", typename Curve::G2{}),
          point("pi_c", typename Curve::G1{})};
}

template <class Curve>
nlohmann::ordered_json public_inputs_to_json(std::span<const typename Curve::Fr> inputs) {
  nlohmann::ordered_json json = nlohmann::ordered_json::array();
  for (const auto& x : inputs) json.push_back(io::to_decimal(x));
  return json;
}

template <class Curve>
std::vector<typename Curve::Fr> public_inputs_from_json(const nlohmann::json& json) {
  using Fr = typename Curve::Fr;
  if (!json.is_array()) {
    CUZK_INVALID_INPUT("public.json: expected a JSON array of decimal strings");
  }
  std::vector<Fr> inputs;
  inputs.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    const std::string role = "public input " + std::to_string(i);
    if (!json[i].is_string()) CUZK_INVALID_INPUT(role + ": expected a decimal string");
    // from_decimal refuses values ≥ r: snarkjs's verifier rejects them too, and accepting
    // x + r for x would make two public.json files valid for one proof.
    inputs.push_back(io::from_decimal<Fr>(json[i].get_ref<const std::string&>(), role));
  }
  return inputs;
}

template <class Curve>
nlohmann::ordered_json verifying_key_to_json(const VerifyingKey<Curve>& vk) {
  using Engine = PairingEngine<Curve>;
  const auto alphabeta =
      Engine::pairing(vk.alpha1, vk.beta2).pow(snarkjs_pairing_exponent<Curve>().to_int());
  const auto fp6_json = [](const auto& x) {
    return nlohmann::ordered_json::array({fp2_json(x.c0), fp2_json(x.c1), fp2_json(x.c2)});
  };
  nlohmann::ordered_json json;
  json["protocol"] = "groth16";
  json["curve"] = formats::snarkjs_curve_name(Curve::kId);
  json["nPublic"] = vk.n_public();
  json["vk_alpha_1"] = io::to_snarkjs_json(vk.alpha1);
  json["vk_beta_2"] = io::to_snarkjs_json(vk.beta2);
  json["vk_gamma_2"] = io::to_snarkjs_json(vk.gamma2);
  json["vk_delta_2"] = io::to_snarkjs_json(vk.delta2);
  json["vk_alphabeta_12"] =
      nlohmann::ordered_json::array({fp6_json(alphabeta.c0), fp6_json(alphabeta.c1)});
  nlohmann::ordered_json ic = nlohmann::ordered_json::array();
  for (const auto& point : vk.ic) ic.push_back(nlohmann::ordered_json(io::to_snarkjs_json(point)));
  json["IC"] = std::move(ic);
  return json;
}

template <class Curve>
VerifyingKey<Curve> verifying_key_from_json(const nlohmann::json& json) {
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  constexpr std::string_view kFile = "verification_key.json";
  check_protocol_and_curve<Curve>(json, kFile);
  const auto g2 = [&](const char* key) {
    return io::from_snarkjs_json<G2>(member(json, key, kFile), io::SubgroupCheck::kOn,
                                     std::string("verification key ") + key);
  };
  VerifyingKey<Curve> vk;
  vk.alpha1 = io::from_snarkjs_json<G1>(member(json, "vk_alpha_1", kFile), io::SubgroupCheck::kOn,
                                        "verification key vk_alpha_1");
  vk.beta2 = g2("vk_beta_2");
  vk.gamma2 = g2("vk_gamma_2");
  vk.delta2 = g2("vk_delta_2");
  const nlohmann::json& ic = member(json, "IC", kFile);
  if (!ic.is_array() || ic.empty()) {
    CUZK_INVALID_INPUT(std::string(kFile) + ": IC must be a non-empty array of G1 points");
  }
  for (size_t i = 0; i < ic.size(); ++i) {
    vk.ic.push_back(io::from_snarkjs_json<G1>(ic[i], io::SubgroupCheck::kOn,
                                              "verification key IC[" + std::to_string(i) + "]"));
  }
  if (const auto it = json.find("nPublic"); it != json.end()) {
    if (!it->is_number_unsigned() || it->get<uint64_t>() != vk.n_public()) {
      CUZK_INVALID_INPUT(std::string(kFile) + ": nPublic is " + it->dump() + " but IC holds " +
                         std::to_string(ic.size()) + " points (nPublic + 1 expected)");
    }
  }
  return vk;
}

#define CUZK_GROTH16_JSON_FOR_CURVE(Curve)                                                        \
  template nlohmann::ordered_json proof_to_json<Curve>(const Proof<Curve>&);                      \
  template Proof<Curve> proof_from_json<Curve>(const nlohmann::json&);                            \
  template nlohmann::ordered_json public_inputs_to_json<Curve>(                                   \
      std::span<const typename Curve::Fr>);                                                       \
  template std::vector<typename Curve::Fr> public_inputs_from_json<Curve>(const nlohmann::json&); \
  template nlohmann::ordered_json verifying_key_to_json<Curve>(const VerifyingKey<Curve>&);       \
  template VerifyingKey<Curve> verifying_key_from_json<Curve>(const nlohmann::json&);

CUZK_GROTH16_JSON_FOR_CURVE(formats::Bn254)
CUZK_GROTH16_JSON_FOR_CURVE(formats::Bls12_381)

}  // namespace cuzk::groth16
