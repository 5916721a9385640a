#pragma once
// The bytes of bases this process has copied from pinned host memory to a device for MSMs
// (every copy of ChunkStager, staging.hpp): the PCIe traffic of keys streamed from host
// memory. A counter only, read before and after a call (bench/supraseal); no CUDA here, so
// host-only builds can include it (it then stays 0).

#include <atomic>
#include <cstdint>

namespace cuzk::gpu::msm {

inline std::atomic<uint64_t>& staged_base_bytes() {
  static std::atomic<uint64_t> bytes{0};
  return bytes;
}

}  // namespace cuzk::gpu::msm
