#pragma once
// The GPU MSM differential suite: every entry point of gpu/msm/msm.hpp against the CPU layer
// (msm::pippenger, msm::sum_selected, msm::classify_scalars, msm::msm_with_classification), for
// one group; each curve's translation unit instantiates it for G1 and G2. Results are compared
// as group elements (projective equality). One "[gpu-diff] <what>: <n> cases, <m> mismatches"
// line per check.
//
// Bases: a pool made once per group, a walk P_(i+1) = P_i + B_(i mod 16) over 16 random
// multiples of the generator, normalized with one inversion; a few entries are replaced by
// the point at infinity. Sizes are not powers of two; CUZK_TEST_SCALE ≥ 2 adds 2^18 + 3.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/msm/msm.hpp"
#include "gpu/msm/staged_bytes.hpp"
#include "gpu/msm/tuning.hpp"
#include "gpu/stream.hpp"
#include "msm/instances.hpp"
#include "tests/gpu/gpu_test_support.cuh"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::test {

namespace gm = cuzk::gpu::msm;

template <class Curve>
const std::vector<ec::Affine<Curve>>& base_pool(size_t n) {
  using Jac = ec::Jacobian<Curve>;
  static std::vector<ec::Affine<Curve>> pool;
  if (pool.size() >= n) return pool;
  auto rng = cuzk::test::rng(std::string("gpu-msm-pool-") + Curve::kName);
  std::vector<Jac> steps;
  for (int j = 0; j < 16; ++j) {
    steps.push_back(ec::mul_generator<Curve>(Curve::Scalar::random(rng)));
  }
  std::vector<Jac> walk(n);
  Jac acc = steps[0];
  for (size_t i = 0; i < n; ++i) {
    acc = acc + steps[i % steps.size()];
    walk[i] = acc;
  }
  pool.resize(n);
  ec::batch_to_affine<Curve>(walk, pool);
  return pool;
}

// n bases from the pool, with infinity at a few positions (including the first and last).
template <class Curve>
std::vector<ec::Affine<Curve>> make_bases(size_t n, std::mt19937_64& rng, bool with_infinity) {
  const auto& pool = base_pool<Curve>(n);
  std::vector<ec::Affine<Curve>> bases(pool.begin(), pool.begin() + std::ptrdiff_t(n));
  if (with_infinity && n >= 4) {
    bases.front() = ec::Affine<Curve>::infinity();
    bases.back() = ec::Affine<Curve>::infinity();
    for (size_t k = 0; k < n / 500; ++k) bases[rng() % n] = ec::Affine<Curve>::infinity();
  }
  return bases;
}

enum class Shape { kRandom, kZero, kOne, kMixed, kEqual, kMostlyEqual, kNearModulus };

inline const char* shape_name(Shape s) {
  switch (s) {
    case Shape::kRandom:
      return "random";
    case Shape::kZero:
      return "all-zero";
    case Shape::kOne:
      return "all-one";
    case Shape::kMixed:
      return "mixed-0/1/random";
    case Shape::kEqual:
      return "all-equal";
    case Shape::kMostlyEqual:
      return "90%-equal";
    case Shape::kNearModulus:
      return "near-r";
  }
  return "?";
}

template <class Fr>
std::vector<Fr> make_scalars(size_t n, Shape shape, std::mt19937_64& rng) {
  std::vector<Fr> s(n);
  const Fr equal = Fr::random(rng);
  for (size_t i = 0; i < n; ++i) {
    switch (shape) {
      case Shape::kRandom:
        s[i] = Fr::random(rng);
        break;
      case Shape::kZero:
        s[i] = Fr::zero();
        break;
      case Shape::kOne:
        s[i] = Fr::one();
        break;
      case Shape::kMixed: {
        const unsigned roll = unsigned(rng() % 10);
        s[i] = roll < 4 ? Fr::zero() : roll < 8 ? Fr::one() : Fr::random(rng);
        break;
      }
      case Shape::kEqual:
        s[i] = equal;
        break;
      case Shape::kMostlyEqual:
        s[i] = rng() % 10 == 0 ? Fr::random(rng) : equal;
        break;
      case Shape::kNearModulus:
        s[i] = -Fr::from_u64(1 + rng() % 1000);
        break;
    }
  }
  return s;
}

enum class Op { kMsm, kClassified };

// Bases where an operation reads them: uploaded to the device (on `stream`), or copied into
// pinned host memory to be staged.
template <class Curve>
struct PlacedBases {
  PlacedBases(const std::vector<ec::Affine<Curve>>& bases, gm::Location where,
              const Stream& stream) {
    const size_t n = bases.size();
    if (where == gm::Location::kDevice) {
      device = DeviceBuffer<ec::Affine<Curve>>::allocate_blocking(n);
      device.upload(bases, stream);
      span = {device.data(), n};
    } else {
      pinned = PinnedBuffer<ec::Affine<Curve>>(n);
      std::copy(bases.begin(), bases.end(), pinned.data());
      span = {pinned.data(), n};
    }
  }
  DeviceBuffer<ec::Affine<Curve>> device;
  PinnedBuffer<ec::Affine<Curve>> pinned;
  std::span<const ec::Affine<Curve>> span;
};

// Runs one GPU operation synchronously (tests may block) and returns its result. With
// `scalar_index` (msm only), base i pairs with scalars[(*scalar_index)[i]].
template <class Curve>
ec::Jacobian<Curve> gpu_run(Op op, const std::vector<ec::Affine<Curve>>& bases,
                            const std::vector<typename Curve::Scalar>& scalars,
                            gm::MsmConfig config,
                            const std::vector<uint32_t>* scalar_index = nullptr) {
  using Fr = typename Curve::Scalar;
  using AffinePoint = ec::Affine<Curve>;
  const size_t n = bases.size();
  Stream stream, copy;
  config.stream = stream;
  config.copy_stream = copy;
  const PlacedBases<Curve> placed(bases, config.bases, stream);
  const std::span<const AffinePoint> base_span = placed.span;
  auto device_scalars = DeviceBuffer<Fr>::allocate_blocking(scalars.size());
  device_scalars.upload(scalars, stream);
  DeviceBuffer<uint32_t> device_index;
  if (scalar_index != nullptr) {
    device_index = DeviceBuffer<uint32_t>::allocate_blocking(scalar_index->size());
    device_index.upload(*scalar_index, stream);
    config.scalar_index = device_index.data();
  }
  auto result = DeviceBuffer<ec::Jacobian<Curve>>::allocate_blocking(1);
  const size_t bytes = op == Op::kMsm ? gm::msm_workspace_bytes<Curve>(n, config)
                                      : gm::classified_msm_workspace_bytes<Curve>(n, config);
  auto workspace = DeviceBuffer<std::byte>::allocate_blocking(bytes);
  const std::span<std::byte> ws{workspace.data(), bytes};
  const std::span<const Fr> scalar_span{device_scalars.data(), scalars.size()};
  if (op == Op::kMsm) {
    gm::msm<Curve>(base_span, scalar_span, result.data(), ws, config);
  } else {
    gm::msm_with_classification<Curve>(base_span, scalar_span, result.data(), ws, config);
  }
  std::vector<ec::Jacobian<Curve>> out(1);
  result.download(out, stream);
  stream.synchronize();
  return out[0];
}

// Canonical integers in the scalars' storage (ScalarForm::kCanonical).
template <class Fr>
std::vector<Fr> as_canonical_words(const std::vector<Fr>& scalars) {
  std::vector<Fr> out(scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) out[i] = Fr::from_montgomery(scalars[i].to_int());
  return out;
}

// Collects (expected, actual) pairs of one check and prints its line.
template <class Curve>
class Check {
 public:
  explicit Check(std::string what) : what_(std::string(Curve::kName) + " " + std::move(what)) {}
  void expect(const ec::Jacobian<Curve>& expected, const ec::Jacobian<Curve>& actual,
              const std::string& label) {
    ++cases_;
    if (expected == actual) return;
    if (++mismatches_ <= 5) {
      ADD_FAILURE() << what_ << " [" << label << "]: GPU result differs from the CPU reference"
                    << "\n  cpu affine: " << hex_words(expected.to_affine())
                    << "\n  gpu affine: " << hex_words(actual.to_affine());
    }
  }
  ~Check() {
    std::printf("[gpu-diff] %s: %zu cases, %zu mismatches\n", what_.c_str(), cases_, mismatches_);
    std::fflush(stdout);
  }

 private:
  std::string what_;
  size_t cases_ = 0;
  size_t mismatches_ = 0;
};

inline std::vector<size_t> msm_sizes() {
  std::vector<size_t> sizes = {1, 2, 3, 100, 1000, 4097, 65537};
  if (cuzk::test::scale() >= 2) sizes.push_back((size_t(1) << 18) + 3);
  return sizes;
}

template <class Curve>
class GpuMsmTest : public ::testing::Test {};
TYPED_TEST_SUITE_P(GpuMsmTest);

TYPED_TEST_P(GpuMsmTest, RandomScalarsAtManySizes) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-sizes-") + Curve::kName);
  Check<Curve> check("msm random scalars, sizes 1..65537");
  for (size_t n : msm_sizes()) {
    const auto bases = make_bases<Curve>(n, rng, true);
    const auto scalars = make_scalars<Fr>(n, Shape::kRandom, rng);
    const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
    check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, {}), "n=" + std::to_string(n));
  }
}

TYPED_TEST_P(GpuMsmTest, ScalarShapes) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-shapes-") + Curve::kName);
  Check<Curve> plain("msm scalar shapes (zero, one, mixed, equal, near r)");
  Check<Curve> classified("msm_with_classification scalar shapes");
  for (size_t n : {size_t(4097), size_t(65537)}) {
    const auto bases = make_bases<Curve>(n, rng, true);
    for (Shape shape : {Shape::kZero, Shape::kOne, Shape::kMixed, Shape::kEqual,
                        Shape::kMostlyEqual, Shape::kNearModulus, Shape::kRandom}) {
      const auto scalars = make_scalars<Fr>(n, shape, rng);
      const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
      const std::string label = std::string(shape_name(shape)) + " n=" + std::to_string(n);
      plain.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, {}), label);
      classified.expect(expected, gpu_run<Curve>(Op::kClassified, bases, scalars, {}), label);
    }
  }
}

TYPED_TEST_P(GpuMsmTest, CanonicalScalars) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-canonical-") + Curve::kName);
  Check<Curve> check("msm and classified msm, canonical scalars");
  gm::MsmConfig config;
  config.scalars = gm::ScalarForm::kCanonical;
  for (size_t n : {size_t(1), size_t(1000), size_t(4097)}) {
    const auto bases = make_bases<Curve>(n, rng, true);
    for (Shape shape : {Shape::kRandom, Shape::kMixed, Shape::kNearModulus}) {
      const auto scalars = make_scalars<Fr>(n, shape, rng);
      const auto canonical = as_canonical_words(scalars);
      const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
      const std::string label = std::string(shape_name(shape)) + " n=" + std::to_string(n);
      check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, canonical, config), label);
      check.expect(expected, gpu_run<Curve>(Op::kClassified, bases, canonical, config),
                   "classified " + label);
    }
  }
}

TYPED_TEST_P(GpuMsmTest, WindowWidthsAndSortPasses) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-windows-") + Curve::kName);
  Check<Curve> check("msm window widths 2..17 and multi-pass sorting");
  const size_t n = 3001;
  const auto bases = make_bases<Curve>(n, rng, true);
  const auto scalars = make_scalars<Fr>(n, Shape::kRandom, rng);
  const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
  for (unsigned c : {2u, 3u, 5u, 8u, 13u, 17u}) {
    for (size_t per_pass : {size_t(0), size_t(7000), size_t(1)}) {
      gm::MsmConfig config;
      config.window_bits = c;
      config.sort_entries_per_pass = per_pass;
      check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, config),
                   "c=" + std::to_string(c) + " per_pass=" + std::to_string(per_pass));
    }
  }
}

// Every compiled variant of the accumulation kernel (occupancy bounds, sums in registers or in
// shared memory) and launch sizes from a single thread to many with few entries each.
TYPED_TEST_P(GpuMsmTest, AccumulationVariants) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-variants-") + Curve::kName);
  Check<Curve> check("msm accumulation kernel variants and launch sizes");
  const size_t n = 4097;
  const auto bases = make_bases<Curve>(n, rng, true);
  for (Shape shape : {Shape::kRandom, Shape::kMixed}) {
    const auto scalars = make_scalars<Fr>(n, shape, rng);
    const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
    for (gm::SumStorage sums : {gm::SumStorage::kRegisters, gm::SumStorage::kShared}) {
      for (unsigned blocks : gm::kAccumulateOccupancies) {
        for (size_t threads : {size_t(1), size_t(1000), size_t(0)}) {
          gm::MsmConfig config;
          config.accumulate_sums = sums;
          config.accumulate_min_blocks = blocks;
          config.accumulate_threads = threads;
          check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, config),
                       std::string(shape_name(shape)) + " sums=" + gm::sum_storage_name(sums) +
                           " min_blocks=" + std::to_string(blocks) +
                           " threads=" + std::to_string(threads));
        }
      }
    }
    for (size_t partials : {size_t(2), size_t(7)}) {  // combining levels of other fan-ins
      gm::MsmConfig config;
      config.accumulate_threads = 1000;
      config.partials_per_thread = partials;
      check.expect(
          expected, gpu_run<Curve>(Op::kMsm, bases, scalars, config),
          std::string(shape_name(shape)) + " partials_per_thread=" + std::to_string(partials));
    }
    // Reduction segments of other lengths; 83 leaves each window's last segment shorter.
    for (size_t segment : {size_t(1), size_t(83), size_t(256)}) {
      gm::MsmConfig config;
      config.segment_buckets = segment;
      check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, config),
                   std::string(shape_name(shape)) + " segment_buckets=" + std::to_string(segment));
    }
  }
  // Buckets that add a point to itself (the doubling case) and to its negation (infinity): all
  // scalars equal, so each window's entries form one run in base order (the sort is stable),
  // and the bases go P, P, −P, −P, Q, Q, −Q, −Q, ...: a sum P meets P, then 2P − P meets −P.
  std::vector<ec::Affine<Curve>> repeated(n);
  for (size_t i = 0; i < n; ++i) {
    const ec::Affine<Curve>& p = bases[1 + (i / 4) % 7];
    repeated[i] = i % 4 < 2 ? p : -p;
  }
  const auto equal = make_scalars<Fr>(n, Shape::kEqual, rng);
  const auto expected = cuzk::msm::pippenger<Curve>(repeated, std::span<const Fr>(equal));
  for (gm::SumStorage sums : {gm::SumStorage::kRegisters, gm::SumStorage::kShared}) {
    gm::MsmConfig config;
    config.accumulate_sums = sums;
    check.expect(expected, gpu_run<Curve>(Op::kMsm, repeated, equal, config),
                 std::string("repeated bases, equal scalars, sums=") + gm::sum_storage_name(sums));
  }
}

TYPED_TEST_P(GpuMsmTest, PinnedBasesEqualDeviceResident) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-pinned-") + Curve::kName);
  Check<Curve> msm_check("msm, bases in pinned host memory (chunked) vs device-resident");
  for (size_t n : {size_t(1), size_t(1000), size_t(65537)}) {
    const auto bases = make_bases<Curve>(n, rng, true);
    const auto scalars = make_scalars<Fr>(n, Shape::kRandom, rng);
    const auto resident = gpu_run<Curve>(Op::kMsm, bases, scalars, {});
    for (size_t chunk : {size_t(0), size_t(777), size_t(20000)}) {
      gm::MsmConfig config;
      config.bases = gm::Location::kPinnedHost;
      config.chunk_points = chunk;
      msm_check.expect(resident, gpu_run<Curve>(Op::kMsm, bases, scalars, config),
                       "n=" + std::to_string(n) + " chunk=" + std::to_string(chunk));
    }
  }
}

// MsmConfig::scalar_index: bases paired with scalars of a longer vector through an index
// (ascending with gaps, as a key's density; unordered with repeats), both scalar forms, bases
// on the device and staged from pinned memory, against the CPU sum of the gathered scalars.
TYPED_TEST_P(GpuMsmTest, ScalarIndex) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-index-") + Curve::kName);
  Check<Curve> check("msm with a scalar index");
  const size_t total = 5000;
  for (size_t m : {size_t(1), size_t(1000), size_t(3001)}) {
    const auto bases = make_bases<Curve>(m, rng, true);
    std::vector<uint32_t> ascending(total);
    for (size_t i = 0; i < total; ++i) ascending[i] = uint32_t(i);
    std::shuffle(ascending.begin(), ascending.end(), rng);
    ascending.resize(m);
    std::sort(ascending.begin(), ascending.end());
    std::vector<uint32_t> unordered(m);
    for (auto& j : unordered) j = uint32_t(rng() % total);
    for (Shape shape : {Shape::kRandom, Shape::kMixed}) {
      const auto scalars = make_scalars<Fr>(total, shape, rng);
      for (const auto* index : {&ascending, &unordered}) {
        std::vector<Fr> gathered(m);
        for (size_t i = 0; i < m; ++i) gathered[i] = scalars[(*index)[i]];
        const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(gathered));
        const std::string label = std::string(shape_name(shape)) + " m=" + std::to_string(m) +
                                  (index == &ascending ? " ascending" : " unordered");
        check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, {}, index), label);
        gm::MsmConfig canonical;
        canonical.scalars = gm::ScalarForm::kCanonical;
        check.expect(expected,
                     gpu_run<Curve>(Op::kMsm, bases, as_canonical_words(scalars), canonical, index),
                     "canonical " + label);
        gm::MsmConfig pinned;
        pinned.bases = gm::Location::kPinnedHost;
        pinned.chunk_points = 777;
        check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, pinned, index),
                     "pinned " + label);
      }
    }
  }
}

template <class Fr>
gm::ScalarCounts host_counts(const std::vector<Fr>& scalars) {
  gm::ScalarCounts counts;
  for (const Fr& s : scalars) {
    counts.ones += s == Fr::one();
    counts.others += !s.is_zero() && !(s == Fr::one());
  }
  return counts;
}

// count_scalars against the host's counts (both forms, with and without an index), and msm
// with MsmConfig::scalar_counts (only the pairs of the ones and others written and sorted)
// against the CPU: every scalar shape, narrow windows one per pass, pinned bases in chunks, a
// scalar index, and counts above the true ones.
TYPED_TEST_P(GpuMsmTest, ScalarCountsAndCompactPairs) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-counts-") + Curve::kName);
  const size_t n = 4097;
  const auto bases = make_bases<Curve>(n, rng, true);
  {
    size_t cases = 0, mismatches = 0;
    Stream stream;
    auto counts = DeviceBuffer<gm::ScalarCounts>::allocate_blocking(1);
    for (Shape shape : {Shape::kZero, Shape::kOne, Shape::kMixed, Shape::kRandom}) {
      const auto scalars = make_scalars<Fr>(n, shape, rng);
      std::vector<uint32_t> index(n / 2);
      for (auto& j : index) j = uint32_t(rng() % n);
      std::vector<Fr> gathered(index.size());
      for (size_t i = 0; i < index.size(); ++i) gathered[i] = scalars[index[i]];
      for (gm::ScalarForm form : {gm::ScalarForm::kMontgomery, gm::ScalarForm::kCanonical}) {
        const auto words =
            form == gm::ScalarForm::kMontgomery ? scalars : as_canonical_words(scalars);
        auto device_scalars = DeviceBuffer<Fr>::allocate_blocking(n);
        device_scalars.upload(words, stream);
        auto device_index = DeviceBuffer<uint32_t>::allocate_blocking(index.size());
        device_index.upload(index, stream);
        for (const bool indexed : {false, true}) {
          gm::count_scalars<Fr>({device_scalars.data(), n}, form,
                                indexed ? device_index.data() : nullptr, indexed ? index.size() : n,
                                counts.data(), stream);
          std::vector<gm::ScalarCounts> out(1);
          counts.download(out, stream);
          stream.synchronize();
          const gm::ScalarCounts want = host_counts(indexed ? gathered : scalars);
          ++cases;
          if (out[0].ones != want.ones || out[0].others != want.others) {
            ++mismatches;
            ADD_FAILURE() << Curve::kName << " count_scalars " << shape_name(shape)
                          << (indexed ? " indexed" : "") << ": " << out[0].ones << " ones, "
                          << out[0].others << " others; expected " << want.ones << ", "
                          << want.others;
          }
        }
      }
    }
    std::printf("[gpu-diff] %s count_scalars vs host: %zu cases, %zu mismatches\n", Curve::kName,
                cases, mismatches);
  }
  Check<Curve> check("msm with scalar counts (compact pairs)");
  for (Shape shape : {Shape::kZero, Shape::kOne, Shape::kMixed, Shape::kEqual, Shape::kMostlyEqual,
                      Shape::kNearModulus, Shape::kRandom}) {
    const auto scalars = make_scalars<Fr>(n, shape, rng);
    const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
    const std::string label = shape_name(shape);
    gm::MsmConfig config;
    config.scalar_counts = host_counts(scalars);
    check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, config), label);
    gm::MsmConfig pinned = config;
    pinned.bases = gm::Location::kPinnedHost;
    pinned.chunk_points = 777;
    check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, pinned), "pinned " + label);
    gm::MsmConfig over = config;
    over.scalar_counts->ones += 5;
    over.scalar_counts->others += 100;
    check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, scalars, over),
                 "counts above the true ones " + label);
  }
  const auto mixed = make_scalars<Fr>(n, Shape::kMixed, rng);
  const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(mixed));
  for (unsigned c : {2u, 13u}) {
    for (size_t per_pass : {size_t(0), size_t(1)}) {
      gm::MsmConfig narrow;
      narrow.scalar_counts = host_counts(mixed);
      narrow.window_bits = c;
      narrow.sort_entries_per_pass = per_pass;
      check.expect(expected, gpu_run<Curve>(Op::kMsm, bases, mixed, narrow),
                   "mixed c=" + std::to_string(c) + " per_pass=" + std::to_string(per_pass));
    }
  }
  const size_t total = 3 * n;
  const auto longer = make_scalars<Fr>(total, Shape::kMixed, rng);
  std::vector<uint32_t> index(n);
  for (auto& j : index) j = uint32_t(rng() % total);
  std::vector<Fr> gathered(n);
  for (size_t i = 0; i < n; ++i) gathered[i] = longer[index[i]];
  gm::MsmConfig indexed;
  indexed.scalar_counts = host_counts(gathered);
  check.expect(cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(gathered)),
               gpu_run<Curve>(Op::kMsm, bases, longer, indexed, &index), "scalar index");
}

// msm_shifted over a device table on `stream`, sorting at most per_pass pairs at once (0: the
// default), read back. With `canonicalize` the scalars are made integers in place on the device
// first (canonicalize_scalars, checked against the host's) and the MSM takes them in canonical
// form, in a workspace no larger than the Montgomery form's.
template <class Curve>
ec::Jacobian<Curve> run_msm_shifted(const gm::ShiftedBases<Curve>& table,
                                    const std::vector<typename Curve::Scalar>& scalars,
                                    size_t per_pass, Stream& stream, bool canonicalize = false) {
  using Fr = typename Curve::Scalar;
  const size_t n = table.n;
  gm::MsmConfig config;
  config.stream = stream;
  config.sort_entries_per_pass = per_pass;
  auto device_scalars = DeviceBuffer<Fr>::allocate_blocking(n);
  device_scalars.upload(scalars, stream);
  if (canonicalize) {
    const size_t montgomery_bytes =
        gm::msm_shifted_workspace_bytes<Curve>(n, table.c, config, table.rows, table.odd);
    gm::canonicalize_scalars<Fr>({device_scalars.data(), n}, stream);
    std::vector<Fr> made(n);
    device_scalars.download(made, stream);
    stream.synchronize();
    const std::vector<Fr> expected = as_canonical_words(scalars);
    EXPECT_EQ(std::memcmp(made.data(), expected.data(), n * sizeof(Fr)), 0)
        << "canonicalize_scalars, n=" << n;
    config.scalars = gm::ScalarForm::kCanonical;
    EXPECT_LE(gm::msm_shifted_workspace_bytes<Curve>(n, table.c, config, table.rows, table.odd),
              montgomery_bytes);
  }
  auto result = DeviceBuffer<ec::Jacobian<Curve>>::allocate_blocking(1);
  const size_t bytes =
      gm::msm_shifted_workspace_bytes<Curve>(n, table.c, config, table.rows, table.odd);
  auto workspace = DeviceBuffer<std::byte>::allocate_blocking(bytes);
  gm::msm_shifted<Curve>(table, {device_scalars.data(), n}, result.data(),
                         {workspace.data(), bytes}, config);
  std::vector<ec::Jacobian<Curve>> out(1);
  result.download(out, stream);
  stream.synchronize();
  return out[0];
}

// Rows of a shifted table (downloaded) against B^w·P computed on the CPU, B = odd·2^c, for the
// first, middle and last point.
template <class Curve>
void check_table_rows(const std::vector<ec::Affine<Curve>>& bases,
                      const std::vector<ec::Affine<Curve>>& table, unsigned c, uint32_t odd,
                      size_t& cases, size_t& mismatches) {
  const size_t n = bases.size();
  const size_t rows = table.size() / n;
  for (size_t i : {size_t(0), n / 2, n - 1}) {
    ec::Jacobian<Curve> expected = ec::Jacobian<Curve>::from_affine(bases[i]);
    for (size_t w = 0; w < rows; ++w) {
      ++cases;
      if (!(expected == table[w * n + i]) && ++mismatches <= 3) {
        ADD_FAILURE() << Curve::kName << " shift_bases radix " << odd << "·2^" << c << " row " << w
                      << " point " << i << " differs from B^w·P";
      }
      const ec::Jacobian<Curve> once = expected;
      for (uint32_t m = 1; m < odd; ++m) expected = expected + once;
      for (unsigned k = 0; k < c; ++k) expected = expected.dbl();
    }
  }
}

// msm_shifted: the table (sampled rows against doublings on the CPU) and the MSM against the CPU
// reference, at the tuned window and at narrow ones (many windows, several sort passes).
TYPED_TEST_P(GpuMsmTest, ShiftedBases) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  using AffinePoint = ec::Affine<Curve>;
  auto rng = cuzk::test::rng(std::string("gpu-msm-shifted-") + Curve::kName);
  Check<Curve> check("msm_shifted (precomputed shifted bases) vs the CPU");
  size_t table_cases = 0, table_mismatches = 0;
  for (size_t n : {size_t(1), size_t(1000), size_t(4097), size_t(65537)}) {
    const auto bases = make_bases<Curve>(n, rng, true);
    for (unsigned wanted : {0u, 5u, 13u}) {
      const unsigned c = wanted != 0 ? wanted : gm::shifted_window_bits_for(n, Fr::kBits);
      const size_t rows = gm::shifted_windows<Curve>(c);
      Stream stream;
      auto device_bases = DeviceBuffer<AffinePoint>::allocate_blocking(n);
      device_bases.upload(bases, stream);
      auto table = DeviceBuffer<AffinePoint>::allocate_blocking(rows * n);
      auto shift_ws =
          DeviceBuffer<std::byte>::allocate_blocking(gm::shift_bases_workspace_bytes<Curve>(n));
      gm::shift_bases<Curve>({device_bases.data(), n}, c, {table.data(), rows * n},
                             {shift_ws.data(), shift_ws.size()}, stream);
      std::vector<AffinePoint> host_table(rows * n);
      table.download(host_table, stream);
      stream.synchronize();
      check_table_rows<Curve>(bases, host_table, c, 1, table_cases, table_mismatches);
      for (Shape shape : {Shape::kRandom, Shape::kMixed, Shape::kNearModulus, Shape::kOne}) {
        const auto scalars = make_scalars<Fr>(n, shape, rng);
        const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
        for (size_t per_pass : {size_t(0), size_t(3) * n}) {
          check.expect(
              expected,
              run_msm_shifted<Curve>({{table.data(), rows * n}, n, c}, scalars, per_pass, stream),
              std::string(shape_name(shape)) + " n=" + std::to_string(n) +
                  " c=" + std::to_string(c) + " per_pass=" + std::to_string(per_pass));
        }
      }
    }
  }
  std::printf("[gpu-diff] %s shift_bases rows vs CPU doublings: %zu cases, %zu mismatches\n",
              Curve::kName, table_cases, table_mismatches);
  std::fflush(stdout);
}

// A shifted table of `rows` rows for the radix odd·2^c, made in place after its bases (row 0
// not copied), as the prover makes its H table.
template <class Curve>
DeviceBuffer<ec::Affine<Curve>> table_in_place(const std::vector<ec::Affine<Curve>>& bases,
                                               unsigned c, unsigned rows, uint32_t odd,
                                               Stream& stream) {
  const size_t n = bases.size();
  auto table = DeviceBuffer<ec::Affine<Curve>>::allocate_blocking(size_t(rows) * n);
  CUDA_CHECK(cudaMemcpyAsync(table.data(), bases.data(), n * sizeof(ec::Affine<Curve>),
                             cudaMemcpyHostToDevice, stream));
  auto shift_ws =
      DeviceBuffer<std::byte>::allocate_blocking(gm::shift_bases_workspace_bytes<Curve>(n));
  gm::shift_bases<Curve>({table.data(), n}, c, {table.data(), size_t(rows) * n},
                         {shift_ws.data(), shift_ws.size()}, stream, rows, odd);
  stream.synchronize();  // the workspace goes when this returns
  return table;
}

// msm_shifted on `table` against the CPU reference for each shape: in one sort pass and in
// passes of n pairs, with Montgomery scalars and with scalars made integers in place.
template <class Curve, class Rng>
void check_table_msms(Check<Curve>& check, const std::vector<ec::Affine<Curve>>& bases,
                      const gm::ShiftedBases<Curve>& table, std::initializer_list<Shape> shapes,
                      Rng& rng, Stream& stream) {
  using Fr = typename Curve::Scalar;
  const size_t n = bases.size();
  for (Shape shape : shapes) {
    const auto scalars = make_scalars<Fr>(n, shape, rng);
    const auto expected = cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(scalars));
    for (size_t per_pass : {size_t(0), n}) {
      for (bool canonicalize : {false, true}) {
        check.expect(
            expected, run_msm_shifted<Curve>(table, scalars, per_pass, stream, canonicalize),
            std::string(shape_name(shape)) + " n=" + std::to_string(n) + " radix " +
                std::to_string(table.odd) + "·2^" + std::to_string(table.c) +
                " rows=" + std::to_string(table.rows) + " per_pass=" + std::to_string(per_pass) +
                (canonicalize ? " canonicalized" : ""));
      }
    }
  }
}

// msm_shifted with partial tables (fewer rows than windows: bucket sets per group of rows),
// each made in place after its bases (row 0 not copied), against the CPU reference: groups
// sorted in one pass and in several (merged passes), a last group with fewer windows; scalars
// in Montgomery form and made integers in place (as the prover's H scalars).
TYPED_TEST_P(GpuMsmTest, PartialShiftedTables) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-partial-shifted-") + Curve::kName);
  Check<Curve> check("msm_shifted on partial tables vs the CPU");
  struct Case {
    size_t n;
    unsigned c, rows;
  };
  for (const Case& k : {Case{1000, 0, 2}, Case{4097, 9, 1}, Case{4097, 9, 3}, Case{4097, 13, 5},
                        Case{65537, 0, 4}, Case{65537, 16, 2}}) {
    const size_t n = k.n;
    const unsigned c = k.c != 0 ? k.c : gm::shifted_window_bits_for(n, Fr::kBits, k.rows);
    const unsigned rows = gm::table_rows<Curve>(c, k.rows);
    ASSERT_LT(rows, gm::shifted_windows<Curve>(c));
    const auto bases = make_bases<Curve>(n, rng, true);
    Stream stream;
    const auto table = table_in_place<Curve>(bases, c, rows, 1, stream);
    check_table_msms<Curve>(check, bases, {{table.data(), size_t(rows) * n}, n, c, rows},
                            {Shape::kRandom, Shape::kMixed, Shape::kNearModulus}, rng, stream);
  }
}

// msm_shifted on tables of an odd radix B = odd·2^c (rows B^w·P, B/2 buckets, digits by
// division), whole and partial, against the CPU reference: the tuned radix, the radix BLS12-381
// takes at 2^26 (9·2^20) and narrow ones with many windows; several sort passes; scalars in
// Montgomery form and made integers in place. Radices outside the supported ones throw.
TYPED_TEST_P(GpuMsmTest, OddRadixTables) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using AffinePoint = ec::Affine<Curve>;
  auto rng = cuzk::test::rng(std::string("gpu-msm-odd-radix-") + Curve::kName);
  Check<Curve> check("msm_shifted on odd-radix tables vs the CPU");
  struct Case {
    size_t n;
    unsigned c;  // 0: the tuned radix
    uint32_t odd;
    unsigned rows;  // 0: every window's
  };
  size_t table_cases = 0, table_mismatches = 0;
  for (const Case& k : {Case{1, 20, 9, 0}, Case{1000, 20, 9, 0}, Case{4097, 5, 3, 0},
                        Case{4097, 9, 17, 3}, Case{65537, 13, 5, 2}, Case{65537, 0, 0, 0},
                        Case{1000, 2, 255, 10}}) {  // sets 255^10·2^20 apart: past 64 bits
    const size_t n = k.n;
    const gm::ShiftedRadix radix =
        k.c != 0 ? gm::ShiftedRadix{k.c, k.odd}
                 : gm::shifted_radix_for(n, k.rows, [](unsigned c, uint32_t odd) {
                     return gm::shifted_windows<Curve>(c, odd);
                   });
    const unsigned c = radix.c;
    const uint32_t odd = radix.odd;
    const unsigned rows = gm::table_rows<Curve>(c, k.rows, odd);
    const auto bases = make_bases<Curve>(n, rng, true);
    Stream stream;
    const auto table = table_in_place<Curve>(bases, c, rows, odd, stream);
    std::vector<AffinePoint> host_table(size_t(rows) * n);
    table.download(host_table, stream);
    stream.synchronize();
    check_table_rows<Curve>(bases, host_table, c, odd, table_cases, table_mismatches);
    check_table_msms<Curve>(check, bases, {{table.data(), size_t(rows) * n}, n, c, rows, odd},
                            {Shape::kRandom, Shape::kMixed, Shape::kNearModulus, Shape::kOne}, rng,
                            stream);
  }
  std::printf("[gpu-diff] %s odd-radix shift_bases rows vs CPU: %zu cases, %zu mismatches\n",
              Curve::kName, table_cases, table_mismatches);
  std::fflush(stdout);
  // Even factors, factors from 2^8 and radices above 2^kMaxShiftedWindowBits are refused.
  gm::MsmConfig config;
  for (const auto& [c, odd] : {std::pair{20u, 8u}, {4u, 257u}, {24u, 9u}}) {
    EXPECT_THROW((void)gm::msm_shifted_workspace_bytes<Curve>(1000, c, config, 0, odd), cuzk::Error)
        << "radix " << odd << "·2^" << c;
  }
}

// sum_selected on the GPU against msm::sum_selected, resident and pinned bases.
TYPED_TEST_P(GpuMsmTest, SumSelected) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using AffinePoint = ec::Affine<Curve>;
  auto rng = cuzk::test::rng(std::string("gpu-msm-selected-") + Curve::kName);
  Check<Curve> check("sum_selected (bitmap batch addition), resident and pinned");
  for (size_t n : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(65537)}) {
    const auto bases = make_bases<Curve>(n, rng, true);
    for (int density : {0, 3, 50, 100}) {
      std::vector<uint64_t> selection(gm::selection_words(n), 0);
      for (size_t i = 0; i < n; ++i) {
        if (int(rng() % 100) < density) selection[i / 64] |= uint64_t(1) << (i % 64);
      }
      const auto expected = cuzk::msm::sum_selected<Curve>(bases, selection);
      for (gm::Location where : {gm::Location::kDevice, gm::Location::kPinnedHost}) {
        Stream stream, copy;
        gm::MsmConfig config;
        config.stream = stream;
        config.copy_stream = copy;
        config.bases = where;
        config.chunk_points = 1000;  // several chunks for the larger sizes
        auto device_bases = DeviceBuffer<AffinePoint>::allocate_blocking(n);
        PinnedBuffer<AffinePoint> pinned(n);
        std::copy(bases.begin(), bases.end(), pinned.data());
        device_bases.upload(bases, stream);
        auto device_selection = DeviceBuffer<uint64_t>::allocate_blocking(selection.size());
        device_selection.upload(selection, stream);
        auto result = DeviceBuffer<ec::Jacobian<Curve>>::allocate_blocking(1);
        const size_t bytes = gm::sum_selected_workspace_bytes<Curve>(n, config);
        auto workspace = DeviceBuffer<std::byte>::allocate_blocking(bytes);
        const std::span<const AffinePoint> base_span{
            where == gm::Location::kDevice ? device_bases.data() : pinned.data(), n};
        gm::sum_selected<Curve>(base_span, device_selection.data(), result.data(),
                                {workspace.data(), bytes}, config);
        std::vector<ec::Jacobian<Curve>> out(1);
        result.download(out, stream);
        stream.synchronize();
        check.expect(expected, out[0],
                     "n=" + std::to_string(n) + " density=" + std::to_string(density) +
                         (where == gm::Location::kDevice ? " resident" : " pinned"));
      }
    }
  }
}

// classify_scalars on the GPU against msm::classify_scalars: bitmap, indices and count.
TYPED_TEST_P(GpuMsmTest, ClassifyScalars) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  auto rng = cuzk::test::rng(std::string("gpu-msm-classify-") + Curve::kName);
  size_t cases = 0, mismatches = 0;
  for (size_t n : {size_t(1), size_t(31), size_t(64), size_t(100), size_t(4097), size_t(65537)}) {
    for (Shape shape : {Shape::kMixed, Shape::kZero, Shape::kOne, Shape::kRandom}) {
      for (gm::ScalarForm form : {gm::ScalarForm::kMontgomery, gm::ScalarForm::kCanonical}) {
        ++cases;
        const auto scalars = make_scalars<Fr>(n, shape, rng);
        const auto expected = cuzk::msm::classify_scalars<Fr>(scalars);
        const auto input =
            form == gm::ScalarForm::kCanonical ? as_canonical_words(scalars) : scalars;
        Stream stream;
        auto device_scalars = DeviceBuffer<Fr>::allocate_blocking(n);
        device_scalars.upload(input, stream);
        auto ones = DeviceBuffer<uint64_t>::allocate_blocking(gm::selection_words(n));
        auto others = DeviceBuffer<uint32_t>::allocate_blocking(n);
        auto count = DeviceBuffer<uint32_t>::allocate_blocking(1);
        const size_t bytes = gm::classify_workspace_bytes<Fr>(n);
        auto workspace = DeviceBuffer<std::byte>::allocate_blocking(bytes);
        gm::classify_scalars<Fr>({device_scalars.data(), n}, form,
                                 {ones.data(), others.data(), count.data()},
                                 {workspace.data(), bytes}, stream);
        std::vector<uint64_t> got_ones(ones.size());
        std::vector<uint32_t> got_others(n), got_count(1);
        ones.download(got_ones, stream);
        others.download(got_others, stream);
        count.download(got_count, stream);
        stream.synchronize();
        got_others.resize(std::min<size_t>(got_count[0], n));
        const bool same_others =
            got_count[0] == expected.others.size() &&
            std::equal(got_others.begin(), got_others.end(), expected.others.begin());
        if (got_ones != expected.ones || !same_others) {
          ++mismatches;
          ADD_FAILURE() << Curve::kName << " classify n=" << n << " " << shape_name(shape)
                        << (form == gm::ScalarForm::kCanonical ? " canonical" : " montgomery")
                        << ": bitmap " << (got_ones == expected.ones ? "equal" : "differs")
                        << ", others " << got_count[0] << " vs " << expected.others.size()
                        << (same_others ? " (equal)" : " (differ)");
        }
      }
    }
  }
  std::printf("[gpu-diff] %s classify_scalars (bitmap, others, count): %zu cases, %zu mismatches\n",
              Curve::kName, cases, mismatches);
  std::fflush(stdout);
}

// msm_batch: several scalar vectors over one set of bases (random, mixed with counts, through a
// scalar index into a longer vector), with the bases on the device and staged from pinned
// memory, each vector's sum against the CPU; a staged chunk crosses once for all the vectors
// (gpu::msm::staged_base_bytes counts n points per batch, not per vector).
TYPED_TEST_P(GpuMsmTest, BatchOfVectorsOverSharedBases) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  using AffinePoint = ec::Affine<Curve>;
  auto rng = cuzk::test::rng(std::string("gpu-msm-batch-") + Curve::kName);
  Check<Curve> check("msm_batch vs the CPU, one sum per vector");
  for (size_t n : {size_t(1), size_t(1000), size_t(4097)}) {
    const auto bases = make_bases<Curve>(n, rng, true);
    const size_t total = 2 * n + 5;
    std::vector<uint32_t> index(n);
    for (auto& j : index) j = uint32_t(rng() % total);
    for (size_t k_vectors : {size_t(1), size_t(3), size_t(4)}) {
      struct Vector {
        std::vector<Fr> scalars;
        bool indexed = false, counted = false;
      };
      std::vector<Vector> vectors(k_vectors);
      for (size_t k = 0; k < k_vectors; ++k) {
        Vector& v = vectors[k];
        v.indexed = k % 3 == 2;
        v.counted = k % 3 == 1;
        v.scalars =
            make_scalars<Fr>(v.indexed ? total : n, k % 2 ? Shape::kMixed : Shape::kRandom, rng);
      }
      for (gm::Location where : {gm::Location::kDevice, gm::Location::kPinnedHost}) {
        Stream stream, copy;
        gm::MsmConfig config;
        config.stream = stream;
        config.copy_stream = copy;
        config.bases = where;
        config.chunk_points = 777;
        const PlacedBases<Curve> placed(bases, where, stream);
        auto device_index = DeviceBuffer<uint32_t>::allocate_blocking(n);
        device_index.upload(index, stream);
        auto results = DeviceBuffer<ec::Jacobian<Curve>>::allocate_blocking(k_vectors);
        std::vector<DeviceBuffer<Fr>> scalars;
        std::vector<DeviceBuffer<std::byte>> workspaces;
        std::vector<gm::MsmVector<Curve>> batch(k_vectors);
        std::vector<std::vector<Fr>> expected_scalars(k_vectors);
        for (size_t k = 0; k < k_vectors; ++k) {
          const Vector& v = vectors[k];
          scalars.push_back(DeviceBuffer<Fr>::allocate_blocking(v.scalars.size()));
          scalars.back().upload(v.scalars, stream);
          gm::MsmVector<Curve>& b = batch[k];
          b.scalars = {scalars.back().data(), v.scalars.size()};
          b.result = results.data() + k;
          if (v.indexed) b.scalar_index = device_index.data();
          expected_scalars[k] = v.scalars;
          if (v.indexed) {
            expected_scalars[k].resize(n);
            for (size_t i = 0; i < n; ++i) expected_scalars[k][i] = v.scalars[index[i]];
          }
          if (v.counted) b.scalar_counts = host_counts(expected_scalars[k]);
          gm::MsmConfig sized = config;
          sized.scalar_index = b.scalar_index;
          sized.scalar_counts = b.scalar_counts;
          const size_t bytes = gm::msm_workspace_bytes<Curve>(n, sized);
          workspaces.push_back(DeviceBuffer<std::byte>::allocate_blocking(bytes));
          b.workspace = {workspaces.back().data(), bytes};
        }
        stream.synchronize();
        const uint64_t staged_before = gm::staged_base_bytes().load();
        gm::msm_batch<Curve>(placed.span, batch, config);
        std::vector<ec::Jacobian<Curve>> out(k_vectors);
        results.download(out, stream);
        stream.synchronize();
        const uint64_t staged = gm::staged_base_bytes().load() - staged_before;
        const std::string label =
            std::string(where == gm::Location::kDevice ? "device" : "pinned") +
            " n=" + std::to_string(n) + " vectors=" + std::to_string(k_vectors);
        EXPECT_EQ(staged, where == gm::Location::kDevice ? 0 : n * sizeof(AffinePoint)) << label;
        for (size_t k = 0; k < k_vectors; ++k) {
          check.expect(cuzk::msm::pippenger<Curve>(bases, std::span<const Fr>(expected_scalars[k])),
                       out[k], label + " vector " + std::to_string(k));
        }
      }
    }
  }
}

// Argument errors are raised before anything is enqueued; these need no GPU.
TYPED_TEST_P(GpuMsmTest, BadArgumentsThrow) {
  using Curve = TypeParam;
  using Fr = typename Curve::Scalar;
  const std::span<const ec::Affine<Curve>> bases{static_cast<const ec::Affine<Curve>*>(nullptr),
                                                 10};
  const std::span<const Fr> scalars{static_cast<const Fr*>(nullptr), 9};
  gm::MsmConfig config;
  EXPECT_THROW(gm::msm<Curve>(bases, scalars, nullptr, {}, config), cuzk::Error);
  EXPECT_THROW(gm::msm_with_classification<Curve>(bases, scalars, nullptr, {}, config),
               cuzk::Error);
  config.window_bits = 1;
  EXPECT_THROW(gm::msm_workspace_bytes<Curve>(10, config), cuzk::Error);
  config.window_bits = gm::kMaxWindowBits + 1;
  EXPECT_THROW(gm::msm_workspace_bytes<Curve>(10, config), cuzk::Error);
  config.window_bits = 0;
  config.bases = gm::Location::kPinnedHost;  // no copy stream
  const std::span<const Fr> ten{static_cast<const Fr*>(nullptr), 10};
  EXPECT_THROW(gm::msm<Curve>(bases, ten, nullptr, {}, config), cuzk::Error);
  EXPECT_THROW(gm::msm_with_classification<Curve>(bases, ten, nullptr, {}, config), cuzk::Error);
  // More scalars counted than given (no index).
  EXPECT_THROW(gm::count_scalars<Fr>(ten, gm::ScalarForm::kCanonical, nullptr, 11, nullptr, {}),
               cuzk::Error);
  // An accumulation bound without a compiled kernel.
  gm::MsmConfig bounded;
  bounded.accumulate_min_blocks = 7;
  EXPECT_THROW(gm::msm<Curve>(bases, ten, nullptr, {}, bounded), cuzk::Error);
  // Shifted tables: a window out of range, a table too small for its window, pinned tables.
  std::vector<ec::Affine<Curve>> small_table(10);
  EXPECT_THROW(
      gm::shift_bases<Curve>(bases, gm::kMaxShiftedWindowBits + 1, small_table, {}, nullptr),
      cuzk::Error);
  EXPECT_THROW(gm::shift_bases<Curve>(bases, 16, small_table, {}, nullptr), cuzk::Error);
  EXPECT_THROW(gm::msm_shifted<Curve>({small_table, 10, 16}, ten, nullptr, {}, {}), cuzk::Error);
  EXPECT_THROW(gm::msm_shifted<Curve>({small_table, 10, 0}, ten, nullptr, {}, {}), cuzk::Error);
  // A partial table of 2 rows needs 2·n points: 10 are one row.
  EXPECT_THROW(gm::shift_bases<Curve>(bases, 16, small_table, {}, nullptr, 2), cuzk::Error);
  EXPECT_THROW(gm::msm_shifted<Curve>({small_table, 10, 16, 2}, ten, nullptr, {}, {}), cuzk::Error);
  EXPECT_THROW(gm::msm_shifted<Curve>({bases, 10, 16}, scalars, nullptr, {}, {}), cuzk::Error);
  EXPECT_THROW(gm::msm_shifted<Curve>({small_table, 10, 16}, ten, nullptr, {}, config),
               cuzk::Error);
  // A scalar index is for msm alone.
  gm::MsmConfig indexed;
  const uint32_t index[1] = {0};
  indexed.scalar_index = index;
  EXPECT_THROW(gm::msm_with_classification<Curve>(bases, ten, nullptr, {}, indexed), cuzk::Error);
  EXPECT_THROW(gm::msm_shifted<Curve>({bases, 10, 16}, ten, nullptr, {}, indexed), cuzk::Error);
  // msm_batch: indices and counts come per vector; a vector of the wrong length; two vectors
  // on one workspace.
  std::vector<std::byte> room(64);
  const auto vector = [](std::span<const Fr> s, std::byte* workspace) {
    gm::MsmVector<Curve> v;
    v.scalars = s;
    v.workspace = {workspace, 32};
    return v;
  };
  const std::vector<gm::MsmVector<Curve>> one = {vector(ten, room.data())};
  EXPECT_THROW(gm::msm_batch<Curve>(bases, one, indexed), cuzk::Error);
  gm::MsmConfig counted;
  counted.scalar_counts = gm::ScalarCounts{};
  EXPECT_THROW(gm::msm_batch<Curve>(bases, one, counted), cuzk::Error);
  const std::vector<gm::MsmVector<Curve>> short_vector = {vector(scalars, room.data())};
  EXPECT_THROW(gm::msm_batch<Curve>(bases, short_vector, {}), cuzk::Error);
  const std::vector<gm::MsmVector<Curve>> overlapping = {vector(ten, room.data()),
                                                         vector(ten, room.data() + 16)};
  EXPECT_THROW(gm::msm_batch<Curve>(bases, overlapping, {}), cuzk::Error);
}

REGISTER_TYPED_TEST_SUITE_P(GpuMsmTest, RandomScalarsAtManySizes, ScalarShapes, CanonicalScalars,
                            WindowWidthsAndSortPasses, AccumulationVariants,
                            PinnedBasesEqualDeviceResident, ScalarIndex,
                            ScalarCountsAndCompactPairs, ShiftedBases, PartialShiftedTables,
                            OddRadixTables, SumSelected, ClassifyScalars,
                            BatchOfVectorsOverSharedBases, BadArgumentsThrow);

}  // namespace cuzk::gpu::test
