#pragma once
// snarkjs's Groth16 JSON files: proof.json, public.json and verification_key.json (snarkjs
// 0.7.6 groth16_prove.js, zkey_export_verificationkey.js). Point forms are io/snarkjs_json.hpp.
//
//   proof.json             {"pi_a", "pi_b", "pi_c", "protocol": "groth16", "curve"}
//   public.json            ["<decimal>", ...]: witness[1..nPublic], outputs first
//   verification_key.json  {"protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2",
//                           "vk_gamma_2", "vk_delta_2", "vk_alphabeta_12", "IC"}
// with "curve" "bn128" or "bls12381". Writers build the objects with keys in snarkjs's order;
// snarkjs_text() prints them as snarkjs does (JSON.stringify(value, null, 1)), so files compare
// byte for byte.
//
// vk_alphabeta_12 is e(α1, β2) as ffjavascript (wasmcurves) computes it: its final
// exponentiations raise to a fixed multiple of (p¹² − 1)/r, so its value is a fixed power of
// this library's exact pairing: the cube on BLS12-381 (the hard part of zkcrypto's bls12_381,
// which wasmcurves follows) and the power 2x(6x² + 3x + 1) on BN254 (Fuentes-Castañeda,
// Knapp, Rodríguez-Henríquez, "Faster hashing to G2", SAC 2011, whose hard part wasmcurves'
// build_bn128.js implements). Both powers were confirmed against snarkjs's output. Readers
// ignore the field; verifiers never need it.
//
// Decoders throw cuzk::Error (kInvalidInput) naming the file and the part: a missing or
// malformed field, another protocol or curve, a coordinate or public input ≥ its modulus, a
// point off its curve or outside its prime-order subgroup.

#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "groth16/types.hpp"

namespace cuzk::groth16 {

template <class Curve>
nlohmann::ordered_json proof_to_json(const Proof<Curve>& proof);
template <class Curve>
Proof<Curve> proof_from_json(const nlohmann::json& json);

template <class Curve>
nlohmann::ordered_json public_inputs_to_json(std::span<const typename Curve::Fr> inputs);
template <class Curve>
std::vector<typename Curve::Fr> public_inputs_from_json(const nlohmann::json& json);

template <class Curve>
nlohmann::ordered_json verifying_key_to_json(const VerifyingKey<Curve>& vk);
template <class Curve>
VerifyingKey<Curve> verifying_key_from_json(const nlohmann::json& json);

// JSON.stringify(value, null, 1): one-space indentation, no final newline.
std::string snarkjs_text(const nlohmann::ordered_json& value);

}  // namespace cuzk::groth16
