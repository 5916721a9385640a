#pragma once
// A Groth16 proving key's point queries resident in VRAM (DESIGN.md §2.2, "hot-device"), plus
// the host-side constants the epilogue needs (α, β, δ, the verifying key).
//
//   query  snarkjs .zkey (nVars = N_v, domain n)      bellman .params
//   a      A_i(τ), N_v points (G1)                    a: wires with a non-zero A polynomial
//   b1     B_i(τ), N_v points (G1)                    b_g1: wires with a non-zero B polynomial
//   b2     B_i(τ), N_v points (G2)                    b_g2: the same wires
//   c      C: private wires (N_v − nPublic − 1)       l: private wires
//   h      n odd-coset Lagrange points                h: n − 1 coefficient-basis points
// Points keep the host layout (ec::Affine, Montgomery coordinates), which is the device layout
// byte for byte (src/gpu/README.md). The bellman a/b queries are density-filtered: the MSM
// must take the scalars of the listed wires only (groth16/bellman.hpp). A .zkey's a and b
// queries are filtered the same way at upload when enough of their points are at infinity
// (zkey_density below): a snarkjs key holds the point at infinity for every wire whose
// polynomial is zero (a porep-shaped circuit's B leaves out three quarters of its wires), and
// an MSM over those points adds nothing at full cost. The kept wires' list then stays in VRAM
// and the MSM reads the witness through it (msm::MsmConfig::scalar_index).
//
// Residency: kDevice puts the queries in VRAM (blocking cudaMalloc + copies); kStreamed keeps
// them in pinned host memory, and every MSM of a partition streams its bases in chunks through
// two staging buffers of the partition's workspace, the copies on a second stream overlapping
// the kernels (gpu/msm/msm.hpp, Location::kPinnedHost). Streamed keys serve cards whose VRAM
// cannot hold the key: the whole key crosses PCIe once per partition. footprint() tells a
// caller how much VRAM kDevice would take before anything is allocated
// (choose_key_residency in resident_circuit.hpp).
//
// H table (optional, add_h_table): the H query's shifted bases 2^(c·w)·P_i (msm::shift_bases)
// in VRAM, extending the H query in place (its row 0), so that the H MSM, the partition's
// largest and its only one over dense scalars, runs as msm::msm_shifted (bucket sets shared by
// windows, and a wider window). A whole table has shifted_windows(c) rows (12 × 1.6 GB for
// BLS12-381 at 2^24, 11 × 6.4 GB at 2^26); where VRAM holds fewer, a partial table of R rows
// groups the windows R at a time (msm.hpp: ShiftedBases), e.g. 4 rows of 12.9 GB at 2^27
// (c = 24, 3 bucket sets against the plain MSM's 12 windows of c = 22). Rows take c doublings
// per point to build, seconds in all, so a table serves keys that prove many partitions (the
// engine's), not a single proof.
//
// Ownership: upload() and add_h_table() allocate with blocking calls (cudaMalloc, or
// cudaHostAlloc) and copy synchronously: start-up work, done when a key is loaded, never per
// partition. The key is read-only afterwards and may be used by any number of workers'
// streams at once. Move-only.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "formats/params.hpp"
#include "formats/zkey.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/msm/msm.hpp"
#include "groth16/types.hpp"

namespace cuzk::gpu::prover {

enum class KeyConvention { kSnarkjs, kBellman };
enum class KeyResidency { kDevice, kStreamed };

// Point counts and the VRAM they take when resident.
struct KeyFootprint {
  size_t a = 0, b1 = 0, b2 = 0, c = 0, h = 0;  // points per query
  size_t g1_bytes = 0, g2_bytes = 0;           // bytes per point
  size_t wire_list_bytes = 0;                  // a .zkey's density lists (always in VRAM)

  size_t points_bytes() const { return (a + b1 + c + h) * g1_bytes + b2 * g2_bytes; }
  size_t bytes() const { return points_bytes() + wire_list_bytes; }
};

// A .zkey's footprint from its header alone: every point kept (an upper bound).
template <class Curve>
KeyFootprint footprint(const formats::Groth16Header<Curve>& header);

// An H table's window and rows (msm::ShiftedBases); rows 0: no table.
struct HTableShape {
  unsigned c = 0;
  unsigned rows = 0;
  bool operator==(const HTableShape&) const = default;
  explicit operator bool() const { return rows != 0; }
};

// The H table of an H query of h_points with at most max_rows rows (0: no limit), the window
// from the tuning model for that many rows (msm::shifted_window_bits_for).
template <class Curve>
HTableShape h_table_shape(size_t h_points, unsigned max_rows = 0);
// Every table worth making for h_points, fastest first by the tuning model (msm::shifted_cost):
// each window with, for each number of bucket sets, the fewest rows that give it, where the
// model has it faster than the plain MSM (one row). Callers take the first that fits their
// VRAM: a narrower window's table of as many rows needs less workspace (smaller buckets).
template <class Curve>
std::vector<HTableShape> h_table_shapes(size_t h_points);
// The VRAM a table adds to its key: every row but the first, which is the H query itself.
template <class Curve>
size_t h_table_bytes(size_t h_points, HTableShape shape);

// The wires whose points a .zkey's a and b queries keep once uploaded: a wire is left out when
// its A point (resp. both B points) is at infinity. A query is filtered only when that leaves
// out at least one sixteenth of its points (below that the list's 4 bytes per wire and the
// scalar gather cost about what they save); an unfiltered query's optional is empty.
struct ZkeyDensity {
  std::optional<std::vector<uint32_t>> a_wires, b_wires;
};
template <class Curve>
ZkeyDensity zkey_density(const formats::Groth16Zkey<Curve>& key);

// The footprint of the key as uploaded (density applied); scans the points.
template <class Curve>
KeyFootprint footprint(const formats::Groth16Zkey<Curve>& key);
// The same from section 4 alone, for a key not read yet: the footprint of a .zkey whose points
// at infinity are those of the wires without a coefficient in A (in B): any key a setup made
// (snarkjs, cuzk setup), each point being a sum over its wire's coefficients. A key with a
// finite point for such a wire uploads more than this (the engine checks at load).
template <class Curve>
KeyFootprint coefficient_footprint(
    const formats::Groth16Header<Curve>& header,
    std::span<const formats::ZkeyCoefficient<typename Curve::Fr>> coefficients);
KeyFootprint footprint(const formats::BellmanParams& params);

// What the host combines after the MSMs (the epilogue) and checks the proof against.
template <class Curve>
struct KeyConstants {
  typename Curve::G1 alpha1, beta1, delta1;
  typename Curve::G2 beta2, delta2;
  groth16::VerifyingKey<Curve> vk;
};

template <class Curve>
class DeviceProvingKey {
 public:
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;

  DeviceProvingKey() = default;
  // Blocking uploads (start-up work). Throws kInvalidInput when the key's vectors do not have
  // the sizes its header implies; kCuda when VRAM (kDevice) or pinnable memory (kStreamed) is
  // short.
  static DeviceProvingKey upload(const formats::Groth16Zkey<Curve>& key,
                                 KeyResidency residency = KeyResidency::kDevice);
  // BLS12-381 only (bellman's keys are): DeviceProvingKey<formats::Bls12_381>::upload(params).
  static DeviceProvingKey upload(const formats::BellmanParams& params,
                                 KeyResidency residency = KeyResidency::kDevice);

  KeyConvention convention() const { return convention_; }
  KeyResidency residency() const { return residency_; }
  const KeyFootprint& footprint() const { return footprint_; }
  size_t bytes() const { return footprint_.bytes(); }  // points (wherever they live) and lists
  // VRAM held: the points of a resident key, the density lists, the H table.
  size_t device_bytes() const {
    return (residency_ == KeyResidency::kDevice ? bytes() : footprint_.wire_list_bytes) +
           h_table_bytes<Curve>(footprint_.h, h_table_);
  }
  const KeyConstants<Curve>& constants() const { return constants_; }

  // Arrays of footprint().a, .b1, ... points: device memory (kDevice) or pinned host memory
  // (kStreamed).
  const G1* a() const { return a_.data(); }
  const G1* b1() const { return b1_.data(); }
  const G2* b2() const { return b2_.data(); }
  const G1* c() const { return c_.data(); }  // C (zkey) or L (params)
  const G1* h() const { return h_.data(); }
  // A .zkey's density lists (device memory; zkey_density): footprint().a (resp. b1) wire
  // indices when that query was filtered, else nullptr (its points are every wire's).
  const uint32_t* a_wires() const { return a_filtered_ ? a_wires_.data() : nullptr; }
  const uint32_t* b_wires() const { return b_filtered_ ? b_wires_.data() : nullptr; }
  bool a_filtered() const { return a_filtered_; }
  bool b_filtered() const { return b_filtered_; }

  // Builds the H table (see above) of `shape`, by default the whole table. The H query moves
  // into the table's first row: while it is built the VRAM holds the query twice (one row
  // more than afterwards). Throws kInvalidInput for a streamed key (the table must be in
  // VRAM), one that has a table already, or a shape of fewer than 2 rows or more than its
  // window has; kCuda when VRAM is short.
  void add_h_table(HTableShape shape);
  void add_h_table() { add_h_table(prover::h_table_shape<Curve>(footprint_.h)); }
  // The table's shape (rows 0: no table), and the table as msm_shifted takes it.
  HTableShape h_table_shape() const { return h_table_; }
  msm::ShiftedBases<groth16::G1CurveOf<Curve>> h_table() const {
    return {{h_.device.data(), size_t(h_table_.rows) * footprint_.h},
            footprint_.h,
            h_table_.c,
            h_table_.rows};
  }

 private:
  // One query's points in device or pinned host memory.
  template <class T>
  struct Query {
    DeviceBuffer<T> device;
    PinnedBuffer<T> pinned;
    const T* data() const { return device.data() != nullptr ? device.data() : pinned.data(); }
  };
  // The points, or with `wires` only points[wires[k]] in that order.
  template <class T>
  static Query<T> place(const std::vector<T>& points, KeyResidency residency,
                        const std::vector<uint32_t>* wires = nullptr);

  KeyConvention convention_ = KeyConvention::kSnarkjs;
  KeyResidency residency_ = KeyResidency::kDevice;
  KeyFootprint footprint_;
  KeyConstants<Curve> constants_;
  Query<G1> a_, b1_, c_, h_;
  Query<G2> b2_;
  bool a_filtered_ = false, b_filtered_ = false;
  DeviceBuffer<uint32_t> a_wires_, b_wires_;
  HTableShape h_table_;  // h_.device holds its rows
};

}  // namespace cuzk::gpu::prover
