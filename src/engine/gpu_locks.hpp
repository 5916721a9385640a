#pragma once
// The two locks each GPU's workers share (DESIGN.md §2.1), and the checker of their order.
//
//   mem      held while a worker reserves a VRAM slot and enqueues its uploads (stage)
//   compute  held while a worker enqueues its kernels (compute)
//
// The one global order: a thread never acquires a `mem` lock (of any GPU) while it holds a
// `compute` lock (of any GPU), and never holds two locks of the same kind. Every acquisition
// goes through a per-thread list of held locks; a wrong order throws LockOrderViolation before
// the thread blocks (so a test sees the error instead of a deadlock) and counts in
// lock_order_violations(). The check is always on: it costs a thread-local push and pop.
//
// Thread-safety: a GpuLocks is shared by the workers of one GPU; OrderedLock::Guard is owned by
// the acquiring thread and must be released on that thread (it is a scoped guard).

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "util/error.hpp"

namespace cuzk::engine {

enum class LockKind : uint8_t { kMem = 0, kCompute = 1 };

class LockOrderViolation : public Error {
 public:
  explicit LockOrderViolation(const std::string& message) : Error(ErrorKind::kInternal, message) {}
};

// Violations seen by this process so far (tests assert it stays 0 in the stress run).
uint64_t lock_order_violations();

class OrderedLock {
 public:
  OrderedLock(LockKind kind, int gpu) : kind_(kind), gpu_(gpu) {}
  OrderedLock(const OrderedLock&) = delete;
  OrderedLock& operator=(const OrderedLock&) = delete;

  // Checks the order, then blocks until the lock is held; released when the guard dies.
  class Guard {
   public:
    explicit Guard(OrderedLock& lock);
    ~Guard();
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;

   private:
    OrderedLock& lock_;
  };

  LockKind kind() const { return kind_; }
  int gpu() const { return gpu_; }
  std::string name() const;  // "gpu0.mem"

 private:
  std::mutex mutex_;
  LockKind kind_;
  int gpu_;
};

struct GpuLocks {
  explicit GpuLocks(int gpu) : mem(LockKind::kMem, gpu), compute(LockKind::kCompute, gpu) {}
  OrderedLock mem;
  OrderedLock compute;
};

}  // namespace cuzk::engine
