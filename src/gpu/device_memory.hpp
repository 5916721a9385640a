#pragma once
// RAII owners of device memory and pinned host memory.
//
// DeviceBuffer<T> owns an array of T in device memory, PinnedBuffer<T> an array of T in
// page-locked host memory (the kind that asynchronous copies overlap with kernels). Both are
// move-only; the elements are not initialized. Neither is internally synchronized: one thread
// at a time uses a given buffer.
//
// Two ways to allocate device memory, because of DESIGN.md §2.1 (no device-global
// synchronization on the proving path):
//   - stream-ordered (the constructor): cudaMallocAsync / cudaFreeAsync on one stream. The
//     memory is valid for work enqueued on that stream after the constructor, and is released
//     after the work already enqueued there when the buffer is destroyed. That stream must
//     outlive the buffer; other streams that touch the memory order themselves with events.
//   - blocking (allocate_blocking): cudaMalloc / cudaFree, which may synchronize the whole
//     device. For start-up (arenas, resident keys), tests and tools only.
// Pinned allocations (cudaHostAlloc / cudaFreeHost) also synchronize: make them at start-up.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "gpu/cuda_check.hpp"
#include "util/error.hpp"

namespace cuzk::gpu {

template <class T>
class DeviceBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable data");

 public:
  DeviceBuffer() = default;

  // Stream-ordered allocation of `count` elements.
  DeviceBuffer(size_t count, cudaStream_t stream) : size_(count), stream_(stream) {
    if (count != 0) CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&data_), bytes(), stream));
  }

  // Blocking allocation of `count` elements (start-up, tests and tools only).
  static DeviceBuffer allocate_blocking(size_t count) {
    DeviceBuffer b;
    b.size_ = count;
    b.stream_ordered_ = false;
    if (count != 0) CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&b.data_), b.bytes()));
    return b;
  }

  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept { swap(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    DeviceBuffer moved(std::move(o));
    swap(moved);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // A device pointer: pass it to kernels, never dereference it on the host.
  T* data() const { return data_; }
  size_t size() const { return size_; }
  size_t bytes() const { return size_ * sizeof(T); }

  // Asynchronous copies on `stream`; the host memory must stay valid until the stream reaches
  // them (and should be pinned, or the copy is staged and blocks the calling thread).
  void upload(std::span<const T> host, cudaStream_t stream) {
    check_size(host.size(), "upload");
    CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), bytes(), cudaMemcpyHostToDevice, stream));
  }
  void download(std::span<T> host, cudaStream_t stream) const {
    check_size(host.size(), "download");
    CUDA_CHECK(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream));
  }

 private:
  void check_size(size_t host_size, const char* what) const {
    if (host_size != size_) {
      CUZK_INVALID_INPUT(std::string("DeviceBuffer::") + what + ": host span of " +
                         std::to_string(host_size) + " elements for a buffer of " +
                         std::to_string(size_));
    }
  }
  void release() noexcept {
    if (data_ == nullptr) return;
    // Destruction cannot report errors; a failure leaves a sticky error that the next checked
    // call reports.
    if (stream_ordered_) {
      cudaFreeAsync(data_, stream_);
    } else {
      cudaFree(data_);
    }
    data_ = nullptr;
  }
  void swap(DeviceBuffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(stream_, o.stream_);
    std::swap(stream_ordered_, o.stream_ordered_);
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  cudaStream_t stream_ = nullptr;
  bool stream_ordered_ = true;
};

template <class T>
class PinnedBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "pinned buffers hold trivially copyable data");

 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(size_t count) : size_(count) {
    // Portable: pinned for every device, so one copy can feed the copies of several GPUs.
    if (count != 0) {
      CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&data_), count * sizeof(T),
                               cudaHostAllocPortable));
    }
  }
  ~PinnedBuffer() {
    if (data_ != nullptr) cudaFreeHost(data_);
  }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() const { return data_; }
  size_t size() const { return size_; }
  std::span<T> span() const { return {data_, size_}; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace cuzk::gpu
