#include "service/waiters.hpp"

#include <algorithm>

namespace cuzk::service {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {
constexpr auto kFirstPoll = 2ms;
constexpr auto kLongestInterval = 50ms;
}  // namespace

JobWaiters::JobWaiters(size_t max_waiting) : max_(max_waiting) {
  thread_ = std::thread([this] { loop(); });
}

JobWaiters::~JobWaiters() { stop(); }

bool JobWaiters::add(Waiting* waiting) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || waiting_.size() >= max_) return false;
    waiting->interval_ = kFirstPoll;
    waiting->next_ = Clock::now() + kFirstPoll;
    waiting_.push_back(waiting);
    woken_ = true;  // the loop's wait may end later than this call's first poll
  }
  wake_.notify_one();
  return true;
}

void JobWaiters::wake(Waiting& waiting) {
  waiting.woken_ = true;
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_one();
}

size_t JobWaiters::size() const {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

void JobWaiters::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void JobWaiters::loop() {
  std::vector<Waiting*> due;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (stopping_ && waiting_.empty()) return;
    auto until = Clock::now() + std::chrono::hours(1);
    for (const Waiting* w : waiting_) until = std::min(until, w->next_);
    wake_.wait_until(lock, until, [&] { return woken_ || (stopping_ && waiting_.empty()); });
    woken_ = false;
    const auto now = Clock::now();
    due.clear();
    std::erase_if(waiting_, [&](Waiting* w) {
      if (w->next_ > now && !w->woken_ && !stopping_) return false;
      due.push_back(w);
      return true;
    });
    lock.unlock();
    std::vector<Waiting*> again;
    for (Waiting* w : due) {
      w->woken_ = false;
      if (w->poll()) continue;  // finished: no longer ours to touch
      w->interval_ = std::min<std::chrono::milliseconds>(w->interval_ * 2, kLongestInterval);
      w->next_ = Clock::now() + w->interval_;
      again.push_back(w);
    }
    lock.lock();
    waiting_.insert(waiting_.end(), again.begin(), again.end());
    // While stopping, the remaining calls are polled every turn (the server's shutdown is
    // cancelling them); a short pause keeps this from spinning.
    if (stopping_ && !waiting_.empty()) {
      wake_.wait_for(lock, 5ms);
    }
  }
}

}  // namespace cuzk::service
