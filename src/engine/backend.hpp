#pragma once
// The device abstraction the engine schedules against. Three implementations: `sim` (a GPU
// test double, sim_backend.hpp), `cpu` (the CPU prover, cpu_backend.hpp) and `cuda` (the GPU
// prover, cuda_backend.hpp).
//
// A backend with devices (sim, cuda) runs a partition in four calls, made by one GPU worker:
//   prepare  (host, no lock)       Backend::prepare → PartitionWork: parse the witness, size
//                                  the partition's VRAM slot (vram_bytes)
//   stage    (under gpu.mem)       PartitionWork::stage: enqueue the uploads into the reserved
//                                  slot on the worker's own stream; must not block
//   compute  (under gpu.compute)   PartitionWork::compute: enqueue the kernels and the download
//                                  of the results on the same stream; must not block
//   epilogue (host, no lock)       PartitionWork::finish, after the worker waited for its own
//                                  stream's last event: the proof from the downloaded results
// None of these may make a device-global synchronization, allocation or memory query (the
// calls DESIGN.md §2.1 lists; tests/engine/no_device_sync_test.cpp scans for them): memory
// comes from the arena carved at start-up (carve_vram_arena) and ordering from events.
// A backend without devices (cpu, device_count() == 0) proves on the host in prove_on_host,
// called by the engine's CPU worker pool.
//
// Thread-safety: Backend members are called concurrently by all workers. A Stream is used by
// one worker at a time; Events are immutable once recorded and may be shared between threads
// (a slot's fence event is waited on by the next owner's stream).

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/job.hpp"

namespace cuzk::engine {

class Event {
 public:
  virtual ~Event() = default;
  virtual bool query() const = 0;        // the work before it has completed
  virtual void synchronize() const = 0;  // blocks the calling thread until it has
  // Milliseconds between `earlier` and this event, both completed, of the same backend.
  virtual double elapsed_ms_since(const Event& earlier) const = 0;
};

class Stream {
 public:
  virtual ~Stream() = default;
  virtual int device() const = 0;
  // An event that completes when all work enqueued so far on this stream has.
  virtual std::shared_ptr<Event> record() = 0;
  // Later work of this stream waits for `event` (on the device; the host does not block).
  virtual void wait(const Event& event) = 0;
  virtual void synchronize() = 0;  // this stream only
};

// A range of a device's VRAM arena, owned by one partition from stage to release.
struct VramSlot {
  int device = -1;
  uint64_t offset = 0;
  uint64_t bytes = 0;
  uint64_t owner = 0;  // a unique id of the reservation (sim checks reuse against it)
};

enum class KeyTier : uint8_t { kVram = 0, kPinned = 1, kMmap = 2, kDisk = 3 };
std::string_view key_tier_name(KeyTier tier);  // "vram", "pinned", "mmap", "disk"

// Bytes a loaded key takes from each tier's budget.
using TierBytes = std::map<KeyTier, uint64_t>;

// Where a key comes from: a file (groth16/key_file.hpp: a .zkey, or a bellman .params with its
// circuit's .r1cs), or, for sim, a modeled size. The format and curve are found from the file.
struct KeySource {
  std::filesystem::path path;
  uint64_t sim_constraints = 0;     // sim: the constraints of one partition of this circuit
  std::filesystem::path r1cs = {};  // .params: the .r1cs (empty: the one beside the key);
                                    // .zkey: an optional .r1cs that checks every witness
  // A .params key registered without matrices proves bellman assignments only (the C library
  // for Filecoin's callers); its partitions carry PartitionInput::assignment.
  bool assignments_only = false;
};

// A key loaded into one tier. Immutable after loading; shared by every partition using it.
class LoadedKey {
 public:
  virtual ~LoadedKey() = default;
  virtual uint64_t bytes() const = 0;  // what it occupies in its tier
  virtual KeyTier tier() const = 0;
};

class PartitionWork {
 public:
  virtual ~PartitionWork() = default;
  virtual uint64_t vram_bytes() const = 0;  // the slot this partition needs (≤ the estimate)
  virtual void stage(Stream& stream, const VramSlot& slot) = 0;
  virtual void compute(Stream& stream) = 0;
  virtual PartitionOutput finish() = 0;
  // Whether the work keeps its own complete copy of the witness once prepared. The engine then
  // releases a witness submitted by value, so that a partition in flight holds its witness once
  // in host memory rather than twice.
  virtual bool keeps_witness() const { return false; }
  // The witness as the bytes of a .wtns file, made again from the work's copy: what a
  // partition handed to another GPU after prepare is prepared from there. Called only when
  // keeps_witness() is true.
  virtual std::shared_ptr<const std::vector<uint8_t>> rebuild_witness() const { return nullptr; }
  // Partitions whose works give the same non-null group key may be computed together, by one
  // worker on one stream (compute_group): works of a key streamed from host memory, whose MSMs
  // then move each chunk of the key across PCIe once for the whole group instead of once per
  // partition. Null: computed alone.
  virtual const void* group_key() const { return nullptr; }
  // Enqueues the kernels and downloads of this work and of `others` (same group key, each
  // staged on `stream` into its own slot), as compute() does for one; must not block, except on
  // the works' own events. The default computes each in turn.
  virtual void compute_group(std::span<PartitionWork* const> others, Stream& stream) {
    compute(stream);
    for (PartitionWork* w : others) w->compute(stream);
  }
  double synthesis_ms = 0;  // host time of prepare, for the timings
};

struct DeviceDescription {
  std::string name;
  uint64_t vram_bytes = 0;  // total device memory
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "sim", "cpu", "cuda"
  virtual int device_count() const = 0;
  virtual DeviceDescription describe(int device) const = 0;
  // Tiers this backend can keep keys in, best first.
  virtual std::vector<KeyTier> key_tiers() const = 0;

  // Start-up only: carves `bytes` of the device for the partition arena; throws
  // kResourceExhausted when the device cannot hold them. May allocate (cudaMalloc is allowed
  // here and only here).
  virtual void carve_vram_arena(int device, uint64_t bytes) = 0;
  virtual std::unique_ptr<Stream> create_stream(int device) = 0;

  // What the key takes from each tier's budget once loaded into `tier` (for the key store,
  // before loading): its own bytes in `tier`, and what it needs in other tiers meanwhile — a
  // cuda key streamed from pinned host memory still keeps its matrices and NTT domain in VRAM
  // on every GPU. Empty when this backend cannot keep the key in `tier`. Throws kNotFound /
  // kInvalidInput for a missing or bad file.
  virtual TierBytes key_charges(const KeySource& source, KeyTier tier) const = 0;
  virtual std::shared_ptr<const LoadedKey> load_key(const KeySource& source, KeyTier tier) = 0;

  // Devices: host-side preparation of one partition (throws kInvalidInput for a bad witness).
  virtual std::unique_ptr<PartitionWork> prepare(const LoadedKey& key, const PartitionInput& input,
                                                 int device) = 0;
  // No devices: the whole proof on the host. Checks `cancelled` between its stages and
  // returns early (the engine discards the output) when it is set.
  virtual PartitionOutput prove_on_host(const LoadedKey& key, const PartitionInput& input,
                                        const std::atomic<bool>& cancelled, StageTimes& times) = 0;
  // What one partition of a key needs while it runs: host memory (from taking it off the queue
  // to its completion) and its VRAM slot (devices only; 0 for cpu; the largest over the tiers
  // the key may be loaded into). Known before the key is loaded, so that submit can refuse a
  // job that can never fit.
  virtual uint64_t partition_host_bytes(const KeySource& source) const = 0;
  virtual uint64_t partition_vram_bytes(const KeySource& source) const = 0;
};

}  // namespace cuzk::engine
