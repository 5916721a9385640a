// Verification and development setup on files (key_file_commands.hpp).

#include "groth16/key_file_commands.hpp"

#include <chrono>
#include <fstream>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "formats/mapped_file.hpp"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/json.hpp"
#include "groth16/setup.hpp"
#include "groth16/stage_timing.hpp"
#include "groth16/verifier.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

using timing::Clock;
using timing::milliseconds_since;

void announce(const std::function<void(const char*)>& on_stage, const char* stage) {
  if (on_stage) on_stage(stage);
}

// The vk part of a .params: six points (α1, β1, β2, γ2, δ1, δ2) and the IC count.
constexpr size_t kBellmanVkFixedBytes = 3 * 96 + 3 * 192;

// A bellman .vk holds exactly its six points, the u32 IC count and the IC points; a .params
// continues with its five vectors.
bool is_bellman_vk_file(std::span<const uint8_t> bytes) {
  if (bytes.size() < kBellmanVkFixedBytes + 4) return false;
  const uint8_t* c = bytes.data() + kBellmanVkFixedBytes;
  const uint64_t count = uint64_t(c[0]) << 24 | uint64_t(c[1]) << 16 | uint64_t(c[2]) << 8 | c[3];
  return bytes.size() == kBellmanVkFixedBytes + 4 + count * 96;
}

void require_bellman_curve(const std::filesystem::path& path, formats::CurveId curve) {
  if (curve != formats::CurveId::kBls12_381) {
    CUZK_INVALID_INPUT(path.string() + " belongs to " +
                       std::string(formats::curve_display_name(curve)) +
                       ", but bellman .params keys are BLS12-381 only");
  }
}

// Writes text to <path>.partial and renames it over path: never a half-written file.
void write_text_replacing(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path partial = path;
  partial += ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) CUZK_THROW(ErrorKind::kInternal, "cannot write " + partial.string());
  }
  std::filesystem::rename(partial, path);
}

nlohmann::json read_json(const std::filesystem::path& path) {
  const formats::MappedFile file = formats::MappedFile::open(path);
  const auto bytes = file.bytes();
  try {
    return nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    CUZK_INVALID_INPUT(path.string() + ": not valid JSON (" + e.what() + ")");
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

VerifyFilesResult verify_json_files(const std::filesystem::path& verification_key_path,
                                    const std::filesystem::path& public_path,
                                    const std::filesystem::path& proof_path) {
  const auto read_start = Clock::now();
  const nlohmann::json vk_json = read_json(verification_key_path);
  const nlohmann::json public_json = read_json(public_path);
  const nlohmann::json proof_json = read_json(proof_path);
  VerifyFilesResult result;
  result.format = KeyFormat::kZkey;
  result.curve = curve_of_verification_key(vk_json, verification_key_path);
  formats::with_curve(result.curve, [&](auto curve_record) {
    using Curve = decltype(curve_record);
    using Fr = typename Curve::Fr;
    const auto vk = verifying_key_from_json<Curve>(vk_json);
    const auto inputs = public_inputs_from_json<Curve>(public_json);
    const auto proof = proof_from_json<Curve>(proof_json);
    result.read_ms = milliseconds_since(read_start);
    const auto start = Clock::now();
    result.valid = verify(vk, std::span<const Fr>(inputs), proof);
    result.verify_ms = milliseconds_since(start);
  });
  return result;
}

VerifyFilesResult verify_bellman_files(const std::filesystem::path& key_path,
                                       const std::filesystem::path& public_path,
                                       const std::filesystem::path& proof_path) {
  using Fr = bls12_381::Fr;
  const auto read_start = Clock::now();
  formats::BellmanVerifyingKey vk;
  {
    const formats::MappedFile key = formats::MappedFile::open(key_path);
    vk = is_bellman_vk_file(key.bytes())
             ? formats::parse_bellman_verifying_key(key.bytes(), key.name())
             : formats::parse_bellman_params_layout(key.bytes(), key.name()).vk;
  }
  const std::vector<Fr> inputs = public_inputs_from_json<BellmanCurve>(read_json(public_path));
  const formats::MappedFile proof_file = formats::MappedFile::open(proof_path);
  const formats::BellmanProof proof =
      formats::decode_bellman_proof(proof_file.bytes(), proof_file.name());
  VerifyFilesResult result;
  result.format = KeyFormat::kParams;
  result.curve = formats::CurveId::kBls12_381;
  result.read_ms = milliseconds_since(read_start);
  const auto start = Clock::now();
  result.valid = verify(verifying_key_from_bellman(vk), std::span<const Fr>(inputs),
                        proof_from_bellman(proof));
  result.verify_ms = milliseconds_since(start);
  return result;
}

// A bellman .vk or .params begins with an uncompressed G1 point (its three flag bits clear)
// and holds at least the vk's six points and the IC count; JSON begins with '{' or a space,
// whose flag bits are set. Anything else goes to the JSON reader, which says what is wrong.
bool looks_like_bellman_key(const std::filesystem::path& path) {
  // Mapped, not read: only a regular file is opened (a FIFO or /dev/zero is refused).
  const formats::MappedFile file = formats::MappedFile::open(path);
  const auto bytes = file.bytes();
  return bytes.size() >= kBellmanVkFixedBytes + 4 && (bytes[0] & 0xe0) == 0;
}

}  // namespace

VerifyFilesResult verify_files_timed(const std::filesystem::path& verification_key_path,
                                     const std::filesystem::path& public_path,
                                     const std::filesystem::path& proof_path) {
  return looks_like_bellman_key(verification_key_path)
             ? verify_bellman_files(verification_key_path, public_path, proof_path)
             : verify_json_files(verification_key_path, public_path, proof_path);
}

bool verify_files(const std::filesystem::path& verification_key_path,
                  const std::filesystem::path& public_path,
                  const std::filesystem::path& proof_path) {
  return verify_files_timed(verification_key_path, public_path, proof_path).valid;
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

SetupFilesResult setup_key_files(const std::filesystem::path& r1cs_path, KeyFormat format,
                                 const std::filesystem::path& key_path,
                                 const std::filesystem::path& verification_key_path,
                                 const std::function<void(const char*)>& on_stage) {
  SetupFilesResult result;
  result.format = format;
  result.curve = formats::sniff_curve(r1cs_path);
  if (format == KeyFormat::kParams) require_bellman_curve(r1cs_path, result.curve);
  formats::with_curve(result.curve, [&](auto curve_record) {
    using Curve = decltype(curve_record);
    announce(on_stage, "reading the .r1cs");
    auto start = Clock::now();
    const formats::R1cs<Curve> r1cs = formats::read_r1cs<Curve>(r1cs_path);
    result.read_ms = milliseconds_since(start);
    result.constraints = r1cs.header.n_constraints;
    result.wires = r1cs.header.n_wires;
    result.public_signals = r1cs.header.n_public();
    result.domain_size =
        uint64_t(1) << snarkjs_domain_log_size(r1cs.header.n_constraints, r1cs.header.n_public());
    if (format == KeyFormat::kZkey) {
      announce(on_stage, "setup (key points)");
      start = Clock::now();
      const auto key = setup(r1cs);
      result.setup_ms = milliseconds_since(start);
      announce(on_stage, "writing the key");
      start = Clock::now();
      formats::write_zkey(key_path, key);
      write_text_replacing(verification_key_path,
                           snarkjs_text(verifying_key_to_json(verifying_key_from_zkey(key))));
      result.write_ms = milliseconds_since(start);
    } else if constexpr (std::is_same_v<Curve, BellmanCurve>) {
      announce(on_stage, "setup (key points)");
      start = Clock::now();
      const formats::BellmanParams params = bellman_setup(r1cs, &result.bellman);
      result.setup_ms = milliseconds_since(start);
      announce(on_stage, "writing the key");
      start = Clock::now();
      formats::write_bellman_params(key_path, params);
      formats::write_bellman_verifying_key(verification_key_path, params.vk);
      result.write_ms = milliseconds_since(start);
    }
  });
  return result;
}

}  // namespace cuzk::groth16
