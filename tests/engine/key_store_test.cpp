// KeyStore on the sim backend: tier choice, LRU eviction that spares keys in use, preload and
// evict, a slow load that does not hold up a proof of another key, and keys that charge two
// budgets (a key in pinned memory that keeps part of itself in VRAM, as a streamed cuda key).

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "engine/key_store.hpp"
#include "engine/sim_backend.hpp"

namespace cuzk::engine {
namespace {

constexpr uint64_t kKeyConstraints = 1000;  // 1,024,000 bytes per key at 1024 bytes/constraint

struct Fixture {
  std::unique_ptr<SimBackend> sim;
  std::unique_ptr<KeyStore> store;
};

Fixture make(uint64_t vram_keys, uint64_t pinned_keys, double load_bytes_per_us = 1e9) {
  SimOptions o;
  o.gpus = 2;
  o.vram_bytes = 1 << 30;
  o.key_bytes_per_constraint = 1024;
  o.key_load_bytes_per_us = load_bytes_per_us;
  Fixture f;
  f.sim = SimBackend::create(o);
  KeyStore::Options k;
  k.budgets = {{KeyTier::kVram, vram_keys * 1'024'000},
               {KeyTier::kPinned, pinned_keys * 1'024'000}};
  f.store = KeyStore::create(k, *f.sim);
  for (int i = 0; i < 4; ++i) f.store->register_key("k" + std::to_string(i), {{}, kKeyConstraints});
  return f;
}

KeyTier tier_of(const KeyStore& store, const std::string& id) {
  for (const auto& s : store.status()) {
    if (s.id == id) return s.tier;
  }
  return KeyTier::kDisk;
}

TEST(KeyStore, BestTierFirstThenTheNext) {
  auto f = make(1, 1);
  {
    auto a = f.store->acquire("k0");
    auto b = f.store->acquire("k1");
    EXPECT_EQ(a.key().tier(), KeyTier::kVram);
    EXPECT_EQ(b.key().tier(), KeyTier::kPinned) << "VRAM tier full with k0 in use";
    EXPECT_EQ(f.sim->resident_key_bytes(0), 1'024'000u) << "a VRAM key is resident on each GPU";
    EXPECT_EQ(f.sim->resident_key_bytes(1), 1'024'000u);
    try {
      auto c = f.store->acquire("k2");
      FAIL() << "k2 loaded although both tiers are full of keys in use";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kResourceExhausted) << e.what();
    }
  }
  // Nothing in use now: k2 evicts the least recently used key of the VRAM tier.
  auto c = f.store->acquire("k2");
  EXPECT_EQ(c.key().tier(), KeyTier::kVram);
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kDisk) << "k0 was the LRU key of the VRAM tier";
  EXPECT_EQ(tier_of(*f.store, "k1"), KeyTier::kPinned);
  EXPECT_EQ(f.sim->resident_key_bytes(0), 1'024'000u) << "evicted keys free their VRAM";
  EXPECT_THROW(f.store->acquire("nope"), Error);
}

TEST(KeyStore, LruAmongUnusedKeys) {
  auto f = make(2, 0);
  f.store->preload("k0");
  f.store->preload("k1");
  { auto touch = f.store->acquire("k0"); }  // k1 is now the least recently used
  f.store->preload("k2");
  EXPECT_EQ(tier_of(*f.store, "k1"), KeyTier::kDisk);
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kVram);
  EXPECT_EQ(tier_of(*f.store, "k2"), KeyTier::kVram);
}

TEST(KeyStore, EvictRefusesKeysInUse) {
  auto f = make(2, 0);
  auto a = f.store->acquire("k0");
  EXPECT_FALSE(f.store->evict("k0"));
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kVram);
  a = KeyHandle();
  EXPECT_TRUE(f.store->evict("k0"));
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kDisk);
  EXPECT_EQ(f.sim->resident_key_bytes(0), 0u);
  EXPECT_TRUE(f.store->evict("k1")) << "evicting a key that is not loaded is a no-op";
  for (const auto& t : f.store->tiers()) EXPECT_EQ(t.used, 0u) << key_tier_name(t.tier);
}

TEST(KeyStore, SlowLoadDoesNotBlockOtherKeys) {
  // 1,024,000 bytes at 5,000 bytes/µs: ~200 ms per load.
  auto f = make(4, 0, 5'000);
  f.store->preload("k0");
  std::thread loader([&] { auto h = f.store->acquire("k1"); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto t0 = Clock::now();
  { auto h = f.store->acquire("k0"); }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_LT(ms, 100) << "acquiring a resident key waited for another key's load";
  // Two callers of one key share its load.
  std::thread second([&] { auto h = f.store->acquire("k1"); });
  loader.join();
  second.join();
  for (const auto& s : f.store->status()) {
    if (s.id == "k1") {
      EXPECT_EQ(s.loads, 1u) << "k1 was loaded twice";
    }
  }
}

// acquire_or_wait: a key that fits only once a key in use is released waits for that release
// (plain acquire throws, BestTierFirstThenTheNext), keeps new uses of that key from starting
// meanwhile, then evicts it; a stop while waiting gives an empty handle and charges nothing.
TEST(KeyStore, AcquireOrWaitWaitsForTheKeysInUse) {
  auto f = make(1, 0);  // room for one key
  auto a = f.store->acquire("k0");
  std::atomic<bool> got{false};
  KeyTier got_tier = KeyTier::kDisk;
  std::thread waiter([&] {
    auto h = f.store->acquire_or_wait("k1", [] { return false; });
    got_tier = h.key().tier();
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  EXPECT_FALSE(got.load()) << "k1 was handed out while k0 filled the only tier";
  EXPECT_FALSE(f.store->acquire_if_loaded("k0"))
      << "a new use of k0 started while a caller waited to evict it";
  a = KeyHandle();
  waiter.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(got_tier, KeyTier::kVram);
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kDisk) << "k0 was not evicted for k1";
  EXPECT_TRUE(f.store->acquire_if_loaded("k1")) << "nobody waits: a loaded key is handed out";

  auto b = f.store->acquire("k1");
  const auto t0 = Clock::now();
  auto stopped = f.store->acquire_or_wait(
      "k2", [&] { return Clock::now() - t0 > std::chrono::milliseconds(40); });
  EXPECT_FALSE(stopped) << "a stopped wait returned a key";
  EXPECT_EQ(tier_of(*f.store, "k2"), KeyTier::kDisk);
  EXPECT_EQ(tier_of(*f.store, "k1"), KeyTier::kVram);
  for (const auto& t : f.store->tiers()) {
    if (t.tier == KeyTier::kVram) {
      EXPECT_EQ(t.used, 1'024'000u) << "the stopped wait charged";
    }
  }
  EXPECT_EQ(f.sim->violations(), 0u);
}

// Keys of 1000 constraints: 1,024,000 bytes of points; in a host tier each also keeps
// 100,000 bytes in VRAM on every GPU.
struct TwoBudgetFixture {
  std::unique_ptr<SimBackend> sim;
  std::unique_ptr<KeyStore> store;
  uint64_t used(KeyTier tier) const {
    for (const auto& t : store->tiers()) {
      if (t.tier == tier) return t.used;
    }
    return 0;
  }
};

TwoBudgetFixture make_two_budget(uint64_t vram_budget, uint64_t pinned_budget) {
  SimOptions o;
  o.gpus = 2;
  o.vram_bytes = 1 << 30;
  o.key_bytes_per_constraint = 1024;
  o.host_key_vram_bytes_per_constraint = 100;
  o.key_load_bytes_per_us = 1e9;
  TwoBudgetFixture f;
  f.sim = SimBackend::create(o);
  f.store = KeyStore::create({{{KeyTier::kVram, vram_budget}, {KeyTier::kPinned, pinned_budget}}},
                             *f.sim);
  for (int i = 0; i < 3; ++i) f.store->register_key("k" + std::to_string(i), {{}, kKeyConstraints});
  f.store->register_key("small", {{}, 500});  // 512,000 bytes; 50,000 of VRAM in a host tier
  return f;
}

TEST(KeyStore, AKeyInPinnedMemoryChargesItsVramPartToo) {
  auto f = make_two_budget(1'200'000, 2 * 1'024'000);
  auto a = f.store->acquire("k0");
  auto b = f.store->acquire("k1");
  EXPECT_EQ(a.key().tier(), KeyTier::kVram);
  EXPECT_EQ(b.key().tier(), KeyTier::kPinned) << "the VRAM budget has 176,000 bytes left";
  EXPECT_EQ(f.used(KeyTier::kVram), 1'124'000u) << "k0 whole and k1's VRAM part";
  EXPECT_EQ(f.used(KeyTier::kPinned), 1'024'000u);
  EXPECT_EQ(f.sim->resident_key_bytes(0), 1'124'000u) << "on every GPU";
  EXPECT_EQ(f.sim->resident_key_bytes(1), 1'124'000u);
  for (const auto& s : f.store->status()) {
    if (s.id != "k1") continue;
    EXPECT_EQ(s.bytes, 1'024'000u);
    EXPECT_EQ(s.charges, (TierBytes{{KeyTier::kVram, 100'000}, {KeyTier::kPinned, 1'024'000}}));
  }
  // k2 would fit the pinned budget, but its VRAM part (100,000) not the 76,000 left, and
  // both loaded keys are in use.
  try {
    auto c = f.store->acquire("k2");
    FAIL() << "k2 loaded although the VRAM budget cannot take its matrices";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kResourceExhausted) << e.what();
    EXPECT_NE(std::string(e.what()).find("pinned 1024000 + vram 100000"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(f.used(KeyTier::kVram), 1'124'000u) << "a refused key charges nothing";
  EXPECT_EQ(f.used(KeyTier::kPinned), 1'024'000u);
  // Evicting k1 (not in use) returns both of its charges.
  b = KeyHandle();
  EXPECT_TRUE(f.store->evict("k1"));
  EXPECT_EQ(f.used(KeyTier::kVram), 1'024'000u);
  EXPECT_EQ(f.used(KeyTier::kPinned), 0u);
  EXPECT_EQ(f.sim->resident_key_bytes(0), 1'024'000u);
  EXPECT_EQ(f.sim->violations(), 0u);
}

TEST(KeyStore, APinnedKeyEvictsAVramKeyForItsVramPart) {
  // VRAM budget below any 1000-constraint key: those go to pinned memory, each needing 100,000
  // bytes of VRAM. "small" fits the VRAM tier whole (512,000).
  auto f = make_two_budget(600'000, 3 * 1'024'000);
  f.store->preload("small");
  EXPECT_EQ(tier_of(*f.store, "small"), KeyTier::kVram);
  f.store->preload("k0");  // 100,000 of VRAM: 88,000 free → evicts the unused "small"
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kPinned);
  EXPECT_EQ(tier_of(*f.store, "small"), KeyTier::kDisk);
  EXPECT_EQ(f.used(KeyTier::kVram), 100'000u);
  // "small" again: 400,000 of VRAM left with k0 and k1 in pinned memory, 512,000 needed whole.
  // With k1 in use only k0's 100,000 could be freed, so it goes to the next tier (pinned, with
  // 50,000 of VRAM) and evicts nothing.
  f.store->preload("k1");
  EXPECT_EQ(f.used(KeyTier::kVram), 200'000u);
  {
    auto held = f.store->acquire("k1");
    auto s = f.store->acquire("small");
    EXPECT_EQ(s.key().tier(), KeyTier::kPinned);
    EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kPinned) << "evicted for nothing";
    EXPECT_EQ(f.used(KeyTier::kVram), 250'000u);
  }
  EXPECT_TRUE(f.store->evict("small"));
  // Nothing in use: both pinned keys give up their VRAM parts.
  auto s = f.store->acquire("small");
  EXPECT_EQ(s.key().tier(), KeyTier::kVram);
  EXPECT_EQ(tier_of(*f.store, "k0"), KeyTier::kDisk);
  EXPECT_EQ(tier_of(*f.store, "k1"), KeyTier::kDisk);
  EXPECT_EQ(f.used(KeyTier::kVram), 512'000u);
  EXPECT_EQ(f.used(KeyTier::kPinned), 0u);
  EXPECT_EQ(f.sim->resident_key_bytes(0), 512'000u);
  EXPECT_EQ(f.sim->violations(), 0u);
}

}  // namespace
}  // namespace cuzk::engine
