#pragma once
// `cpu`: the engine on machines without a GPU. No devices; the engine's CPU worker pool calls
// prove_on_host, which proves on a key held in host memory through groth16::KeyFile (a .zkey,
// or a bellman .params with its .r1cs). A key's tier is reported as `pinned` (host memory; the
// cpu backend does not page-lock it). Witnesses are .wtns bytes; the proof is in the key's
// format (snarkjs proof.json text, or bellman's 192 bytes), the public inputs public.json
// text. Every proof is verified against the key before it is returned, so a witness that does
// not satisfy the circuit fails its partition with kInvalidInput.
//
// Thread-safety: as Backend; each proof uses the calling worker thread and oneTBB's workers.

#include <map>
#include <memory>
#include <mutex>

#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "groth16/key_file.hpp"

namespace cuzk::engine {

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
  groth16::KeyFileShape shape(const KeySource& source) const;  // cached per path

  CpuOptions options_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, groth16::KeyFileShape> shapes_;
};

}  // namespace cuzk::engine
