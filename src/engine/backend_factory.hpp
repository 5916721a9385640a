#pragma once
// The one place that chooses and makes the engine's backend, for every caller: `cuzk prove`,
// `cuzk serve` and the C library for Filecoin's callers. `auto` is the GPUs where this build
// has CUDA and a device is present, else the CPU. The backends' own headers (cpu_backend.hpp,
// cuda_backend.hpp, sim_backend.hpp) stay inside the engine.
//
// Also here, for the same callers: the key budgets a backend gets when its caller names none,
// and the device arithmetic check of `cuzk selftest`.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "engine/backend.hpp"
#include "engine/sim_backend.hpp"
#include "gpu/arith_selfcheck.hpp"

namespace cuzk::engine {

struct CpuOptions {
  // Subgroup checks of every key point when loading (hours for Filecoin-size keys; keys this
  // engine made or already checked may skip them, as `cuzk prove` does).
  bool check_key_subgroups = true;
};

struct CudaOptions {
  // Subgroup checks of every key point when loading (hours for Filecoin-size keys); points
  // are always checked to be on their curve, and every proof is verified before it is returned.
  bool check_key_subgroups = false;
  // Verify every proof against the key before returning it (a pairing check, a few ms of
  // host time per partition, off the GPU's critical path). Off only for benchmarks with keys
  // of random points, whose proofs cannot verify.
  bool verify_proofs = true;
  // Pinned staging made per device when a key is loaded (one per partition in flight: the
  // engine's workers per GPU); more are made on demand. Pinned allocation is slow (~0.4 s for
  // a 2^24 witness), so making them at load time keeps it out of the first partitions.
  int staging_per_device = 2;
  // Each key loaded into VRAM gets an H table (gpu/prover/device_proving_key.hpp): the H MSM
  // of every partition from precomputed shifted bases, up to shifted_windows(c) times the H
  // query's VRAM (about 3.3x a porep key's VRAM at 2^24) and a build of seconds at load. Each
  // key gets the fastest table by the MSM's tuning model that fits the smallest GPU beside the
  // key and partitions_per_device partitions (h_table_fits), or none where no table worth
  // making does, so that the key stays in VRAM: at 2^27 the whole table would take ~130 GB,
  // 4 rows (of a window of 24 bits) fit an H200 beside two partitions of a .zkey key.
  bool h_tables = false;
  int partitions_per_device = 2;  // the engine's workers per GPU (each holds one partition)
  // The GPUs used: devices 0 .. max_devices − 1 (0: all). One proof needs one.
  int max_devices = 0;
};

struct BackendChoice {
  std::string name = "auto";  // auto, cuda, cpu or sim
  CpuOptions cpu;
  CudaOptions cuda;
  SimOptions sim;
};

// kInvalidInput for an unknown name; kNotFound for cuda where this build has no CUDA (the
// message says so) or no device is usable.
std::unique_ptr<Backend> make_backend(const BackendChoice& choice);

// Whether this build has the cuda backend, and whether it can run here (a device is present).
bool built_with_cuda();
bool cuda_device_present();

// The host's memory (/proc/meminfo's MemTotal).
uint64_t host_memory_bytes();

// Key budgets for a caller that names none: the cpu backend keeps keys in host memory (half of
// it); the cuda backend in VRAM (default_vram_key_budget: what is left of the smallest GPU once
// the arena has room for `workers_per_gpu` partitions of the largest of `keys`, else half), and
// a key too large for that in pinned host memory (half of it), streamed into the MSMs; the sim
// backend's keys are models that occupy nothing real. A key that cannot be inspected is left
// out (its registration reports it).
std::map<KeyTier, uint64_t> default_key_budgets(const Backend& backend,
                                                std::span<const KeySource> keys,
                                                int workers_per_gpu, uint64_t vram_margin_bytes);

// `cuzk selftest`'s device arithmetic check on device 0 (gpu/arith_selfcheck.hpp), or
// device_present = false with the reason where this build has no CUDA.
gpu::ArithSelfcheck device_arith_selfcheck(size_t cases, uint64_t seed);

}  // namespace cuzk::engine
