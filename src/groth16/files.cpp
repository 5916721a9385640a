// The Groth16 commands on files (files.hpp).

#include "groth16/files.hpp"

#include <chrono>
#include <string_view>

#include <nlohmann/json.hpp>

#include "formats/mapped_file.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/json.hpp"
#include "groth16/setup.hpp"
#include "groth16/verifier.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

nlohmann::json read_json(const std::filesystem::path& path) {
  const formats::MappedFile file = formats::MappedFile::open(path);
  const auto bytes = file.bytes();
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    CUZK_INVALID_INPUT(path.string() + ": not valid JSON (" + e.what() + ")");
  }
}

void check_same_curve(const std::filesystem::path& first, formats::CurveId first_curve,
                      const std::filesystem::path& second, formats::CurveId second_curve) {
  if (first_curve != second_curve) {
    CUZK_INVALID_INPUT(first.string() + " belongs to " +
                       std::string(formats::curve_display_name(first_curve)) + " but " +
                       second.string() + " to " +
                       std::string(formats::curve_display_name(second_curve)));
  }
}

// The curve a verification_key.json names ("bn128" or "bls12381").
formats::CurveId curve_of_verification_key(const nlohmann::json& json,
                                           const std::filesystem::path& path) {
  const auto it = json.is_object() ? json.find("curve") : json.end();
  if (it != json.end() && it->is_string()) {
    for (const auto id : {formats::CurveId::kBn254, formats::CurveId::kBls12_381}) {
      if (it->get<std::string>() == formats::snarkjs_curve_name(id)) return id;
    }
  }
  CUZK_INVALID_INPUT(path.string() + ": \"curve\" must be \"bn128\" or \"bls12381\"");
}

}  // namespace

ProveFilesResult prove_files(const std::filesystem::path& zkey_path,
                             const std::filesystem::path& wtns_path,
                             const ProveFilesOptions& options) {
  const formats::CurveId curve = formats::sniff_curve(zkey_path);
  check_same_curve(zkey_path, curve, wtns_path, formats::sniff_curve(wtns_path));
  if (options.r1cs)
    check_same_curve(zkey_path, curve, *options.r1cs, formats::sniff_curve(*options.r1cs));

  return formats::with_curve(curve, [&](auto curve_record) {
    using Curve = decltype(curve_record);
    using Fr = typename Curve::Fr;
    const auto read_start = std::chrono::steady_clock::now();
    formats::ZkeyReadOptions read_options;
    read_options.subgroup_check = options.key_subgroup_check;
    const auto key = formats::read_zkey<Curve>(zkey_path, read_options);
    const auto witness = formats::read_wtns<Curve>(wtns_path);
    std::optional<formats::R1cs<Curve>> r1cs;
    if (options.r1cs) r1cs = formats::read_r1cs<Curve>(*options.r1cs);
    ProveFilesResult result;
    result.curve = curve;
    result.read_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - read_start)
            .count();

    ProveOptions<Curve> prove_options;
    if (options.zero_blinding) prove_options.blinding = Blinding<Curve>{Fr::zero(), Fr::zero()};
    if (r1cs) prove_options.r1cs = &*r1cs;
    const ProveResult<Curve> proved = prove(key, std::span<const Fr>(witness), prove_options);
    result.proof_json = snarkjs_text(proof_to_json(proved.proof));
    result.public_json =
        snarkjs_text(public_inputs_to_json<Curve>(std::span<const Fr>(proved.public_inputs)));
    result.timings = proved.timings;
    return result;
  });
}

bool verify_files(const std::filesystem::path& verification_key_path,
                  const std::filesystem::path& public_path,
                  const std::filesystem::path& proof_path) {
  const nlohmann::json vk_json = read_json(verification_key_path);
  const nlohmann::json public_json = read_json(public_path);
  const nlohmann::json proof_json = read_json(proof_path);
  return formats::with_curve(curve_of_verification_key(vk_json, verification_key_path),
                             [&](auto curve_record) {
                               using Curve = decltype(curve_record);
                               using Fr = typename Curve::Fr;
                               const auto vk = verifying_key_from_json<Curve>(vk_json);
                               const auto inputs = public_inputs_from_json<Curve>(public_json);
                               const auto proof = proof_from_json<Curve>(proof_json);
                               return verify(vk, std::span<const Fr>(inputs), proof);
                             });
}

std::string export_verification_key(const std::filesystem::path& zkey_path) {
  return formats::with_curve(formats::sniff_curve(zkey_path), [&](auto curve_record) {
    using Curve = decltype(curve_record);
    const formats::MappedFile file = formats::MappedFile::open(zkey_path);
    const auto sections = formats::parse_zkey_sections<Curve>(file.bytes(), file.name());
    // Only the header and IC: the bulk sections are not read.
    std::vector<typename Curve::G1> ic(sections.header.n_public + 1);
    formats::decode_points(sections.ic, std::span(ic), {}, file.name() + ": section 3 (IC)");
    const VerifyingKey<Curve> vk{sections.header.alpha1, sections.header.beta2,
                                 sections.header.gamma2, sections.header.delta2, std::move(ic)};
    return snarkjs_text(verifying_key_to_json(vk));
  });
}

std::string setup_files(const std::filesystem::path& r1cs_path,
                        const std::filesystem::path& zkey_path) {
  return formats::with_curve(formats::sniff_curve(r1cs_path), [&](auto curve_record) {
    using Curve = decltype(curve_record);
    const auto key = setup(formats::read_r1cs<Curve>(r1cs_path));
    formats::write_zkey(zkey_path, key);
    return snarkjs_text(verifying_key_to_json(verifying_key_from_zkey(key)));
  });
}

}  // namespace cuzk::groth16
