// Constraint matrices in VRAM and the synthesis kernels (device_circuit.hpp), both curves.

#include "gpu/prover/device_circuit.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/prover/launch_shapes.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

template <class T>
DeviceBuffer<T> upload_blocking(std::span<const T> host) {
  DeviceBuffer<T> d = DeviceBuffer<T>::allocate_blocking(host.size());
  if (!host.empty()) {
    CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size_bytes(), cudaMemcpyHostToDevice));
  }
  return d;
}

template <class Fr>
DeviceMatrix<Fr> upload_matrix(const CompactMatrix<Fr>& m) {
  DeviceMatrix<Fr> d;
  d.rows = m.rows;
  d.split = m.split;
  d.encoding = m.encoding;
  d.row_start = upload_blocking<uint32_t>(m.row_start);
  d.column = upload_blocking<uint32_t>(m.column);
  d.index = upload_blocking<uint8_t>(m.index);
  d.values = upload_blocking<Fr>(m.values);
  d.heavy_rows = upload_blocking<uint32_t>(m.heavy_rows);
  d.heavy_segment_start = upload_blocking<uint32_t>(m.heavy_segment_start);
  d.segments = upload_blocking<HeavySegment>(m.segments);
  d.distinct = m.encoding == CoefficientEncoding::kFull ? 0 : m.values.size();
  return d;
}

unsigned blocks_for(size_t work, unsigned threads) {
  return unsigned(std::clamp<size_t>((work + threads - 1) / threads, 1, tuning::kMaxBlocks));
}

// out[row] = row·z for the light rows of the matrix, 0 past its rows (up to n); heavy rows are
// left to heavy_rows_kernel.
template <class Fr>
__global__ void light_rows_kernel(CompactMatrixView<Fr> m, const Fr* __restrict__ witness,
                                  Fr* __restrict__ out, uint32_t n) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t row = blockIdx.x * blockDim.x + threadIdx.x; row < n; row += stride) {
    if (row >= m.rows) {
      out[row] = Fr::zero();
    } else if (!m.is_heavy(row)) {
      out[row] = m.row_dot(row, witness);
    }
  }
}

// Field sum across a warp, into lane 0 (limb by limb shuffles: the element is plain limbs).
template <class Fr>
__device__ Fr warp_sum(Fr v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    Fr other;
#pragma unroll
    for (size_t i = 0; i < Fr::kLimbs; ++i) {
      other.mont[i] = __shfl_down_sync(0xffffffffu, v.mont[i], offset);
    }
    v += other;
  }
  return v;
}

// partial[s] = Σ over segment s's terms; one warp per segment, lanes striding over the terms.
template <class Fr>
__global__ void heavy_segments_kernel(CompactMatrixView<Fr> m,
                                      const HeavySegment* __restrict__ segments, uint32_t count,
                                      const Fr* __restrict__ witness, Fr* __restrict__ partial) {
  const uint32_t lane = threadIdx.x % 32;
  const uint32_t warps = gridDim.x * (blockDim.x / 32);
  for (uint32_t s = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; s < count; s += warps) {
    const HeavySegment seg = segments[s];
    const Fr sum = warp_sum(m.sum_terms(seg.begin + lane, seg.end, 32, witness));
    if (lane == 0) partial[s] = sum;
  }
}

// out[heavy_rows[k]] = Σ of that row's segment partials.
template <class Fr>
__global__ void heavy_rows_kernel(const uint32_t* __restrict__ heavy_rows,
                                  const uint32_t* __restrict__ segment_start, uint32_t count,
                                  const Fr* __restrict__ partial, Fr* __restrict__ out) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
    Fr sum = Fr::zero();
    for (uint32_t s = segment_start[k]; s < segment_start[k + 1]; ++s) sum += partial[s];
    out[heavy_rows[k]] = sum;
  }
}

template <class Fr>
__global__ void hadamard_kernel(const Fr* __restrict__ a, const Fr* __restrict__ b,
                                Fr* __restrict__ c, uint32_t n) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] * b[i];
}

// Enqueues out = M·z over n rows; `partial` has room for the matrix's segments.
template <class Fr>
void matrix_times_witness(const DeviceMatrix<Fr>& m, const Fr* witness, Fr* out, uint32_t n,
                          Fr* partial, cudaStream_t stream) {
  const CompactMatrixView<Fr> view = m.view();
  light_rows_kernel<Fr><<<blocks_for(n, tuning::kRowThreads), tuning::kRowThreads, 0, stream>>>(
      view, witness, out, n);
  CUZK_CHECK_LAUNCH();
  const uint32_t segments = uint32_t(m.segment_count());
  if (segments == 0) return;
  constexpr unsigned kThreads = tuning::kSegmentWarpsPerBlock * 32;
  const unsigned blocks = unsigned(std::clamp<size_t>(
      (segments + tuning::kSegmentWarpsPerBlock - 1) / tuning::kSegmentWarpsPerBlock, 1,
      tuning::kMaxBlocks));
  heavy_segments_kernel<Fr>
      <<<blocks, kThreads, 0, stream>>>(view, m.segments.data(), segments, witness, partial);
  CUZK_CHECK_LAUNCH();
  const uint32_t heavy = uint32_t(m.heavy_row_count());
  heavy_rows_kernel<Fr><<<blocks_for(heavy, tuning::kRowThreads), tuning::kRowThreads, 0, stream>>>(
      m.heavy_rows.data(), m.heavy_segment_start.data(), heavy, partial, out);
  CUZK_CHECK_LAUNCH();
}

}  // namespace

template <class Fr>
size_t DeviceMatrix<Fr>::bytes() const {
  return row_start.bytes() + column.bytes() + index.bytes() + values.bytes() + heavy_rows.bytes() +
         heavy_segment_start.bytes() + segments.bytes();
}

template <class Fr>
CompactMatrixView<Fr> DeviceMatrix<Fr>::view() const {
  CompactMatrixView<Fr> v;
  v.rows = rows;
  v.heavy_row_terms = split.heavy_row_terms;
  v.encoding = encoding;
  v.row_start = row_start.data();
  v.column = column.data();
  v.index = index.size() == 0 ? nullptr : index.data();
  v.values = values.data();
  return v;
}

template <class Fr>
DeviceCircuit<Fr> DeviceCircuit<Fr>::upload(const HostCircuit<Fr>& host) {
  DeviceCircuit<Fr> d;
  d.domain_size_ = host.domain_size;
  d.n_vars_ = host.n_vars;
  d.n_public_ = host.n_public;
  for (const CompactMatrix<Fr>* m : {&host.a, &host.b}) {
    if (m->rows > host.domain_size) {
      CUZK_INVALID_INPUT("DeviceCircuit: a matrix has " + std::to_string(m->rows) +
                         " rows for a domain of " + std::to_string(host.domain_size));
    }
  }
  d.a_ = upload_matrix(host.a);
  d.b_ = upload_matrix(host.b);
  if (host.c) {
    if (host.c->rows > host.domain_size) {
      CUZK_INVALID_INPUT("DeviceCircuit: C has more rows than the domain");
    }
    d.has_c_ = true;
    d.c_ = upload_matrix(*host.c);
  }
  for (const auto* wires : {&host.a_wires, &host.b_wires}) {
    for (uint32_t w : *wires) {
      if (w >= host.n_vars) {
        CUZK_INVALID_INPUT("DeviceCircuit: a density list names wire " + std::to_string(w) +
                           " of " + std::to_string(host.n_vars));
      }
    }
  }
  d.a_wires_ = upload_blocking<uint32_t>(host.a_wires);
  d.b_wires_ = upload_blocking<uint32_t>(host.b_wires);
  return d;
}

template <class Fr>
size_t DeviceCircuit<Fr>::synthesis_workspace_bytes() const {
  // The three matrices run one after the other on one stream but their partials are kept
  // apart, so that a later reordering onto several streams stays correct.
  return (a_.segment_count() + b_.segment_count() + c_.segment_count()) * sizeof(Fr);
}

template <class Fr>
std::string DeviceCircuit<Fr>::describe() const {
  std::string s;
  const auto line = [&](const char* name, const DeviceMatrix<Fr>& m) {
    s += std::string(name) + ": " + std::to_string(m.rows) + " rows, " +
         std::to_string(m.column.size()) + " terms, " + encoding_name(m.encoding) + " (" +
         std::to_string(m.distinct) + " distinct), " + std::to_string(m.bytes()) + " bytes, " +
         std::to_string(m.heavy_row_count()) + " split rows\n";
  };
  line("A", a_);
  line("B", b_);
  if (has_c_) line("C", c_);
  return s;
}

template <class Fr>
void synthesize(const DeviceCircuit<Fr>& circuit, const SynthesisArgs<Fr>& args) {
  if (args.witness_size != circuit.n_vars()) {
    CUZK_INVALID_INPUT("synthesize: the witness has " + std::to_string(args.witness_size) +
                       " values, but the circuit has " + std::to_string(circuit.n_vars()) +
                       " wires");
  }
  if (args.n != circuit.domain_size()) {
    CUZK_INVALID_INPUT("synthesize: buffers of " + std::to_string(args.n) +
                       " elements for a domain of " + std::to_string(circuit.domain_size()));
  }
  if (args.a == nullptr || args.b == nullptr || args.c == nullptr ||
      args.witness_standard == nullptr) {
    CUZK_INVALID_INPUT("synthesize: a, b, c and the witness must be device buffers");
  }
  const size_t need = circuit.synthesis_workspace_bytes();
  if (args.workspace_bytes < need || (need != 0 && args.workspace == nullptr)) {
    CUZK_INVALID_INPUT("synthesize: a workspace of " + std::to_string(args.workspace_bytes) +
                       " bytes, " + std::to_string(need) + " needed");
  }
  const uint32_t n = uint32_t(args.n);
  Fr* partial = static_cast<Fr*>(args.workspace);
  matrix_times_witness(circuit.a(), args.witness_standard, args.a, n, partial, args.stream);
  partial += circuit.a().segment_count();
  matrix_times_witness(circuit.b(), args.witness_standard, args.b, n, partial, args.stream);
  partial += circuit.b().segment_count();
  if (circuit.has_c()) {
    matrix_times_witness(circuit.c(), args.witness_standard, args.c, n, partial, args.stream);
  } else {
    hadamard_kernel<Fr><<<blocks_for(n, tuning::kElementwiseThreads), tuning::kElementwiseThreads,
                          0, args.stream>>>(args.a, args.b, args.c, n);
    CUZK_CHECK_LAUNCH();
  }
}

#define CUZK_DEVICE_CIRCUIT_FOR_FIELD(Fr)                                           \
  template struct DeviceMatrix<Fr>;                                                 \
  template class DeviceCircuit<Fr>;                                                 \
  template void synthesize<Fr>(const DeviceCircuit<Fr>&, const SynthesisArgs<Fr>&);

CUZK_DEVICE_CIRCUIT_FOR_FIELD(bn254::Fr)
CUZK_DEVICE_CIRCUIT_FOR_FIELD(bls12_381::Fr)

}  // namespace cuzk::gpu::prover
