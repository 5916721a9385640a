#pragma once
// Proving keys by id, resident in one tier each: VRAM (on every GPU), pinned host memory,
// mmap, or disk (not loaded). Each tier has a byte budget. A key is loaded on first use (or by
// preload) into the best tier the backend offers whose budgets can take it, evicting the least
// recently used keys that are not in use; a key in use (a KeyHandle alive) is never evicted.
// A key may charge several budgets (Backend::key_charges): a cuda key streamed from pinned
// memory takes its points from the pinned budget and its matrices from the VRAM budget, so
// loading it may evict a VRAM key, and it fits only where every one of its charges does.
// A load runs on the calling thread without the store's lock, so proofs of other keys go on;
// callers wanting the same key wait for the one load.
//
// Ownership: the store owns the loaded keys; a KeyHandle shares one (it stays valid even if the
// store evicts the key afterwards, which it cannot while the handle lives) and must not outlive
// the store. The backend must outlive the store.
// Thread-safety: all members may be called from any thread.

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

class KeyStore;

// A key in use; movable, releases its reference when destroyed.
class KeyHandle {
 public:
  KeyHandle() = default;
  KeyHandle(KeyHandle&& o) noexcept;
  KeyHandle& operator=(KeyHandle&& o) noexcept;
  KeyHandle(const KeyHandle&) = delete;
  KeyHandle& operator=(const KeyHandle&) = delete;
  ~KeyHandle();

  const LoadedKey& key() const { return *key_; }
  const KeySource& source() const;
  explicit operator bool() const { return key_ != nullptr; }

 private:
  friend class KeyStore;
  KeyStore* store_ = nullptr;
  std::shared_ptr<void> entry_;  // KeyStore::Entry
  std::shared_ptr<const LoadedKey> key_;
  void reset();
};

struct KeyStatus {
  KeyId id;
  KeyTier tier = KeyTier::kDisk;  // kDisk: not loaded
  uint64_t bytes = 0;             // in its tier (not loaded: what the best tier would hold)
  TierBytes charges;              // what it takes from each budget (empty: not loaded)
  int in_use = 0;                 // live handles
  bool loading = false;
  uint64_t loads = 0;
};

struct TierUsage {
  KeyTier tier;
  uint64_t budget = 0, used = 0;
};

class KeyStore {
 public:
  struct Options {
    // Budget per tier in bytes; a tier absent or 0 is not used. The VRAM budget is per GPU
    // (a key in that tier is resident on every GPU) and is subtracted from the partition arena.
    std::map<KeyTier, uint64_t> budgets;
  };
  static std::unique_ptr<KeyStore> create(const Options& options, Backend& backend);

  // Throws kInvalidInput when the id is taken by another source or no tier of the backend can
  // keep the key, and what the backend throws when it cannot size it (kNotFound: no such file).
  void register_key(const KeyId& id, const KeySource& source);
  std::optional<KeySource> source(const KeyId& id) const;

  // Loads if needed. Throws kNotFound (unknown id), kResourceExhausted (no tier can hold it,
  // even after evicting every key not in use), or the backend's load error.
  KeyHandle acquire(const KeyId& id);
  // The same, except that a key which no tier has room for while other keys are in use, but
  // which one tier could hold were they released, waits for them to be released and then
  // evicts them (its job runs after theirs instead of failing). Meanwhile no new use of those
  // keys starts through acquire_or_wait (it waits as well) or acquire_if_loaded, so a steady
  // stream of their partitions cannot keep it waiting. `stop` is polled while waiting; an empty
  // handle is returned once it is true. The engine's workers take keys this way, holding no
  // other key at that moment.
  KeyHandle acquire_or_wait(const KeyId& id, const std::function<bool()>& stop);
  // The key in use only if it is loaded now and no caller of acquire_or_wait waits to evict
  // it: otherwise an empty handle, without loading, evicting or waiting. Throws kNotFound for
  // an unknown id.
  KeyHandle acquire_if_loaded(const KeyId& id);
  // Loads the key (into the best tier with room) without keeping it in use.
  void preload(const KeyId& id);
  // Unloads the key; false when it is in use or loading (nothing changes). kNotFound: unknown.
  bool evict(const KeyId& id);

  std::vector<KeyStatus> status() const;
  std::vector<TierUsage> tiers() const;
  uint64_t budget(KeyTier tier) const;

  struct Entry;  // key_store.cpp

 private:
  KeyStore(const Options& options, Backend& backend);
  friend class KeyHandle;
  void release(Entry& entry);
  // A handle on a loaded entry, counted as a use. Caller holds mutex_.
  KeyHandle handle_locked(const std::shared_ptr<Entry>& entry);
  // acquire and acquire_or_wait (stop: null for acquire).
  KeyHandle acquire_impl(const KeyId& id, const std::function<bool()>* stop);
  // Whether one tier could hold the key if no other key were loaded. Caller holds mutex_.
  bool fits_alone_locked(const Entry& entry) const;
  // The unused keys to evict, least recently used first, so that charges `need` fit every
  // budget; false when no such set exists. `in_use_too`: keys in use count as evictable (the
  // set acquire_or_wait waits for). Caller holds mutex_.
  bool make_room_locked(const TierBytes& need, std::vector<Entry*>& victims,
                        bool in_use_too = false);
  void uncharge_locked(Entry& entry);

  Options options_;
  Backend& backend_;
  mutable std::mutex mutex_;
  std::condition_variable loaded_;  // a load ended or a key was released
  std::map<KeyId, std::shared_ptr<Entry>> entries_;
  std::map<KeyTier, uint64_t> used_;
  uint64_t tick_ = 0;
};

}  // namespace cuzk::engine
