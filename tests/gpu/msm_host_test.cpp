// Host checks of the GPU MSM's index math, run without a GPU: the signed digits against the CPU
// layer's, the sort keys, the plan and workspace layout, and an emulation of the whole kernel
// pipeline (thread_work.hpp, the code the kernels run) over a stand-in group: integers mod r,
// where the "base" b_i is a field element and the MSM is Σ k_i·b_i. Every bucket is compared
// with its direct sum and the final result with the direct MSM, so a wrong range split, a lost
// partial or a bucket written twice shows up as a mismatch.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/msm/digits.hpp"
#include "gpu/msm/plan.hpp"
#include "gpu/msm/thread_work.hpp"
#include "gpu/msm/tuning.hpp"
#include "msm/signed_digits.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::msm {
namespace {

using Fr = bls12_381::Fr;
using Int = Fr::Int;

void report(const std::string& what, size_t cases, size_t mismatches) {
  std::printf("[gpu-diff] %s: %zu cases, %zu mismatches\n", what.c_str(), cases, mismatches);
  std::fflush(stdout);
}

// Scalars with the edge values of the recoding: 0, 1, r − 1, powers of two, runs of ones.
std::vector<Int> digit_test_scalars(std::mt19937_64& rng, size_t random_count) {
  std::vector<Int> out = {Int::from_u64(0), Int::from_u64(1), (-Fr::one()).to_int()};
  for (unsigned bit = 0; bit < 255; bit += 7) {
    Int k{};
    k.limb[bit / 64] = uint64_t(1) << (bit % 64);
    out.push_back(k);
  }
  Int ones{};
  for (auto& limb : ones.limb) limb = ~uint64_t(0);
  ones.limb[3] >>= 2;  // 2^254 − 1 < r
  out.push_back(ones);
  for (size_t i = 0; i < random_count; ++i) out.push_back(Fr::random(rng).to_int());
  return out;
}

TEST(GpuMsmHost, SignedDigitsEqualTheCpuLayer) {
  auto rng = cuzk::test::rng("gpu-msm-digits");
  const std::vector<Int> scalars = digit_test_scalars(rng, 200);
  size_t cases = 0, mismatches = 0;
  for (unsigned c = kMinWindowBits; c <= kMaxWindowBits; ++c) {
    const unsigned windows = window_count(255, c);
    for (const Int& k : scalars) {
      for (unsigned w = 0; w < windows; ++w) {
        ++cases;
        const int64_t expected = cuzk::msm::signed_digit(k, c, w);
        const int32_t actual = signed_digit(k.limb, 4, c, w);
        if (expected != actual && ++mismatches <= 3) {
          ADD_FAILURE() << "c = " << c << ", window " << w << ": " << actual << " != " << expected;
        }
      }
    }
  }
  report("host signed digits vs msm::signed_digit", cases, mismatches);
  EXPECT_EQ(mismatches, 0u);
}

// Odd radices B = odd·2^c: every digit within [−B/2, B/2], the windows' digits recompose k
// (mod r), the rest after them is zero, and the kernel's form (work::radix_digits, which skips
// the words the rest has lost) writes the same digits into keys and values.
template <class Scalar>
void check_radix_digits(unsigned c, uint32_t odd, size_t& cases, size_t& mismatches) {
  using ScalarInt = typename Scalar::Int;
  auto rng = cuzk::test::rng("gpu-msm-radix-digits");
  std::vector<ScalarInt> scalars = {ScalarInt::from_u64(0), ScalarInt::from_u64(1),
                                    (-Scalar::one()).to_int()};
  const Scalar half = Scalar::from_u64(2).inverse();  // (r + 1)/2
  for (uint64_t above : {0, 1, 2, 3}) {  // (r + 1)/2 − 2 .. (r + 1)/2 + 1
    scalars.push_back((half + Scalar::from_u64(above) - Scalar::from_u64(2)).to_int());
  }
  for (int i = 0; i < 300; ++i) scalars.push_back(Scalar::random(rng).to_int());
  const unsigned windows = radix_window_count<4>(Scalar::kModulus.limb, c, odd);
  const int64_t radix = int64_t(odd) << c;
  const KeyLayout layout{c, windows, 1, 0, OddDivisor::of(odd)};
  for (const ScalarInt& k : scalars) {
    ++cases;
    RadixDigits<4> digits(k.limb, Scalar::kModulus.limb, c, OddDivisor::of(odd));
    std::vector<uint32_t> keys(windows), values(windows);
    work::radix_digits<4>(k.limb, Scalar::kModulus.limb, unsigned(Scalar::kBits), 1, 0, true, 0,
                          layout, 0, keys.data(), values.data());
    Scalar sum = Scalar::zero(), weight = Scalar::one();
    bool ok = true;
    for (unsigned w = 0; w < windows; ++w) {
      const int32_t d = digits.next();
      ok = ok && 2 * int64_t(d < 0 ? -d : d) <= radix;
      ok = ok && keys[w] == layout.key(d, w) && values[w] == KeyLayout::value(w, d);
      const Scalar magnitude = Scalar::from_u64(uint64_t(d < 0 ? -d : d));
      sum += (d < 0 ? -magnitude : magnitude) * weight;
      weight *= Scalar::from_u64(uint64_t(radix));
    }
    ok = ok && sum == Scalar::from_int(k) && digits.next() == 0;
    if (!ok && ++mismatches <= 3) {
      ADD_FAILURE() << "radix " << odd << "·2^" << c << " does not recompose a scalar";
    }
  }
}

TEST(GpuMsmHost, OddRadixDigitsRecomposeTheScalar) {
  size_t cases = 0, mismatches = 0;
  // The division by one high product: every quotient the digits can ask for (a < m·2^16) at
  // the edges and at random, for odd m up to the bound.
  auto rng = cuzk::test::rng("gpu-msm-odd-divisor");
  for (uint32_t m : {3u, 5u, 9u, 17u, 133u, 151u, 253u, kRadixOddBound - 1}) {
    const OddDivisor divisor = OddDivisor::of(m);
    std::vector<uint32_t> numerators = {0, 1, m - 1, m, m + 1, m * 65536 - 1, m * 65535};
    for (int i = 0; i < 20000; ++i) numerators.push_back(uint32_t(rng() % (uint64_t(m) << 16)));
    for (uint32_t a : numerators) {
      ++cases;
      if (divisor.quotient(a) != a / m && ++mismatches <= 3) {
        ADD_FAILURE() << a << " / " << m << ": " << divisor.quotient(a);
      }
    }
  }
  // The radices the tables take, and narrow ones with many windows.
  EXPECT_EQ(radix_window_count<4>(Fr::kModulus.limb, 20, 9), 11u);
  EXPECT_EQ(radix_window_count<4>(bn254::Fr::kModulus.limb, 19, 17), 11u);
  EXPECT_EQ(radix_window_count<4>(Fr::kModulus.limb, 24, 1), 11u);  // 2^264 ≥ r
  for (const auto& [c, odd] : {std::pair{20u, 9u}, {19u, 17u}, {2u, 3u}, {7u, 5u}, {13u, 9u},
                               {11u, 255u}, {21u, 31u}}) {
    check_radix_digits<Fr>(c, odd, cases, mismatches);
    check_radix_digits<bn254::Fr>(c, odd, cases, mismatches);
  }
  report("host odd-radix digits recompose k", cases, mismatches);
  EXPECT_EQ(mismatches, 0u);
}

TEST(GpuMsmHost, KeysRoundTripAndStayBelowTheSentinel) {
  size_t cases = 0, mismatches = 0;
  for (unsigned c : {2u, 5u, 13u, 16u, 20u}) {
    for (unsigned windows_in_pass : {1u, 3u, 16u}) {
      const KeyLayout layout{c, windows_in_pass};
      const int32_t half = int32_t(1) << (c - 1);
      EXPECT_LE(layout.end_bit(), 32);
      EXPECT_LT(layout.sentinel(), kNoKey);
      for (unsigned w = 0; w < windows_in_pass; ++w) {
        for (int32_t d : {-half, -half + 1, -1, 1, 2, half - 1, half}) {
          ++cases;
          const uint32_t key = layout.key(d, w);
          const uint32_t value = KeyLayout::value(12345, d);
          const uint64_t bucket = layout.bucket(key, 7);
          const bool ok = key < layout.sentinel() && (key >> layout.end_bit()) == 0 &&
                          bucket == (uint64_t(7 + w) << (c - 1)) + uint64_t(d < 0 ? -d : d) - 1 &&
                          (value & kMaxBaseIndex) == 12345 &&
                          ((value & kNegativeFlag) != 0) == (d < 0);
          if (!ok) ++mismatches;
        }
        EXPECT_EQ(layout.key(0, w), layout.sentinel());
      }
    }
  }
  // Shifted bases: one shared bucket set, keys of c bits, values indexing the table's rows.
  for (unsigned c : {2u, 9u, 16u, 24u, kMaxShiftedWindowBits}) {
    const size_t stride = 1000;
    const KeyLayout layout{c, 3, stride};
    const int32_t half = int32_t(1) << (c - 1);
    EXPECT_EQ(layout.end_bit(), int(c));
    for (unsigned w = 0; w < 3; ++w) {
      for (int32_t d : {-half, -1, 1, half - 1, half}) {
        ++cases;
        const uint32_t key = layout.key(d, w);
        const uint32_t index = layout.base_index(17, 5, w);
        const bool ok = key < layout.sentinel() &&
                        layout.bucket(key, 0) == uint64_t(d < 0 ? -d : d) - 1 &&
                        index == (5 + w) * stride + 17;
        if (!ok) ++mismatches;
      }
      EXPECT_EQ(layout.key(0, w), layout.sentinel());
    }
  }
  // A partial table of 4 rows: window 9 (= 2·4 + 1) reads row 1 and adds into bucket set 2.
  for (unsigned c : {2u, 16u, 24u}) {
    const size_t stride = 1000;
    const KeyLayout layout{c, 3, stride, 8};
    const uint64_t set_first = uint64_t(2) << (c - 1);
    for (int32_t d : {-(int32_t(1) << (c - 1)), -1, 1}) {
      for (unsigned w = 0; w < 3; ++w) {
        ++cases;
        const uint32_t key = layout.key(d, w);
        const bool ok = key < layout.sentinel() &&
                        layout.bucket(key, 2) == set_first + uint64_t(d < 0 ? -d : d) - 1 &&
                        layout.base_index(17, 9, w) == (1 + w) * stride + 17;
        if (!ok) ++mismatches;
      }
    }
  }
  // An odd radix 9·2^20: B/2 = 4718592 buckets, keys |d| up to it.
  {
    const KeyLayout layout{20, 11, 1000, 0, OddDivisor::of(9)};
    EXPECT_EQ(layout.set_buckets(), 4718592u);
    EXPECT_EQ(layout.end_bit(), 23);
    for (int32_t d : {-4718592, -1, 1, 4718591, 4718592}) {
      ++cases;
      const uint32_t key = layout.key(d, 3);
      const bool ok = key < layout.sentinel() &&
                      layout.bucket(key, 2) == 2 * 4718592ull + uint64_t(d < 0 ? -d : d) - 1;
      if (!ok) ++mismatches;
    }
  }
  report("host key layout", cases, mismatches);
  EXPECT_EQ(mismatches, 0u);
}

TEST(GpuMsmHost, PlanCoversEveryWindowAndLayoutRegionsAreDisjoint) {
  for (size_t n : {size_t(1), size_t(100), size_t(65537), size_t(1) << 24, size_t(1) << 26}) {
    for (size_t chunk : {size_t(0), size_t(1000)}) {
      const MsmPlan plan = plan_msm(n, 255, {.chunk_points = chunk});
      SCOPED_TRACE("n = " + std::to_string(n) + ", chunk = " + std::to_string(chunk));
      EXPECT_GE(plan.c * plan.windows, 256u);  // 255 bits plus the final carry
      EXPECT_GE(plan.passes * plan.windows_per_pass, plan.windows);
      EXPECT_LT((plan.passes - 1) * plan.windows_per_pass, plan.windows);
      EXPECT_GE(plan.chunks * plan.chunk_points, n);
      EXPECT_GE(plan.segments_per_window * plan.segment_buckets, plan.buckets_per_window);
      EXPECT_LT((plan.segments_per_window - 1) * plan.segment_buckets, plan.buckets_per_window);
      EXPECT_TRUE(plan.max_entries <= kSortEntriesPerPass || plan.windows_per_pass == 1);
      EXPECT_GE(plan.max_accumulate_threads * plan.entries_per_thread, plan.max_entries);
      LayoutBuilder builder;
      const MsmLayout l = layout_msm(plan, {96, 192}, 12345, true, chunk != 0, builder);
      std::vector<Region> regions = {
          l.canonical,   l.keys[0],     l.keys[1],         l.values[0],       l.values[1],
          l.nonzero,     l.sort_temp,   l.buckets,         l.partial_keys[0], l.partial_keys[1],
          l.partials[0], l.partials[1], l.segment_sums[0], l.segment_sums[1], l.staging[0],
          l.staging[1],  l.run_sums};
      EXPECT_EQ(plan.merged_passes, plan.chunks > 1);
      EXPECT_EQ(l.run_sums.bytes, plan.merged_passes ? plan.pass_buckets() * 192 : 0);
      // Unused regions (no staging for resident bases) are empty and may sit anywhere.
      std::erase_if(regions, [](const Region& r) { return r.bytes == 0; });
      std::sort(regions.begin(), regions.end(),
                [](const Region& a, const Region& b) { return a.offset < b.offset; });
      for (size_t i = 0; i < regions.size(); ++i) {
        EXPECT_EQ(regions[i].offset % LayoutBuilder::kAlignment, 0u);
        if (i + 1 < regions.size()) {
          EXPECT_LE(regions[i].offset + regions[i].bytes, regions[i + 1].offset);
        }
        EXPECT_LE(regions[i].offset + regions[i].bytes, l.total);
      }
    }
  }
  for (size_t n : {size_t(1), size_t(4097), size_t(1) << 24, size_t(1) << 26}) {
    const MsmPlan plan = plan_msm(n, 255, {.shifted = true});
    EXPECT_EQ(plan.bucket_sets, 1u);
    EXPECT_GE(plan.c * plan.windows, 256u);
    EXPECT_LE(plan.c, kMaxShiftedWindowBits);
    EXPECT_LE(size_t(plan.windows) * n, kMaxPoints);
    EXPECT_EQ(plan.merged_passes, plan.passes > 1);  // shared buckets outlive a pass
    EXPECT_EQ(plan.pass_buckets(), plan.buckets_per_window);
    EXPECT_EQ(plan.table_rows, plan.windows);
    EXPECT_EQ(plan.set_shift(), plan.c * plan.windows);
  }
  // Partial tables: every window in exactly one pass, a pass within one group of rows, one
  // bucket set per group; merged passes only where a group takes several passes.
  for (unsigned rows : {1u, 2u, 3u, 4u, 5u, 11u, 40u}) {
    for (size_t sort_entries : {size_t(1) << 30, size_t(3000), size_t(1000)}) {
      const size_t n = 1000;
      const MsmPlan plan = plan_msm(n, 255,
                                    {.window_bits = 24,
                                     .sort_entries_per_pass = sort_entries,
                                     .shifted = true,
                                     .table_rows = rows});
      SCOPED_TRACE("rows = " + std::to_string(rows) + ", sort = " + std::to_string(sort_entries));
      EXPECT_EQ(plan.windows, 11u);
      EXPECT_EQ(plan.table_rows, std::min(rows, 11u));
      EXPECT_EQ(plan.bucket_sets, div_up(11, plan.table_rows));
      EXPECT_EQ(plan.set_shift(), 24 * plan.table_rows);
      EXPECT_EQ(plan.merged_passes, plan.passes_per_set() > 1);
      std::vector<int> seen(plan.windows, 0);
      for (unsigned pass = 0; pass < plan.passes; ++pass) {
        const MsmPlan::PassWindows p = plan.pass_windows(pass);
        EXPECT_LE(p.count, plan.windows_per_pass);
        if (p.count == 0) continue;
        EXPECT_EQ(p.first / plan.table_rows, (p.first + p.count - 1) / plan.table_rows);
        EXPECT_EQ(p.first / plan.table_rows, pass / plan.passes_per_set());
        for (unsigned w = p.first; w < p.first + p.count; ++w) ++seen[w];
      }
      EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 11);
    }
  }
  // The model's choices where they were measured (tuning.hpp): 3 rows at 2^27 take c = 24 (652.0
  // against 663.8 ms at 22), 3 and 4 rows at 2^26 c = 22, whole tables c = 22 at 2^23 and 2^24,
  // 24 at 2^25 and 2^26.
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 27, 255, 1), 22u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 27, 255, 2), 22u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 27, 255, 3), 24u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 27, 255, 4), 24u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 26, 255, 3), 22u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 26, 255, 4), 22u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 26, 255), 24u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 25, 255), 24u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 24, 255), 22u);
  EXPECT_EQ(shifted_window_bits_for(size_t(1) << 23, 255), 22u);
  // Table indices must fit the sort value's 31 bits: 13 rows of 2^28 points do not.
  EXPECT_THROW(plan_msm(size_t(1) << 28, 255, {.window_bits = 20, .shifted = true}), cuzk::Error);
  EXPECT_THROW(plan_msm(10, 255, {.window_bits = kMaxShiftedWindowBits + 1, .shifted = true}),
               cuzk::Error);
  EXPECT_THROW(plan_msm(10, 255, {.window_bits = 1}), cuzk::Error);
  EXPECT_THROW(plan_msm(10, 255, {.window_bits = kMaxWindowBits + 1}), cuzk::Error);
  EXPECT_THROW(plan_msm(kMaxPoints + 1, 255, {}), cuzk::Error);
  EXPECT_THROW(plan_msm(10, 255, {.partials_per_thread = 1}), cuzk::Error);
  // A segment longer than a window is cut to the window.
  const MsmPlan narrow = plan_msm(1000, 255, {.window_bits = 5, .segment_buckets = 64});
  EXPECT_EQ(narrow.segment_buckets, 16u);
  EXPECT_EQ(narrow.segments_per_window, 1u);
}

// A counted msm's passes take more windows where the compact pairs allow it, within the
// entries the plan without counts sorts at once (the same keys and values); dense counts keep
// that plan's passes. Few buckets shorten the reduction's segments.
TEST(GpuMsmHost, CountedPassesAndShortSegments) {
  const size_t n = size_t(1) << 26;
  const MsmPlan plain = plan_msm(n, 255, {.density = ScalarDensity::kSparse});
  ASSERT_GT(plain.passes, 1u);
  // A PoRep witness: 45% ones, 10% others.
  const ScalarCounts porep{n * 45 / 100, n / 10};
  const MsmPlan counted =
      plan_msm(n, 255, {.density = ScalarDensity::kSparse, .counts = porep});
  EXPECT_EQ(counted.c, plain.c);
  EXPECT_EQ(counted.passes, 1u);
  EXPECT_EQ(counted.windows_per_pass, counted.windows);
  EXPECT_EQ(counted.max_entries, plain.max_entries);
  EXPECT_EQ(counted.max_accumulate_threads, plain.max_accumulate_threads);
  EXPECT_LE(porep.ones + porep.others * counted.windows, counted.max_entries);
  // Half the scalars others: the first pass's pairs bound the windows.
  const ScalarCounts half{0, n / 2};
  const MsmPlan wider = plan_msm(n, 255, {.density = ScalarDensity::kSparse, .counts = half});
  EXPECT_GT(wider.windows_per_pass, plain.windows_per_pass);
  EXPECT_LE(half.others * wider.windows_per_pass, wider.max_entries);
  EXPECT_GT(half.others * (wider.windows_per_pass + 1), wider.max_entries);
  // Dense scalars: nothing to gain, the plan without counts.
  const MsmPlan dense = plan_msm(n, 255, {.counts = ScalarCounts{0, n}});
  EXPECT_EQ(dense.windows_per_pass, plan_msm(n, 255, {}).windows_per_pass);
  // Staged chunks keep their passes (every chunk revisits every window).
  const MsmPlan chunked =
      plan_msm(n, 255, {.chunk_points = n / 4, .density = ScalarDensity::kSparse, .counts = porep});
  EXPECT_EQ(chunked.windows_per_pass,
            plan_msm(n, 255, {.chunk_points = n / 4, .density = ScalarDensity::kSparse})
                .windows_per_pass);

  // 2^24 sparse scalars: c = 16, 16 sets of 2^15 buckets, segments cut from 64 to 16.
  const MsmPlan few = plan_msm(size_t(1) << 24, 255, {.density = ScalarDensity::kSparse});
  EXPECT_EQ(few.c, 16u);
  EXPECT_EQ(few.segment_buckets, 16u);
  EXPECT_GE(few.bucket_sets * few.segments_per_window, kMinReductionThreads);
  // Many buckets keep the tuned length; an explicit length is kept as asked.
  EXPECT_EQ(plan_msm(size_t(1) << 26, 255, {}).segment_buckets, segment_buckets_for(Group::kG1));
  EXPECT_EQ(plan_msm(size_t(1) << 24, 255,
                     {.segment_buckets = 64, .density = ScalarDensity::kSparse})
                .segment_buckets,
            64u);
  // Tiny MSMs stop at the shortest segment.
  EXPECT_EQ(plan_msm(1000, 255, {}).segment_buckets, kMinSegmentBuckets);
}

// The reduction's segments in one wave of the kernel's resident threads: longer segments where
// the tuned length gives more than a wave holds, never more segments than the tuned length
// gives (a plan made without the device sizes the segment sums for at least as many).
TEST(GpuMsmHost, ReductionSegmentsInOneWave) {
  constexpr size_t kResident = 3 * 128 * 132;  // BLS12-381 G1 reduction kernel on an H200
  // Shifted 2^26, c = 24: 2^23 buckets, 2^17 segments of 64; 166 a segment fill one wave.
  const MsmPlan shifted =
      plan_msm(size_t(1) << 26, 255, {.shifted = true, .reduction_resident_threads = kResident});
  EXPECT_EQ(shifted.segment_buckets, 166u);
  EXPECT_LE(shifted.segments_per_window, kResident);
  EXPECT_GT(div_up(shifted.buckets_per_window, shifted.segment_buckets - 1), kResident);
  for (size_t n : {size_t(1000), size_t(1) << 20, size_t(1) << 24, size_t(1) << 26}) {
    for (bool is_shifted : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (is_shifted ? " shifted" : ""));
      const MsmPlan blind = plan_msm(n, 255, {.shifted = is_shifted});
      const MsmPlan sized =
          plan_msm(n, 255, {.shifted = is_shifted, .reduction_resident_threads = kResident});
      const size_t blind_segments = blind.bucket_sets * blind.segments_per_window;
      const size_t segments = sized.bucket_sets * sized.segments_per_window;
      EXPECT_LE(segments, blind_segments);
      if (blind_segments <= kResident) {  // within one wave the tuned length stays
        EXPECT_EQ(sized.segment_buckets, blind.segment_buckets);
      } else {  // the shortest length whose segments one wave holds
        EXPECT_LE(segments, kResident);
        EXPECT_GT(sized.bucket_sets * div_up(sized.buckets_per_window, sized.segment_buckets - 1),
                  kResident);
      }
    }
  }
  // An explicit length is kept, whatever the waves.
  EXPECT_EQ(
      plan_msm(size_t(1) << 26, 255,
               {.shifted = true, .segment_buckets = 64, .reduction_resident_threads = kResident})
          .segment_buckets,
      64u);
}

// The accumulation's aim in whole waves of the resident threads: rounded down, never above the
// aim (so a plan made without the device sizes at least as many partial slots), and the entries
// spread over the threads that remain.
TEST(GpuMsmHost, AccumulationThreadsInWholeWaves) {
  constexpr size_t kResident = 4 * 128 * 132;  // BLS12-381 G1 kernel on an H200
  EXPECT_EQ(whole_waves(size_t(1) << 20, kResident), 15 * kResident);
  EXPECT_EQ(whole_waves(size_t(1) << 20, 0), size_t(1) << 20);
  EXPECT_EQ(whole_waves(1000, kResident), 1000u);
  EXPECT_EQ(whole_waves(kResident, kResident), kResident);
  const size_t n = size_t(1) << 22;
  const MsmPlan unknown = plan_msm(n, 255, {});
  const MsmPlan known = plan_msm(n, 255, {.resident_threads = kResident});
  EXPECT_EQ(known.aimed_accumulate_threads, 15 * kResident);
  EXPECT_LE(known.max_accumulate_threads, 15 * kResident);
  EXPECT_LE(known.max_accumulate_threads, unknown.max_accumulate_threads);
  EXPECT_GE(known.max_accumulate_threads * known.entries_per_thread, known.max_entries);
  EXPECT_GT(known.max_accumulate_threads, 14 * kResident);  // the last wave nearly full
}

// Dense G1 scalars take wider windows than sparse (mostly 0/1) ones where the measured tables
// differ, G2 has one table, and the counts decide which table a counted msm reads.
TEST(GpuMsmHost, WindowTablesByScalarDensity) {
  using enum ScalarDensity;
  const auto c = [](unsigned log_n, Group group, ScalarDensity density) {
    return plan_msm(size_t(1) << log_n, 255, {.group = group, .density = density}).c;
  };
  for (unsigned log_n = 1; log_n <= 27; ++log_n) {
    EXPECT_GE(c(log_n, Group::kG1, kDense), c(log_n, Group::kG1, kSparse)) << log_n;
    if (log_n <= 22) {
      EXPECT_EQ(c(log_n, Group::kG1, kDense), c(log_n, Group::kG1, kSparse)) << log_n;
    }
    EXPECT_EQ(c(log_n, Group::kG2, kDense), c(log_n, Group::kG2, kSparse)) << log_n;  // one table
  }
  EXPECT_EQ(c(24, Group::kG1, kDense), 20u);
  EXPECT_EQ(c(24, Group::kG1, kSparse), 16u);
  EXPECT_EQ(c(26, Group::kG1, kSparse), 20u);
  EXPECT_EQ(c(27, Group::kG1, kDense), 22u);
  EXPECT_EQ(c(27, Group::kG1, kSparse), 20u);
  EXPECT_EQ(c(26, Group::kG2, kDense), 16u);
  EXPECT_EQ(plan_msm(size_t(1) << 24, 255, {.window_bits = 17, .density = kDense}).c, 17u);
  // At most half of the scalars neither 0 nor 1: sparse.
  EXPECT_EQ(density_for(100, 50), kSparse);
  EXPECT_EQ(density_for(100, 51), kDense);
  EXPECT_EQ(density_for(100, 0), kSparse);
  EXPECT_EQ(density_for(0, 0), kSparse);
}

// The stand-in group: field elements under addition.
struct FrBase {
  Fr v;
  FrBase operator-() const { return {-v}; }
};
struct FrBucket {
  Fr v;
  // Assignments to this object since the count was last cleared. The emulation checks that a
  // launch writes each bucket at most once: a second write would come from another thread, a
  // race on the device that the emulation's thread-by-thread order would hide.
  unsigned writes = 0;

  FrBucket(const Fr& value = Fr::zero()) : v(value) {}
  FrBucket(const FrBucket& other) : v(other.v) {}
  FrBucket& operator=(const FrBucket& other) {
    v = other.v;
    ++writes;
    return *this;
  }
  static FrBucket infinity() { return {Fr::zero()}; }
  FrBucket add(const FrBase& b) const { return {v + b.v}; }
  FrBucket operator+(const FrBucket& o) const { return {v + o.v}; }
  FrBucket dbl() const { return {v.dbl()}; }
};

struct EmulationResult {
  size_t bucket_mismatches = 0;
  size_t buckets_written_twice = 0;  // in one launch, summed over launches
  bool total_ok = false;
};

// B^w·b in the stand-in group, B = odd·2^c: row w of a shifted table.
Fr shifted_value(const Fr& b, unsigned c, unsigned w, uint32_t odd = 1) {
  return b * (Fr::from_u64(uint64_t(odd) << c)).pow(w);
}

// The digits of k that the windows of a plan read: bits for a power of two, RadixDigits for an
// odd radix.
std::vector<int32_t> plan_digits(const MsmPlan& plan, const Int& k) {
  std::vector<int32_t> out(plan.windows);
  RadixDigits<4> radix(k.limb, Fr::kModulus.limb, plan.c, OddDivisor::of(plan.odd));
  for (unsigned w = 0; w < plan.windows; ++w) {
    out[w] = plan.odd == 1 ? signed_digit(k.limb, 4, plan.c, w) : radix.next();
  }
  return out;
}

// The launch sequence of msm_impl.cuh's run_msm, thread by thread, on the host; with `shifted`,
// msm_shifted's (a table of shifted bases as shift_bases makes it, one shared bucket set).
// table_rows: a partial table's rows (0: every window's).
EmulationResult emulate_msm(const std::vector<FrBase>& bases, const std::vector<Int>& scalars,
                            unsigned window_bits, size_t chunk_points, size_t sort_entries,
                            bool shifted = false, size_t partials_per_thread = kPartialsPerThread,
                            bool compact = false, size_t segment_buckets = 0,
                            unsigned table_rows = 0, uint32_t radix_odd = 1) {
  const size_t n = bases.size();
  // MsmConfig::scalar_counts, exact.
  size_t ones = 0, others = 0;
  for (const Int& k : scalars) {
    const bool high = (k.limb[1] | k.limb[2] | k.limb[3]) != 0;
    ones += !high && k.limb[0] == 1;
    others += high || k.limb[0] > 1;
  }
  const MsmPlan plan =
      plan_msm(n, 255,
               {.window_bits = window_bits,
                .chunk_points = chunk_points,
                .sort_entries_per_pass = sort_entries,
                .shifted = shifted,
                .table_rows = table_rows,
                .radix_odd = radix_odd,
                .radix_windows = radix_odd == 1 ? 0u
                                                : radix_window_count<4>(Fr::kModulus.limb,
                                                                        window_bits, radix_odd),
                .partials_per_thread = partials_per_thread,
                .segment_buckets = segment_buckets,
                .counts = compact ? std::optional<ScalarCounts>(ScalarCounts{ones, others})
                                  : std::nullopt});
  std::vector<FrBase> table = bases;
  if (shifted) {
    table.resize(plan.table_rows * n);
    for (unsigned w = 1; w < plan.table_rows; ++w) {
      for (size_t i = 0; i < n; ++i) {
        table[w * n + i] = {shifted_value(bases[i].v, plan.c, w, plan.odd)};
      }
    }
  }
  std::vector<FrBucket> buckets(plan.bucket_sets * plan.buckets_per_window, FrBucket::infinity());
  std::vector<FrBucket> run_sums(plan.merged_passes ? plan.pass_buckets() : 0,
                                 FrBucket::infinity());
  // Where the accumulation and combining launches write: the pass's run sums or the buckets.
  std::vector<FrBucket>& sink_vector = plan.merged_passes ? run_sums : buckets;
  FrBucket* sink_buckets = sink_vector.data();
  std::vector<uint32_t> partial_keys[2] = {
      std::vector<uint32_t>(plan.max_accumulate_threads),
      std::vector<uint32_t>(div_up(plan.max_accumulate_threads, plan.partials_per_thread))};
  std::vector<FrBucket> partials[2] = {std::vector<FrBucket>(partial_keys[0].size()),
                                       std::vector<FrBucket>(partial_keys[1].size())};
  const auto begin_launch = [&] {
    for (FrBucket& b : sink_vector) b.writes = 0;
  };
  EmulationResult result;
  const auto end_launch = [&] {
    for (const FrBucket& b : sink_vector) result.buckets_written_twice += b.writes > 1;
  };
  for (size_t chunk = 0; chunk < plan.chunks; ++chunk) {
    const size_t first = chunk * plan.chunk_points;
    const size_t size = std::min(plan.chunk_points, n - first);
    for (unsigned pass = 0; pass < plan.passes; ++pass) {
      const MsmPlan::PassWindows pass_windows = plan.pass_windows(pass);
      if (pass_windows.count == 0) continue;
      const unsigned first_window = pass_windows.first;
      const KeyLayout layout = plan.key_layout(first_window, pass_windows.count);
      size_t entries = plan.entries(size, layout.windows_in_pass);
      size_t per_thread = plan.entries_per_thread;
      std::vector<uint32_t> keys(entries), values(entries);
      if (compact) {  // run_msm's pass_pairs, prefix sum and compact_digits
        entries = std::clamp<size_t>((first_window == 0 ? std::min(ones, size) : 0) +
                                         std::min(others, size) * layout.windows_in_pass,
                                     1, entries);
        per_thread = plan.entries_per_thread_for(entries, plan.aimed_accumulate_threads);
        keys.assign(entries, 0xffffffffu);
        values.assign(entries, 0);
        std::vector<uint32_t> firsts(size);
        for (size_t i = 0; i < size; ++i) {
          firsts[i] =
              work::pass_pairs(scalars[first + i].limb, 4, first_window, layout.windows_in_pass);
        }
        std::exclusive_scan(firsts.begin(), firsts.end(), firsts.begin(), 0u);
        for (size_t i = 0; i < size; ++i) {
          work::compact_digits(scalars[first].limb, 4, i, firsts[i], entries, layout, first_window,
                               keys.data(), values.data());
        }
      } else if (plan.odd != 1) {
        for (size_t i = 0; i < size; ++i) {
          work::radix_digits<4>(scalars[first + i].limb, Fr::kModulus.limb, 255, size, i, true,
                                uint32_t(i), layout, first_window, keys.data(), values.data());
        }
      } else {
        for (size_t i = 0; i < size; ++i) {
          work::digits(scalars[first + i].limb, 4, size, i, true, uint32_t(i), layout, first_window,
                       keys.data(), values.data());
        }
      }
      std::vector<size_t> order(entries);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return keys[a] < keys[b]; });
      std::vector<uint32_t> sorted_keys(entries), sorted_values(entries);
      for (size_t p = 0; p < entries; ++p) {
        sorted_keys[p] = keys[order[p]];
        sorted_values[p] = values[order[p]];
      }
      const size_t nonzero = work::first_at_least(sorted_keys.data(), entries, layout.sentinel());
      const unsigned sink_set = plan.merged_passes ? 0 : plan.set_of(first_window);
      size_t count = div_up(entries, per_thread);
      EXPECT_LE(count, plan.max_accumulate_threads);
      begin_launch();
      for (size_t t = 0; t < count; ++t) {
        const work::RunSink<FrBucket> sink{
            sink_buckets,       layout, sink_set,   partial_keys[0].data(),
            partials[0].data(), t,      count == 1, true};
        work::accumulate<FrBucket, FrBase>(t * per_thread, per_thread, nonzero, sorted_keys.data(),
                                           sorted_values.data(), table.data() + first, sink);
      }
      end_launch();
      for (int src = 0; count > 1; src = 1 - src) {
        const size_t next = div_up(count, plan.partials_per_thread);
        begin_launch();
        for (size_t t = 0; t < next; ++t) {
          const work::RunSink<FrBucket> sink{sink_buckets,
                                             layout,
                                             sink_set,
                                             partial_keys[1 - src].data(),
                                             partials[1 - src].data(),
                                             t,
                                             next == 1,
                                             false};
          work::combine_partials<FrBucket>(t * plan.partials_per_thread, plan.partials_per_thread,
                                           count, partial_keys[src].data(), partials[src].data(),
                                           sink);
        }
        end_launch();
        count = next;
      }
      if (plan.merged_passes) {
        const size_t pass_buckets =
            (shifted ? 1 : layout.windows_in_pass) * plan.buckets_per_window;
        const size_t offset = size_t(plan.set_of(first_window)) * plan.buckets_per_window;
        for (size_t b = 0; b < pass_buckets; ++b) {
          work::merge_run_sum(buckets[offset + b], run_sums[b]);
        }
      }
    }
  }

  // Each bucket against its direct sum.
  std::vector<Fr> expected(buckets.size(), Fr::zero());
  for (size_t i = 0; i < n; ++i) {
    const std::vector<int32_t> digits = plan_digits(plan, scalars[i]);
    for (unsigned w = 0; w < plan.windows; ++w) {
      const int32_t d = digits[w];
      if (d == 0) continue;
      const size_t magnitude = size_t(d < 0 ? -d : d);
      const size_t set = shifted ? w / plan.table_rows : w;
      const size_t b = set * plan.buckets_per_window + magnitude - 1;
      const Fr base = shifted ? shifted_value(bases[i].v, plan.c, w % plan.table_rows, plan.odd)
                              : bases[i].v;
      expected[b] += d < 0 ? -base : base;
    }
  }
  for (size_t b = 0; b < buckets.size(); ++b)
    result.bucket_mismatches += buckets[b].v != expected[b];

  // Bucket reduction, segment sums and Horner, as the kernels do them.
  std::vector<FrBucket> sums(plan.bucket_sets * plan.segments_per_window);
  for (size_t t = 0; t < sums.size(); ++t) {
    const work::SegmentOf s = work::segment_of(t, plan.buckets_per_window,
                                               plan.segments_per_window, plan.segment_buckets);
    sums[t] = work::reduce_segment(buckets.data() + s.first, s.length, s.offset);
  }
  size_t per_set = plan.segments_per_window;
  while (per_set > 1) {
    const size_t group = std::min(kSumGroup, per_set);
    const size_t groups = div_up(per_set, group);
    std::vector<FrBucket> next(plan.bucket_sets * groups, FrBucket::infinity());
    for (size_t g = 0; g < next.size(); ++g) {  // kernels::sum_groups: any order of addition
      const size_t set = g / groups, first = g % groups * group;
      for (size_t i = first; i < std::min(first + group, per_set); ++i) {
        next[g] = next[g] + sums[set * per_set + i];
      }
    }
    sums = std::move(next);
    per_set = groups;
  }
  Fr acc = Fr::zero();
  const Fr shift = Fr::from_u64(2).pow(plan.set_shift()) *
                   Fr::from_u64(plan.odd).pow(plan.set_odd_multiplications());
  for (unsigned w = plan.bucket_sets; w-- > 0;) acc = acc * shift + sums[w].v;
  Fr direct = Fr::zero();
  for (size_t i = 0; i < n; ++i) direct += Fr::from_int(scalars[i]) * bases[i].v;
  result.total_ok = acc == direct;
  return result;
}

TEST(GpuMsmHost, PipelineEmulationEqualsTheDirectSum) {
  auto rng = cuzk::test::rng("gpu-msm-emulation");
  struct Case {
    std::string shape;
    size_t n;
    unsigned c;
    size_t chunk, sort_entries;
    bool shifted = false;
    size_t partials_per_thread = kPartialsPerThread;
    bool compact = false;        // pairs from the scalar counts (MsmConfig::scalar_counts)
    size_t segment_buckets = 0;  // 0: the tuning table
    unsigned table_rows = 0;     // shifted: a partial table's rows (0: every window's)
    uint32_t radix_odd = 1;      // shifted: the radix's odd factor
  };
  const std::vector<Case> cases = {
      {"random", 1, 0, 0, kSortEntriesPerPass},
      {"random", 3, 0, 0, kSortEntriesPerPass},
      {"random", 1000, 0, 0, kSortEntriesPerPass},
      {"random", 4097, 7, 0, kSortEntriesPerPass},
      {"random", 4097, 2, 0, kSortEntriesPerPass},
      {"random", 20000, 0, 0, kSortEntriesPerPass},
      {"random chunks+passes", 20000, 0, 3000, 7000},
      {"all equal", 20000, 0, 0, kSortEntriesPerPass},
      {"all equal chunks", 20000, 11, 4500, kSortEntriesPerPass},
      {"0/1 mostly", 20000, 0, 0, kSortEntriesPerPass},
      {"all zero", 5000, 0, 0, kSortEntriesPerPass},
      {"all one", 5000, 0, 0, kSortEntriesPerPass},
      {"near r", 3000, 0, 0, kSortEntriesPerPass},
      {"random shifted", 1, 0, 0, kSortEntriesPerPass, true},
      {"random shifted", 4097, 0, 0, kSortEntriesPerPass, true},
      {"random shifted", 4097, 2, 0, kSortEntriesPerPass, true},
      {"random shifted passes", 20000, 9, 0, 30000, true},
      {"random shifted wide", 3000, 22, 0, 7000, true},
      {"all equal shifted", 20000, 0, 0, kSortEntriesPerPass, true},
      {"0/1 mostly shifted", 20000, 0, 0, kSortEntriesPerPass, true},
      {"near r shifted", 3000, 13, 0, kSortEntriesPerPass, true},
      {"random, combining 2 partials a thread", 20000, 0, 3000, 7000, false, 2},
      {"0/1 mostly, combining 5 partials a thread", 20000, 0, 0, kSortEntriesPerPass, false, 5},
      {"all equal shifted, combining 3 partials a thread", 20000, 0, 0, 30000, true, 3},
      {"0/1 mostly, compact pairs", 20000, 0, 0, kSortEntriesPerPass, false, 8, true},
      {"0/1 mostly, compact pairs, chunks+passes", 20000, 0, 3000, 7000, false, 8, true},
      {"0/1 mostly, compact pairs, narrow", 4097, 2, 0, kSortEntriesPerPass, false, 8, true},
      {"random, compact pairs, chunks+passes", 20000, 0, 3000, 7000, false, 8, true},
      {"all zero, compact pairs", 5000, 0, 0, kSortEntriesPerPass, false, 8, true},
      {"all one, compact pairs, passes", 5000, 5, 0, 5000, false, 8, true},
      {"near r, compact pairs", 3000, 0, 0, kSortEntriesPerPass, false, 8, true},
      {"random, reduction segments of 1 bucket", 4097, 9, 0, kSortEntriesPerPass, false, 8, false,
       1},
      {"random, reduction segments of 4 buckets", 4097, 9, 0, kSortEntriesPerPass, false, 8, false,
       4},
      {"random, reduction segment = window", 4097, 9, 0, kSortEntriesPerPass, false, 8, false, 256},
      {"random, reduction segments of 83 buckets (a window's last shorter)", 4097, 9, 0,
       kSortEntriesPerPass, false, 8, false, 83},
      {"random shifted, 3 rows, reduction segments of 47 buckets", 20000, 13, 0,
       kSortEntriesPerPass, true, 8, false, 47, 3},
      {"random shifted, reduction segments of 128 buckets", 20000, 13, 0, kSortEntriesPerPass, true,
       8, false, 128},
      {"random shifted, 1 row", 4097, 9, 0, kSortEntriesPerPass, true, 8, false, 0, 1},
      {"random shifted, 4 rows", 4097, 9, 0, kSortEntriesPerPass, true, 8, false, 0, 4},
      {"random shifted, 5 rows, passes", 20000, 13, 0, 30000, true, 8, false, 0, 5},
      {"random shifted, 3 rows, a pass a window", 3000, 24, 0, 3000, true, 8, false, 0, 3},
      {"all equal shifted, 2 rows", 20000, 0, 0, kSortEntriesPerPass, true, 8, false, 0, 2},
      {"near r shifted, 6 rows", 3000, 13, 0, kSortEntriesPerPass, true, 8, false, 0, 6},
      {"random shifted, radix 9·2^20", 4097, 20, 0, kSortEntriesPerPass, true, 8, false, 0, 0, 9},
      {"near r shifted, radix 9·2^20", 3000, 20, 0, kSortEntriesPerPass, true, 8, false, 0, 0, 9},
      {"all equal shifted, radix 3·2^9, passes", 20000, 9, 0, 30000, true, 8, false, 0, 0, 3},
      {"random shifted, radix 5·2^7, 4 rows", 4097, 7, 0, kSortEntriesPerPass, true, 8, false, 0,
       4, 5},
      {"0/1 mostly shifted, radix 17·2^11, 3 rows, passes", 20000, 11, 0, 30000, true, 8, false,
       0, 3, 17},
      {"random shifted, radix 9·2^13, 1 row", 3000, 13, 0, kSortEntriesPerPass, true, 8, false, 0,
       1, 9},
      // Sets 255^10·2^20 apart: a factor past 64 bits.
      {"near r shifted, radix 255·2^2, 10 rows", 3000, 2, 0, kSortEntriesPerPass, true, 8, false,
       0, 10, 255},
  };
  size_t mismatches = 0;
  for (const Case& c : cases) {
    std::vector<FrBase> bases(c.n);
    std::vector<Int> scalars(c.n);
    const Int equal = Fr::random(rng).to_int();
    for (size_t i = 0; i < c.n; ++i) {
      bases[i] = {Fr::random(rng)};
      if (c.shape.starts_with("all equal")) {
        scalars[i] = equal;
      } else if (c.shape.starts_with("0/1 mostly")) {
        const unsigned roll = unsigned(rng() % 10);
        scalars[i] = roll < 4 ? Int::from_u64(0) : roll < 8 ? Int::from_u64(1) : equal;
      } else if (c.shape.starts_with("all zero")) {
        scalars[i] = Int::from_u64(0);
      } else if (c.shape.starts_with("all one")) {
        scalars[i] = Int::from_u64(1);
      } else if (c.shape.starts_with("near r")) {
        scalars[i] = (-Fr::from_u64(1 + rng() % 1000)).to_int();
      } else {
        scalars[i] = Fr::random(rng).to_int();
      }
    }
    const EmulationResult r =
        emulate_msm(bases, scalars, c.c, c.chunk, c.sort_entries, c.shifted, c.partials_per_thread,
                    c.compact, c.segment_buckets, c.table_rows, c.radix_odd);
    const bool bad = r.bucket_mismatches != 0 || r.buckets_written_twice != 0 || !r.total_ok;
    mismatches += bad;
    if (bad) {
      ADD_FAILURE() << c.shape << " n = " << c.n << ": " << r.bucket_mismatches
                    << " buckets differ from their direct sums, " << r.buckets_written_twice
                    << " written twice in one launch; total " << (r.total_ok ? "equal" : "differs");
    }
  }
  report("host pipeline emulation (buckets and total)", cases.size(), mismatches);
}

TEST(GpuMsmHost, SelectionEmulationEqualsTheDirectSum) {
  auto rng = cuzk::test::rng("gpu-msm-selection-emulation");
  size_t cases = 0, mismatches = 0;
  for (size_t n : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(1000), size_t(4097)}) {
    for (int density : {0, 1, 50, 100}) {
      ++cases;
      std::vector<FrBase> bases(n);
      std::vector<uint64_t> selection((n + 63) / 64 + 1, 0);  // + a word of garbage bits
      Fr direct = Fr::zero();
      for (size_t i = 0; i < n; ++i) {
        bases[i] = {Fr::random(rng)};
        if (int(rng() % 100) < density) {
          selection[i / 64] |= uint64_t(1) << (i % 64);
          direct += bases[i].v;
        }
      }
      // Bits past n must be ignored.
      if (n % 64 != 0) selection[n / 64] |= ~uint64_t(0) << (n % 64);
      selection.back() = ~uint64_t(0);
      Fr sum = Fr::zero();
      for (size_t first = 0; first < n; first += kPointsPerSelectionThread) {
        sum +=
            work::sum_selected_words<FrBucket, FrBase>(bases.data(), 0, first, n, selection.data())
                .v;
      }
      if (sum != direct) {
        ++mismatches;
        ADD_FAILURE() << "n = " << n << ", density " << density << "%";
      }
    }
  }
  report("host selection emulation", cases, mismatches);
}

}  // namespace
}  // namespace cuzk::gpu::msm
