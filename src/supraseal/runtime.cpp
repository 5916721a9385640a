#include "supraseal/runtime.hpp"

#include <algorithm>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <utility>

#include "engine/backend_factory.hpp"
#include "formats/mapped_file.hpp"
#include "formats/params.hpp"
#include "groth16/key_file.hpp"
#include "service/config.hpp"
#include "service/log.hpp"
#include "supraseal/assignment_check.hpp"
#include "supraseal/proof_layout.hpp"

namespace cuzk::supraseal {
namespace fs = std::filesystem;
using service::log_info;

KeyShape read_key_shape(const fs::path& path) {
  groth16::require_params_key(path);
  const auto file = formats::MappedFile::open(path);
  const auto layout = formats::parse_bellman_params_layout(file.bytes(), file.name());
  KeyShape shape;
  shape.ic = layout.vk.ic.size();
  shape.h = layout.h.size() / 96;
  shape.l = layout.l.size() / 96;
  shape.a = layout.a.size() / 96;
  shape.b_g1 = layout.b_g1.size() / 96;
  return shape;
}

namespace {

// The backend `cuzk serve` makes from the same configuration (engine::make_backend: auto is
// the GPUs where present, else the CPU).
std::unique_ptr<engine::Backend> make_backend(const service::DaemonConfig& config) {
  return engine::make_backend(service::backend_choice(config));
}

std::unique_ptr<engine::Engine> start_engine() {
  // The library's defaults differ from the daemon's in one point: no subgroup checks of the
  // key's points (hours for a Filecoin key), as supraseal and
  // bellperson load .params, whose integrity the published digests of Filecoin's parameter
  // files vouch for. `[keys] check_subgroups = true` in CUZK_CONFIG turns them on.
  service::DaemonConfig config;
  config.check_key_subgroups = false;
  const char* config_path = std::getenv("CUZK_CONFIG");
  if (config_path != nullptr && *config_path != '\0') {
    config = service::load_config(config_path, config);
  }
  // The library listens on nothing: the daemon's need of a socket or TCP address is not its.
  service::DaemonConfig checked = config;
  if (checked.socket.empty() && checked.tcp_address.empty()) checked.socket = "(unused)";
  service::validate(checked);
  service::set_log_level(service::parse_log_level(config.log_level));
  auto backend = make_backend(config);
  engine::EngineOptions options = config.engine;
  // Keys arrive later (create_SRS): budgets sized without them, as the daemon's are for a
  // configuration that lists none.
  if (options.keys.budgets.empty()) {
    options.keys.budgets = engine::default_key_budgets(*backend, {}, config.engine.workers_per_gpu,
                                                       config.engine.vram_margin_bytes);
  }
  log_info("supraseal_engine")
      .kv("backend", backend->name())
      .kv("gpus", backend->device_count())
      .kv("config", config_path != nullptr ? config_path : "");
  return engine::Engine::create(options, std::move(backend));
}

std::mutex& runtime_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

// The cache of create_SRS(cache = true): the four most recently opened paths, each holding
// one reference to its Srs; and every live key by path, so that one path is one engine key.
struct Runtime::Cache {
  static constexpr size_t kEntries = 4;
  std::mutex mutex;
  std::list<std::pair<std::string, Srs*>> recent;     // most recent first
  std::map<std::string, std::weak_ptr<SrsKey>> keys;  // canonical path → key
};

SrsKey::~SrsKey() {
  try {
    runtime->engine().evict_key(key_id);
  } catch (const std::exception&) {
    // The key is unloaded later by the store's LRU; nothing else depends on it.
  }
}

Runtime& Runtime::get() {
  // Not a function-local static: a start that throws is retried by the next caller.
  static Runtime* instance = nullptr;
  std::lock_guard lock(runtime_mutex());
  if (instance == nullptr) instance = new Runtime();  // lives until the process exits
  return *instance;
}

Runtime::Runtime() : engine_(start_engine()), cache_(std::make_unique<Cache>()) {}

Srs* Runtime::open(const std::string& path, bool cache) {
  std::error_code ec;
  fs::path canonical = fs::canonical(path, ec);
  if (ec) CUZK_THROW(ErrorKind::kNotFound, path + ": " + ec.message());
  const std::string name = canonical.string();
  std::shared_ptr<SrsKey> key;
  {
    std::lock_guard lock(cache_->mutex);
    for (auto it = cache_->recent.begin(); it != cache_->recent.end(); ++it) {
      if (it->first == name) {
        cache_->recent.splice(cache_->recent.begin(), cache_->recent, it);
        if (cache) return clone(it->second);
        key = it->second->key;
        break;
      }
    }
    if (!key) {
      if (auto it = cache_->keys.find(name); it != cache_->keys.end()) key = it->second.lock();
    }
  }
  if (!key) {
    // Outside the lock: the layout check reads the file's header and verifying key.
    auto made = std::make_shared<SrsKey>();
    made->runtime = this;
    made->key_id = "supraseal:" + name;
    made->path = canonical;
    made->shape = read_key_shape(canonical);
    engine::KeySource source;
    source.path = canonical;
    source.assignments_only = true;  // no .r1cs: the engine proves assignments with it
    engine_->register_key(made->key_id, source);
    std::lock_guard lock(cache_->mutex);
    auto& slot = cache_->keys[name];
    key = slot.lock();
    if (!key) slot = key = std::move(made);
  }
  auto* srs = new Srs{key};
  if (cache) {
    Srs* dropped = nullptr;
    {
      std::lock_guard lock(cache_->mutex);
      clone(srs);
      cache_->recent.emplace_front(name, srs);
      if (cache_->recent.size() > Cache::kEntries) {
        dropped = cache_->recent.back().second;
        cache_->recent.pop_back();
      }
    }
    if (dropped != nullptr) drop(dropped);
  }
  log_info("srs_opened").kv("path", name).kv("cache", cache);
  return srs;
}

Srs* Runtime::clone(Srs* srs) {
  srs->refs.fetch_add(1, std::memory_order_relaxed);
  return srs;
}

void Runtime::drop(Srs* srs) {
  if (srs->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete srs;
}

void Runtime::evict(Srs* srs) {
  Srs* cached = nullptr;
  {
    std::lock_guard lock(cache_->mutex);
    const std::string name = srs->key->path.string();
    for (auto it = cache_->recent.begin(); it != cache_->recent.end(); ++it) {
      if (it->first == name) {
        cached = it->second;
        cache_->recent.erase(it);
        break;
      }
    }
  }
  if (cached != nullptr) drop(cached);
  engine_->evict_key(srs->key->key_id);
  log_info("srs_evicted").kv("path", srs->key->path.string());
}

Batch Runtime::submit(const Srs& srs, std::span<const Assignment> circuits,
                      std::span<const cuzk_fr_t> r_s, std::span<const cuzk_fr_t> s_s,
                      int gpu_index) {
  const int devices = engine_->backend().device_count();
  if (gpu_index < -1 || gpu_index >= std::max(devices, 1)) {
    CUZK_INVALID_INPUT("gpu_index " + std::to_string(gpu_index) + ": this machine has " +
                       (devices == 0 ? std::string("no GPU (the CPU prover takes -1 or 0)")
                                     : std::to_string(devices) + " GPU(s)"));
  }
  engine::JobSpec spec;
  spec.key_id = srs.key->key_id;
  spec.partitions.reserve(circuits.size());
  for (size_t i = 0; i < circuits.size(); ++i) {
    spec.partitions.push_back(assignment_input(circuits[i], i, srs.key->shape, r_s[i], s_s[i]));
  }
  if (gpu_index >= 0 && devices > 0) spec.device = gpu_index;
  Batch batch{srs.key, engine_->submit(std::move(spec)), circuits.size()};
  return batch;
}

namespace {

engine::JobResult await_final(engine::Engine& engine, engine::JobId job) {
  for (;;) {
    auto result = engine.await(job, std::chrono::hours(1));
    if (engine::is_final(result.state)) return result;
  }
}

}  // namespace

void Runtime::finish(const Batch& batch, groth16_proof* proofs) {
  const auto result = await_final(*engine_, batch.job);
  if (result.state == engine::JobState::kCancelled) {
    CUZK_THROW(ErrorKind::kInternal, "the batch was cancelled (the engine is shutting down)");
  }
  if (result.state != engine::JobState::kSucceeded) {
    throw Error(result.error_kind.value_or(ErrorKind::kInternal), result.error_message);
  }
  if (result.partitions.size() != batch.circuits) {
    CUZK_THROW(ErrorKind::kInternal, "the engine returned " +
                                         std::to_string(result.partitions.size()) + " proofs for " +
                                         std::to_string(batch.circuits));
  }
  // Decode every proof before writing any, so that a failure leaves `proofs` untouched.
  std::vector<groth16_proof> out(batch.circuits);
  for (size_t i = 0; i < batch.circuits; ++i) out[i] = to_groth16_proof(result.partitions[i]);
  std::copy(out.begin(), out.end(), proofs);
}

void Runtime::abandon(const Batch& batch) {
  engine_->cancel(batch.job);
  await_final(*engine_, batch.job);
}

}  // namespace cuzk::supraseal
