#pragma once
// JobWaiters: one thread that keeps every waiting call (AwaitProof, Prove) of the server and
// polls each until it is done, so that a waiting client holds no thread. A waiting call is
// polled first after 2 ms, then at intervals doubling up to 50 ms (a job of seconds is noticed
// within 50 ms of its end), and at once when it is woken (its client went away).
//
// Ownership: the waiters do not own what they poll: a Waiting is finished by its own poll
// (which returns true) and is not touched again. Thread-safety: add and wake from any thread;
// stop from the owner's, once, after which add refuses.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace cuzk::service {

class Waiting {
 public:
  virtual ~Waiting() = default;
  // True when the call is finished; the waiters then forget it.
  virtual bool poll() = 0;

 private:
  friend class JobWaiters;
  std::chrono::steady_clock::time_point next_{};
  std::chrono::milliseconds interval_{2};
  std::atomic<bool> woken_{false};
};

class JobWaiters {
 public:
  explicit JobWaiters(size_t max_waiting);
  ~JobWaiters();  // stop()

  // False when max_waiting calls already wait, or after stop().
  bool add(Waiting* waiting);
  // Polls `waiting` (still waiting) at the next turn.
  void wake(Waiting& waiting);
  size_t size() const;
  // Ends the thread once no call waits; the owner first makes the calls end (the server's
  // shutdown cancels them, and their next poll finishes them).
  void stop();

 private:
  void loop();

  const size_t max_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool woken_ = false, stopping_ = false;
  std::vector<Waiting*> waiting_;
  std::thread thread_;
};

}  // namespace cuzk::service
