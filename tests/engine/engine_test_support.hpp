#pragma once
// Shared helpers of the engine tests: a sim engine with small modeled times, witnesses that
// name their job and partition, a metric's value, and the check that nothing is left reserved.

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/sim_backend.hpp"

namespace cuzk::engine::test {

inline constexpr uint64_t kMiB = uint64_t(1) << 20;
inline constexpr uint64_t kPartitionConstraints = 20'000;  // slot 5.12 MB, key 20.48 MB

// 2 simulated GPUs of 64 MiB: an arena of 16 MiB (three slots: with K = 4 a worker waits for a
// slot) and a VRAM key tier of 41 MiB (two keys; a third goes to the pinned tier).
inline SimOptions small_sim(double kernel_ns_per_constraint = 1.0) {
  SimOptions o;
  o.gpus = 2;
  o.vram_bytes = 64 * kMiB;
  o.slot_bytes_per_constraint = 256;
  o.host_bytes_per_constraint = 64;
  o.key_bytes_per_constraint = 1024;
  o.copy_bytes_per_us = 250'000;
  o.kernel_ns_per_constraint = kernel_ns_per_constraint;
  o.download_us = 2;
  o.key_load_bytes_per_us = 20'000;  // ~1 ms per key
  return o;
}

// A partition's proof bytes as text (the sim backend's token, a proof.json).
inline std::string proof_text(const PartitionOutput& out) {
  return std::string(out.proof.begin(), out.proof.end());
}

inline EngineOptions small_engine(int workers_per_gpu) {
  EngineOptions o;
  o.workers_per_gpu = workers_per_gpu;
  o.queue_capacity = 1 << 20;
  o.host_bytes = 64 * kMiB;  // ~50 partitions of 1.28 MB
  o.vram_arena_bytes = 16 * kMiB;
  o.keys.budgets = {{KeyTier::kVram, 41 * kMiB}, {KeyTier::kPinned, 100 * kMiB}};
  return o;
}

struct SimEngine {
  SimBackend* sim = nullptr;  // owned by the engine
  std::unique_ptr<Engine> engine;
};

inline SimEngine make_sim_engine(const EngineOptions& options, const SimOptions& sim_options,
                                 int keys = 3) {
  auto backend = SimBackend::create(sim_options);
  SimEngine e;
  e.sim = backend.get();
  e.engine = Engine::create(options, std::move(backend));
  for (int k = 0; k < keys; ++k) {
    e.engine->register_key("key" + std::to_string(k), KeySource{{}, kPartitionConstraints});
  }
  return e;
}

inline PartitionInput witness(const std::string& text) {
  return {std::make_shared<const std::vector<uint8_t>>(text.begin(), text.end())};
}

inline JobSpec job(const std::string& key, const std::vector<std::string>& witnesses,
                   Priority priority = Priority::kNormal, std::string request_id = "") {
  JobSpec spec;
  spec.key_id = key;
  spec.priority = priority;
  spec.request_id = std::move(request_id);
  for (const auto& w : witnesses) spec.partitions.push_back(witness(w));
  return spec;
}

// The value of one series in Prometheus text (`name{labels} value` lines), 0 when absent.
inline double metric_value(const std::string& text, const std::string& series) {
  const std::string prefix = series + " ";
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (text.compare(at, prefix.size(), prefix) == 0) {
      return std::stod(text.substr(at + prefix.size(), end - at - prefix.size()));
    }
    at = end + 1;
  }
  return 0;
}

// Nothing reserved: host budget, every arena, every key handle; the sim saw no violation.
inline void expect_nothing_held(const SimEngine& e, const std::string& where) {
  const EngineStatus s = e.engine->status();
  EXPECT_EQ(s.host_in_use, 0u) << where << ": host bytes left reserved";
  for (const auto& g : s.gpus) {
    EXPECT_EQ(g.arena_in_use, 0u) << where << ": VRAM arena of gpu" << g.device << " left reserved";
    EXPECT_LE(g.arena_peak, g.arena_bytes) << where << ": arena over-committed";
  }
  for (const auto& k : s.keys)
    EXPECT_EQ(k.in_use, 0) << where << ": key " << k.id << " still in use";
  EXPECT_EQ(s.jobs_active, 0u) << where << ": jobs still active";
  EXPECT_EQ(s.queued, 0u) << where << ": partitions still queued";
  EXPECT_EQ(e.sim->violations(), 0u) << where << ": sim violations";
  for (const auto& m : e.sim->violation_messages()) ADD_FAILURE() << where << ": sim: " << m;
}

}  // namespace cuzk::engine::test
