#pragma once
// GPU multi-scalar multiplication for G1 and G2 of BLS12-381 and BN254: the host entry points.
// Includable from host .cpp files (no device code); the kernels and the explicit
// instantiations for the four groups live in the .cu files of this folder.
//
// Operations (all asynchronous on config.stream; none allocates, none synchronizes the device):
//   msm                      Σ k_i·P_i, signed-digit Pippenger
//   msm_batch                msm of several scalar vectors over one set of bases, each staged
//                            chunk of streamed bases serving all of them
//   shift_bases, msm_shifted the same with precomputed shifted bases 2^(c·w)·P_i: more VRAM,
//                            fewer windows (one shared bucket set allows a wider window)
//   sum_selected             Σ P_i over the bases a bitmap selects (the scalars equal to one)
//   classify_scalars         0 / 1 / other: the bitmap of ones and the ascending indices of others
//   count_scalars            how many ones and others (MsmConfig::scalar_counts)
//   canonicalize_scalars     Montgomery scalars to integers in place (less MSM workspace)
//   msm_with_classification  sum_selected(ones) + msm(others), the shape of Groth16 witnesses
// Each has a workspace query (`..._workspace_bytes`): the caller reserves that many bytes of
// device memory (from its VRAM arena) and passes them in; the operation uses nothing else.
// The query asks CUB for its temporary sizes and so needs a CUDA device (no work is launched).
//
// Memory: scalars, bitmaps, results and the workspace are device memory. Bases are device
// memory, or pinned host memory (Location::kPinnedHost: streamed in chunks through two staging
// buffers of the workspace, the copies on config.copy_stream overlapping the kernels).
// Every buffer must stay valid, and the workspace unused by others, until config.stream has
// passed the operation (record an event on it after the call).
//
// Results are ec::Jacobian points (the CPU reference's type) written to device memory; compare
// them as group elements (projective equality), not coordinate by coordinate.
//
// Errors: bad arguments (a workspace too small, more than 2^31 − 1 points, a window outside
// [kMinWindowBits, kMaxWindowBits], a pinned-base call without a copy stream) throw
// cuzk::Error kInvalidInput before anything is enqueued; launch failures throw kCuda.
// Not checked on the device: canonical scalars must be below r; bases must be on the curve.
//
// Thread-safety: stateless; concurrent calls need distinct workspaces.

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "gpu/msm/tuning.hpp"

namespace cuzk::gpu::msm {

enum class Location { kDevice, kPinnedHost };

// How the scalar words are to be read: Montgomery form (a field element, as the prover holds
// them) or the canonical integer (< r) in the same four little-endian 64-bit limbs.
enum class ScalarForm { kMontgomery, kCanonical };

struct MsmConfig {
  cudaStream_t stream = nullptr;  // every kernel and the staged copies' consumers run here
  Location bases = Location::kDevice;
  ScalarForm scalars = ScalarForm::kMontgomery;
  unsigned window_bits = 0;  // 0: tuning table (tuning.hpp); else kMinWindowBits..kMaxWindowBits
  // Pinned bases only: points per staged chunk (0: kDefaultChunkPoints) and the stream that
  // runs the host-to-device copies (required; it is ordered after config.stream on entry).
  size_t chunk_points = 0;
  cudaStream_t copy_stream = nullptr;
  // (scalar, window) pairs sorted at once; 0: kSortEntriesPerPass (msm_shifted:
  // kShiftedSortEntriesPerPass). Larger MSMs sort their
  // windows in several passes; tests lower it to exercise that path on small inputs.
  size_t sort_entries_per_pass = 0;
  // Tuning sweeps: threads aimed at per accumulation launch (0: kAccumulateThreads), and the
  // accumulation kernel's occupancy bound (tuning.hpp kAccumulateOccupancies; 0: the default).
  size_t accumulate_threads = 0;
  unsigned accumulate_min_blocks = 0;
  SumStorage accumulate_sums = kDefaultSumStorage;
  // msm only (device memory, one entry per base): base i pairs with scalars[scalar_index[i]],
  // so the scalars may be a longer vector read sparsely, as a proving key that leaves out the
  // points at infinity pairs its remaining points with the witness. Every entry must be less
  // than scalars.size(); the device does not check. The scalars are gathered into the
  // workspace first, which then needs the Montgomery form's room (msm_workspace_bytes with
  // this field set).
  const uint32_t* scalar_index = nullptr;
  // Tuning sweeps: partial sums each combining thread adds per level (0: kPartialsPerThread).
  size_t partials_per_thread = 0;
  // Tuning sweeps: buckets each thread of the bucket reduction takes, at least 1 (0:
  // tuning.hpp's segment_buckets_for, lengthened to one wave of the kernel; capped at the buckets
  // of a window).
  size_t segment_buckets = 0;
  // msm only, optional: how many of the scalars are 1 and how many neither 0 nor 1 (host
  // values, read when msm is called; count_scalars finds them). With them only the pairs those
  // scalars can have are written and sorted: none for a zero, window 0's for a one, every
  // window's for the others (zero digits of the others still take a slot), in each sort pass
  // where that is at most kCompactPairsShare of the pairs (tuning.hpp). A PoRep witness, 90%
  // zeros and ones, then sorts about a seventh of the pairs. They also pick the window: from
  // the sparse table (tuning.hpp) when at most half of the scalars are neither 0 nor 1, from
  // the dense one otherwise and without counts. Counts above the true ones only cost time;
  // counts below them leave scalars out of the sum (the sum is then wrong, but nothing is
  // written outside the workspace). msm_workspace_bytes without counts covers either window.
  std::optional<ScalarCounts> scalar_counts;
};

// Bitmap words for n bases: bit i % 64 of word i / 64 selects base i (as msm::selection_words).
constexpr size_t selection_words(size_t n) { return (n + 63) / 64; }

// --- msm: Σ scalars[i]·bases[i] -------------------------------------------------------------
template <class Curve>
size_t msm_workspace_bytes(size_t n, const MsmConfig& config);

// `scalars` holds n elements of Curve::Scalar (read per config.scalars); bases and scalars
// have the same length, unless config.scalar_index pairs base i with scalars[scalar_index[i]].
// *result (device) receives the sum.
template <class Curve>
void msm(std::span<const ec::Affine<Curve>> bases, std::span<const typename Curve::Scalar> scalars,
         ec::Jacobian<Curve>* result, std::span<std::byte> workspace, const MsmConfig& config);

// --- msm_batch: the msm of several scalar vectors over the same bases ------------------------
// Bases streamed from pinned host memory cross PCIe once for all the vectors: each staged chunk
// is accumulated into every vector's buckets before the next is copied (with msm, the whole
// set of bases crosses once per vector). Each vector brings its scalars, result, workspace
// (msm_workspace_bytes(n, config) with its scalar_index and scalar_counts set; no two vectors
// may share one) and optionally a scalar index and counts (as MsmConfig's, which must be unset
// here). The chunks are staged through the first vector's workspace. Everything runs on
// config.stream, the vectors' kernels of one chunk one after the other; the sums are exactly
// msm's.
template <class Curve>
struct MsmVector {
  std::span<const typename Curve::Scalar> scalars;
  ec::Jacobian<Curve>* result = nullptr;
  std::span<std::byte> workspace;
  const uint32_t* scalar_index = nullptr;
  std::optional<ScalarCounts> scalar_counts;
};

template <class Curve>
void msm_batch(std::span<const ec::Affine<Curve>> bases, std::span<const MsmVector<Curve>> vectors,
               const MsmConfig& config);

// --- msm_shifted: Σ scalars[i]·bases[i] from a table of shifted bases ------------------------
// A table for window c holds shifted_windows(c)·n points, row w being 2^(c·w)·P_0..P_(n−1).
// With it, every window of the Pippenger adds into one shared set of 2^(c−1) buckets, so the
// reduction is paid once and c can be wide (tuning.hpp: shifted_window_bits_for): at 2^26
// c = 24 gives 11 windows instead of 16, so 31% fewer bucket additions for 11x the bases' VRAM.
// Made once per set of bases (a key's query) by shift_bases, then used by every msm_shifted.
//
// A partial table of R < shifted_windows(c) rows (where VRAM holds no more) serves the
// windows in groups of R: window w reads row w mod R and adds into the bucket set of its
// group, ⌈W/R⌉ sets, each reduced, combined with c·R doublings between them. At 2^27 four
// rows take 11 windows of c = 24 in 3 sets, where the plain MSM has 12 of c = 22 in 12
// (tuning.hpp: shifted_cost). Row 0 is the bases themselves: a caller holding them in VRAM
// already can make the table where they lie (see shift_bases).
//
// The radix need not be a power of two: with `odd` > 1 it is B = odd·2^c, row w holds B^w·P_i
// and the one bucket set has B/2 buckets (digits.hpp, "Odd radices"). For BLS12-381, B = 9·2^20
// takes 11 windows, as c = 24 does, with 4.72 M buckets instead of 8.39 M
// (tuning.hpp: shifted_radix_for).
template <class Curve>
struct ShiftedBases {
  std::span<const ec::Affine<Curve>> table;  // device memory, table_rows(c, rows, odd)·n points
  size_t n = 0;                              // bases (and scalars)
  unsigned c = 0;                            // the window the table was made for
  unsigned rows = 0;                         // rows of a partial table; 0: shifted_windows(c, odd)
  uint32_t odd = 1;  // the radix's odd factor: the table's rows are (odd·2^c)^w·P
};

// The windows of radix odd·2^c for the scalars of Curve: ⌊bits/c⌋ + 1 for a power of two, the
// least W with B^W ≥ r for an odd radix.
template <class Curve>
unsigned shifted_windows(unsigned c, uint32_t odd = 1);

// The rows a table of radix odd·2^c holds: `rows`, at most shifted_windows(c, odd); 0 for all.
template <class Curve>
unsigned table_rows(unsigned c, unsigned rows, uint32_t odd = 1) {
  const unsigned windows = shifted_windows<Curve>(c, odd);
  return rows == 0 || rows > windows ? windows : rows;
}

// Jacobian scratch of one chunk of a row.
template <class Curve>
size_t shift_bases_workspace_bytes(size_t n);

// Fills `table` (device, at least table_rows(c, rows, odd)·n points) from the device-resident
// bases, on `stream`; c in [kMinWindowBits, kMaxShiftedWindowBits], and an odd factor of the
// radix (1, or odd below 2^8 with odd·2^c ≤ 2^kMaxShiftedWindowBits). Row 0 is copied from
// `bases` unless they are the table's first n points already (a buffer made with room for the
// rows after the bases).
template <class Curve>
void shift_bases(std::span<const ec::Affine<Curve>> bases, unsigned c,
                 std::span<ec::Affine<Curve>> table, std::span<std::byte> workspace,
                 cudaStream_t stream, unsigned rows = 0, uint32_t odd = 1);

// Uses config.stream, config.scalars and config.sort_entries_per_pass; the radix and rows are
// the table's (config.window_bits is not read); the table must be on the device.
template <class Curve>
size_t msm_shifted_workspace_bytes(size_t n, unsigned c, const MsmConfig& config, unsigned rows = 0,
                                   uint32_t odd = 1);

template <class Curve>
void msm_shifted(const ShiftedBases<Curve>& bases, std::span<const typename Curve::Scalar> scalars,
                 ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
                 const MsmConfig& config);

// --- sum_selected: Σ bases[i] over the set bits of `selection` ------------------------------
// selection: selection_words(n) device words; bits past n are ignored. Uses config.stream,
// config.bases, config.chunk_points and config.copy_stream.
template <class Curve>
size_t sum_selected_workspace_bytes(size_t n, const MsmConfig& config);

template <class Curve>
void sum_selected(std::span<const ec::Affine<Curve>> bases, const uint64_t* selection,
                  ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
                  const MsmConfig& config);

// --- classify_scalars -------------------------------------------------------------------------
// Device outputs: `ones` (selection_words(n) words, bits past n clear), `others` (room for n
// indices; the first *other_count are the indices of scalars neither 0 nor 1, ascending).
struct ScalarClassesView {
  uint64_t* ones;
  uint32_t* others;
  uint32_t* other_count;
};

template <class Fr>
size_t classify_workspace_bytes(size_t n);

template <class Fr>
void classify_scalars(std::span<const Fr> scalars, ScalarForm form, ScalarClassesView out,
                      std::span<std::byte> workspace, cudaStream_t stream);

// --- count_scalars: the ScalarCounts of a scalar vector -------------------------------------
// *out (device memory) receives the counts of scalars[index[i]] for i < n (of scalars[i] with
// no index; n ≤ scalars.size() then). Needs no workspace.
template <class Fr>
void count_scalars(std::span<const Fr> scalars, ScalarForm form, const uint32_t* index, size_t n,
                   ScalarCounts* out, cudaStream_t stream);

// --- canonicalize_scalars: Montgomery scalars made integers in place --------------------------
// Overwrites each scalar with its canonical integer (what ScalarForm::kCanonical reads), on
// `stream`. An MSM over Montgomery scalars that sorts its windows in several passes converts
// them into its workspace first (n·32 bytes of it); a caller whose scalars are dead after the
// MSM converts them in place instead and asks for the canonical form's smaller workspace.
template <class Fr>
void canonicalize_scalars(std::span<Fr> scalars, cudaStream_t stream);

// --- msm_with_classification: the device version of msm::msm_with_classification ------------
// Device-resident bases only (kPinnedHost throws kInvalidInput).
template <class Curve>
size_t classified_msm_workspace_bytes(size_t n, const MsmConfig& config);

template <class Curve>
void msm_with_classification(std::span<const ec::Affine<Curve>> bases,
                             std::span<const typename Curve::Scalar> scalars,
                             ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
                             const MsmConfig& config);

}  // namespace cuzk::gpu::msm
