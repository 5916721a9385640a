#pragma once
// Host side of the GPU MSM: plans, workspace carving, and the launch sequences of msm,
// sum_selected, classify_scalars and msm_with_classification (see kernels.cuh for the
// pipeline). Included by the per-group .cu files, which instantiate it with
// CUZK_GPU_MSM_INSTANTIATE / CUZK_GPU_MSM_INSTANTIATE_SCALARS.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <thrust/iterator/counting_iterator.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/xyzz.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/msm/digits.hpp"
#include "gpu/msm/kernels.cuh"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu/msm/staging.hpp"
#include "gpu/msm/thread_work.hpp"
#include "gpu/msm/tuning.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::msm {
namespace detail {

using kernels::blocks_for;

template <class T>
T* carve(std::span<std::byte> workspace, Region region) {
  return reinterpret_cast<T*>(workspace.data() + region.offset);
}

// Enqueues points[0, count) = infinity: 16-byte stores where the points are 16-byte aligned
// (the workspace's regions), 8-byte ones otherwise (a caller's output point).
template <class Point>
void fill_infinity(Point* points, size_t count, cudaStream_t stream) {
  constexpr size_t kMaxBlocksPerWord = 1024;  // then each thread loops
  if (count == 0) return;
  const auto launch = [&](auto word) {
    using Word = decltype(word);
    constexpr size_t kWords = sizeof(Point) / sizeof(Word);
    const size_t blocks_per_word = std::min(div_up(count, kThreadsPerBlock), kMaxBlocksPerWord);
    kernels::fill_infinity_words<Point, Word>
        <<<unsigned(kWords * blocks_per_word), kThreadsPerBlock, 0, stream>>>(points, count);
  };
  if (reinterpret_cast<uintptr_t>(points) % sizeof(uint4) == 0) {
    launch(uint4{});
  } else {
    launch(uint64_t{});
  }
  CUZK_CHECK_LAUNCH();
}

// Each of `sets` sets of per_set elements summed in groups of `group`, a warp per group
// (kernels::sum_groups): ⌈per_set/group⌉ sums per set.
template <class Point>
void launch_sum_groups(const Point* in, size_t sets, size_t per_set, size_t group, Point* out,
                       cudaStream_t stream) {
  const size_t threads = sets * div_up(per_set, group) * kernels::kSumGroupThreads;
  kernels::sum_groups<Point>
      <<<blocks_for(threads), kThreadsPerBlock, 0, stream>>>(in, sets, per_set, group, out);
  CUZK_CHECK_LAUNCH();
}

inline void check_workspace(const char* what, std::span<std::byte> workspace, size_t needed) {
  if (workspace.size() < needed) {
    CUZK_INVALID_INPUT(std::string(what) + ": workspace of " + std::to_string(workspace.size()) +
                       " bytes; " + std::to_string(needed) + " are needed");
  }
}

// A shifted table's radix odd·2^c, as tuning.hpp's radix_supported takes it.
inline void check_radix(const char* what, unsigned c, uint32_t odd) {
  if (!radix_supported(c, odd)) {
    CUZK_INVALID_INPUT(std::string(what) + ": a radix of " + std::to_string(odd) + "·2^" +
                       std::to_string(c) + "; the odd factor must be odd and below 2^8, the " +
                       "radix at most 2^" + std::to_string(kMaxShiftedWindowBits));
  }
}

inline void check_stream(const char* what, const MsmConfig& config) {
  if (config.bases == Location::kPinnedHost && config.copy_stream == nullptr) {
    CUZK_INVALID_INPUT(std::string(what) + ": bases in pinned host memory need a copy stream");
  }
}

template <class Curve>
PointSizes point_sizes() {
  return {sizeof(ec::Affine<Curve>), sizeof(ec::Xyzz<Curve>)};
}

inline size_t radix_sort_bytes(size_t entries, int end_bit) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
      static_cast<const uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr), int(entries), 0,
      end_bit));
  return bytes;
}

inline size_t prefix_sum_bytes(size_t items) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const uint32_t*>(nullptr),
                                           static_cast<uint32_t*>(nullptr), int(items)));
  return bytes;
}

// The largest CUB temporary among the plan's sort shapes (full and last chunk, every pass, at
// most max_entries: a counted plan's passes sort their compact pairs), and the prefix sum of a
// chunk's pair counts (MsmConfig::scalar_counts). A plain plan in one chunk also covers a pass
// of every window, the widest keys a counted plan of its window can have, so that the
// workspace sized without counts serves the MSM given them.
inline size_t sort_temp_bytes(const MsmPlan& plan) {
  if (plan.n == 0) return 0;
  const size_t last_chunk = plan.n - (plan.chunks - 1) * plan.chunk_points;
  size_t bytes = 0;
  for (size_t chunk : {plan.chunk_points, last_chunk}) {
    for (unsigned pass = 0; pass < plan.passes; ++pass) {
      const unsigned windows = plan.pass_windows(pass).count;
      if (windows == 0) continue;
      const KeyLayout layout = plan.key_layout(plan.pass_windows(pass).first, windows);
      bytes = std::max(
          bytes, radix_sort_bytes(std::min(chunk * windows, plan.max_entries), layout.end_bit()));
    }
  }
  if (!plan.shifted && plan.chunks == 1) {
    bytes = std::max(
        bytes, radix_sort_bytes(plan.max_entries, plan.key_layout(0, plan.windows).end_bit()));
  }
  return std::max(bytes, prefix_sum_bytes(plan.chunk_points));
}

struct MsmSetup {
  MsmPlan plan;
  MsmLayout layout;
};

// The window table of a plain msm (tuning.hpp): sparse when the caller's counts say that at
// most half of the scalars are neither 0 nor 1, dense otherwise and without counts. Like the
// compact pairs, for msm alone (not the classified path's MSM of the others, nor msm_shifted).
inline ScalarDensity density_of(size_t n, const std::optional<ScalarCounts>& counts) {
  return counts ? density_for(n, counts->others) : ScalarDensity::kDense;
}

inline unsigned accumulate_min_blocks(const MsmConfig& config) {
  const unsigned wanted = config.accumulate_min_blocks != 0 ? config.accumulate_min_blocks
                                                            : kAccumulateMinBlocksDefault;
  for (unsigned m : kAccumulateOccupancies) {
    if (m == wanted) return m;
  }
  CUZK_INVALID_INPUT("gpu msm: no accumulation kernel for " + std::to_string(wanted) +
                     " blocks per SM");
}

// The share of an SM's unified L1/shared memory (percent) that `kernel` needs for as many
// resident blocks as its registers allow: asked for explicitly rather than left to the driver's
// per-launch choice, so that the rest stays L1, which caches the formulas' spills. (Every
// measurement of the shared sums ran with it; none without it once the products were outlined.)
inline int shared_carveout_percent(const void* kernel) {
  cudaFuncAttributes attributes;
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
  int device = 0, registers = 0, shared = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&registers, cudaDevAttrMaxRegistersPerMultiprocessor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device));
  const int blocks = registers / std::max(1, attributes.numRegs * int(kThreadsPerBlock));
  const int needed = blocks * (int(attributes.sharedSizeBytes) + 1024);  // 1 KiB reserved/block
  return std::clamp((100 * needed + shared - 1) / shared, 1, 100);
}

template <class Curve>
using AccumulateKernel = void (*)(const uint32_t*, const uint32_t*, const uint32_t*, size_t, size_t,
                                  const ec::Affine<Curve>*, work::RunSink<ec::Xyzz<Curve>>);

// The accumulation kernel of bound `min_blocks` (validated by accumulate_min_blocks) keeping
// its sums in shared memory or in registers; a shared one gets its carveout set here.
template <class Curve, size_t kIndex = 0>
AccumulateKernel<Curve> accumulate_kernel(unsigned min_blocks, bool shared) {
  constexpr unsigned kBound = kAccumulateOccupancies[kIndex];
  if constexpr (kIndex + 1 < std::size(kAccumulateOccupancies)) {
    if (min_blocks != kBound) return accumulate_kernel<Curve, kIndex + 1>(min_blocks, shared);
  }
  if (!shared) return kernels::accumulate<Curve, kBound>;
  const auto kernel = kernels::accumulate_shared<Curve, kBound>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                  shared_carveout_percent(reinterpret_cast<const void*>(kernel))));
  return kernel;
}

// Threads of a kernel (blocks of kThreadsPerBlock) resident on the current device at once, or 0
// where the device cannot say (no device: a workspace query may run without one). `kernel` is
// called for the kernel only where there is a device (selecting the accumulation kernel sets
// its carveout, a CUDA call).
template <class KernelOf>
size_t resident_threads(KernelOf kernel) {
  int device = 0, multiprocessors = 0, blocks = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) !=
          cudaSuccess) {
    (void)cudaGetLastError();  // the failure is the answer; leave no error behind
    return 0;
  }
  CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &blocks, reinterpret_cast<const void*>(kernel()), int(kThreadsPerBlock), 0));
  return size_t(blocks) * size_t(multiprocessors) * kThreadsPerBlock;
}

// The table of msm_shifted: its window c (0 for plain bases), its rows (0: one for every window)
// and its radix's odd factor (the radix is odd·2^c).
struct ShiftedShape {
  unsigned c = 0;
  unsigned rows = 0;
  uint32_t odd = 1;
  bool shifted() const { return c != 0; }
};

// shifted: the table's shape (msm_shifted), none for plain bases; counts: a counted msm's
// (PlanRequest::counts); accumulate: the accumulation kernel the caller has selected already
// (nullptr: selected here, where there is a device, for its occupancy).
template <class Curve>
MsmSetup setup_msm(size_t n, const MsmConfig& config, ShiftedShape shifted = {},
                   ScalarDensity density = ScalarDensity::kDense,
                   std::optional<ScalarCounts> counts = std::nullopt,
                   AccumulateKernel<Curve> accumulate = nullptr) {
  const bool pinned = config.bases == Location::kPinnedHost;
  MsmSetup s;
  PlanRequest request;
  request.window_bits = shifted.shifted() ? shifted.c : config.window_bits;
  if (pinned) {
    request.chunk_points = config.chunk_points != 0 ? config.chunk_points : kDefaultChunkPoints;
  }
  request.shifted = shifted.shifted();
  request.table_rows = shifted.rows;
  request.radix_odd = shifted.odd;
  if (shifted.odd != 1) request.radix_windows = shifted_windows<Curve>(shifted.c, shifted.odd);
  if (config.sort_entries_per_pass != 0) {
    request.sort_entries_per_pass = config.sort_entries_per_pass;
  } else if (request.shifted) {
    request.sort_entries_per_pass = kShiftedSortEntriesPerPass;
  }
  if (config.accumulate_threads != 0) request.accumulate_threads = config.accumulate_threads;
  request.resident_threads = resident_threads([&] {
    return accumulate != nullptr
               ? accumulate
               : accumulate_kernel<Curve>(accumulate_min_blocks(config),
                                          config.accumulate_sums == SumStorage::kShared);
  });
  request.reduction_resident_threads =
      resident_threads([] { return kernels::reduce_segments<Curve>; });
  if (config.partials_per_thread != 0) request.partials_per_thread = config.partials_per_thread;
  request.segment_buckets = config.segment_buckets;
  request.group = group_of<Curve>();
  request.density = density;
  request.counts = counts;
  s.plan = plan_msm(n, unsigned(Curve::Scalar::kBits), request);
  // Room for the scalars' integers where run_msm converts or gathers them into the workspace.
  // A shifted table in one pass never does (its digits kernel converts each scalar itself); a
  // plain msm keeps the room for Montgomery scalars even where the digits convert, since its
  // caller may size the workspace without the scalar counts it then passes (run_msm converts
  // counted scalars into the workspace).
  const bool digits_convert = shifted.shifted() && s.plan.passes == 1 && s.plan.chunks == 1;
  const bool integers = config.scalar_index != nullptr ||
                        (config.scalars == ScalarForm::kMontgomery && !digits_convert);
  LayoutBuilder builder;
  s.layout =
      layout_msm(s.plan, point_sizes<Curve>(), sort_temp_bytes(s.plan), integers, pinned, builder);
  return s;
}

template <class Curve>
SelectionLayout setup_selection(size_t n, const MsmConfig& config) {
  LayoutBuilder builder;
  return layout_selection(n, point_sizes<Curve>(), config.bases == Location::kPinnedHost,
                          config.chunk_points, builder);
}

// One MSM in three steps, so that several MSMs over the same bases can share each staged chunk
// (msm_batch): the constructor plans it, checks its workspace and enqueues the scalars'
// conversion and the buckets' reset; add_chunk enqueues the passes of one chunk of bases (device
// memory: the bases themselves or a staging slot); finish enqueues the bucket reduction and the
// result. index_map/device_count: the classified path's "others" (device-resident bases only);
// addend: added to the result (the classified path's sum of ones); shifted: the shape of the
// table the bases are (msm_shifted), none for plain bases.
template <class Curve>
class MsmRun {
 public:
  using Fr = typename Curve::Scalar;
  using Xyzz = ec::Xyzz<Curve>;
  using AffinePoint = ec::Affine<Curve>;

  MsmRun(const Fr* scalars, size_t n, const uint32_t* index_map, const uint32_t* device_count,
         const Xyzz* addend, ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
         const MsmConfig& config, ShiftedShape shifted = {})
      : scalars_(scalars),
        n_(n),
        index_map_(index_map),
        device_count_(device_count),
        addend_(addend),
        result_(result),
        workspace_(workspace),
        config_(config),
        stream_(config.stream),
        accumulate_(accumulate_kernel<Curve>(accumulate_min_blocks(config),
                                             config.accumulate_sums == SumStorage::kShared)),
        // The scalar counts (compact pairs, the sparse window table): plain msm only, not the
        // classified path's index map nor a shifted table.
        counted_(config.scalar_counts.has_value() && index_map == nullptr && !shifted.shifted()),
        setup_(
            setup_msm<Curve>(n, config, shifted,
                             counted_ ? density_of(n, config.scalar_counts) : ScalarDensity::kDense,
                             counted_ ? config.scalar_counts : std::nullopt, accumulate_)) {
    check_stream("gpu msm", config);
    check_workspace("gpu msm", workspace, setup_.layout.total);
    if (n == 0) return;
    const MsmPlan& plan = setup_.plan;
    const MsmLayout& l = setup_.layout;
    canonical_ = reinterpret_cast<const uint64_t*>(scalars);
    const bool montgomery = config.scalars == ScalarForm::kMontgomery;
    // Montgomery scalars read as they are (no gather, no counted passes) in a single sort pass:
    // the digits kernel converts each itself. With several passes each would convert again
    // (H200, BLS12-381 G1 2^26 in 4 passes: 367.2 ms against 365.6 with to_canonical once).
    digits_convert_ = montgomery && config.scalar_index == nullptr && !counted_ &&
                      plan.passes == 1 && plan.chunks == 1;
    if ((montgomery || config.scalar_index != nullptr) && !digits_convert_) {
      auto* out = carve<typename Fr::Int>(workspace, l.canonical);
      kernels::to_canonical<Fr><<<blocks_for(n), kThreadsPerBlock, 0, stream_>>>(
          scalars, config.scalar_index, montgomery, out, n);
      CUZK_CHECK_LAUNCH();
      canonical_ = reinterpret_cast<const uint64_t*>(out);
    }
    buckets_ = carve<Xyzz>(workspace, l.buckets);
    fill_infinity(buckets_, size_t(plan.bucket_sets) * plan.buckets_per_window, stream_);
    run_sums_ = buckets_;
    if (plan.merged_passes) {
      run_sums_ = carve<Xyzz>(workspace, l.run_sums);
      fill_infinity(run_sums_, plan.pass_buckets(), stream_);
    }
  }

  const MsmPlan& plan() const { return setup_.plan; }
  // The staging slots of this run's workspace (pinned bases).
  std::byte* staging(int slot) const {
    return carve<std::byte>(workspace_, setup_.layout.staging[slot]);
  }

  // The passes over bases [chunk·chunk_points, +size), read from chunk_bases (device memory).
  void add_chunk(size_t chunk, const AffinePoint* chunk_bases) {
    const MsmPlan& plan = setup_.plan;
    const MsmLayout& l = setup_.layout;
    const cudaStream_t stream = stream_;
    const MsmConfig& config = config_;
    const bool counted = counted_;
    const Fr* scalars = scalars_;
    const uint64_t* canonical = canonical_;
    const bool digits_convert = digits_convert_;
    const uint32_t* device_count = device_count_;
    const uint32_t* index_map = index_map_;
    const auto accumulate = accumulate_;
    Xyzz* buckets = buckets_;
    Xyzz* run_sums = run_sums_;
    const size_t first = chunk * plan.chunk_points;
    const size_t size = std::min(plan.chunk_points, n_ - first);
    uint32_t* keys[2] = {carve<uint32_t>(workspace_, l.keys[0]),
                         carve<uint32_t>(workspace_, l.keys[1])};
    uint32_t* values[2] = {carve<uint32_t>(workspace_, l.values[0]),
                           carve<uint32_t>(workspace_, l.values[1])};
    uint32_t* partial_keys[2] = {carve<uint32_t>(workspace_, l.partial_keys[0]),
                                 carve<uint32_t>(workspace_, l.partial_keys[1])};
    Xyzz* partials[2] = {carve<Xyzz>(workspace_, l.partials[0]),
                         carve<Xyzz>(workspace_, l.partials[1])};
    uint32_t* nonzero = carve<uint32_t>(workspace_, l.nonzero);
    void* sort_temp = carve<void>(workspace_, l.sort_temp);
    for (unsigned pass = 0; pass < plan.passes; ++pass) {
      const MsmPlan::PassWindows pass_windows = plan.pass_windows(pass);
      if (pass_windows.count == 0) continue;
      const unsigned first_window = pass_windows.first;
      const KeyLayout layout = plan.key_layout(first_window, pass_windows.count);
      size_t entries = plan.entries(size, layout.windows_in_pass);
      size_t per_thread = plan.entries_per_thread;
      const uint64_t* chunk_scalars = canonical + first * Fr::kLimbs;
      size_t temp_bytes = l.sort_temp.bytes;
      // The pairs the counts allow (at least one slot, so that every launch has a thread).
      const size_t compact_entries = counted
                                         ? compact_pairs(*config.scalar_counts, size,
                                                         first_window == 0, layout.windows_in_pass)
                                         : entries;
      if (counted && writes_compact(compact_entries, entries)) {
        // The unwritten slots keep the filler key, which sorts after every real key; the
        // accumulation's threads are re-spread over the pairs.
        entries = compact_entries;
        per_thread = plan.entries_per_thread_for(entries, plan.aimed_accumulate_threads);
        // Each scalar's pair count into values[1], their prefix sums (first slots) into keys[1]:
        // both are the sort's output, free until the sort.
        kernels::pass_pairs<Fr::kLimbs><<<blocks_for(size), kThreadsPerBlock, 0, stream>>>(
            chunk_scalars, size, first_window, layout.windows_in_pass, values[1]);
        CUZK_CHECK_LAUNCH();
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(sort_temp, temp_bytes, values[1], keys[1],
                                                 int(size), stream));
        CUDA_CHECK(cudaMemsetAsync(keys[0], 0xff, entries * sizeof(uint32_t), stream));
        kernels::compact_digits<Fr::kLimbs><<<blocks_for(size), kThreadsPerBlock, 0, stream>>>(
            chunk_scalars, size, keys[1], entries, layout, first_window, keys[0], values[0]);
        CUZK_CHECK_LAUNCH();
        temp_bytes = l.sort_temp.bytes;
      } else if (entries > plan.max_entries) {
        // A counted plan's wider passes hold their compact pairs only (plan_msm); never here.
        CUZK_THROW(ErrorKind::kInternal, "gpu msm: a pass of " + std::to_string(entries) +
                                             " pairs would overrun the sort's " +
                                             std::to_string(plan.max_entries));
      } else {
        const auto launch_digits = [&](const auto* pass_scalars) {
          using Scalar = std::remove_cv_t<std::remove_pointer_t<decltype(pass_scalars)>>;
          kernels::digits<Fr, Scalar><<<blocks_for(size), kThreadsPerBlock, 0, stream>>>(
              pass_scalars, size, device_count, index_map, layout, first_window, keys[0],
              values[0]);
        };
        if (digits_convert) {
          launch_digits(scalars + first);
        } else {
          launch_digits(reinterpret_cast<const typename Fr::Int*>(chunk_scalars));
        }
        CUZK_CHECK_LAUNCH();
      }
      CUDA_CHECK(cub::DeviceRadixSort::SortPairs(sort_temp, temp_bytes, keys[0], keys[1], values[0],
                                                 values[1], int(entries), 0, layout.end_bit(),
                                                 stream));
      kernels::count_nonzero<<<1, 1, 0, stream>>>(keys[1], entries, layout.sentinel(), nonzero);
      CUZK_CHECK_LAUNCH();

      // The pass's runs go to its own buckets directly when nothing else touches them, else
      // to the run sums (indexed from the pass's first window), merged after the pass.
      const unsigned sink_set = plan.merged_passes ? 0 : plan.set_of(first_window);
      size_t count = div_up(entries, per_thread);
      accumulate<<<blocks_for(count), kThreadsPerBlock, 0, stream>>>(
          keys[1], values[1], nonzero, per_thread, count, chunk_bases,
          work::RunSink<Xyzz>{run_sums, layout, sink_set, partial_keys[0], partials[0], 0,
                              count == 1, true});
      CUZK_CHECK_LAUNCH();
      for (int src = 0; count > 1; src = 1 - src) {
        const size_t next = div_up(count, plan.partials_per_thread);
        kernels::combine_partials<Curve><<<blocks_for(next), kThreadsPerBlock, 0, stream>>>(
            partial_keys[src], partials[src], count, plan.partials_per_thread, next,
            work::RunSink<Xyzz>{run_sums, layout, sink_set, partial_keys[1 - src],
                                partials[1 - src], 0, next == 1, false});
        CUZK_CHECK_LAUNCH();
        count = next;
      }
      if (plan.merged_passes) {
        const size_t pass_buckets =
            (plan.shifted ? 1 : layout.windows_in_pass) * plan.buckets_per_window;
        Xyzz* pass_first = buckets + size_t(plan.set_of(first_window)) * plan.buckets_per_window;
        kernels::merge_run_sums<Curve><<<blocks_for(pass_buckets), kThreadsPerBlock, 0, stream>>>(
            pass_first, run_sums, pass_buckets);
        CUZK_CHECK_LAUNCH();
      }
    }
  }

  void finish() {
    const MsmPlan& plan = setup_.plan;
    const MsmLayout& l = setup_.layout;
    const cudaStream_t stream = stream_;
    if (n_ == 0) {
      kernels::horner<Curve><<<1, 1, 0, stream>>>(nullptr, 0, plan.c, 1, 0, addend_, result_);
      CUZK_CHECK_LAUNCH();
      return;
    }
    const std::span<std::byte> workspace = workspace_;
    Xyzz* buckets = buckets_;
    const Xyzz* addend = addend_;
    ec::Jacobian<Curve>* result = result_;
    Xyzz* sums[2] = {carve<Xyzz>(workspace, l.segment_sums[0]),
                     carve<Xyzz>(workspace, l.segment_sums[1])};
    size_t per_set = plan.segments_per_window;
    kernels::reduce_segments<Curve>
        <<<blocks_for(plan.bucket_sets * per_set), kThreadsPerBlock, 0, stream>>>(
            buckets, plan.buckets_per_window, per_set, plan.segment_buckets, plan.bucket_sets,
            sums[0]);
    CUZK_CHECK_LAUNCH();
    int src = 0;
    while (per_set > 1) {
      const size_t group = std::min(kSumGroup, per_set);
      launch_sum_groups(sums[src], plan.bucket_sets, per_set, group, sums[1 - src], stream);
      per_set = div_up(per_set, group);
      src = 1 - src;
    }
    kernels::horner<Curve><<<1, 1, 0, stream>>>(sums[src], plan.bucket_sets, plan.set_shift(),
                                                plan.odd, plan.set_odd_multiplications(), addend,
                                                result);
    CUZK_CHECK_LAUNCH();
  }

 private:
  const Fr* scalars_;
  size_t n_;
  const uint32_t* index_map_;
  const uint32_t* device_count_;
  const Xyzz* addend_;
  ec::Jacobian<Curve>* result_;
  std::span<std::byte> workspace_;
  MsmConfig config_;
  cudaStream_t stream_;
  AccumulateKernel<Curve> accumulate_;
  bool counted_;
  MsmSetup setup_;
  const uint64_t* canonical_ = nullptr;
  bool digits_convert_ = false;
  Xyzz* buckets_ = nullptr;
  Xyzz* run_sums_ = nullptr;
};

// Enqueues the chunks of n bases (device memory, or pinned host memory staged through the
// first run's slots) into every run: a staged chunk crosses PCIe once for all of them.
template <class Curve>
void feed_chunks(const ec::Affine<Curve>* bases, size_t n, std::span<MsmRun<Curve>* const> runs,
                 const MsmConfig& config) {
  using AffinePoint = ec::Affine<Curve>;
  if (n == 0 || runs.empty()) return;
  const MsmPlan& plan = runs.front()->plan();
  for (const MsmRun<Curve>* run : runs) {
    if (run->plan().chunk_points != plan.chunk_points || run->plan().chunks != plan.chunks) {
      CUZK_THROW(ErrorKind::kInternal, "gpu msm: the runs of a batch chunk their bases apart");
    }
  }
  const bool pinned = config.bases == Location::kPinnedHost;
  ChunkStager stager(config, runs.front()->staging(0), runs.front()->staging(1), pinned);
  for (size_t chunk = 0; chunk < plan.chunks; ++chunk) {
    const size_t first = chunk * plan.chunk_points;
    const size_t size = std::min(plan.chunk_points, n - first);
    const AffinePoint* chunk_bases = pinned ? static_cast<const AffinePoint*>(stager.stage(
                                                  chunk, bases + first, size * sizeof(AffinePoint)))
                                            : bases + first;
    for (MsmRun<Curve>* run : runs) run->add_chunk(chunk, chunk_bases);
    stager.release(chunk);
  }
}

// One MSM: its run fed every chunk.
template <class Curve>
void run_msm(const ec::Affine<Curve>* bases, const typename Curve::Scalar* scalars, size_t n,
             const uint32_t* index_map, const uint32_t* device_count, const ec::Xyzz<Curve>* addend,
             ec::Jacobian<Curve>* result, std::span<std::byte> workspace, const MsmConfig& config,
             ShiftedShape shifted = {}) {
  MsmRun<Curve> run(scalars, n, index_map, device_count, addend, result, workspace, config,
                    shifted);
  MsmRun<Curve>* runs[] = {&run};
  feed_chunks<Curve>(bases, n, runs, config);
  run.finish();
}

// Σ of the selected bases into *out (XYZZ, device).
template <class Curve>
void run_selection(const ec::Affine<Curve>* bases, size_t n, const uint64_t* selection,
                   ec::Xyzz<Curve>* out, std::span<std::byte> workspace, const MsmConfig& config) {
  using Xyzz = ec::Xyzz<Curve>;
  using AffinePoint = ec::Affine<Curve>;
  check_stream("gpu sum_selected", config);
  const SelectionLayout l = setup_selection<Curve>(n, config);
  check_workspace("gpu sum_selected", workspace, l.total);
  const cudaStream_t stream = config.stream;
  Xyzz* partials[2] = {carve<Xyzz>(workspace, l.partials[0]),
                       carve<Xyzz>(workspace, l.partials[1])};
  if (n == 0) {
    fill_infinity(out, 1, stream);
    return;
  }
  const bool pinned = config.bases == Location::kPinnedHost;
  ChunkStager stager(config, carve<std::byte>(workspace, l.staging[0]),
                     carve<std::byte>(workspace, l.staging[1]), pinned);
  const size_t chunks = div_up(n, l.chunk_points);
  for (size_t chunk = 0; chunk < chunks; ++chunk) {
    const size_t first = chunk * l.chunk_points;
    const size_t size = std::min(l.chunk_points, n - first);
    const AffinePoint* chunk_bases = pinned ? static_cast<const AffinePoint*>(stager.stage(
                                                  chunk, bases + first, size * sizeof(AffinePoint)))
                                            : bases + first;
    const size_t threads = div_up(size, kPointsPerSelectionThread);
    kernels::selection_partials<Curve><<<blocks_for(threads), kThreadsPerBlock, 0, stream>>>(
        chunk_bases, first, size, n, selection, partials[0]);
    CUZK_CHECK_LAUNCH();
    stager.release(chunk);
  }
  size_t count = l.threads;
  int src = 0;
  while (count > 1) {
    const size_t next = div_up(count, kSumGroup);
    launch_sum_groups(partials[src], 1, count, kSumGroup, partials[1 - src], stream);
    count = next;
    src = 1 - src;
  }
  CUDA_CHECK(cudaMemcpyAsync(out, partials[src], sizeof(Xyzz), cudaMemcpyDeviceToDevice, stream));
}

template <class Fr>
size_t select_temp_bytes(size_t n) {
  size_t bytes = 0;
  CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, thrust::counting_iterator<uint32_t>(0),
                                   static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                   int(std::max<size_t>(n, 1)),
                                   kernels::IsOther<Fr>{nullptr, true}));
  return bytes;
}

// The classified MSM's workspace: classes, the sum of ones, then the larger of the selection's
// and the MSM's workspaces (they run one after the other on the stream).
struct ClassifiedLayout {
  Region ones, others, other_count, classify_temp, ones_sum, rest;
  size_t total = 0;
};

template <class Curve>
ClassifiedLayout layout_classified(size_t n, const MsmConfig& config) {
  using Fr = typename Curve::Scalar;
  LayoutBuilder builder;
  ClassifiedLayout l;
  l.ones = builder.take(selection_words(n) * 8);
  l.others = builder.take(n * 4);
  l.other_count = builder.take(4);
  l.classify_temp = builder.take(select_temp_bytes<Fr>(n));
  l.ones_sum = builder.take(sizeof(ec::Xyzz<Curve>));
  l.rest = builder.take(
      std::max(setup_selection<Curve>(n, config).total, setup_msm<Curve>(n, config).layout.total));
  l.total = builder.total();
  return l;
}

}  // namespace detail

// With counts, the layout of the window they choose; without them, room for either table,
// so that a caller may size the workspace once and pass counts at each call.
template <class Curve>
size_t msm_workspace_bytes(size_t n, const MsmConfig& config) {
  const auto total = [&](ScalarDensity density) {
    return detail::setup_msm<Curve>(n, config, {}, density, config.scalar_counts).layout.total;
  };
  if (config.scalar_counts) return total(detail::density_of(n, config.scalar_counts));
  return std::max(total(ScalarDensity::kDense), total(ScalarDensity::kSparse));
}

template <class Curve>
void msm(std::span<const ec::Affine<Curve>> bases, std::span<const typename Curve::Scalar> scalars,
         ec::Jacobian<Curve>* result, std::span<std::byte> workspace, const MsmConfig& config) {
  if (config.scalar_index == nullptr && bases.size() != scalars.size()) {
    CUZK_INVALID_INPUT("gpu msm: " + std::to_string(bases.size()) + " bases but " +
                       std::to_string(scalars.size()) + " scalars");
  }
  detail::run_msm<Curve>(bases.data(), scalars.data(), bases.size(), nullptr, nullptr, nullptr,
                         result, workspace, config);
}

template <class Curve>
void msm_batch(std::span<const ec::Affine<Curve>> bases, std::span<const MsmVector<Curve>> vectors,
               const MsmConfig& config) {
  if (config.scalar_index != nullptr || config.scalar_counts.has_value()) {
    CUZK_INVALID_INPUT("gpu msm_batch: scalar indices and counts are given per vector");
  }
  for (size_t k = 0; k < vectors.size(); ++k) {
    const MsmVector<Curve>& v = vectors[k];
    if (v.scalar_index == nullptr && v.scalars.size() != bases.size()) {
      CUZK_INVALID_INPUT("gpu msm_batch: " + std::to_string(bases.size()) + " bases but " +
                         std::to_string(v.scalars.size()) + " scalars in vector " +
                         std::to_string(k));
    }
    for (size_t j = 0; j < k; ++j) {
      const std::span<std::byte> a = vectors[j].workspace, b = v.workspace;
      if (a.data() < b.data() + b.size() && b.data() < a.data() + a.size()) {
        CUZK_INVALID_INPUT("gpu msm_batch: vectors " + std::to_string(j) + " and " +
                           std::to_string(k) + " share workspace");
      }
    }
  }
  std::vector<detail::MsmRun<Curve>> runs;
  runs.reserve(vectors.size());
  for (const MsmVector<Curve>& v : vectors) {
    MsmConfig c = config;
    c.scalar_index = v.scalar_index;
    c.scalar_counts = v.scalar_counts;
    runs.emplace_back(v.scalars.data(), bases.size(), nullptr, nullptr, nullptr, v.result,
                      v.workspace, c);
  }
  std::vector<detail::MsmRun<Curve>*> pointers;
  for (auto& run : runs) pointers.push_back(&run);
  detail::feed_chunks<Curve>(bases.data(), bases.size(), pointers, config);
  for (auto& run : runs) run.finish();
}

template <class Curve>
unsigned shifted_windows(unsigned c, uint32_t odd) {
  if (odd == 1) return window_count(unsigned(Curve::Scalar::kBits), c);
  detail::check_radix("gpu msm", c, odd);
  return radix_window_count<Curve::Scalar::kLimbs>(Curve::Scalar::kModulus.limb, c, odd);
}

template <class Curve>
size_t shift_bases_workspace_bytes(size_t n) {
  return std::max<size_t>(1, std::min(n, kShiftChunkPoints)) * sizeof(ec::Jacobian<Curve>);
}

template <class Curve>
void shift_bases(std::span<const ec::Affine<Curve>> bases, unsigned c,
                 std::span<ec::Affine<Curve>> table, std::span<std::byte> workspace,
                 cudaStream_t stream, unsigned rows, uint32_t odd) {
  using AffinePoint = ec::Affine<Curve>;
  const size_t n = bases.size();
  if (c < kMinWindowBits || c > kMaxShiftedWindowBits) {
    CUZK_INVALID_INPUT("gpu shift_bases: window of " + std::to_string(c) + " bits; supported are " +
                       std::to_string(kMinWindowBits) + ".." +
                       std::to_string(kMaxShiftedWindowBits));
  }
  detail::check_radix("gpu shift_bases", c, odd);
  const unsigned made_rows = table_rows<Curve>(c, rows, odd);
  if (table.size() < size_t(made_rows) * n) {
    CUZK_INVALID_INPUT("gpu shift_bases: a table of " + std::to_string(table.size()) + " points; " +
                       std::to_string(made_rows) + " x " + std::to_string(n) + " are needed");
  }
  detail::check_workspace("gpu shift_bases", workspace, shift_bases_workspace_bytes<Curve>(n));
  if (n == 0) return;
  if (bases.data() != table.data()) {
    CUDA_CHECK(cudaMemcpyAsync(table.data(), bases.data(), n * sizeof(AffinePoint),
                               cudaMemcpyDeviceToDevice, stream));
  }
  auto* scratch = reinterpret_cast<ec::Jacobian<Curve>*>(workspace.data());
  for (unsigned row = 1; row < made_rows; ++row) {
    for (size_t first = 0; first < n; first += kShiftChunkPoints) {
      const size_t size = std::min(kShiftChunkPoints, n - first);
      const size_t threads = div_up(size, kShiftPointsPerThread);
      kernels::shift_row<Curve><<<kernels::blocks_for(threads), kThreadsPerBlock, 0, stream>>>(
          table.data() + size_t(row - 1) * n + first, size, c, odd, scratch,
          table.data() + size_t(row) * n + first);
      CUZK_CHECK_LAUNCH();
    }
  }
}

template <class Curve>
size_t msm_shifted_workspace_bytes(size_t n, unsigned c, const MsmConfig& config, unsigned rows,
                                   uint32_t odd) {
  if (c == 0) CUZK_INVALID_INPUT("gpu msm_shifted: the table's window must be given");
  return detail::setup_msm<Curve>(n, config, {c, rows, odd}).layout.total;
}

template <class Curve>
void msm_shifted(const ShiftedBases<Curve>& bases, std::span<const typename Curve::Scalar> scalars,
                 ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
                 const MsmConfig& config) {
  if (bases.n != scalars.size()) {
    CUZK_INVALID_INPUT("gpu msm_shifted: a table of " + std::to_string(bases.n) + " bases but " +
                       std::to_string(scalars.size()) + " scalars");
  }
  if (config.scalar_index != nullptr) {
    CUZK_INVALID_INPUT("gpu msm_shifted: a scalar index is for msm only");
  }
  if (config.bases != Location::kDevice) {
    CUZK_INVALID_INPUT("gpu msm_shifted: the table must be resident on the device");
  }
  if (bases.c == 0) CUZK_INVALID_INPUT("gpu msm_shifted: the table's window must be given");
  const unsigned rows = table_rows<Curve>(bases.c, bases.rows, bases.odd);
  if (bases.table.size() < size_t(rows) * bases.n) {
    CUZK_INVALID_INPUT("gpu msm_shifted: a table of " + std::to_string(bases.table.size()) +
                       " points is too small for " + std::to_string(bases.n) +
                       " bases at a radix of " + std::to_string(bases.odd) + "·2^" +
                       std::to_string(bases.c) + " in " + std::to_string(rows) + " rows");
  }
  detail::run_msm<Curve>(bases.table.data(), scalars.data(), bases.n, nullptr, nullptr, nullptr,
                         result, workspace, config, {bases.c, bases.rows, bases.odd});
}

// The XYZZ sum first, then the selection's own workspace.
template <class Curve>
size_t sum_slot_bytes() {
  return div_up(sizeof(ec::Xyzz<Curve>), LayoutBuilder::kAlignment) * LayoutBuilder::kAlignment;
}

template <class Curve>
size_t sum_selected_workspace_bytes(size_t n, const MsmConfig& config) {
  return sum_slot_bytes<Curve>() + detail::setup_selection<Curve>(n, config).total;
}

template <class Curve>
void sum_selected(std::span<const ec::Affine<Curve>> bases, const uint64_t* selection,
                  ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
                  const MsmConfig& config) {
  using Xyzz = ec::Xyzz<Curve>;
  detail::check_workspace("gpu sum_selected", workspace,
                          sum_selected_workspace_bytes<Curve>(bases.size(), config));
  auto* sum = reinterpret_cast<Xyzz*>(workspace.data());
  detail::run_selection<Curve>(bases.data(), bases.size(), selection, sum,
                               workspace.subspan(sum_slot_bytes<Curve>()), config);
  kernels::horner<Curve><<<1, 1, 0, config.stream>>>(nullptr, 0, 1, 1, 0, sum, result);
  CUZK_CHECK_LAUNCH();
}

template <class Fr>
size_t classify_workspace_bytes(size_t n) {
  return detail::select_temp_bytes<Fr>(n);
}

template <class Fr>
void count_scalars(std::span<const Fr> scalars, ScalarForm form, const uint32_t* index, size_t n,
                   ScalarCounts* out, cudaStream_t stream) {
  if (n > kMaxPoints) {
    CUZK_INVALID_INPUT("gpu count_scalars: " + std::to_string(n) + " scalars; at most " +
                       std::to_string(kMaxPoints) + " are supported");
  }
  if (index == nullptr && n > scalars.size()) {
    CUZK_INVALID_INPUT("gpu count_scalars: " + std::to_string(n) + " scalars asked of " +
                       std::to_string(scalars.size()));
  }
  static_assert(sizeof(ScalarCounts) == 2 * sizeof(unsigned long long));
  CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(ScalarCounts), stream));
  if (n == 0) return;
  auto* words = reinterpret_cast<unsigned long long*>(out);
  const unsigned blocks = std::min(kernels::blocks_for(n), kernels::kCountBlocks);
  kernels::count_scalar_classes<Fr><<<blocks, kThreadsPerBlock, 0, stream>>>(
      scalars.data(), index, n, form == ScalarForm::kMontgomery, words, words + 1);
  CUZK_CHECK_LAUNCH();
}

template <class Fr>
void canonicalize_scalars(std::span<Fr> scalars, cudaStream_t stream) {
  static_assert(sizeof(typename Fr::Int) == sizeof(Fr));
  const size_t n = scalars.size();
  if (n == 0) return;
  // to_canonical reads element i and then writes it: in place is safe.
  kernels::to_canonical<Fr><<<kernels::blocks_for(n), kThreadsPerBlock, 0, stream>>>(
      scalars.data(), nullptr, true, reinterpret_cast<typename Fr::Int*>(scalars.data()), n);
  CUZK_CHECK_LAUNCH();
}

template <class Fr>
void classify_scalars(std::span<const Fr> scalars, ScalarForm form, ScalarClassesView out,
                      std::span<std::byte> workspace, cudaStream_t stream) {
  const size_t n = scalars.size();
  if (n > kMaxPoints) {
    CUZK_INVALID_INPUT("gpu classify_scalars: " + std::to_string(n) + " scalars; at most " +
                       std::to_string(kMaxPoints) + " are supported");
  }
  size_t temp_bytes = classify_workspace_bytes<Fr>(n);
  detail::check_workspace("gpu classify_scalars", workspace, temp_bytes);
  const bool montgomery = form == ScalarForm::kMontgomery;
  const size_t halves = 2 * selection_words(n);
  if (halves != 0) {
    kernels::ones_bitmap<Fr><<<kernels::blocks_for(32 * halves), kThreadsPerBlock, 0, stream>>>(
        scalars.data(), n, montgomery, reinterpret_cast<uint32_t*>(out.ones), halves);
    CUZK_CHECK_LAUNCH();
  }
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(out.other_count, 0, sizeof(uint32_t), stream));
    return;
  }
  CUDA_CHECK(cub::DeviceSelect::If(
      workspace.data(), temp_bytes, thrust::counting_iterator<uint32_t>(0), out.others,
      out.other_count, int(n), kernels::IsOther<Fr>{scalars.data(), montgomery}, stream));
}

template <class Curve>
size_t classified_msm_workspace_bytes(size_t n, const MsmConfig& config) {
  return detail::layout_classified<Curve>(n, config).total;
}

template <class Curve>
void msm_with_classification(std::span<const ec::Affine<Curve>> bases,
                             std::span<const typename Curve::Scalar> scalars,
                             ec::Jacobian<Curve>* result, std::span<std::byte> workspace,
                             const MsmConfig& config) {
  using Xyzz = ec::Xyzz<Curve>;
  using detail::carve;
  const size_t n = bases.size();
  if (scalars.size() != n) {
    CUZK_INVALID_INPUT("gpu msm_with_classification: " + std::to_string(n) + " bases but " +
                       std::to_string(scalars.size()) + " scalars");
  }
  if (config.scalar_index != nullptr) {
    CUZK_INVALID_INPUT("gpu msm_with_classification: a scalar index is for msm only");
  }
  if (config.bases != Location::kDevice) {
    CUZK_INVALID_INPUT("gpu msm_with_classification: bases must be resident on the device");
  }
  const detail::ClassifiedLayout l = detail::layout_classified<Curve>(n, config);
  detail::check_workspace("gpu msm_with_classification", workspace, l.total);
  const ScalarClassesView classes{carve<uint64_t>(workspace, l.ones),
                                  carve<uint32_t>(workspace, l.others),
                                  carve<uint32_t>(workspace, l.other_count)};
  classify_scalars<typename Curve::Scalar>(
      scalars, config.scalars, classes,
      workspace.subspan(l.classify_temp.offset, l.classify_temp.bytes), config.stream);
  Xyzz* ones_sum = carve<Xyzz>(workspace, l.ones_sum);
  const std::span<std::byte> rest = workspace.subspan(l.rest.offset, l.rest.bytes);
  detail::run_selection<Curve>(bases.data(), n, classes.ones, ones_sum, rest, config);
  detail::run_msm<Curve>(bases.data(), scalars.data(), n, classes.others, classes.other_count,
                         ones_sum, result, rest, config);
}

}  // namespace cuzk::gpu::msm

#define CUZK_GPU_MSM_INSTANTIATE(Curve)                                                            \
  template size_t msm_workspace_bytes<Curve>(size_t, const MsmConfig&);                            \
  template void msm<Curve>(std::span<const ec::Affine<Curve>>,                                     \
                           std::span<const typename Curve::Scalar>, ec::Jacobian<Curve>*,          \
                           std::span<std::byte>, const MsmConfig&);                                \
  template void msm_batch<Curve>(std::span<const ec::Affine<Curve>>,                               \
                                 std::span<const MsmVector<Curve>>, const MsmConfig&);             \
  template unsigned shifted_windows<Curve>(unsigned, uint32_t);                                    \
  template size_t shift_bases_workspace_bytes<Curve>(size_t);                                      \
  template void shift_bases<Curve>(std::span<const ec::Affine<Curve>>, unsigned,                   \
                                   std::span<ec::Affine<Curve>>, std::span<std::byte>,             \
                                   cudaStream_t, unsigned, uint32_t);                              \
  template size_t msm_shifted_workspace_bytes<Curve>(size_t, unsigned, const MsmConfig&, unsigned, \
                                                     uint32_t);                                    \
  template void msm_shifted<Curve>(const ShiftedBases<Curve>&,                                     \
                                   std::span<const typename Curve::Scalar>, ec::Jacobian<Curve>*,  \
                                   std::span<std::byte>, const MsmConfig&);                        \
  template size_t sum_selected_workspace_bytes<Curve>(size_t, const MsmConfig&);                   \
  template void sum_selected<Curve>(std::span<const ec::Affine<Curve>>, const uint64_t*,           \
                                    ec::Jacobian<Curve>*, std::span<std::byte>, const MsmConfig&); \
  template size_t classified_msm_workspace_bytes<Curve>(size_t, const MsmConfig&);                 \
  template void msm_with_classification<Curve>(                                                    \
      std::span<const ec::Affine<Curve>>, std::span<const typename Curve::Scalar>,                 \
      ec::Jacobian<Curve>*, std::span<std::byte>, const MsmConfig&);

#define CUZK_GPU_MSM_INSTANTIATE_SCALARS(Fr)                                                \
  template void count_scalars<Fr>(std::span<const Fr>, ScalarForm, const uint32_t*, size_t, \
                                  ScalarCounts*, cudaStream_t);                             \
  template void canonicalize_scalars<Fr>(std::span<Fr>, cudaStream_t);                      \
  template size_t classify_workspace_bytes<Fr>(size_t);                                     \
  template void classify_scalars<Fr>(std::span<const Fr>, ScalarForm, ScalarClassesView,    \
                                     std::span<std::byte>, cudaStream_t);
