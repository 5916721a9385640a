#include "engine/sim_backend.hpp"

#include <algorithm>
#include <chrono>
#include <span>
#include <thread>

#include "engine/witness_input.hpp"

namespace cuzk::engine {

using Micros = std::chrono::duration<double, std::micro>;

struct SimBackend::Device {
  int index = 0;
  uint64_t capacity = 0;
  std::mutex mutex;
  Clock::time_point upload_free{}, download_free{}, compute_free{};
  uint64_t arena = 0, key_bytes = 0;
  double compute_busy_us = 0;
  // The last use of each slot region still in flight (pruned once it has ended).
  struct Use {
    uint64_t offset, bytes, owner;
    Clock::time_point last_end;
  };
  std::vector<Use> uses;
  uint64_t violations = 0;
  std::vector<std::string> messages;

  void violation_locked(std::string message) {
    ++violations;
    if (messages.size() < 16) messages.push_back("gpu" + std::to_string(index) + ": " + message);
  }
  void check_capacity_locked() {
    if (arena + key_bytes > capacity) {
      violation_locked("VRAM over-committed: arena " + std::to_string(arena) + " + keys " +
                       std::to_string(key_bytes) + " > capacity " + std::to_string(capacity));
    }
  }
};

namespace {

class SimEvent : public Event {
 public:
  explicit SimEvent(Clock::time_point when) : when_(when) {}
  bool query() const override { return Clock::now() >= when_; }
  void synchronize() const override { std::this_thread::sleep_until(when_); }
  double elapsed_ms_since(const Event& earlier) const override {
    const auto& e = dynamic_cast<const SimEvent&>(earlier);
    return std::chrono::duration<double, std::milli>(when_ - e.when_).count();
  }
  Clock::time_point when() const { return when_; }

 private:
  const Clock::time_point when_;
};

// The engines of a simulated GPU: uploads (host to device), downloads and kernels each run one
// operation at a time; different engines overlap.
enum class Engine { kUpload, kDownload, kCompute };

class SimStream : public Stream {
 public:
  explicit SimStream(std::shared_ptr<SimBackend::Device> device) : device_(std::move(device)) {}
  int device() const override { return device_->index; }
  std::shared_ptr<Event> record() override { return std::make_shared<SimEvent>(tail_); }
  void wait(const Event& event) override {
    tail_ = std::max(tail_, dynamic_cast<const SimEvent&>(event).when());
  }
  void synchronize() override { std::this_thread::sleep_until(tail_); }

  // Enqueues one operation of `us` microseconds on `engine`, touching `slot` (if bytes > 0).
  void enqueue(Engine engine, double us, const VramSlot& slot) {
    auto& d = *device_;
    std::lock_guard lock(d.mutex);
    const auto now = Clock::now();
    auto& engine_free = engine == Engine::kUpload     ? d.upload_free
                        : engine == Engine::kDownload ? d.download_free
                                                      : d.compute_free;
    const auto start = std::max({now, tail_, engine_free});
    const auto end = start + std::chrono::duration_cast<Clock::duration>(Micros(us));
    engine_free = tail_ = end;
    if (engine == Engine::kCompute) d.compute_busy_us += us;
    if (slot.bytes == 0) return;
    if (slot.offset + slot.bytes > d.arena) {
      d.violation_locked("slot [" + std::to_string(slot.offset) + ", +" +
                         std::to_string(slot.bytes) + ") outside the arena of " +
                         std::to_string(d.arena) + " bytes");
    }
    std::erase_if(d.uses, [&](const SimBackend::Device::Use& u) { return u.last_end <= now; });
    bool mine = false;
    for (auto& u : d.uses) {
      const bool overlap = u.offset < slot.offset + slot.bytes && slot.offset < u.offset + u.bytes;
      if (!overlap) continue;
      if (u.owner == slot.owner) {
        u.last_end = std::max(u.last_end, end);
        mine = true;
      } else if (u.last_end > start) {
        d.violation_locked("slot of owner " + std::to_string(slot.owner) +
                           " used before the work of owner " + std::to_string(u.owner) +
                           " on the same bytes ended");
      }
    }
    if (!mine) d.uses.push_back({slot.offset, slot.bytes, slot.owner, end});
  }

 private:
  std::shared_ptr<SimBackend::Device> device_;
  Clock::time_point tail_{};
};

class SimKey : public LoadedKey {
 public:
  SimKey(uint64_t constraints, uint64_t bytes, KeyTier tier, uint64_t device_bytes,
         std::vector<std::shared_ptr<SimBackend::Device>> devices)
      : constraints_(constraints),
        bytes_(bytes),
        device_bytes_(device_bytes),
        tier_(tier),
        devices_(std::move(devices)) {}
  ~SimKey() override {
    for (auto& d : devices_) {
      std::lock_guard lock(d->mutex);
      d->key_bytes -= device_bytes_;
    }
  }
  uint64_t bytes() const override { return bytes_; }
  KeyTier tier() const override { return tier_; }
  uint64_t constraints() const { return constraints_; }

 private:
  uint64_t constraints_, bytes_, device_bytes_;
  KeyTier tier_;
  std::vector<std::shared_ptr<SimBackend::Device>> devices_;  // those it occupies VRAM of
};

std::string witness_text(const PartitionInput& input) {
  const WitnessView wtns = WitnessView::of(input);
  return std::string(wtns.bytes().begin(), wtns.bytes().end());
}

}  // namespace

class SimWork : public PartitionWork {
 public:
  SimWork(SimBackend& backend, const SimKey& key, std::string witness)
      : backend_(backend),
        key_(key),
        constraints_(key.constraints()),
        witness_(std::move(witness)) {}
  uint64_t vram_bytes() const override {
    return uint64_t(backend_.options_.slot_bytes_per_constraint * double(constraints_));
  }
  void stage(Stream& stream, const VramSlot& slot) override {
    slot_ = slot;
    auto& s = dynamic_cast<SimStream&>(stream);
    s.enqueue(Engine::kUpload, double(vram_bytes()) / backend_.options_.copy_bytes_per_us, slot_);
  }
  void compute(Stream& stream) override {
    const SimWork* self = this;
    compute_all(std::span<const SimWork* const>(&self, 1), dynamic_cast<SimStream&>(stream));
  }
  // A key in the pinned tier is streamed: works of one such key compute together, moving it
  // across PCIe once.
  const void* group_key() const override {
    return key_.tier() == KeyTier::kPinned ? static_cast<const void*>(&key_) : nullptr;
  }
  void compute_group(std::span<PartitionWork* const> others, Stream& stream) override {
    std::vector<const SimWork*> works{this};
    for (PartitionWork* w : others) works.push_back(&dynamic_cast<const SimWork&>(*w));
    compute_all(works, dynamic_cast<SimStream&>(stream));
  }
  PartitionOutput finish() override {
    if (backend_.options_.epilogue_us > 0)
      std::this_thread::sleep_for(Micros(backend_.options_.epilogue_us));
    {
      std::lock_guard lock(backend_.finish_mutex_);
      ++backend_.finish_counts_[witness_];
    }
    const std::string token = "sim-proof:" + witness_;
    return {ProofFormat::kSimToken, std::vector<uint8_t>(token.begin(), token.end()), {}};
  }
  // Like the cuda backend, the work holds its own copy (the text), so the engine's release and
  // rebuild of by-value witnesses run under the sim tests too.
  bool keeps_witness() const override { return true; }
  std::shared_ptr<const std::vector<uint8_t>> rebuild_witness() const override {
    return std::make_shared<const std::vector<uint8_t>>(witness_.begin(), witness_.end());
  }

 private:
  // Synthesis and NTT of each work, the key's transfer once when it is streamed (staged through
  // the first work's slot, as the cuda backend stages its bases through the partition's slot),
  // each work's MSM, each work's download.
  void compute_all(std::span<const SimWork* const> works, SimStream& s) {
    const SimOptions& o = backend_.options_;
    const auto kernels_us = [&](const SimWork* w) {
      return o.kernel_ns_per_constraint * double(w->constraints_) / 1e3;
    };
    for (const SimWork* w : works) {
      for (double share : {0.2, 0.3}) s.enqueue(Engine::kCompute, kernels_us(w) * share, w->slot_);
    }
    if (group_key() != nullptr) {
      s.enqueue(Engine::kUpload, double(key_.bytes()) / o.copy_bytes_per_us, slot_);
      ++backend_.key_transfers_;
    }
    for (const SimWork* w : works) s.enqueue(Engine::kCompute, kernels_us(w) * 0.5, w->slot_);
    for (const SimWork* w : works) s.enqueue(Engine::kDownload, o.download_us, w->slot_);
    ++backend_.compute_calls_;
  }

  SimBackend& backend_;
  const SimKey& key_;  // outlives the work: the engine holds the key's handle until after it
  uint64_t constraints_;
  std::string witness_;
  VramSlot slot_;
};

std::unique_ptr<SimBackend> SimBackend::create(const SimOptions& options) {
  if (options.gpus < 1 || options.gpus > 64) CUZK_INVALID_INPUT("sim: gpus must be 1..64");
  if (options.copy_bytes_per_us <= 0 || options.key_load_bytes_per_us <= 0 ||
      options.kernel_ns_per_constraint < 0) {
    CUZK_INVALID_INPUT("sim: rates must be positive");
  }
  return std::unique_ptr<SimBackend>(new SimBackend(options));
}

SimBackend::SimBackend(const SimOptions& options) : options_(options) {
  for (int d = 0; d < options.gpus; ++d) {
    auto device = std::make_shared<Device>();
    device->index = d;
    device->capacity = options.vram_bytes;
    devices_.push_back(std::move(device));
  }
}

SimBackend::~SimBackend() = default;

DeviceDescription SimBackend::describe(int device) const {
  return {"simulated GPU " + std::to_string(device), devices_.at(size_t(device))->capacity};
}

void SimBackend::carve_vram_arena(int device, uint64_t bytes) {
  auto& d = *devices_.at(size_t(device));
  std::lock_guard lock(d.mutex);
  if (d.key_bytes + bytes > d.capacity) {
    CUZK_THROW(ErrorKind::kResourceExhausted, "sim: arena of " + std::to_string(bytes) +
                                                  " bytes does not fit on gpu" +
                                                  std::to_string(device));
  }
  d.arena = bytes;
}

std::unique_ptr<Stream> SimBackend::create_stream(int device) {
  return std::make_unique<SimStream>(devices_.at(size_t(device)));
}

TierBytes SimBackend::key_charges(const KeySource& source, KeyTier tier) const {
  if (source.sim_constraints == 0) CUZK_INVALID_INPUT("sim: a key needs sim_constraints > 0");
  const double constraints = double(source.sim_constraints);
  TierBytes charges{{tier, uint64_t(options_.key_bytes_per_constraint * constraints)}};
  const auto vram = uint64_t(options_.host_key_vram_bytes_per_constraint * constraints);
  if (tier != KeyTier::kVram && vram > 0) charges[KeyTier::kVram] = vram;
  return charges;
}

std::shared_ptr<const LoadedKey> SimBackend::load_key(const KeySource& source, KeyTier tier) {
  TierBytes charges = key_charges(source, tier);
  const uint64_t bytes = charges.at(tier);
  const uint64_t device_bytes = charges[KeyTier::kVram];
  std::this_thread::sleep_for(Micros(double(bytes) / options_.key_load_bytes_per_us));
  std::vector<std::shared_ptr<Device>> occupied;
  if (device_bytes > 0) {
    for (auto& d : devices_) {
      std::lock_guard lock(d->mutex);
      d->key_bytes += device_bytes;
      d->check_capacity_locked();
      occupied.push_back(d);
    }
  }
  return std::make_shared<SimKey>(source.sim_constraints, bytes, tier, device_bytes,
                                  std::move(occupied));
}

std::unique_ptr<PartitionWork> SimBackend::prepare(const LoadedKey& key,
                                                   const PartitionInput& input, int) {
  auto witness = witness_text(input);
  if (witness.rfind("bad", 0) == 0) CUZK_INVALID_INPUT("sim: bad witness '" + witness + "'");
  if (options_.prepare_us > 0) std::this_thread::sleep_for(Micros(options_.prepare_us));
  auto work =
      std::make_unique<SimWork>(*this, dynamic_cast<const SimKey&>(key), std::move(witness));
  work->synthesis_ms = options_.prepare_us / 1e3;
  return work;
}

PartitionOutput SimBackend::prove_on_host(const LoadedKey&, const PartitionInput&,
                                          const std::atomic<bool>&, StageTimes&) {
  CUZK_THROW(ErrorKind::kInternal, "sim: partitions run on simulated devices, not on the host");
}

uint64_t SimBackend::partition_host_bytes(const KeySource& source) const {
  return uint64_t(options_.host_bytes_per_constraint * double(source.sim_constraints));
}

uint64_t SimBackend::partition_vram_bytes(const KeySource& source) const {
  return uint64_t(options_.slot_bytes_per_constraint * double(source.sim_constraints));
}

uint64_t SimBackend::violations() const {
  uint64_t total = 0;
  for (auto& d : devices_) {
    std::lock_guard lock(d->mutex);
    total += d->violations;
  }
  return total;
}

std::vector<std::string> SimBackend::violation_messages() const {
  std::vector<std::string> all;
  for (auto& d : devices_) {
    std::lock_guard lock(d->mutex);
    all.insert(all.end(), d->messages.begin(), d->messages.end());
  }
  return all;
}

double SimBackend::compute_busy_ms(int device) const {
  auto& d = *devices_.at(size_t(device));
  std::lock_guard lock(d.mutex);
  return d.compute_busy_us / 1e3;
}

uint64_t SimBackend::resident_key_bytes(int device) const {
  auto& d = *devices_.at(size_t(device));
  std::lock_guard lock(d.mutex);
  return d.key_bytes;
}

uint64_t SimBackend::compute_calls() const { return compute_calls_.load(); }

uint64_t SimBackend::key_transfers() const { return key_transfers_.load(); }

std::map<std::string, int> SimBackend::finish_counts() const {
  std::lock_guard lock(finish_mutex_);
  return finish_counts_;
}

}  // namespace cuzk::engine
