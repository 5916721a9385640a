#include "engine/memory_budget.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

namespace cuzk::engine {
namespace {

// Waits are bounded so that `stop` (a cancelled job, shutdown) is seen without a notification.
constexpr auto kStopPoll = std::chrono::milliseconds(20);

std::string gib(uint64_t bytes) {
  std::ostringstream s;
  s.precision(3);
  s << double(bytes) / double(uint64_t(1) << 30) << " GiB";
  return s.str();
}

}  // namespace

uint64_t detect_host_ram_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemTotal:") return kib * 1024;
  }
  return 0;
}

bool HostBudget::reserve(uint64_t bytes, const StopPredicate& stop) {
  if (bytes > capacity_) {
    CUZK_THROW(ErrorKind::kResourceExhausted, "a partition needs " + gib(bytes) +
                                                  " of host memory, more than the budget (" +
                                                  gib(capacity_) + ")");
  }
  std::unique_lock lock(mutex_);
  while (in_use_ + bytes > capacity_) {
    if (stop && stop()) return false;
    changed_.wait_for(lock, kStopPoll);
  }
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  return true;
}

bool HostBudget::try_reserve(uint64_t bytes) {
  std::lock_guard lock(mutex_);
  if (in_use_ + bytes > capacity_) return false;
  in_use_ += bytes;
  peak_ = std::max(peak_, in_use_);
  return true;
}

void HostBudget::release(uint64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (bytes > in_use_) CUZK_THROW(ErrorKind::kInternal, "host budget released more than held");
    in_use_ -= bytes;
  }
  changed_.notify_all();
}

uint64_t HostBudget::in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

uint64_t HostBudget::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

std::optional<VramArena::Reservation> VramArena::allocate_locked(uint64_t bytes) {
  const uint64_t size =
      std::max<uint64_t>(kAlignment, (bytes + kAlignment - 1) / kAlignment * kAlignment);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const uint64_t offset = it->first, length = it->second;
    free_.erase(it);
    if (length > size) free_[offset + size] = length - size;
    in_use_ += size;
    peak_ = std::max(peak_, in_use_);
    Reservation r;
    r.slot = VramSlot{device_, offset, size, next_owner_++};
    // Drop completed fences; hand over those that overlap the new slot.
    std::erase_if(fences_, [](const Fence& f) { return f.event->query(); });
    for (const Fence& f : fences_) {
      if (f.offset < offset + size && offset < f.offset + f.bytes) r.fences.push_back(f.event);
    }
    return r;
  }
  return std::nullopt;
}

std::optional<VramArena::Reservation> VramArena::try_reserve(uint64_t bytes) {
  if (bytes > capacity_) return std::nullopt;
  std::lock_guard lock(mutex_);
  return allocate_locked(bytes);
}

std::optional<VramArena::Reservation> VramArena::reserve(uint64_t bytes,
                                                         const StopPredicate& stop) {
  if (bytes > capacity_) {
    CUZK_THROW(ErrorKind::kResourceExhausted,
               "a partition needs a VRAM slot of " + gib(bytes) + ", more than the arena of GPU " +
                   std::to_string(device_) + " (" + gib(capacity_) + ")");
  }
  std::unique_lock lock(mutex_);
  for (;;) {
    if (auto r = allocate_locked(bytes)) return r;
    if (stop && stop()) return std::nullopt;
    changed_.wait_for(lock, kStopPoll);
  }
}

void VramArena::release(const VramSlot& slot, std::shared_ptr<const Event> fence) {
  {
    std::lock_guard lock(mutex_);
    if (slot.device != device_ || slot.bytes == 0 || slot.bytes > in_use_) {
      CUZK_THROW(ErrorKind::kInternal, "VRAM arena: release of a slot it did not hand out");
    }
    in_use_ -= slot.bytes;
    if (fence && !fence->query()) fences_.push_back({slot.offset, slot.bytes, std::move(fence)});
    // Insert and coalesce with the neighbours.
    auto [it, inserted] = free_.emplace(slot.offset, slot.bytes);
    if (!inserted) CUZK_THROW(ErrorKind::kInternal, "VRAM arena: double release");
    if (auto next = std::next(it); next != free_.end() && it->first + it->second == next->first) {
      it->second += next->second;
      free_.erase(next);
    }
    if (it != free_.begin()) {
      auto prev = std::prev(it);
      if (prev->first + prev->second == it->first) {
        prev->second += it->second;
        free_.erase(it);
      }
    }
  }
  changed_.notify_all();
}

uint64_t VramArena::in_use() const {
  std::lock_guard lock(mutex_);
  return in_use_;
}

uint64_t VramArena::peak() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

size_t VramArena::pending_fences() const {
  std::lock_guard lock(mutex_);
  return fences_.size();
}

uint64_t default_vram_key_budget(uint64_t device_bytes, uint64_t margin_bytes, int workers,
                                 uint64_t largest_slot_bytes) {
  const uint64_t half = device_bytes / 2;
  const uint64_t arena = margin_bytes + uint64_t(std::max(workers, 1)) * largest_slot_bytes;
  if (largest_slot_bytes == 0 || arena >= device_bytes - half) return half;
  return device_bytes - arena;
}

std::unique_ptr<MemoryBudget> MemoryBudget::create(const Options& options) {
  uint64_t host = options.host_bytes;
  if (host == 0) {
    const uint64_t total = detect_host_ram_bytes();
    if (total == 0) CUZK_INVALID_INPUT("memory budget: cannot read /proc/meminfo; set host_bytes");
    if (total <= options.host_margin_bytes) {
      CUZK_INVALID_INPUT("memory budget: the host margin (" + gib(options.host_margin_bytes) +
                         ") is not below the RAM (" + gib(total) + ")");
    }
    host = total - options.host_margin_bytes;
  }
  std::unique_ptr<MemoryBudget> budget(new MemoryBudget());
  budget->host_ = std::make_unique<HostBudget>(host);
  for (size_t d = 0; d < options.vram_arena_bytes.size(); ++d) {
    budget->arenas_.push_back(std::make_unique<VramArena>(int(d), options.vram_arena_bytes[d]));
  }
  return budget;
}

}  // namespace cuzk::engine
