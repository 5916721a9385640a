#include "engine/gpu_locks.hpp"

#include <algorithm>
#include <vector>

namespace cuzk::engine {
namespace {

std::atomic<uint64_t> g_violations{0};

// The locks the current thread holds, in acquisition order. A thread holds at most two.
std::vector<const OrderedLock*>& held_locks() {
  thread_local std::vector<const OrderedLock*> held;
  return held;
}

void check_order(const OrderedLock& wanted) {
  for (const OrderedLock* held : held_locks()) {
    const bool mem_under_compute =
        wanted.kind() == LockKind::kMem && held->kind() == LockKind::kCompute;
    const bool same_kind = wanted.kind() == held->kind();
    if (mem_under_compute || same_kind) {
      g_violations.fetch_add(1, std::memory_order_relaxed);
      throw LockOrderViolation("lock order violation: acquiring " + wanted.name() +
                               " while holding " + held->name() +
                               (mem_under_compute ? " (mem must never be taken under compute)"
                                                  : " (two locks of the same kind)"));
    }
  }
}

}  // namespace

uint64_t lock_order_violations() { return g_violations.load(std::memory_order_relaxed); }

std::string OrderedLock::name() const {
  return "gpu" + std::to_string(gpu_) + (kind_ == LockKind::kMem ? ".mem" : ".compute");
}

OrderedLock::Guard::Guard(OrderedLock& lock) : lock_(lock) {
  check_order(lock);
  lock.mutex_.lock();
  held_locks().push_back(&lock);
}

OrderedLock::Guard::~Guard() {
  auto& held = held_locks();
  held.erase(std::find(held.begin(), held.end(), &lock_));
  lock_.mutex_.unlock();
}

}  // namespace cuzk::engine
