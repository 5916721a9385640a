// KeyFile (key_file.hpp): the key formats and curves, told apart in this file only.

#include "groth16/key_file.hpp"

#include <bit>
#include <chrono>
#include <fstream>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "formats/mapped_file.hpp"
#include "formats/wtns.hpp"
#include "groth16/json.hpp"
#include "groth16/setup.hpp"
#include "util/error.hpp"

namespace cuzk::groth16 {

namespace {

namespace fs = std::filesystem;

// The vk part of a .params: six points (α1, β1, β2, γ2, δ1, δ2) and the IC count.
constexpr uint64_t kBellmanVkFixedBytes = 3 * 96 + 3 * 192 + 4;

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void require_regular_file(const fs::path& path, const std::string& what) {
  std::error_code error;
  const auto status = fs::status(path, error);
  if (error || !fs::exists(status)) {
    CUZK_THROW(ErrorKind::kNotFound, path.string() + ": no such " + what);
  }
  if (!fs::is_regular_file(status)) {
    CUZK_INVALID_INPUT(path.string() + ": the " + what + " is not a regular file");
  }
}

void check_same_curve(const fs::path& first, formats::CurveId first_curve, const fs::path& second,
                      formats::CurveId second_curve) {
  if (first_curve != second_curve) {
    CUZK_INVALID_INPUT(first.string() + " belongs to " +
                       std::string(formats::curve_display_name(first_curve)) + " but " +
                       second.string() + " to " +
                       std::string(formats::curve_display_name(second_curve)));
  }
}

// The .r1cs of a .params key: the one given, else the one beside the key (porep.params →
// porep.r1cs); empty for Matrices::kNone.
fs::path params_r1cs_path(const KeyFileSource& source) {
  if (source.matrices == Matrices::kNone) return {};
  if (!source.r1cs.empty()) {
    require_regular_file(source.r1cs, ".r1cs given for the key " + source.key.string());
    return source.r1cs;
  }
  fs::path beside = source.key;
  beside.replace_extension(".r1cs");
  std::error_code error;
  if (!fs::is_regular_file(beside, error)) {
    CUZK_INVALID_INPUT(source.key.string() +
                       ": a bellman .params key needs its circuit's .r1cs (the key holds no "
                       "constraint matrices); none was given and " +
                       beside.string() + " does not exist");
  }
  return beside;
}

}  // namespace

const char* key_format_name(KeyFormat format) {
  return format == KeyFormat::kZkey ? "zkey" : "params";
}

const char* proof_format_name(ProofFormat format) {
  return format == ProofFormat::kSnarkjsJson ? "snarkjs_json" : "bellman";
}

const char* default_proof_file_name(ProofFormat format) {
  return format == ProofFormat::kSnarkjsJson ? "proof.json" : "proof.bin";
}

KeyFormat detect_key_format(const fs::path& key_path) {
  require_regular_file(key_path, "key file");
  std::ifstream in(key_path, std::ios::binary);
  if (!in) CUZK_THROW(ErrorKind::kNotFound, key_path.string() + ": cannot open the key file");
  char head[4] = {};
  in.read(head, 4);
  if (in.gcount() == 4 && std::string_view(head, 4) == "zkey") return KeyFormat::kZkey;
  std::error_code error;
  const auto size = fs::file_size(key_path, error);
  if (in.gcount() >= 1 && (uint8_t(head[0]) & 0xe0) == 0 && !error &&
      size >= kBellmanVkFixedBytes) {
    return KeyFormat::kParams;
  }
  CUZK_INVALID_INPUT(key_path.string() +
                     ": not a proving key: neither a .zkey (no \"zkey\" magic) nor a bellman "
                     ".params (which begins with an uncompressed BLS12-381 point, at least " +
                     std::to_string(kBellmanVkFixedBytes) + " bytes)");
}

void require_params_key(const fs::path& path) {
  std::string why;
  try {
    if (detect_key_format(path) == KeyFormat::kParams) return;
    why = "it is a snarkjs .zkey";
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kInvalidInput) throw;
    why = "it begins neither like a .params nor like a .zkey";
  }
  CUZK_INVALID_INPUT(path.string() + ": not a bellman .params key (" + why + ")");
}

bool is_key_file_name(const fs::path& path) {
  const auto extension = path.extension();
  return extension == ".zkey" || extension == ".params";
}

KeyFormat key_format_for_setup(const std::string& name, const fs::path& key_path) {
  if (name == "zkey") return KeyFormat::kZkey;
  if (name == "params") return KeyFormat::kParams;
  if (!name.empty()) {
    CUZK_INVALID_INPUT("unknown key format '" + name + "' (expected zkey or params)");
  }
  return key_path.extension() == ".params" ? KeyFormat::kParams : KeyFormat::kZkey;
}

fs::path default_verification_key_path(KeyFormat format, const fs::path& key_path) {
  if (format == KeyFormat::kZkey) return "verification_key.json";
  fs::path vk = key_path;
  return vk.replace_extension(".vk");
}

template <class Curve>
Blinding<Curve> blinding_from_bytes(const BlindingBytes& bytes) {
  using Fr = typename Curve::Fr;
  const auto value = [](const std::array<uint8_t, 32>& le, const char* name) {
    typename Fr::Int v{};
    for (size_t i = 0; i < 32; ++i) v.limb[i / 8] |= uint64_t(le[i]) << (8 * (i % 8));
    if (ff::compare(v, Fr::kModulus) >= 0) {
      CUZK_INVALID_INPUT(std::string("blinding ") + name +
                         " is not below the scalar field's modulus");
    }
    return Fr::from_int(v);
  };
  return {value(bytes.r, "r"), value(bytes.s, "s")};
}

template <class Curve>
EncodedProof encode_proof(KeyFormat format, const Proof<Curve>& proof,
                          std::span<const typename Curve::Fr> public_inputs) {
  EncodedProof out;
  out.public_json = snarkjs_text(public_inputs_to_json<Curve>(public_inputs));
  if (format == KeyFormat::kZkey) {
    const std::string text = snarkjs_text(proof_to_json<Curve>(proof));
    out.format = ProofFormat::kSnarkjsJson;
    out.bytes.assign(text.begin(), text.end());
    return out;
  }
  if constexpr (std::is_same_v<Curve, BellmanCurve>) {
    const auto bytes = formats::encode_bellman_proof(proof_to_bellman(proof));
    out.format = ProofFormat::kBellman;
    out.bytes.assign(bytes.begin(), bytes.end());
    return out;
  }
  CUZK_INVALID_INPUT("bellman proofs are BLS12-381 only");
}

KeyFileShape KeyFile::inspect(const KeyFileSource& source) {
  KeyFileShape shape;
  shape.format = detect_key_format(source.key);
  const formats::MappedFile file = formats::MappedFile::open(source.key);
  shape.file_bytes = file.size();
  if (shape.format == KeyFormat::kParams) {
    shape.curve = formats::CurveId::kBls12_381;
    shape.r1cs = params_r1cs_path(source);
    if (shape.r1cs.empty()) {
      // No matrices: the domain from the H query, which has domain − 1 points.
      const auto layout = formats::parse_bellman_params_layout(file.bytes(), file.name());
      const uint64_t h_points = layout.h.size() / sizeof(formats::BellmanParams::G1);
      shape.domain_size = std::bit_ceil(h_points + 1);
      return shape;
    }
    const formats::MappedFile r1cs = formats::MappedFile::open(shape.r1cs);
    const formats::CurveId r1cs_curve = formats::sniff_curve(r1cs.bytes(), r1cs.name());
    check_same_curve(source.key, shape.curve, shape.r1cs, r1cs_curve);
    const auto header = formats::parse_r1cs_header(r1cs.bytes(), r1cs.name());
    shape.file_bytes += r1cs.size();
    shape.domain_size = uint64_t(1)
                        << snarkjs_domain_log_size(header.n_constraints, header.n_public());
    shape.witness_count = header.n_wires;
    return shape;
  }
  shape.curve = formats::sniff_curve(file.bytes(), file.name());
  formats::with_curve(shape.curve, [&](auto curve) {
    using Curve = decltype(curve);
    const auto sections = formats::parse_zkey_sections<Curve>(file.bytes(), file.name());
    shape.domain_size = sections.header.domain_size;
    shape.witness_count = sections.header.n_vars;
  });
  if (!source.r1cs.empty()) {
    require_regular_file(source.r1cs, ".r1cs given for the key " + source.key.string());
    check_same_curve(source.key, shape.curve, source.r1cs, formats::sniff_curve(source.r1cs));
    shape.r1cs = source.r1cs;
  }
  return shape;
}

KeyFile KeyFile::open(const KeyFileSource& source, const KeyFileOpenOptions& options) {
  KeyFileShape shape = inspect(source);
  if (shape.format == KeyFormat::kParams) {
    formats::ParamsReadOptions read;
    read.subgroup_check = options.subgroup_check;
    ParamsKey key{formats::read_bellman_params(source.key, read), std::nullopt};
    if (!shape.r1cs.empty() && options.read_matrices) key.r1cs = formats::read_r1cs<BellmanCurve>(shape.r1cs);
    return KeyFile(std::move(shape), source.key.string(), KeyVariant(std::move(key)));
  }
  return formats::with_curve(shape.curve, [&](auto curve) {
    using Curve = decltype(curve);
    formats::ZkeyReadOptions read;
    read.subgroup_check = options.subgroup_check;
    read.coefficients = options.read_matrices;
    ZkeyKey<Curve> key{formats::read_zkey<Curve>(source.key, read), std::nullopt};
    if (!shape.r1cs.empty()) key.r1cs = formats::read_r1cs<Curve>(shape.r1cs);
    return KeyFile(shape, source.key.string(), KeyVariant(std::move(key)));
  });
}

namespace {

// The witness of a key with `wires` wires, parsed and checked, then proved by `prove`.
template <class Curve, class Prove>
KeyFile::HostProof prove_parsed(KeyFormat format, uint64_t wires, std::span<const uint8_t> wtns,
                                const std::string& name, const HostProveOptions& options,
                                Prove&& prove) {
  const auto start = std::chrono::steady_clock::now();
  if (options.on_stage) options.on_stage("reading the witness");
  formats::WtnsReadOptions read;
  read.expected_count = uint32_t(wires);
  const auto witness = formats::parse_wtns<Curve>(wtns, name, read);
  KeyFile::HostProof out;
  out.parse_ms = ms_since(start);
  ProveOptions<Curve> prove_options;
  if (options.blinding) prove_options.blinding = blinding_from_bytes<Curve>(*options.blinding);
  prove_options.on_stage = options.on_stage;
  const ProveResult<Curve> result = prove(witness, prove_options);
  out.timings = result.timings;
  out.proof = encode_proof<Curve>(format, result.proof,
                                  std::span<const typename Curve::Fr>(result.public_inputs));
  return out;
}

}  // namespace

KeyFile::HostProof KeyFile::prove_wtns(std::span<const uint8_t> wtns, const std::string& name,
                                       const HostProveOptions& options) const {
  return visit([&](const auto& key) -> HostProof {
    using Key = std::decay_t<decltype(key)>;
    if constexpr (std::is_same_v<Key, ParamsKey>) {
      if (!key.r1cs) {
        CUZK_INVALID_INPUT(name_ +
                           ": this .params key was opened without its circuit's .r1cs: it "
                           "proves bellman assignments, not .wtns witnesses");
      }
      return prove_parsed<BellmanCurve>(
          format(), key.r1cs->header.n_wires, wtns, name, options,
          [&](const auto& witness, const auto& prove_options) {
            return prove_bellman(key.params, *key.r1cs, std::span<const bls12_381::Fr>(witness),
                                 prove_options);
          });
    } else {
      using Curve = typename Key::Curve;
      return prove_parsed<Curve>(format(), key.zkey.header.n_vars, wtns, name, options,
                                 [&](const auto& witness, auto prove_options) {
                                   if (key.r1cs) prove_options.r1cs = &*key.r1cs;
                                   return prove<Curve>(key.zkey,
                                                       std::span<const typename Curve::Fr>(witness),
                                                       prove_options);
                                 });
    }
  });
}

KeyFile::HostProof KeyFile::prove_assignment(const BellmanAssignmentView& assignment,
                                             const HostProveOptions& options) const {
  const auto* key = std::get_if<ParamsKey>(&key_);
  if (key == nullptr) {
    CUZK_INVALID_INPUT(name_ +
                       ": a bellman assignment is proved with a bellman .params key, not a .zkey");
  }
  ProveOptions<BellmanCurve> prove_options;
  if (options.blinding) {
    prove_options.blinding = blinding_from_bytes<BellmanCurve>(*options.blinding);
  }
  prove_options.on_stage = options.on_stage;
  const ProveResult<BellmanCurve> result =
      prove_bellman_assignment(key->params, assignment, prove_options);
  HostProof out;
  out.timings = result.timings;
  out.proof = encode_proof<BellmanCurve>(format(), result.proof,
                                         std::span<const bls12_381::Fr>(result.public_inputs));
  return out;
}

template Blinding<formats::Bn254> blinding_from_bytes<formats::Bn254>(const BlindingBytes&);
template Blinding<formats::Bls12_381> blinding_from_bytes<formats::Bls12_381>(const BlindingBytes&);
template EncodedProof encode_proof<formats::Bn254>(KeyFormat, const Proof<formats::Bn254>&,
                                                   std::span<const bn254::Fr>);
template EncodedProof encode_proof<formats::Bls12_381>(KeyFormat, const Proof<formats::Bls12_381>&,
                                                       std::span<const bls12_381::Fr>);

}  // namespace cuzk::groth16
