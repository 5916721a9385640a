#pragma once
// Progress lines on stderr for the steps of a command that run longer than a second: a step
// that ends sooner prints nothing, so small jobs stay quiet and long ones say what they are
// doing ("cuzk prove: MSM H ..." after one second, "cuzk prove: MSM H done in 4.2 s" at its
// end). A watcher thread notices the second pass; the steps are named by the library's
// stages the command announces.
//
// Thread-safety: stage() and finish() are called from one thread (the command's); the watcher
// shares the state under a mutex.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace cuzk::cli {

class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::string command);
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // Ends the current step (if any) and starts `name`.
  void stage(const char* name);
  // Ends the current step.
  void finish();
  // stage() as a callback for the library.
  std::function<void(const char*)> callback() {
    return [this](const char* name) { stage(name); };
  }

 private:
  using Clock = std::chrono::steady_clock;
  void end_locked();
  void watch();

  const std::string command_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::string current_;
  Clock::time_point started_;
  bool announced_ = false;
  bool stopping_ = false;
  std::thread watcher_;
};

}  // namespace cuzk::cli
