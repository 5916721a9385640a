#include "engine/cpu_backend.hpp"

#include <chrono>
#include <variant>

#include "engine/key_files.hpp"
#include "engine/witness_input.hpp"
#include "formats/curve.hpp"
#include "formats/mapped_file.hpp"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/bellman.hpp"
#include "groth16/json.hpp"
#include "groth16/prover.hpp"
#include "groth16/setup.hpp"

namespace cuzk::engine {
namespace {

// A bellman .params key and its circuit's matrices.
struct BellmanKey {
  formats::BellmanParams params;
  formats::R1cs<groth16::BellmanCurve> r1cs;
};

class CpuKey : public LoadedKey {
 public:
  using Variant = std::variant<formats::Groth16Zkey<formats::Bn254>,
                               formats::Groth16Zkey<formats::Bls12_381>, BellmanKey>;
  CpuKey(Variant key, uint64_t bytes) : key_(std::move(key)), bytes_(bytes) {}
  uint64_t bytes() const override { return bytes_; }
  KeyTier tier() const override { return KeyTier::kPinned; }
  const Variant& key() const { return key_; }

 private:
  Variant key_;
  uint64_t bytes_;
};

// Prover options that stop at the next stage boundary once `cancelled` is set.
template <class Curve>
groth16::ProveOptions<Curve> stop_on(const std::atomic<bool>& cancelled) {
  groth16::ProveOptions<Curve> options;
  options.cancel = &cancelled;
  return options;
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One proof: the witness of `wires` values is parsed (synthesis), then prove(witness) gives a
// ProveResult and proof_text its proof's text. `cancelled` is looked at before proving and by
// the prover at each stage boundary (prove_on_host returns no output then); the caller looks
// again after.
template <class Curve, class Prove, class ProofText>
PartitionOutput prove_witness(uint32_t wires, const PartitionInput& input,
                              const std::atomic<bool>& cancelled, StageTimes& times, Prove&& prove,
                              ProofText&& proof_text) {
  const auto t0 = Clock::now();
  formats::WtnsReadOptions read;
  read.expected_count = wires;
  read.threads = 1;
  const WitnessView wtns = WitnessView::of(input);
  const auto witness = formats::parse_wtns<Curve>(wtns.bytes(), wtns.name(), read);
  times.synthesis_ms += ms_since(t0);
  if (cancelled.load()) return {};
  const auto result = prove(witness);
  const auto& t = result.timings;
  times.synthesis_ms += t.witness_check_ms + t.abc_ms;
  times.gpu_ms += t.h_ms + t.msm_a_ms + t.msm_b1_ms + t.msm_b2_ms + t.msm_c_ms + t.msm_h_ms;
  times.epilogue_ms += t.epilogue_ms + t.self_verify_ms;
  return {proof_text(result.proof),
          groth16::snarkjs_text(groth16::public_inputs_to_json<Curve>(result.public_inputs))};
}

// A .zkey key: groth16::prove, the proof as proof.json text.
template <class Curve>
PartitionOutput prove_with(const formats::Groth16Zkey<Curve>& zkey, const PartitionInput& input,
                           const std::atomic<bool>& cancelled, StageTimes& times) {
  return prove_witness<Curve>(
      zkey.header.n_vars, input, cancelled, times,
      [&](const auto& witness) {
        return groth16::prove<Curve>(zkey, witness, stop_on<Curve>(cancelled));
      },
      [](const auto& proof) {
        return groth16::snarkjs_text(groth16::proof_to_json<Curve>(proof));
      });
}

// A .params key: the witness is checked against the .r1cs, then groth16::prove_bellman; the
// proof as bellman_proof_text.
PartitionOutput prove_with(const BellmanKey& key, const PartitionInput& input,
                           const std::atomic<bool>& cancelled, StageTimes& times) {
  return prove_witness<groth16::BellmanCurve>(
      key.r1cs.header.n_wires, input, cancelled, times,
      [&](const auto& witness) {
        return groth16::prove_bellman(key.params, key.r1cs, witness,
                                      stop_on<groth16::BellmanCurve>(cancelled));
      },
      [](const auto& proof) { return bellman_proof_text(proof); });
}

}  // namespace

std::unique_ptr<CpuBackend> CpuBackend::create(const CpuOptions& options) {
  return std::unique_ptr<CpuBackend>(new CpuBackend(options));
}

DeviceDescription CpuBackend::describe(int) const {
  CUZK_THROW(ErrorKind::kInternal, "cpu backend: there are no devices");
}

void CpuBackend::carve_vram_arena(int, uint64_t) {
  CUZK_THROW(ErrorKind::kInternal, "cpu backend: there are no devices");
}

std::unique_ptr<Stream> CpuBackend::create_stream(int) {
  CUZK_THROW(ErrorKind::kInternal, "cpu backend: there are no devices");
}

std::unique_ptr<PartitionWork> CpuBackend::prepare(const LoadedKey&, const PartitionInput&, int) {
  CUZK_THROW(ErrorKind::kInternal, "cpu backend: partitions run in prove_on_host");
}

CpuBackend::KeyShape CpuBackend::shape(const KeySource& source) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = shapes_.find(source.path.string()); it != shapes_.end()) return it->second;
  }
  KeyShape shape;
  if (key_file_format(source) == groth16::KeyFormat::kParams) {
    // The decoded key and the circuit's matrices take about what their files do.
    const auto r1cs_path = bellman_r1cs_path(source);
    auto r1cs = formats::MappedFile::open(r1cs_path);
    const auto header = formats::parse_r1cs_header(r1cs.bytes(), r1cs.name());
    shape.file_bytes = std::filesystem::file_size(source.path) + r1cs.size();
    shape.domain_size =
        uint64_t(1) << groth16::snarkjs_domain_log_size(header.n_constraints, header.n_public());
    shape.n_vars = header.n_wires;
  } else {
    auto file = formats::MappedFile::open(source.path);
    shape.file_bytes = file.size();
    formats::with_curve(formats::sniff_curve(file.bytes(), source.path.string()), [&](auto curve) {
      using Curve = decltype(curve);
      auto sections = formats::parse_zkey_sections<Curve>(file.bytes(), source.path.string());
      shape.domain_size = sections.header.domain_size;
      shape.n_vars = sections.header.n_vars;
    });
  }
  std::lock_guard lock(mutex_);
  shapes_[source.path.string()] = shape;
  return shape;
}

TierBytes CpuBackend::key_charges(const KeySource& source, KeyTier tier) const {
  // The decoded key takes about what the file does (points are stored as they are in memory).
  if (tier != KeyTier::kPinned) return {};
  return {{KeyTier::kPinned, shape(source).file_bytes}};
}

uint64_t CpuBackend::partition_host_bytes(const KeySource& source) const {
  // The witness and its copies (~3 per wire) and a, b, c with their odd-coset images and the
  // H scalars (~8 per row of the domain), 32..48-byte elements: counted at 48 bytes.
  const KeyShape s = shape(source);
  return 48 * (3 * s.n_vars + 8 * s.domain_size);
}

std::shared_ptr<const LoadedKey> CpuBackend::load_key(const KeySource& source, KeyTier tier) {
  if (tier != KeyTier::kPinned) {
    CUZK_THROW(ErrorKind::kInternal, "cpu backend: keys live in host memory only");
  }
  formats::ZkeyReadOptions read;
  read.subgroup_check =
      options_.check_key_subgroups ? io::SubgroupCheck::kOn : io::SubgroupCheck::kOff;
  const uint64_t bytes = shape(source).file_bytes;
  if (key_file_format(source) == groth16::KeyFormat::kParams) {
    formats::ParamsReadOptions params_read;
    params_read.subgroup_check = read.subgroup_check;
    BellmanKey key{formats::read_bellman_params(source.path, params_read),
                   formats::read_r1cs<groth16::BellmanCurve>(bellman_r1cs_path(source))};
    return std::make_shared<CpuKey>(std::move(key), bytes);
  }
  return formats::with_curve(formats::sniff_curve(source.path), [&](auto curve) {
    using Curve = decltype(curve);
    return std::shared_ptr<const LoadedKey>(
        std::make_shared<CpuKey>(formats::read_zkey<Curve>(source.path, read), bytes));
  });
}

PartitionOutput CpuBackend::prove_on_host(const LoadedKey& key, const PartitionInput& input,
                                          const std::atomic<bool>& cancelled, StageTimes& times) {
  try {
    return std::visit([&](const auto& k) { return prove_with(k, input, cancelled, times); },
                      dynamic_cast<const CpuKey&>(key).key());
  } catch (const groth16::ProveCancelled&) {
    return {};  // stopped at a stage boundary: the worker settles the partition as cancelled
  }
}

}  // namespace cuzk::engine
