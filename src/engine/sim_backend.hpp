#pragma once
// `sim`: a GPU test double, so that CI (no GPU) exercises the scheduler, the interlock and the
// memory budget with real threads and real time.
//
// Model, per simulated GPU: an upload engine, a download engine and a compute engine, each
// running one operation at a time in the order operations were enqueued; streams run their own
// operations in order and wait for the events they were told to. An operation enqueued at host time
// t on stream S starts at max(t, S's last operation's end, its engine's end of work) and lasts its
// modeled time; nothing sleeps when enqueuing (an enqueue never blocks, like CUDA's), and an event
// completes when the wall clock passes the end of the last operation before it. So kernels of
// different streams serialize on the compute engine and overlap with copies, as on a GPU.
//
// Modeled times and sizes of one partition of a key with C constraints: a VRAM slot of
// slot_bytes_per_constraint·C; upload of the slot at copy_bytes_per_us; three kernels
// (synthesis, NTT, MSM) of kernel_ns_per_constraint·C split 20/30/50; a fixed-size download.
// A key in the pinned tier is streamed: before the MSMs of each compute call, an upload of the
// key's bytes at copy_bytes_per_us. Its works share a group key (the key), and compute_group
// runs the synthesis and NTT of every work of the group, the key's upload once, then every
// work's MSM and download (key_transfers() counts the uploads, compute_calls() the calls).
//
// What it checks (counted in violations(), the first messages kept in violation_messages()):
//   - a slot lies inside the arena carved for its device;
//   - an operation on a slot never starts before the last operation of the slot's previous
//     owner on overlapping bytes has ended (a slot reused without waiting for its fence);
//   - arena + keys resident in the VRAM tier never exceed the device's capacity.
// Witnesses: a partition's output is "sim-proof:" followed by its witness bytes, so a test can
// tell that each result belongs to its input; a witness starting with "bad" is refused by
// prepare with kInvalidInput.
//
// Thread-safety: as Backend. One mutex per simulated device guards its engines and checks.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend.hpp"

namespace cuzk::engine {

struct SimOptions {
  int gpus = 2;
  uint64_t vram_bytes = uint64_t(80) << 30;  // per simulated GPU
  double slot_bytes_per_constraint = 256;
  double host_bytes_per_constraint = 64;
  double key_bytes_per_constraint = 1024;
  double copy_bytes_per_us = 25'000;  // ~25 GB/s
  double kernel_ns_per_constraint = 1.0;
  double download_us = 2;
  double prepare_us = 0;                  // host time of prepare (sleeps)
  double epilogue_us = 0;                 // host time of finish (sleeps)
  double key_load_bytes_per_us = 10'000;  // loading a key sleeps bytes / this
  // VRAM a key kept in a host tier still holds on every GPU (as a cuda key streamed from
  // pinned memory keeps its matrices and NTT domain there); 0: none.
  double host_key_vram_bytes_per_constraint = 0;
};

class SimBackend : public Backend {
 public:
  static std::unique_ptr<SimBackend> create(const SimOptions& options);
  ~SimBackend() override;

  std::string name() const override { return "sim"; }
  int device_count() const override { return options_.gpus; }
  DeviceDescription describe(int device) const override;
  std::vector<KeyTier> key_tiers() const override {
    return {KeyTier::kVram, KeyTier::kPinned, KeyTier::kMmap};
  }
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

  // Checks and counters, for tests and the benchmark.
  uint64_t violations() const;
  std::vector<std::string> violation_messages() const;
  double compute_busy_ms(int device) const;  // modeled kernel time enqueued so far
  uint64_t resident_key_bytes(int device) const;
  // compute / compute_group calls, and modeled transfers of a streamed key, so far.
  uint64_t compute_calls() const;
  uint64_t key_transfers() const;
  // How many times finish() ran for each witness (exactly-once checks).
  std::map<std::string, int> finish_counts() const;

  struct Device;  // sim_backend.cpp

 private:
  explicit SimBackend(const SimOptions& options);
  SimOptions options_;
  std::vector<std::shared_ptr<Device>> devices_;
  mutable std::mutex finish_mutex_;
  std::map<std::string, int> finish_counts_;
  std::atomic<uint64_t> compute_calls_{0}, key_transfers_{0};
  friend class SimWork;
};

}  // namespace cuzk::engine
