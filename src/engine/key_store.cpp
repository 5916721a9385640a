#include "engine/key_store.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

namespace cuzk::engine {

struct KeyStore::Entry {
  KeyId id;
  KeySource source;
  std::map<KeyTier, TierBytes> charges;  // per tier the backend can keep it in
  TierBytes held;                        // the charges of the tier it is loaded in
  std::shared_ptr<const LoadedKey> loaded;
  KeyTier tier = KeyTier::kDisk;
  int refs = 0;
  int draining = 0;  // callers of acquire_or_wait waiting to evict it
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

namespace {

// How often a caller of acquire_or_wait looks at its stop predicate while it waits.
constexpr auto kStopPoll = std::chrono::milliseconds(20);

// "vram 1024", "pinned 900 + vram 124": a key's charges when loaded into `tier`, that tier
// first, for messages.
std::string describe(KeyTier tier, const TierBytes& charges) {
  std::string out;
  if (auto own = charges.find(tier); own != charges.end()) {
    out = std::string(key_tier_name(tier)) + " " + std::to_string(own->second);
  }
  for (const auto& [other, bytes] : charges) {
    if (other == tier) continue;
    out += (out.empty() ? "" : " + ") + std::string(key_tier_name(other)) + " " +
           std::to_string(bytes);
  }
  return out;
}

// The bytes a key holds in `tier` itself among its charges for that tier.
uint64_t own_bytes(const std::map<KeyTier, TierBytes>& charges, KeyTier tier) {
  auto c = charges.find(tier);
  if (c == charges.end()) return 0;
  auto b = c->second.find(tier);
  return b == c->second.end() ? 0 : b->second;
}

}  // namespace

void KeyStore::register_key(const KeyId& id, const KeySource& source) {
  if (id.empty()) CUZK_INVALID_INPUT("key store: a key id must not be empty");
  std::map<KeyTier, TierBytes> charges;  // may read a file: outside the lock
  for (KeyTier tier : backend_.key_tiers()) {
    TierBytes c = backend_.key_charges(source, tier);
    if (!c.empty()) charges.emplace(tier, std::move(c));
  }
  if (charges.empty()) {
    CUZK_INVALID_INPUT("key '" + id + "': the " + backend_.name() +
                       " backend can keep it in none of its key tiers");
  }
  std::lock_guard lock(mutex_);
  if (auto it = entries_.find(id); it != entries_.end()) {
    const auto& old = it->second->source;
    if (old.path != source.path || old.sim_constraints != source.sim_constraints ||
        old.r1cs != source.r1cs) {
      CUZK_INVALID_INPUT("key id '" + id + "' is already registered for another key");
    }
    return;
  }
  auto entry = std::make_shared<Entry>();
  entry->id = id;
  entry->source = source;
  entry->charges = std::move(charges);
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

KeyHandle KeyStore::handle_locked(const std::shared_ptr<Entry>& entry) {
  ++entry->refs;
  entry->last_use = ++tick_;
  KeyHandle handle;
  handle.store_ = this;
  handle.entry_ = entry;
  handle.key_ = entry->loaded;
  return handle;
}

KeyHandle KeyStore::acquire_if_loaded(const KeyId& id) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) CUZK_THROW(ErrorKind::kNotFound, "unknown key '" + id + "'");
  const std::shared_ptr<Entry>& entry = it->second;
  if (!entry->loaded || entry->draining > 0) return {};
  return handle_locked(entry);
}

bool KeyStore::fits_alone_locked(const Entry& entry) const {
  for (const auto& [tier, charges] : entry.charges) {
    bool fits = true;
    for (const auto& [t, bytes] : charges) fits = fits && bytes <= budget(t);
    if (fits) return true;
  }
  return false;
}

KeyHandle KeyStore::acquire(const KeyId& id) { return acquire_impl(id, nullptr); }

KeyHandle KeyStore::acquire_or_wait(const KeyId& id, const std::function<bool()>& stop) {
  return acquire_impl(id, &stop);
}

KeyHandle KeyStore::acquire_impl(const KeyId& id, const std::function<bool()>* stop) {
  std::vector<std::shared_ptr<const LoadedKey>> evicted;  // destroyed after the lock is dropped
  std::unique_lock lock(mutex_);
  auto it = entries_.find(id);
  if (it == entries_.end()) CUZK_THROW(ErrorKind::kNotFound, "unknown key '" + id + "'");
  std::shared_ptr<Entry> entry = it->second;
  for (;;) {
    if (entry->loaded) {
      if (stop != nullptr && entry->draining > 0) {  // another caller waits to evict it
        if ((*stop)()) return {};
        loaded_.wait_for(lock, kStopPoll);
        continue;
      }
      return handle_locked(entry);
    }
    if (entry->loading) {
      loaded_.wait(lock);
      continue;
    }
    // Choose the best tier whose budgets can take the key, evicting unused keys (LRU).
    std::optional<KeyTier> chosen;
    for (KeyTier tier : backend_.key_tiers()) {
      auto charges = entry->charges.find(tier);
      if (charges == entry->charges.end()) continue;
      std::vector<Entry*> victims;
      if (!make_room_locked(charges->second, victims)) continue;
      for (Entry* victim : victims) {
        uncharge_locked(*victim);
        evicted.push_back(std::move(victim->loaded));
        victim->tier = KeyTier::kDisk;
      }
      chosen = tier;
      break;
    }
    if (!chosen && stop != nullptr && fits_alone_locked(*entry)) {
      // Keys in use fill the tiers. They are released when their partitions end; until then
      // no new use of them starts through acquire_or_wait or acquire_if_loaded.
      if ((*stop)()) return {};
      std::vector<Entry*> needed;
      for (KeyTier tier : backend_.key_tiers()) {
        auto charges = entry->charges.find(tier);
        if (charges != entry->charges.end() && make_room_locked(charges->second, needed, true)) {
          break;
        }
      }
      for (Entry* e : needed) ++e->draining;
      loaded_.wait_for(lock, kStopPoll);
      for (Entry* e : needed) --e->draining;
      continue;
    }
    if (!chosen) {
      std::string needs;
      for (const auto& [tier, charges] : entry->charges) {
        needs += (needs.empty() ? "" : "; or ") + describe(tier, charges);
      }
      CUZK_THROW(ErrorKind::kResourceExhausted,
                 "key '" + id +
                     "' fits in no key tier, even after evicting every key not in use (it "
                     "needs, in bytes: " +
                     needs + ")");
    }
    entry->held = entry->charges.at(*chosen);
    for (const auto& [tier, bytes] : entry->held) used_[tier] += bytes;
    entry->loading = true;
    lock.unlock();
    evicted.clear();
    std::shared_ptr<const LoadedKey> key;
    try {
      key = backend_.load_key(entry->source, *chosen);
    } catch (...) {
      lock.lock();
      uncharge_locked(*entry);
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

bool KeyStore::make_room_locked(const TierBytes& need, std::vector<Entry*>& victims,
                                bool in_use_too) {
  TierBytes deficit;  // bytes still to free, per tier
  for (const auto& [tier, bytes] : need) {
    const uint64_t cap = budget(tier);
    if (bytes > cap) return false;
    const uint64_t free_bytes = cap - used_[tier];
    if (bytes > free_bytes) deficit[tier] = bytes - free_bytes;
  }
  if (deficit.empty()) return true;
  std::vector<Entry*> candidates;
  for (auto& [other_id, other] : entries_) {
    if (other->loaded && (in_use_too || other->refs == 0) && !other->loading) {
      candidates.push_back(other.get());
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Entry* a, const Entry* b) { return a->last_use < b->last_use; });
  for (Entry* candidate : candidates) {
    if (deficit.empty()) break;
    bool helps = false;
    for (const auto& [tier, bytes] : candidate->held) helps = helps || deficit.contains(tier);
    if (!helps) continue;  // a key holding nothing where room is short stays
    victims.push_back(candidate);
    for (const auto& [tier, bytes] : candidate->held) {
      auto d = deficit.find(tier);
      if (d == deficit.end()) continue;
      if (bytes >= d->second) {
        deficit.erase(d);
      } else {
        d->second -= bytes;
      }
    }
  }
  if (!deficit.empty()) {
    victims.clear();
    return false;
  }
  return true;
}

void KeyStore::uncharge_locked(Entry& entry) {
  for (const auto& [tier, bytes] : entry.held) used_[tier] -= bytes;
  entry.held.clear();
}

void KeyStore::release(Entry& entry) {
  {
    std::lock_guard lock(mutex_);
    --entry.refs;
    entry.last_use = ++tick_;
  }
  loaded_.notify_all();  // a caller of acquire_or_wait may now find room
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
    uncharge_locked(e);
    dropped = std::move(e.loaded);
    e.tier = KeyTier::kDisk;
  }
  return true;
}

std::vector<KeyStatus> KeyStore::status() const {
  std::lock_guard lock(mutex_);
  std::vector<KeyStatus> out;
  for (const auto& [id, e] : entries_) {
    const KeyTier tier = e->loaded ? e->tier : KeyTier::kDisk;
    const uint64_t bytes = e->loaded ? own_bytes(e->charges, e->tier)
                                     : own_bytes(e->charges, e->charges.begin()->first);
    out.push_back({id, tier, bytes, e->held, e->refs, e->loading, e->loads});
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
