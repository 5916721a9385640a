// make_backend and the defaults its callers share (backend_factory.hpp).

#include "engine/backend_factory.hpp"

#include <algorithm>
#include <fstream>

#include "engine/cpu_backend.hpp"
#include "engine/memory_budget.hpp"
#include "engine/sim_backend.hpp"
#if defined(CUZK_WITH_CUDA_BACKEND)
#include "engine/cuda_backend.hpp"
#include "gpu/device_info.hpp"
#endif

namespace cuzk::engine {

bool built_with_cuda() {
#if defined(CUZK_WITH_CUDA_BACKEND)
  return true;
#else
  return false;
#endif
}

bool cuda_device_present() {
#if defined(CUZK_WITH_CUDA_BACKEND)
  return gpu::device_count() > 0;
#else
  return false;
#endif
}

std::unique_ptr<Backend> make_backend(const BackendChoice& choice) {
  const std::string& name = choice.name;
  if (name != "auto" && name != "cuda" && name != "cpu" && name != "sim") {
    CUZK_INVALID_INPUT("backend '" + name + "': expected auto, cuda, cpu or sim");
  }
  if (name == "sim") return SimBackend::create(choice.sim);
  if (name == "cuda" && !built_with_cuda()) {
    CUZK_THROW(ErrorKind::kNotFound,
               "backend cuda: this cuzk was built without CUDA (nvcc was not found when it was "
               "configured)");
  }
#if defined(CUZK_WITH_CUDA_BACKEND)
  if (name == "cuda" || (name == "auto" && cuda_device_present())) {
    return CudaBackend::create(choice.cuda);
  }
#endif
  return CpuBackend::create(choice.cpu);
}

uint64_t host_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string field;
  uint64_t kib = 0;
  while (in >> field >> kib) {
    if (field == "MemTotal:") return kib * 1024;
    in.ignore(1 << 10, '\n');
  }
  return uint64_t(16) << 30;  // not Linux: a modest guess
}

std::map<KeyTier, uint64_t> default_key_budgets(const Backend& backend,
                                                std::span<const KeySource> keys,
                                                int workers_per_gpu, uint64_t vram_margin_bytes) {
  if (backend.name() == "cpu") return {{KeyTier::kPinned, host_memory_bytes() / 2}};
  if (backend.name() == "cuda") {
    uint64_t smallest = UINT64_MAX;
    for (int d = 0; d < backend.device_count(); ++d) {
      smallest = std::min(smallest, backend.describe(d).vram_bytes);
    }
    uint64_t largest_slot = 0;
    for (const KeySource& key : keys) {
      try {
        largest_slot = std::max(largest_slot, backend.partition_vram_bytes(key));
      } catch (const Error&) {
        // A bad key file: its registration reports it.
      }
    }
    return {{KeyTier::kVram,
             default_vram_key_budget(smallest, vram_margin_bytes, workers_per_gpu, largest_slot)},
            {KeyTier::kPinned, host_memory_bytes() / 2}};
  }
  return {{KeyTier::kPinned, uint64_t(64) << 30}, {KeyTier::kMmap, uint64_t(1) << 40}};
}

gpu::ArithSelfcheck device_arith_selfcheck(size_t cases, uint64_t seed) {
#if defined(CUZK_WITH_CUDA_BACKEND)
  return gpu::arith_selfcheck(cases, seed);
#else
  (void)cases;
  (void)seed;
  gpu::ArithSelfcheck none;
  none.device = "built without CUDA";
  return none;
#endif
}

}  // namespace cuzk::engine
