#pragma once
// RAII owners of CUDA streams and events.
//
// A Stream owns one non-blocking stream (it does not synchronize with the legacy default
// stream), an Event one event; both are move-only and destroyed with the object. They are
// not internally synchronized: one thread at a time uses a given object, though the CUDA
// calls themselves are thread-safe. Work ordering between streams goes through events
// (Stream::wait), never through device-wide synchronization (DESIGN.md §2.1).

#include <cuda_runtime_api.h>

#include <utility>

#include "gpu/cuda_check.hpp"

namespace cuzk::gpu {

class Event;

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    // Destruction cannot report errors; a failure here leaves a sticky error that the next
    // checked call reports.
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    std::swap(stream_, o.stream_);
    return *this;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }

  // Blocks the calling thread until all work enqueued so far on this stream is done.
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }
  // Work enqueued on this stream after the call starts only after `event` completed.
  inline void wait(const Event& event) const;

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  // Timing events cost a little more to record; ordering-only events pass timing = false.
  explicit Event(bool timing = false) {
    CUDA_CHECK(
        cudaEventCreateWithFlags(&event_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event& operator=(Event&& o) noexcept {
    std::swap(event_, o.event_);
    return *this;
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }

  // Captures the work enqueued on `stream` so far.
  void record(const Stream& stream) { CUDA_CHECK(cudaEventRecord(event_, stream.get())); }
  void synchronize() const { CUDA_CHECK(cudaEventSynchronize(event_)); }
  // True when the captured work has completed; never blocks.
  bool done() const {
    cudaError_t status = cudaEventQuery(event_);
    if (status == cudaErrorNotReady) return false;
    CUDA_CHECK(status);
    return true;
  }

  // Milliseconds between two recorded timing events; both must have completed.
  static float elapsed_ms(const Event& start, const Event& end) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, end.event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

inline void Stream::wait(const Event& event) const {
  CUDA_CHECK(cudaStreamWaitEvent(stream_, event.get(), 0));
}

}  // namespace cuzk::gpu
