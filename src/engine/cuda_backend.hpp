#pragma once
// `cuda`: the engine on NVIDIA GPUs, through the GPU prover (src/gpu/prover). Built only where
// nvcc was found (CUZK_WITH_CUDA_BACKEND); made by make_backend (backend_factory.hpp), the
// only includer outside the engine's tests, so that no layer above sees the GPU prover.
//
// Keys: snarkjs .zkey files, or bellman .params files with their circuit's .r1cs
// (groth16/key_file.hpp), on every device: the constraint matrices (from the .zkey's coefficient
// section or the .r1cs) and the NTT domain always in VRAM (gpu/prover/resident_circuit.hpp); the
// five point queries either in VRAM too (KeyTier::kVram), or, for a key the VRAM budget cannot
// hold, once in pinned host memory (KeyTier::kPinned), shared by every device, each MSM
// streaming its bases through two staging buffers of the partition's slot. The key store picks
// the tier from its budgets (VRAM first); budgets are the override. key_charges() decodes
// only the header and the coefficient section, so the budgets are exact before anything is
// uploaded (a .params key's matrices are sized from its .r1cs): a pinned key charges its points
// to the pinned budget and its matrices and domain to the VRAM budget (on every GPU).
//
// A partition, in the four calls of backend.hpp:
//   prepare   the .wtns bytes, checked, into a pinned staging buffer (no lock)
//   stage     the partition's buffers placed in its slot of the arena; the witness upload
//   compute   synthesis, H, the five MSMs and the download of their sums into pinned memory
//   finish    the epilogue and the verification of the proof against the key (a witness that
//             does not satisfy the circuit fails here with kInvalidInput)
// The pinned staging buffers (witness, sums, timing events) belong to the loaded key, one per
// partition in flight on each device, reused: CudaOptions::staging_per_device of them are made
// when the key is loaded, more on demand (pinned allocation). Outputs: snarkjs proof.json text
// (.zkey) or the bellman proof's hex text (.params), and public.json text.
//
// Start-up and shutdown calls that allocate or query the device (the arena, device
// properties) live in cuda_startup.cpp, the only file of the engine allowed them
// (tests/engine/no_device_sync_test.cpp).
//
// Thread-safety: as Backend.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/backend_factory.hpp"
#include "gpu/prover/resident_circuit.hpp"

namespace cuzk::engine {

// The VRAM one key and its partitions take on each device.
struct CudaKeyShape {
  uint64_t circuit_bytes = 0;        // matrices and NTT domain, on each device
  uint64_t points_bytes = 0;         // the five queries, in VRAM or pinned memory
  gpu::prover::HTableShape h_table;  // the H table of a key in VRAM (rows 0: none)
  uint64_t h_table_bytes = 0;        // the VRAM it adds to the key
  uint64_t partition_bytes = 0;      // one partition's slot (the largest of its layouts)
  uint64_t witness_bytes = 0;        // the pinned witness
};

// CudaOptions::h_tables's rule (gpu::prover::h_table_fits): the key with its table and
// `partitions` slots of the shape's partition size fit in device_vram_bytes.
inline bool h_table_fits(const CudaKeyShape& with_table, int partitions,
                         uint64_t device_vram_bytes) {
  return gpu::prover::h_table_fits(
      with_table.circuit_bytes + with_table.points_bytes + with_table.h_table_bytes,
      with_table.partition_bytes, partitions, device_vram_bytes);
}

class CudaBackend : public Backend {
 public:
  // Throws kNotFound when no CUDA device is usable.
  static std::unique_ptr<CudaBackend> create(const CudaOptions& options);
  ~CudaBackend() override;  // frees the arenas (after the engine stopped its workers)

  std::string name() const override { return "cuda"; }
  int device_count() const override { return int(devices_.size()); }
  DeviceDescription describe(int device) const override;
  std::vector<KeyTier> key_tiers() const override { return {KeyTier::kVram, KeyTier::kPinned}; }
  void carve_vram_arena(int device, uint64_t bytes) override;
  std::unique_ptr<Stream> create_stream(int device) override;
  TierBytes key_charges(const KeySource& source, KeyTier tier) const override;
  std::shared_ptr<const LoadedKey> load_key(const KeySource& source, KeyTier tier) override;
  std::unique_ptr<PartitionWork> prepare(const LoadedKey& key, const PartitionInput& input,
                                         int device) override;
  PartitionOutput prove_on_host(const LoadedKey& key, const PartitionInput& input,
                                const std::atomic<bool>& cancelled, StageTimes& times) override;
  uint64_t partition_host_bytes(const KeySource& source) const override;
  uint64_t partition_vram_bytes(const KeySource& source) const override;

  // The arena's base address on `device` (null before carve_vram_arena).
  std::byte* arena_base(int device) const { return devices_.at(size_t(device)).arena; }

  // What key_charges() learned of a key (cached per path).
  using KeyShape = CudaKeyShape;

 private:
  explicit CudaBackend(const CudaOptions& options) : options_(options) {}
  KeyShape shape(const KeySource& source) const;

  // The matrices shape() built for the last key it measured, kept for load_key to upload
  // instead of building them again (the keys of the daemon and of `cuzk prove` are measured
  // for their budgets, then loaded). One entry only: a daemon that registers many keys holds
  // the matrices of one at most, until it loads it or measures another.
  struct BuiltCircuit;
  std::shared_ptr<BuiltCircuit> take_built(const KeySource& source) const;
  uint64_t smallest_vram_bytes() const;  // of the devices' total memory

  struct Device {
    DeviceDescription description;
    std::byte* arena = nullptr;
    uint64_t arena_bytes = 0;
  };
  CudaOptions options_;
  std::vector<Device> devices_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, KeyShape> shapes_;
  mutable std::shared_ptr<BuiltCircuit> last_built_;
};

}  // namespace cuzk::engine
