#pragma once
// The constraint matrices resident in VRAM, and synthesis on the GPU: a = A·z, b = B·z and
// c = C·z (or c = a∘b for a zkey source) as Montgomery field elements over the whole domain.
//
// Ownership and order of calls:
//   - DeviceCircuit::upload() allocates with blocking cudaMalloc and copies synchronously: it is
//     start-up work (loading a circuit), never on the proving path. The object owns its memory
//     and is move-only; it is read-only afterwards, so any number of workers may synthesize
//     from it concurrently, each on its own stream.
//   - synthesize() only enqueues work on args.stream: no allocation, no synchronization. The
//     caller provides the output buffers (n = domain size elements each) and a workspace of
//     synthesis_workspace_bytes() (the partial sums of split rows; may be 0 bytes), all device
//     memory that stays valid until the stream reaches the end of the enqueued work.
//
// The witness on the device is in standard form (canonical limbs, as a .wtns holds it; see
// compact_matrix.hpp for why); witness_staging.hpp puts it there.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "gpu/device_memory.hpp"
#include "gpu/prover/compact_matrix.hpp"
#include "gpu/prover/host_circuit.hpp"

namespace cuzk::gpu::prover {

// One matrix's arrays in device memory.
template <class Fr>
struct DeviceMatrix {
  uint32_t rows = 0;
  RowSplit split;
  CoefficientEncoding encoding = CoefficientEncoding::kFull;
  DeviceBuffer<uint32_t> row_start, column;
  DeviceBuffer<uint8_t> index;
  DeviceBuffer<Fr> values;
  DeviceBuffer<uint32_t> heavy_rows, heavy_segment_start;
  DeviceBuffer<HeavySegment> segments;
  size_t distinct = 0;  // table entries (0 for kFull)

  size_t bytes() const;
  size_t segment_count() const { return segments.size(); }
  size_t heavy_row_count() const { return heavy_rows.size(); }
  CompactMatrixView<Fr> view() const;
};

template <class Fr>
class DeviceCircuit {
 public:
  DeviceCircuit() = default;
  // Blocking upload (start-up work).
  static DeviceCircuit upload(const HostCircuit<Fr>& host);

  uint32_t domain_size() const { return domain_size_; }
  uint32_t n_vars() const { return n_vars_; }
  uint32_t n_public() const { return n_public_; }
  bool has_c() const { return has_c_; }
  const DeviceMatrix<Fr>& a() const { return a_; }
  const DeviceMatrix<Fr>& b() const { return b_; }
  const DeviceMatrix<Fr>& c() const { return c_; }  // empty unless has_c()
  // HostCircuit::a_wires / b_wires on the device (empty for a zkey source).
  const DeviceBuffer<uint32_t>& a_wires() const { return a_wires_; }
  const DeviceBuffer<uint32_t>& b_wires() const { return b_wires_; }

  // VRAM held by the matrices (for the key store's budget and reports).
  size_t bytes() const {
    return a_.bytes() + b_.bytes() + c_.bytes() + a_wires_.bytes() + b_wires_.bytes();
  }
  // Device bytes synthesize() needs as workspace.
  size_t synthesis_workspace_bytes() const;
  // One line per matrix for logs.
  std::string describe() const;

 private:
  uint32_t domain_size_ = 0, n_vars_ = 0, n_public_ = 0;
  bool has_c_ = false;
  DeviceMatrix<Fr> a_, b_, c_;
  DeviceBuffer<uint32_t> a_wires_, b_wires_;
};

template <class Fr>
struct SynthesisArgs {
  cudaStream_t stream = nullptr;
  const Fr* witness_standard = nullptr;  // n_vars values, standard form, device
  size_t witness_size = 0;
  Fr *a = nullptr, *b = nullptr, *c = nullptr;  // domain_size values each, device
  size_t n = 0;                                 // the length of a, b and c
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// Enqueues a = A·z, b = B·z, c = C·z (or a∘b) on args.stream. Throws kInvalidInput when the
// witness length is not n_vars, n is not the domain size, a buffer is missing or the
// workspace is too small; kCuda for a failed launch.
template <class Fr>
void synthesize(const DeviceCircuit<Fr>& circuit, const SynthesisArgs<Fr>& args);

}  // namespace cuzk::gpu::prover
