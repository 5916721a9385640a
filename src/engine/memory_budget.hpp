#pragma once
// Admission control for memory (DESIGN.md §2.1 rule 3): host RAM for partitions in flight, and
// one VRAM arena per GPU from which each partition reserves its slot before it stages.
//
// HostBudget   a byte counter against a capacity: /proc/meminfo's MemTotal minus a margin,
//              or a given size. A partition reserves its host bytes when a worker takes it.
// VramArena    a first-fit sub-allocator over the arena carved from the device at start-up
//              (offsets; the backend maps them to addresses). release() hands a slot back
//              with a fence event (recorded after the last kernel that reads it); a later
//              reservation of overlapping bytes returns those fences, and its owner makes its
//              stream wait on them before the first upload (Stream::wait, no host blocking and
//              no device-wide synchronization). Fences are dropped once they have completed.
// A request larger than a capacity can never be served and throws kResourceExhausted at once;
// otherwise reserve() blocks until the bytes are free or `stop` says to give up. In-use bytes
// never exceed the capacity, so VRAM cannot be over-committed by concurrency.
//
// Thread-safety: all members of both classes may be called from any thread. MemoryBudget owns
// its HostBudget and arenas; they live as long as it does.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/backend.hpp"

namespace cuzk::engine {

// A predicate polled while blocking: true means give up (shutdown, cancelled job).
using StopPredicate = std::function<bool()>;

// MemTotal of /proc/meminfo in bytes; 0 when it cannot be read.
uint64_t detect_host_ram_bytes();

// The VRAM key budget per GPU when none is configured, for a GPU of `device_bytes`: the arena
// keeps room for `workers` partitions of the largest slot among the keys known at start-up
// plus the margin, and keys get the rest, so that a key which fits beside its partitions stays
// in VRAM (a 2^27 PoRep key of ~81 GB on an H200, next to two 25 GB slots) instead of being
// streamed. With no key known (largest_slot_bytes 0), or when that would leave keys less than
// half of the device, half of it.
uint64_t default_vram_key_budget(uint64_t device_bytes, uint64_t margin_bytes, int workers,
                                 uint64_t largest_slot_bytes);

class HostBudget {
 public:
  explicit HostBudget(uint64_t capacity) : capacity_(capacity) {}
  // true when reserved; false when `stop` became true first.
  bool reserve(uint64_t bytes, const StopPredicate& stop);
  // The same without waiting: false when the bytes are not free now.
  bool try_reserve(uint64_t bytes);
  void release(uint64_t bytes);
  uint64_t capacity() const { return capacity_; }
  uint64_t in_use() const;
  uint64_t peak() const;

 private:
  const uint64_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t in_use_ = 0, peak_ = 0;
};

class VramArena {
 public:
  static constexpr uint64_t kAlignment = 256;  // slots start on 256-byte boundaries (cudaMalloc's)

  VramArena(int device, uint64_t capacity) : device_(device), capacity_(capacity) {
    if (capacity_ > 0) free_[0] = capacity_;
  }

  struct Reservation {
    VramSlot slot;
    // Events the owner's stream must wait on before touching the slot.
    std::vector<std::shared_ptr<const Event>> fences;
  };
  std::optional<Reservation> try_reserve(uint64_t bytes);
  // Blocks until reserved; nullopt when `stop` became true first.
  std::optional<Reservation> reserve(uint64_t bytes, const StopPredicate& stop);
  // `fence` completes after the last device work that reads or writes the slot; null when no
  // device work was enqueued for it.
  void release(const VramSlot& slot, std::shared_ptr<const Event> fence);

  int device() const { return device_; }
  uint64_t capacity() const { return capacity_; }
  uint64_t in_use() const;
  uint64_t peak() const;
  size_t pending_fences() const;

 private:
  struct Fence {
    uint64_t offset, bytes;
    std::shared_ptr<const Event> event;
  };
  std::optional<Reservation> allocate_locked(uint64_t bytes);

  const int device_;
  const uint64_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<uint64_t, uint64_t> free_;  // offset → length, coalesced
  std::vector<Fence> fences_;
  uint64_t in_use_ = 0, peak_ = 0, next_owner_ = 1;
};

class MemoryBudget {
 public:
  struct Options {
    uint64_t host_bytes = 0;  // 0: MemTotal minus the margin
    uint64_t host_margin_bytes = uint64_t(4) << 30;
    std::vector<uint64_t> vram_arena_bytes;  // one per device
  };
  // Throws kInvalidInput when the host size is 0 after detection (no /proc/meminfo and no
  // override) or the margin exceeds the RAM.
  static std::unique_ptr<MemoryBudget> create(const Options& options);

  HostBudget& host() { return *host_; }
  VramArena& vram(int device) { return *arenas_.at(size_t(device)); }
  int devices() const { return int(arenas_.size()); }

 private:
  MemoryBudget() = default;
  std::unique_ptr<HostBudget> host_;
  std::vector<std::unique_ptr<VramArena>> arenas_;
};

}  // namespace cuzk::engine
