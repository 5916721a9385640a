#include "engine/cpu_backend.hpp"

#include <chrono>

#include "engine/key_source.hpp"
#include "engine/witness_input.hpp"
#include "groth16/key_file.hpp"

namespace cuzk::engine {
namespace {

class CpuKey : public LoadedKey {
 public:
  CpuKey(groth16::KeyFile key, uint64_t bytes) : key_(std::move(key)), bytes_(bytes) {}
  uint64_t bytes() const override { return bytes_; }
  KeyTier tier() const override { return KeyTier::kPinned; }
  const groth16::KeyFile& key() const { return key_; }

 private:
  groth16::KeyFile key_;
  uint64_t bytes_;
};

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Thrown from a stage boundary of a cancelled proof; prove_on_host returns early.
struct StoppedAtStage {};

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

groth16::KeyFileShape CpuBackend::shape(const KeySource& source) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = shapes_.find(source.path.string()); it != shapes_.end()) return it->second;
  }
  const groth16::KeyFileShape shape = groth16::KeyFile::inspect(key_file_source(source));
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
  const groth16::KeyFileShape s = shape(source);
  return 48 * (3 * s.witness_count + 8 * s.domain_size);
}

std::shared_ptr<const LoadedKey> CpuBackend::load_key(const KeySource& source, KeyTier tier) {
  if (tier != KeyTier::kPinned) {
    CUZK_THROW(ErrorKind::kInternal, "cpu backend: keys live in host memory only");
  }
  groth16::KeyFileOpenOptions open;
  open.subgroup_check =
      options_.check_key_subgroups ? io::SubgroupCheck::kOn : io::SubgroupCheck::kOff;
  return std::make_shared<CpuKey>(groth16::KeyFile::open(key_file_source(source), open),
                                  shape(source).file_bytes);
}

PartitionOutput CpuBackend::prove_on_host(const LoadedKey& key, const PartitionInput& input,
                                          const std::atomic<bool>& cancelled, StageTimes& times) {
  const auto& key_file = dynamic_cast<const CpuKey&>(key).key();
  const auto start = Clock::now();
  groth16::HostProveOptions options;
  options.blinding = input.blinding;
  // The proof's stages cannot be interrupted; a cancellation stops it at the next boundary.
  options.on_stage = [&cancelled](const char*) {
    if (cancelled.load()) throw StoppedAtStage{};
  };
  groth16::KeyFile::HostProof proved;
  try {
    if (input.assignment) {
      proved = key_file.prove_assignment(*input.assignment, options);
    } else {
      const WitnessView wtns = WitnessView::of(input);
      proved = key_file.prove_wtns(wtns.bytes(), wtns.name(), options);
    }
  } catch (const StoppedAtStage&) {
    times.synthesis_ms += ms_since(start);
    return {};
  }
  const auto& t = proved.timings;
  times.synthesis_ms += proved.parse_ms + t.witness_check_ms + t.abc_ms;
  times.gpu_ms += t.h_ms + t.msm_a_ms + t.msm_b1_ms + t.msm_b2_ms + t.msm_c_ms + t.msm_h_ms;
  times.epilogue_ms += t.epilogue_ms + t.self_verify_ms;
  return {ProofFormat(proved.proof.format), std::move(proved.proof.bytes),
          std::move(proved.proof.public_json)};
}

}  // namespace cuzk::engine
