#pragma once
// Double-buffered staging of bases that live in pinned host memory: chunk k is copied into
// staging slot k % 2 on the copy stream while the compute stream works on chunk k − 1.
//
// Ordering, all by events (no device-wide synchronization):
//   entry        recorded on the compute stream at construction; the copy stream waits for it,
//                so no copy overwrites the workspace before earlier work on it is done
//   copied[s]    recorded on the copy stream after a copy into slot s; the compute stream
//                waits for it before the chunk's kernels
//   consumed[s]  recorded on the compute stream after the last kernel reading slot s; the copy
//                stream waits for it before copying the chunk after next into s
// The compute stream consumes every copy, so once it has passed the operation, all copies are
// done too. Events are released at destruction; CUDA keeps pending ones alive until they fire.
//
// Host code; with `enabled` false (device-resident bases) it does nothing.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <optional>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/staged_bytes.hpp"
#include "gpu/stream.hpp"

namespace cuzk::gpu::msm::detail {

class ChunkStager {
 public:
  ChunkStager(const MsmConfig& config, std::byte* slot0, std::byte* slot1, bool enabled)
      : compute_(config.stream),
        copy_(config.copy_stream),
        slots_{slot0, slot1},
        enabled_(enabled) {
    if (!enabled_) return;
    events_.emplace();
    CUDA_CHECK(cudaEventRecord(events_->entry.get(), compute_));
    CUDA_CHECK(cudaStreamWaitEvent(copy_, events_->entry.get(), 0));
  }

  // Enqueues the copy of `bytes` from `host` for chunk k; returns the device slot, ready for
  // kernels enqueued on the compute stream after this call.
  const void* stage(size_t k, const void* host, size_t bytes) {
    const size_t s = k % 2;
    if (k >= 2) CUDA_CHECK(cudaStreamWaitEvent(copy_, events_->consumed[s].get(), 0));
    CUDA_CHECK(cudaMemcpyAsync(slots_[s], host, bytes, cudaMemcpyHostToDevice, copy_));
    staged_base_bytes().fetch_add(bytes, std::memory_order_relaxed);
    CUDA_CHECK(cudaEventRecord(events_->copied[s].get(), copy_));
    CUDA_CHECK(cudaStreamWaitEvent(compute_, events_->copied[s].get(), 0));
    return slots_[s];
  }

  // After the last kernel of chunk k was enqueued on the compute stream.
  void release(size_t k) {
    if (enabled_) CUDA_CHECK(cudaEventRecord(events_->consumed[k % 2].get(), compute_));
  }

 private:
  cudaStream_t compute_;
  cudaStream_t copy_;
  std::byte* slots_[2];
  bool enabled_;
  struct Events {
    Event entry, copied[2], consumed[2];
  };
  std::optional<Events> events_;  // created only when staging
};

}  // namespace cuzk::gpu::msm::detail
