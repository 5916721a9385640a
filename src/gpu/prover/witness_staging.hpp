#pragma once
// The witness on its way to the GPU: read into pinned host memory (the "prepare" step, no lock),
// then uploaded asynchronously on the worker's stream (the "stage" step, DESIGN.md §2.1) and
// converted on the device into the forms the later stages read:
//   standard    canonical limbs: synthesis multiplies them by c·R² coefficients
//               (compact_matrix.hpp), and an MSM over canonical scalars reads them as they are;
//   Montgomery  w·R: for an MSM that takes Montgomery scalars (the CPU MSM's form).
//
// A .wtns holds standard-form values, so load_wtns() is a range check and a copy into pinned
// memory; a witness already in memory (Montgomery Fr, as formats::read_wtns returns it) is
// copied with assign_montgomery() and converted on the device.
//
// Ownership: PinnedWitness owns its pinned buffer (allocated once, at the capacity given; pinned
// allocation synchronizes the device, so make it at start-up and reuse it per partition). It
// must stay untouched until the upload enqueued by stage_witness() has completed (record an
// event after it). Not internally synchronized.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string_view>

#include "gpu/device_memory.hpp"

namespace cuzk::gpu::prover {

enum class WitnessForm { kStandard, kMontgomery };

template <class Fr>
class PinnedWitness {
 public:
  explicit PinnedWitness(size_t capacity) : buffer_(capacity) {}

  size_t size() const { return size_; }
  size_t capacity() const { return buffer_.size(); }
  WitnessForm form() const { return form_; }
  const Fr* data() const { return buffer_.data(); }

  // Copies a Montgomery-form witness (a span of Fr). Throws kInvalidInput beyond the capacity.
  void assign_montgomery(std::span<const Fr> witness);
  // Reads a .wtns (its prime must be Fr's modulus) into the buffer in standard form. Throws
  // kInvalidInput for a malformed file, a value ≥ r, a first value other than 1, a count other
  // than expected_count (when not 0) or beyond the capacity. Values are checked on all cores.
  void load_wtns(const std::filesystem::path& path, size_t expected_count = 0);
  // The same from the bytes of a .wtns already in memory (`name` names it in messages).
  void load_wtns_bytes(std::span<const uint8_t> wtns, std::string_view name,
                       size_t expected_count = 0);

 private:
  PinnedBuffer<Fr> buffer_;
  size_t size_ = 0;
  WitnessForm form_ = WitnessForm::kStandard;
};

// Where the staged witness goes on the device: `standard` is required (size() elements);
// `montgomery` is optional (nullptr: not produced).
template <class Fr>
struct DeviceWitness {
  Fr* standard = nullptr;
  Fr* montgomery = nullptr;
  size_t size = 0;  // elements each buffer holds
};

// Enqueues on `stream`: the upload of the pinned values into target.standard, then one kernel
// producing both forms. No allocation, no synchronization. Throws kInvalidInput when the target
// is smaller than the witness or target.standard is null.
template <class Fr>
void stage_witness(const PinnedWitness<Fr>& witness, const DeviceWitness<Fr>& target,
                   cudaStream_t stream);

}  // namespace cuzk::gpu::prover
