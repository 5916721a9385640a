// Host checks of the GPU NTT's index math, no GPU needed: the pass geometry covers every
// element once, and the kernels' per-element functions, run on the host in the kernels' loop
// order over the device's tables and schedules, equal the CPU reference bit for bit.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/gpu/ntt_support.cuh"

namespace cuzk::gpu::ntt::test {
namespace {

// Every pass of every size maps (tile, element) onto the positions one to one, within the
// shared-memory budget, and the stage counts add up.
TEST(NttPlan, PassesCoverEveryPositionOnce) {
  for (unsigned log_n = 0; log_n <= Tuning::kMaxLogSize; ++log_n) {
    const auto shapes = pass_shapes(log_n);
    unsigned stages = 0;
    for (const PassShape& s : shapes) {
      stages += s.stages;
      ASSERT_LE(s.stages, Tuning::kMaxPassStages) << "log_n " << log_n;
      ASSERT_LE(s.stages + s.log_lanes, Tuning::kLogTileElements) << "log_n " << log_n;
      ASSERT_EQ(uint64_t(s.tiles()) * s.tile_elements(), uint64_t(1) << log_n);
      if (log_n > 18) continue;  // exhaustive coverage on the smaller sizes only
      std::vector<uint8_t> seen(size_t(1) << log_n, 0);
      std::vector<uint8_t> slot_seen(s.tile_elements());
      for (uint32_t t = 0; t < s.tiles(); ++t) {
        std::fill(slot_seen.begin(), slot_seen.end(), 0);
        for (uint32_t e = 0; e < s.tile_elements(); ++e) {
          const TileElement el = s.element(t, e);
          ASSERT_LT(el.position, seen.size());
          ASSERT_EQ(seen[el.position]++, 0) << "log_n " << log_n << " position " << el.position;
          ASSERT_EQ(slot_seen[el.slot]++, 0) << "log_n " << log_n << " slot " << el.slot;
        }
      }
    }
    EXPECT_EQ(stages, log_n);
  }
}

// The 8 words a quarter warp touches in one access, in how many passes of the banks they are
// served (1 when they differ modulo 8).
unsigned bank_passes(const uint32_t* words) {
  unsigned per_bank[8] = {};
  for (unsigned t = 0; t < 8; ++t) ++per_bank[words[t] % 8];
  return *std::max_element(per_bank, per_bank + 8);
}

// Every stage of every pass shape, both directions, as StagePlacement deals the butterflies
// out to the threads:
//   - each slot is in one butterfly, whose two slots are rows 2^log_half apart in one lane, and
//     the placement in shared memory is one to one;
//   - where a stage has no block barrier before it, every warp touches the slots it touched in
//     the stage before (so a warp barrier orders them), and a pass of 9 or 10 stages has two
//     block barriers;
//   - in tiles of 2^10 elements (transforms from 2^10 on) a quarter warp's accesses take one
//     pass of the banks in every stage;
//   - the butterflies with twiddle 1 fill whole warps wherever they can: those of half-widths
//     1 to 16 all skip their products, so a 9-stage pass issues 3.53 products per element (1808
//     of a column's 2304 butterflies);
//   - where the tile's lanes are columns, the load and store phases keep each row's lanes in
//     one warp: the global accesses go in runs of the tile's columns.
TEST(NttPlan, PlacementKeepsWarpsToTheirSlots) {
  constexpr uint32_t kFullTile = uint32_t(1) << Tuning::kLogTileElements;
  for (unsigned log_n = 1; log_n <= Tuning::kMaxLogSize; ++log_n) {
    for (const PassShape& s : pass_shapes(log_n)) {
      const uint32_t slots = s.tile_elements();
      const SlotSpread spread = SlotSpread::of(s.log_lanes);
      std::vector<uint8_t> placed(slots, 0);
      for (uint32_t slot = 0; slot < slots; ++slot) {
        const uint32_t word = spread(slot);
        ASSERT_LT(word, slots);
        ASSERT_EQ(placed[word]++, 0) << "log_n " << log_n << " slot " << slot;
      }
      if (s.stages < 2) continue;  // one thread, no placement
      const uint32_t threads = std::min(s.butterflies_per_stage(), Tuning::kThreadsPerBlock);
      for (bool dif : {true, false}) {
        const std::string where = "log_n " + std::to_string(log_n) + " K " +
                                  std::to_string(s.stages) + (dif ? " DIF" : " DIT");
        std::vector<std::vector<uint32_t>> previous_warp_slots;
        uint64_t issued = 0;
        unsigned block_barriers = 0;
        for (unsigned i = 0; i < s.stages; ++i) {
          const StagePlacement m = stage_placement(s, dif, i, column_table_log(log_n));
          if (i > 0 && m.new_phase) ++block_barriers;
          std::vector<uint8_t> seen(slots, 0);
          std::vector<std::vector<uint32_t>> warp_slots((threads + 31) / 32);
          // lo_of[it][thread]
          std::vector<std::vector<uint32_t>> lo_of(m.iterations, std::vector<uint32_t>(threads));
          for (uint32_t it = 0; it < m.iterations; ++it) {
            for (uint32_t thread = 0; thread < threads; ++thread) {
              const uint32_t lo = lo_slot(m, thread / 32, thread % 32) + it * m.iteration_step;
              const uint32_t hi = lo + (uint32_t(1) << m.pair_bit);
              ASSERT_EQ((lo >> m.pair_bit) & 1, 0u) << where;
              ASSERT_LT(hi, slots) << where;
              ASSERT_EQ(seen[lo]++, 0) << where << " stage " << i << " slot " << lo;
              ASSERT_EQ(seen[hi]++, 0) << where << " stage " << i << " slot " << hi;
              const TileElement a = s.element_at_slot(0, lo), b = s.element_at_slot(0, hi);
              ASSERT_EQ(b.row, a.row + (uint32_t(1) << m.log_half)) << where;
              ASSERT_EQ(b.lane, a.lane) << where;
              warp_slots[thread / 32].push_back(lo);
              warp_slots[thread / 32].push_back(hi);
              lo_of[it][thread] = lo;
            }
          }
          for (auto& w : warp_slots) std::sort(w.begin(), w.end());
          if (i > 0 && !m.new_phase) {
            ASSERT_EQ(warp_slots, previous_warp_slots) << where << " stage " << i;
          }
          previous_warp_slots = warp_slots;
          for (uint32_t it = 0; it < m.iterations; ++it) {
            for (uint32_t warp = 0; warp < threads; warp += 32) {
              bool product = false;
              const uint32_t end = std::min(threads, warp + 32);
              for (uint32_t t = warp; t < end; ++t) {
                product |= twiddle_index(m, lo_of[it][t] >> s.log_lanes) != 0;
              }
              if (product) issued += end - warp;
              const bool runs = s.log_columns >= s.log_lanes && (i == 0 || i + 1 == s.stages);
              if (!runs) continue;
              std::vector<uint32_t> lanes_of_row(uint32_t(1) << s.stages, 0);
              for (uint32_t t = warp; t < end; ++t) ++lanes_of_row[lo_of[it][t] >> s.log_lanes];
              for (uint32_t count : lanes_of_row) {
                ASSERT_TRUE(count == 0 || count == (uint32_t(1) << s.log_lanes)) << where;
              }
            }
            if (slots < kFullTile) continue;
            for (uint32_t q = 0; q < threads; q += 8) {
              uint32_t lo[8], hi[8];
              for (uint32_t t = 0; t < 8; ++t) {
                lo[t] = spread(lo_of[it][q + t]);
                hi[t] = spread(lo_of[it][q + t] + (uint32_t(1) << m.pair_bit));
              }
              ASSERT_EQ(bank_passes(lo), 1u) << where << " stage " << i << " thread " << q;
              ASSERT_EQ(bank_passes(hi), 1u) << where << " stage " << i << " thread " << q;
            }
          }
        }
        if (slots < kFullTile) continue;
        EXPECT_LE(block_barriers, 2u) << where;
        // Every butterfly of half-width 2^t ≤ 16 with twiddle 1 skips its product.
        uint64_t ones = 0;
        for (unsigned t = 0; t < std::min(s.stages, 5u); ++t) ones += slots >> (t + 1);
        EXPECT_EQ(issued, uint64_t(s.stages) * (slots / 2) - ones) << where;
        if (s.stages == 9) EXPECT_EQ(issued, 1808u * 2) << where;  // two columns a tile
      }
    }
  }
}

// The tiled bit reversal: every (middle, row, column) of every size from 2^8 on is the
// reversal of where its element goes, each position is written once (by the block of the
// smaller middle of its pair), and a quarter warp's shared-memory words take one pass of the
// banks both in the row-wise loads and in the transposed reads.
TEST(NttPlan, ReversalTilesSwapEveryPositionOnce) {
  constexpr unsigned b = ReversalTiles::kLogSide;
  for (unsigned log_n = 2 * b; log_n <= Tuning::kMaxLogSize; ++log_n) {
    ASSERT_TRUE(ReversalTiles::applies(log_n));
    const ReversalTiles tiles{log_n};
    const uint32_t step = log_n > 18 ? 977 : 1;  // every middle up to 2^18, a sample above
    std::vector<uint8_t> written(log_n > 18 ? 0 : size_t(1) << log_n, 0);
    for (uint32_t m = 0; m < tiles.tiles(); m += step) {
      const uint32_t partner = tiles.partner(m);
      ASSERT_EQ(tiles.partner(partner), m);
      for (uint32_t row = 0; row < ReversalTiles::kSide; ++row) {
        for (uint32_t column = 0; column < ReversalTiles::kSide; ++column) {
          const uint32_t i = tiles.position(m, row, column);
          ASSERT_EQ(reverse_low_bits(i, log_n),
                    tiles.position(partner, reverse_low_bits(column, b), reverse_low_bits(row, b)))
              << "log_n " << log_n << " middle " << m;
          if (!written.empty() && m <= partner) {
            ASSERT_EQ(written[i]++, 0) << "log_n " << log_n;
            if (m != partner) ASSERT_EQ(written[tiles.position(partner, row, column)]++, 0);
          }
        }
      }
    }
    if (!written.empty()) {
      EXPECT_EQ(std::count(written.begin(), written.end(), 1), ptrdiff_t(written.size()))
          << "log_n " << log_n;
    }
  }
  EXPECT_FALSE(ReversalTiles::applies(2 * b - 1));
  std::vector<uint8_t> placed(ReversalTiles::kElements, 0);
  for (uint32_t t = 0; t < ReversalTiles::kElements; t += 8) {
    uint32_t loads[8], reads[8];
    for (uint32_t k = 0; k < 8; ++k) {
      const uint32_t row = (t + k) >> b, column = (t + k) & (ReversalTiles::kSide - 1);
      loads[k] = ReversalTiles::word(row, column);
      ASSERT_LT(loads[k], ReversalTiles::kElements);
      ASSERT_EQ(placed[loads[k]]++, 0);
      reads[k] = ReversalTiles::word(reverse_low_bits(column, b), reverse_low_bits(row, b));
    }
    EXPECT_EQ(bank_passes(loads), 1u) << "thread " << t;
    EXPECT_EQ(bank_passes(reads), 1u) << "thread " << t;
  }
}

template <class Fr>
class NttEmulation : public ::testing::Test {};
using ScalarFields = ::testing::Types<bls12_381::Fr, bn254::Fr>;
TYPED_TEST_SUITE(NttEmulation, ScalarFields);

// Every operation and order pair emulated on `input` with these tables (and full twiddle table
// `half`, or nullptr) against the CPU reference.
template <class Fr>
void expect_operations_match_cpu(const Domain<Fr>& domain, const HostTables<Fr>& tables,
                                 const std::vector<Fr>& input, const Fr* half,
                                 const std::string& prefix) {
  for (Op op : kOps) {
    for (Order in : kOrders) {
      for (Order out : kOrders) {
        auto expected = input, actual = input;
        cpu_apply(domain, op, expected, in, out);
        emulate<Fr>(tables, op_steps(domain, op, in, out), actual, half);
        const std::string context = prefix + " " + name(op) + " " + name(in) + "->" + name(out);
        EXPECT_EQ(count_mismatches(expected, actual, context), 0u) << context;
      }
    }
  }
}

// Every operation and order pair, both conventions, up to 2^14 (one and two passes).
TYPED_TEST(NttEmulation, TransformsMatchCpu) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-emulation-transforms");
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    for (unsigned log_n = 0; log_n <= 14; ++log_n) {
      const Domain<Fr> domain(log_n, convention);
      const HostTables<Fr> tables = build_tables(domain);
      expect_operations_match_cpu<Fr>(
          domain, tables, random_elements<Fr>(domain.size(), rng), nullptr,
          std::string(name(convention)) + " 2^" + std::to_string(log_n));
    }
  }
}

// The full twiddle table (TwiddleTables::kFull) where the fine table does not reach: the fine
// table's reach lowered to 2^4 so that every pass of these small domains beyond it reads the full
// table, ω^e and ω^(−e) both (the negated half and the reversed index). Every operation and order
// pair, one and two passes.
TYPED_TEST(NttEmulation, FullTwiddleTableMatchesCpu) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-emulation-full-twiddles");
  for (unsigned log_n : {5u, 9u, 12u, 14u}) {
    const Domain<Fr> domain(log_n, Convention::kSnarkjs);
    const HostTables<Fr> tables = build_tables(domain, 4);
    const std::vector<Fr> half = half_twiddles(domain);
    ASSERT_EQ(half.size(), domain.size() / 2);
    expect_operations_match_cpu(domain, tables, random_elements<Fr>(domain.size(), rng),
                                half.data(), "full twiddles 2^" + std::to_string(log_n));
  }
}

// Three passes (2^21 = 7 + 7 + 7 stages): a DIF with standard-form input on BLS12-381, a coset
// DIT inverse on BN254 (one check per field keeps the host time down).
TYPED_TEST(NttEmulation, ThreePassesMatchCpu) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-emulation-three-passes");
  const unsigned log_n = 21;
  ASSERT_EQ(pass_shapes(log_n).size(), 3u);
  const Domain<Fr> domain(log_n, Convention::kSnarkjs);
  const HostTables<Fr> tables = build_tables(domain);
  const auto input = random_elements<Fr>(domain.size(), rng);
  auto expected = input, actual = input;
  if constexpr (std::is_same_v<Fr, bls12_381::Fr>) {
    // Canonical integers in, Montgomery out.
    for (auto& x : actual) x = Fr::from_montgomery(x.to_int());
    domain.forward(expected, Order::kNatural, Order::kBitReversed);
    emulate<Fr>(tables, op_steps(domain, Op::kForward, Order::kNatural, Order::kBitReversed, false),
                actual);
    EXPECT_EQ(count_mismatches(expected, actual, "2^21 forward N->BR, standard-form input"), 0u);
  } else {
    domain.coset_inverse(expected, Order::kBitReversed, Order::kNatural);
    emulate<Fr>(tables, op_steps(domain, Op::kCosetInverse, Order::kBitReversed, Order::kNatural),
                actual);
    EXPECT_EQ(count_mismatches(expected, actual, "2^21 coset_inverse BR->N"), 0u);
  }
}

// The H evaluations' schedules (values_to_coset_steps, the combination, the final coset
// inverse) against the CPU functions.
TYPED_TEST(NttEmulation, HPolynomialsMatchCpu) {
  using Fr = TypeParam;
  auto rng = cuzk::test::rng("ntt-emulation-h");
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    for (unsigned log_n : {1u, 5u, 10u, 11u, 13u}) {
      const Domain<Fr> domain(log_n, convention);
      const HostTables<Fr> tables = build_tables(domain);
      const size_t n = domain.size();
      auto a = random_elements<Fr>(n, rng), b = random_elements<Fr>(n, rng),
           c = random_elements<Fr>(n, rng);
      auto ea = a, eb = b, ec = c;
      const auto coset = values_to_coset_steps<Fr>(log_n);
      for (auto* v : {&a, &b, &c}) emulate<Fr>(tables, coset, *v);
      Fr factor = Fr::one();
      if (convention == Convention::kSnarkjs) {
        cuzk::ntt::snarkjs_h_scalars<Fr>(domain, ea, eb, ec);
      } else {
        cuzk::ntt::bellman_h_coefficients<Fr>(domain, ea, eb, ec);
        factor = (domain.coset_shift().pow(uint64_t(n)) - Fr::one()).inverse();
      }
      for (size_t i = 0; i < n; ++i) a[i] = (a[i] * b[i] - c[i]) * factor;
      if (convention == Convention::kBellman) {
        emulate<Fr>(tables, op_steps(domain, Op::kCosetInverse, Order::kNatural, Order::kNatural),
                    a);
      }
      const std::string context =
          std::string("H ") + name(convention) + " 2^" + std::to_string(log_n);
      EXPECT_EQ(count_mismatches(ea, a, context), 0u) << context;
    }
  }
}

}  // namespace
}  // namespace cuzk::gpu::ntt::test
