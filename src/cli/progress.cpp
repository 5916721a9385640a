// Progress lines for long steps (progress.hpp).

#include "cli/progress.hpp"

#include <cstdio>

namespace cuzk::cli {

namespace {
constexpr auto kQuietFor = std::chrono::seconds(1);
constexpr auto kPoll = std::chrono::milliseconds(100);
}  // namespace

ProgressPrinter::ProgressPrinter(std::string command)
    : command_(std::move(command)), watcher_([this] { watch(); }) {}

ProgressPrinter::~ProgressPrinter() {
  {
    std::lock_guard lock(mutex_);
    end_locked();
    stopping_ = true;
  }
  wake_.notify_all();
  watcher_.join();
}

void ProgressPrinter::stage(const char* name) {
  std::lock_guard lock(mutex_);
  end_locked();
  current_ = name;
  started_ = Clock::now();
  announced_ = false;
}

void ProgressPrinter::finish() {
  std::lock_guard lock(mutex_);
  end_locked();
}

void ProgressPrinter::end_locked() {
  if (!current_.empty() && announced_) {
    const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    std::fprintf(stderr, "cuzk %s: %s done in %.1f s\n", command_.c_str(), current_.c_str(),
                 seconds);
  }
  current_.clear();
  announced_ = false;
}

void ProgressPrinter::watch() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, kPoll);
    if (!current_.empty() && !announced_ && Clock::now() - started_ >= kQuietFor) {
      std::fprintf(stderr, "cuzk %s: %s ...\n", command_.c_str(), current_.c_str());
      announced_ = true;
    }
  }
}

}  // namespace cuzk::cli
