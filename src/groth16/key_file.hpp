#pragma once
// A proving key file, opened once: the one place that tells key formats and curves apart
// (DESIGN.md §4). Every prover — the CPU backend, the cuda backend, and through the engine the
// CLI, the daemon and the C library — opens keys here and proves or encodes through it.
//
//   .zkey    snarkjs, BN254 or BLS12-381: the key and its coefficient section (A and B
//            matrices). An .r1cs may be given to check witnesses constraint by constraint.
//   .params  bellman/Filecoin, BLS12-381: the key only. Its circuit's .r1cs (the matrices) is
//            the one given, else the file beside the key with the same stem; a key opened
//            without matrices (KeyFileSource::matrices = kNone) proves from bellman
//            assignments only (bellman_assignment.hpp).
//
// Proofs leave encoded (EncodedProof): snarkjs proof.json text for a .zkey, bellman's
// 192-byte compressed proof for a .params; public inputs as public.json text for both.
//
// Thread-safety: a KeyFile is immutable once opened; concurrent proofs may share it.

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "formats/curve_id.hpp"
#include "formats/mapped_file.hpp"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/blinding_bytes.hpp"
#include "groth16/prover.hpp"
#include "io/point_common.hpp"

namespace cuzk::groth16 {

enum class KeyFormat { kZkey, kParams };
const char* key_format_name(KeyFormat format);  // "zkey" or "params"

// By content: the "zkey" magic makes a .zkey; a file that begins like an uncompressed zcash G1
// point (its three flag bits clear) and is at least as long as a verifying key is taken for a
// bellman .params (its reader then checks everything). kNotFound for a missing file,
// kInvalidInput for anything else or a file that is not a regular file.
KeyFormat detect_key_format(const std::filesystem::path& key_path);

// kInvalidInput "<path>: not a bellman .params key (...)" unless the file is one by content
// (detect_key_format); kNotFound for a missing file. For callers that take .params keys only.
void require_params_key(const std::filesystem::path& path);

// Whether a file name is a key file's by its extension (.zkey or .params), for listing a
// directory of keys (a .params's .r1cs sits beside it by the same stem).
bool is_key_file_name(const std::filesystem::path& path);

// The format a development setup writes: `name` ("zkey" or "params") when given, else by the
// key's extension (.params is bellman, anything else a .zkey).
KeyFormat key_format_for_setup(const std::string& name, const std::filesystem::path& key_path);
// The verification key a setup writes beside its key when none is named:
// verification_key.json for a .zkey, <key>.vk for a .params.
std::filesystem::path default_verification_key_path(KeyFormat format,
                                                    const std::filesystem::path& key_path);

enum class ProofFormat : uint8_t {
  kSnarkjsJson = 1,  // proof.json text
  kBellman = 2,      // the 192-byte compressed bellman proof
};
const char* proof_format_name(ProofFormat format);  // "snarkjs_json", "bellman"
// The file a proof of this format is written to when none is named.
const char* default_proof_file_name(ProofFormat format);  // "proof.json", "proof.bin"

struct EncodedProof {
  ProofFormat format = ProofFormat::kSnarkjsJson;
  std::vector<uint8_t> bytes;
  std::string public_json;  // public.json text
};

// How a key's circuit matrices are found (they give a .params key its circuit; for a .zkey an
// .r1cs is optional and only checks witnesses).
enum class Matrices : uint8_t {
  kRequired,  // .params: the .r1cs given, else the one beside the key; missing is an error
  kNone,      // .params: no matrices; proofs from bellman assignments only
};

struct KeyFileSource {
  std::filesystem::path key;
  std::filesystem::path r1cs = {};  // empty: .zkey none, .params the one beside the key
  Matrices matrices = Matrices::kRequired;
};

// What a key file holds, from its headers only (no point decoded): enough to budget memory
// before loading.
struct KeyFileShape {
  KeyFormat format = KeyFormat::kZkey;
  formats::CurveId curve = formats::CurveId::kBn254;
  std::filesystem::path r1cs;  // the matrices' file for a .params (empty: none)
  uint64_t file_bytes = 0;     // the key's file, plus its .r1cs for a .params
  uint64_t domain_size = 0;    // the NTT domain of one partition
  uint64_t witness_count = 0;  // wires of a witness (0: a .params without matrices)
};

// The decoded key: one alternative per format and curve.
template <class C>
struct ZkeyKey {
  using Curve = C;
  formats::Groth16Zkey<Curve> zkey;
  std::optional<formats::R1cs<Curve>> r1cs;  // checks witnesses when present
};
struct ParamsKey {
  formats::BellmanParams params;
  // none: assignments only, or opened without its matrices (KeyFileOpenOptions::read_matrices)
  std::optional<formats::R1cs<BellmanCurve>> r1cs;
};
using KeyVariant = std::variant<ZkeyKey<formats::Bn254>, ZkeyKey<formats::Bls12_381>, ParamsKey>;

template <class Curve>
Blinding<Curve> blinding_from_bytes(const BlindingBytes& bytes);

struct HostProveOptions {
  std::optional<BlindingBytes> blinding;  // nullopt: drawn from the system CSPRNG
  // Called with the name of each stage as it starts, on the proving thread; it may throw to
  // abandon the proof at that boundary (cancellation).
  std::function<void(const char* stage)> on_stage;
};

struct KeyFileOpenOptions {
  // Subgroup checks of every key point (hours for Filecoin-size keys); points are always
  // checked to be on their curve, and every proof is verified before it is returned.
  io::SubgroupCheck subgroup_check = io::SubgroupCheck::kOff;
  // false: the caller has built the circuit's matrices already (from visit_layout), so a
  // .zkey's coefficient section is not decoded (zkey.coefficients stays empty) and a .params's
  // .r1cs is not read (r1cs stays empty). A .zkey's own .r1cs, which checks witnesses, is read.
  bool read_matrices = true;
};

// A key's layout without its points, for budgeting before a load: a .zkey's sections (views
// into the mapped file) with its decoded coefficients, or a .params's layout with its
// circuit's matrices (none for Matrices::kNone).
template <class C>
struct ZkeyLayout {
  using Curve = C;
  const formats::ZkeySections<Curve>& sections;
  std::vector<formats::ZkeyCoefficient<typename Curve::Fr>> coefficients;
};
struct ParamsLayout {
  const formats::BellmanParamsLayout& layout;
  std::optional<formats::R1cs<BellmanCurve>> r1cs;
};

class KeyFile {
 public:
  // Calls fn with the key's layout (const ZkeyLayout<Curve>& or const ParamsLayout&), the file
  // mapped for the duration of the call.
  template <class Fn>
  static void visit_layout(const KeyFileSource& source, Fn&& fn);

  // The shape, cheaply (headers only). kNotFound / kInvalidInput naming the file.
  static KeyFileShape inspect(const KeyFileSource& source);
  static KeyFile open(const KeyFileSource& source, const KeyFileOpenOptions& options = {});

  const KeyFileShape& shape() const { return shape_; }
  KeyFormat format() const { return shape_.format; }
  formats::CurveId curve() const { return shape_.curve; }
  const std::string& name() const { return name_; }
  const KeyVariant& key() const { return key_; }

  // Calls fn with the decoded key's alternative (const ZkeyKey<Curve>& or const ParamsKey&).
  template <class Fn>
  decltype(auto) visit(Fn&& fn) const {
    return std::visit(std::forward<Fn>(fn), key_);
  }

  // One proof on the host from the bytes of a .wtns (`name` names it in messages): the
  // witness is parsed and checked (length, curve, constant wire; the .r1cs when the key has
  // one), proved, verified against the key and encoded. Throws kInvalidInput for a bad
  // witness, naming the problem.
  struct HostProof {
    EncodedProof proof;
    double parse_ms = 0;
    ProveTimings timings;
  };
  HostProof prove_wtns(std::span<const uint8_t> wtns, const std::string& name,
                       const HostProveOptions& options = {}) const;
  // One proof on the host from a bellman assignment (bellman_assignment.hpp): a .params key
  // only, with or without its matrices. Throws kInvalidInput for a .zkey or an assignment that
  // does not fit the key (check_bellman_assignment's messages) or does not satisfy it.
  HostProof prove_assignment(const BellmanAssignmentView& assignment,
                             const HostProveOptions& options = {}) const;

 private:
  KeyFile(KeyFileShape shape, std::string name, KeyVariant key)
      : shape_(std::move(shape)), name_(std::move(name)), key_(std::move(key)) {}
  KeyFileShape shape_;
  std::string name_;
  KeyVariant key_;
};

template <class Fn>
void KeyFile::visit_layout(const KeyFileSource& source, Fn&& fn) {
  const KeyFileShape shape = inspect(source);
  const formats::MappedFile file = formats::MappedFile::open(source.key);
  if (shape.format == KeyFormat::kParams) {
    const auto layout = formats::parse_bellman_params_layout(file.bytes(), file.name());
    ParamsLayout params{layout, std::nullopt};
    if (!shape.r1cs.empty()) params.r1cs = formats::read_r1cs<BellmanCurve>(shape.r1cs);
    fn(std::as_const(params));
    return;
  }
  formats::with_curve(shape.curve, [&](auto curve) {
    using Curve = decltype(curve);
    const auto sections = formats::parse_zkey_sections<Curve>(file.bytes(), file.name());
    const ZkeyLayout<Curve> zkey{sections, formats::decode_coefficients<Curve>(sections)};
    fn(zkey);
  });
}

// A proof's encoding for a key of `format` (bellman's is BLS12-381 only: kInvalidInput
// otherwise), with the public inputs as public.json text.
template <class Curve>
EncodedProof encode_proof(KeyFormat format, const Proof<Curve>& proof,
                          std::span<const typename Curve::Fr> public_inputs);

}  // namespace cuzk::groth16
