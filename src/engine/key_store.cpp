#include "engine/key_store.hpp"

#include <algorithm>
#include <utility>

namespace cuzk::engine {

struct KeyStore::Entry {
  KeyId id;
  KeySource source;
  uint64_t bytes = 0;
  std::shared_ptr<const LoadedKey> loaded;
  KeyTier tier = KeyTier::kDisk;
  int refs = 0;
  bool loading = false;
  uint64_t last_use = 0, loads = 0;
};

// --- KeyHandle ---

KeyHandle::KeyHandle(KeyHandle&& o) noexcept
    : store_(std::exchange(o.store_, nullptr)),
      entry_(std::move(o.entry_)),
      key_(std::move(o.key_)) {}

KeyHandle& KeyHandle::operator=(KeyHandle&& o) noexcept {
  if (this != &o) {
    reset();
    store_ = std::exchange(o.store_, nullptr);
    entry_ = std::move(o.entry_);
    key_ = std::move(o.key_);
  }
  return *this;
}

KeyHandle::~KeyHandle() { reset(); }

void KeyHandle::reset() {
  if (store_ != nullptr) store_->release(*static_cast<KeyStore::Entry*>(entry_.get()));
  store_ = nullptr;
  entry_.reset();
  key_.reset();
}

const KeySource& KeyHandle::source() const {
  return static_cast<const KeyStore::Entry*>(entry_.get())->source;
}

// --- KeyStore ---

KeyStore::KeyStore(const Options& options, Backend& backend)
    : options_(options), backend_(backend) {}

std::unique_ptr<KeyStore> KeyStore::create(const Options& options, Backend& backend) {
  return std::unique_ptr<KeyStore>(new KeyStore(options, backend));
}

void KeyStore::register_key(const KeyId& id, const KeySource& source) {
  if (id.empty()) CUZK_INVALID_INPUT("key store: a key id must not be empty");
  const uint64_t bytes = backend_.key_bytes(source);  // may read a file: outside the lock
  std::lock_guard lock(mutex_);
  if (auto it = entries_.find(id); it != entries_.end()) {
    const auto& old = it->second->source;
    if (old.path != source.path || old.sim_constraints != source.sim_constraints) {
      CUZK_INVALID_INPUT("key id '" + id + "' is already registered for another key");
    }
    return;
  }
  auto entry = std::make_shared<Entry>();
  entry->id = id;
  entry->source = source;
  entry->bytes = bytes;
  entries_.emplace(id, std::move(entry));
}

std::optional<KeySource> KeyStore::source(const KeyId& id) const {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return std::nullopt;
  return it->second->source;
}

uint64_t KeyStore::budget(KeyTier tier) const {
  auto it = options_.budgets.find(tier);
  return it == options_.budgets.end() ? 0 : it->second;
}

KeyHandle KeyStore::acquire(const KeyId& id) {
  std::vector<std::shared_ptr<const LoadedKey>> evicted;  // destroyed after the lock is dropped
  std::unique_lock lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) CUZK_THROW(ErrorKind::kNotFound, "unknown key '" + id + "'");
  std::shared_ptr<Entry> entry = it->second;
  for (;;) {
    if (entry->loaded) {
      ++entry->refs;
      entry->last_use = ++tick_;
      KeyHandle handle;
      handle.store_ = this;
      handle.entry_ = entry;
      handle.key_ = entry->loaded;
      return handle;
    }
    if (entry->loading) {
      loaded_.wait(lock);
      continue;
    }
    // Choose the best tier that can take the key, evicting unused keys of that tier (LRU).
    std::optional<KeyTier> chosen;
    for (KeyTier tier : backend_.key_tiers()) {
      const uint64_t cap = budget(tier);
      if (entry->bytes > cap) continue;
      std::vector<Entry*> victims;
      uint64_t free_bytes = cap - used_[tier];
      for (auto& [other_id, other] : entries_) {
        if (other->loaded && other->tier == tier && other->refs == 0 && !other->loading) {
          victims.push_back(other.get());
        }
      }
      std::sort(victims.begin(), victims.end(),
                [](const Entry* a, const Entry* b) { return a->last_use < b->last_use; });
      size_t needed = 0;
      uint64_t reclaimable = free_bytes;
      while (reclaimable < entry->bytes && needed < victims.size()) {
        reclaimable += victims[needed++]->bytes;
      }
      if (reclaimable < entry->bytes) continue;
      for (size_t i = 0; i < needed; ++i) {
        used_[tier] -= victims[i]->bytes;
        evicted.push_back(std::move(victims[i]->loaded));
        victims[i]->tier = KeyTier::kDisk;
      }
      chosen = tier;
      break;
    }
    if (!chosen) {
      CUZK_THROW(ErrorKind::kResourceExhausted,
                 "key '" + id + "' (" + std::to_string(entry->bytes) +
                     " bytes) fits in no key tier, even after evicting every key not in use");
    }
    used_[*chosen] += entry->bytes;
    entry->loading = true;
    lock.unlock();
    evicted.clear();
    std::shared_ptr<const LoadedKey> key;
    try {
      key = backend_.load_key(entry->source, *chosen);
    } catch (...) {
      lock.lock();
      used_[*chosen] -= entry->bytes;
      entry->loading = false;
      loaded_.notify_all();
      throw;
    }
    lock.lock();
    entry->loaded = std::move(key);
    entry->tier = *chosen;
    entry->loading = false;
    ++entry->loads;
    loaded_.notify_all();
  }
}

void KeyStore::release(Entry& entry) {
  std::lock_guard lock(mutex_);
  --entry.refs;
  entry.last_use = ++tick_;
}

void KeyStore::preload(const KeyId& id) { (void)acquire(id); }

bool KeyStore::evict(const KeyId& id) {
  std::shared_ptr<const LoadedKey> dropped;  // destroyed after the lock is dropped
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) CUZK_THROW(ErrorKind::kNotFound, "unknown key '" + id + "'");
  Entry& e = *it->second;
  if (e.refs > 0 || e.loading) return false;
  if (e.loaded) {
    used_[e.tier] -= e.bytes;
    dropped = std::move(e.loaded);
    e.tier = KeyTier::kDisk;
  }
  return true;
}

std::vector<KeyStatus> KeyStore::status() const {
  std::lock_guard lock(mutex_);
  std::vector<KeyStatus> out;
  for (const auto& [id, e] : entries_) {
    out.push_back(
        {id, e->loaded ? e->tier : KeyTier::kDisk, e->bytes, e->refs, e->loading, e->loads});
  }
  return out;
}

std::vector<TierUsage> KeyStore::tiers() const {
  std::lock_guard lock(mutex_);
  std::vector<TierUsage> out;
  for (KeyTier tier : backend_.key_tiers()) {
    auto it = used_.find(tier);
    out.push_back({tier, budget(tier), it == used_.end() ? 0 : it->second});
  }
  return out;
}

}  // namespace cuzk::engine
