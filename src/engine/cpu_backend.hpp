#pragma once
// `cpu`: the engine on machines without a GPU. No devices; the engine's CPU worker pool calls
// prove_on_host, which runs the reference prover on a key held in host memory: groth16::prove
// on a .zkey, groth16::prove_bellman on a bellman .params with its .r1cs (key_files.hpp). A
// key's tier is reported as `pinned` (host memory; the cpu backend does not page-lock it).
// Witnesses are .wtns bytes; the proof is snarkjs's proof.json text (.zkey) or the bellman
// proof's hex text (.params), and the public inputs public.json text. Every proof is verified against the key before it is
// returned (groth16::prove does), so a witness that does not satisfy the circuit fails its
// partition with kInvalidInput.
//
// Thread-safety: as Backend; each proof uses the calling worker thread and oneTBB's workers.

#include <map>
#include <memory>
#include <mutex>

#include "engine/backend.hpp"

namespace cuzk::engine {

struct CpuOptions {
  // Subgroup checks of every key point when loading (hours for Filecoin-size keys; keys this
  // engine made or already checked may skip them, as `cuzk prove` does).
  bool check_key_subgroups = true;
};

class CpuBackend : public Backend {
 public:
  static std::unique_ptr<CpuBackend> create(const CpuOptions& options);

  std::string name() const override { return "cpu"; }
  int device_count() const override { return 0; }
  DeviceDescription describe(int device) const override;
  std::vector<KeyTier> key_tiers() const override { return {KeyTier::kPinned}; }
  void carve_vram_arena(int device, uint64_t bytes) override;
  std::unique_ptr<Stream> create_stream(int device) override;
  TierBytes key_charges(const KeySource& source, KeyTier tier) const override;
  std::shared_ptr<const LoadedKey> load_key(const KeySource& source, KeyTier tier) override;
  std::unique_ptr<PartitionWork> prepare(const LoadedKey& key, const PartitionInput& input,
                                         int device) override;
  PartitionOutput prove_on_host(const LoadedKey& key, const PartitionInput& input,
                                const std::atomic<bool>& cancelled, StageTimes& times) override;
  uint64_t partition_host_bytes(const KeySource& source) const override;
  uint64_t partition_vram_bytes(const KeySource&) const override { return 0; }

 private:
  explicit CpuBackend(const CpuOptions& options) : options_(options) {}
  struct KeyShape {
    uint64_t file_bytes = 0, domain_size = 0, n_vars = 0;
  };
  KeyShape shape(const KeySource& source) const;  // cached per path

  CpuOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, KeyShape> shapes_;
};

}  // namespace cuzk::engine
