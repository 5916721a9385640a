#pragma once
// How a GPU NTT of 2^L elements is cut into kernel launches: the tuning table, the geometry of
// one pass, and the schedule of steps (passes, bit-reversal permutations) of each operation.
// Host code (plain C++) plus CUZK_HD index math that the kernels and the host emulation in the
// tests share, so the emulation checks the very index arithmetic the device runs.
//
// The decomposition (the CPU reference's four-step split, src/ntt/domain.hpp, applied
// recursively). A decimation-in-frequency (DIF) transform of a block of M = R·C elements, viewed
// as R = 2^K rows of C columns, is: R-point DIFs down every column (root ω_M^C = ω_R), a
// twiddle ω_M^(col·rev_K(row)) at (row, col), then C-point DIFs along every row (root ω_M^R).
// The result is the bit-reversed output of the whole DIF. The row transforms are the same
// problem one level down, so L = K_1 + K_2 + ... + K_p: pass i does the K_i-stage column
// transforms of every sub-block of M_i = 2^(L − K_1 − ... − K_(i−1)) elements plus their
// twiddle, reading and writing the vector once. The last pass (C = 1) has no twiddle. A
// decimation-in-time (DIT) transform (bit-reversed in, natural out) runs the same passes in
// reverse order, each applying its twiddle before its column transforms.
//
// Cost per element and pass: at most K/2 − (1 − 2^−K) Montgomery products in the column
// butterflies (those with twiddle 1 skip theirs, where they fill whole warps: StagePlacement; 3.53
// issued for K = 9) plus 2 for the twiddle (one to assemble it from a two-level table, one to
// apply it), or 1 when the pass's sub-blocks fit the fine table of tables.hpp. 2^27 = 9 + 9 +
// 9: 13.5 products per element (the first pass's twiddle two-level, the second's fine, the last
// none), as many as log2(n) radix-2 stages would take reading the vector 27 times.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ntt/powers.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::ntt {

using cuzk::ntt::Order;

// The tuning table. Measured choices carry their measurement; kMaxPassStages follows from the
// tile, and the block sizes of the permutation and element-wise kernels are design values, not
// swept on the H200.
struct Tuning {
  // Stages per pass: a 2^10-point column transform. 2^27 runs as 3 passes of 9 stages.
  static constexpr unsigned kMaxPassStages = 10;
  // Elements per thread block: 2^10 × 32 bytes = 32 KiB of shared memory. A pass of K stages
  // gives each block 2^(10−K) adjacent columns, so global memory is read in runs of
  // 2^(10−K) · 32 bytes (64 bytes for K = 9: two whole sectors). At 64 registers × 256 threads
  // registers then allow 4 blocks per SM (32 warps), where 64 KiB tiles (2^11) let shared
  // memory allow 3 (24 warps): 2^10 tiles are 1-2.5% faster at every size, and 512 threads of
  // 2^11 tiles were slower still (bench/results/ntt/2026-12-02_h200_fbde004_ntt_tiles.txt).
  static constexpr unsigned kLogTileElements = 10;
  static constexpr unsigned kThreadsPerBlock = 256;
  // The pass kernel is held to the 64 registers that let 4 blocks share an SM: with the first
  // and last stages in its load and store phases, BLS12-381 Fr's took 72-78 unbounded (3
  // blocks); at 64 ptxas spills at most 8 bytes (the DIF with warp-local phases: BLS12-381 4,
  // BN254 8).
  static constexpr unsigned kPassBlocksPerSm = 4;
  static constexpr unsigned kPermuteThreadsPerBlock = 256;
  static constexpr unsigned kElementwiseThreadsPerBlock = 256;
  // Largest domain a DeviceDomain accepts: 2^28 elements (8 GiB per vector).
  static constexpr unsigned kMaxLogSize = 28;
};

// The low `bits` bits of x reversed (bits ≤ 32; 0 bits gives 0).
CUZK_HD uint32_t reverse_low_bits(uint32_t x, unsigned bits) {
  if (bits == 0) return 0;
#if defined(__CUDA_ARCH__)
  return __brev(x) >> (32 - bits);
#else
  uint32_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r = (r << 1) | ((x >> i) & 1);
  return r;
#endif
}

// The in-place bit-reversal permutation by tiles (bit_reverse_tiles_kernel). With b = kLogSide,
// an index of L ≥ 2b bits is (row, middle, column): its top b bits, the L − 2b between, its low
// b bits; reversed, it is (rev_b(column), rev(middle), rev_b(row)). So the 2^2b elements of
// middle m (2^b runs of 2^b adjacent elements) trade places with those of middle rev(m) as a
// transposition: one block reads both tiles in runs and writes each where the other was read,
// instead of a thread per pair touching two scattered elements.
struct ReversalTiles {
  static constexpr unsigned kLogSide = 4;  // runs of 16 elements: 512 bytes of 32-byte elements
  static constexpr uint32_t kSide = uint32_t(1) << kLogSide;
  static constexpr uint32_t kElements = kSide * kSide;  // per tile, one per thread
  unsigned log_n;

  CUZK_HD static bool applies(unsigned log_n) { return log_n >= 2 * kLogSide; }
  CUZK_HD uint32_t tiles() const { return uint32_t(1) << (log_n - 2 * kLogSide); }
  CUZK_HD uint32_t partner(uint32_t middle) const {
    return reverse_low_bits(middle, log_n - 2 * kLogSide);
  }
  CUZK_HD uint32_t position(uint32_t middle, uint32_t row, uint32_t column) const {
    return (row << (log_n - kLogSide)) | (middle << kLogSide) | column;
  }
  // Where (row, column) of a tile lies among the 16-byte words of a plane of shared memory. A
  // quarter warp loads 8 adjacent columns of one row, and in the transposed reads 8 rows
  // rev_b(c) of one column, c = 0..7 (the even rows) or 8..15 (the odd ones); XORing the column
  // with row/2 puts both sets on 8 words that differ modulo 8, one pass of the banks.
  CUZK_HD static uint32_t word(uint32_t row, uint32_t column) {
    return row * kSide + (column ^ (row >> 1));
  }
};

// Where element e of a tile lives: its row (0 .. R−1), its lane (column of the tile), its slot
// in shared memory (row·T + lane) and its position in the vector.
struct TileElement {
  uint32_t row, lane, slot, position;
  uint32_t column;  // the column (0 .. C−1) inside its sub-block, for the twiddle
};

// One pass: K stages on sub-blocks of M = 2^(K + log_columns) elements of a 2^log_n vector.
// A thread block (a "tile") takes T = 2^log_lanes consecutive (sub-block, column) lanes, that
// is T columns of one sub-block when T ≤ C, or whole sub-blocks when C = 1.
struct PassShape {
  unsigned log_n = 0;
  unsigned stages = 0;       // K
  unsigned log_columns = 0;  // log2 C
  unsigned log_lanes = 0;    // log2 T

  CUZK_HD uint32_t tiles() const { return uint32_t(1) << (log_n - stages - log_lanes); }
  CUZK_HD uint32_t tile_elements() const { return uint32_t(1) << (stages + log_lanes); }
  CUZK_HD uint32_t butterflies_per_stage() const { return tile_elements() / 2; }

  // log2 of the columns a tile spans (T when T ≤ C, else C): the low bits of an element index.
  CUZK_HD unsigned log_tile_columns() const {
    return log_lanes < log_columns ? log_lanes : log_columns;
  }

  // The element in slot s (row·T + lane) of tile t.
  CUZK_HD TileElement element_at_slot(uint32_t tile, uint32_t s) const {
    const unsigned log_tile_columns = this->log_tile_columns();
    const uint32_t lane = s & ((uint32_t(1) << log_lanes) - 1);
    const uint32_t column_in_tile = lane & ((uint32_t(1) << log_tile_columns) - 1);
    const uint32_t block_in_tile = lane >> log_tile_columns;
    const uint32_t first_lane = tile << log_lanes;
    const uint32_t block = (first_lane >> log_columns) + block_in_tile;
    const uint32_t column = (first_lane & ((uint32_t(1) << log_columns) - 1)) + column_in_tile;
    TileElement r;
    r.row = s >> log_lanes;
    r.lane = lane;
    r.slot = s;
    r.position = (block << (stages + log_columns)) | (r.row << log_columns) | column;
    r.column = column;
    return r;
  }

  // Element e of tile t, enumerated in increasing position within each contiguous run (column
  // fastest, then row, then sub-block) so that consecutive threads touch consecutive addresses.
  CUZK_HD TileElement element(uint32_t tile, uint32_t e) const {
    const unsigned log_tile_columns = this->log_tile_columns();
    const uint32_t column_in_tile = e & ((uint32_t(1) << log_tile_columns) - 1);
    const uint32_t row = (e >> log_tile_columns) & ((uint32_t(1) << stages) - 1);
    const uint32_t block_in_tile = e >> (log_tile_columns + stages);
    return element_at_slot(
        tile, (row << log_lanes) | (block_in_tile << log_tile_columns) | column_in_tile);
  }

  // The exponent of ω (the domain's root, order 2^log_n) of the pass twiddle at this element:
  // ω_M^(col·rev_K(row)) with ω_M = ω^(2^(log_n − log M)). Zero in the last pass (C = 1).
  CUZK_HD uint32_t twiddle_exponent(const TileElement& t) const {
    return (t.column * reverse_low_bits(t.row, stages)) << (log_n - stages - log_columns);
  }
};

// How the butterflies of a stage are dealt out to the threads of a block (256 threads, 8 warps
// of 32): thread (warp, lane) runs, in iteration it, butterfly b = it·256 + warp·32 + lane, and
// b's bits are placed among the slot bits other than the stage's pair bit (the slot bit
// log_lanes + log_half, which tells its two rows apart).
//
// Warp-local phases. A warp's three bits go to three slot bits that several consecutive stages
// leave alone, so that across those stages a warp only reads the slots it wrote itself: between
// them a warp barrier is enough, and a block barrier is needed only where the warp bits move
// (`new_phase`). With t the stage's row bit (half-width 2^t) and w the warp bits (3 for tiles
// of 2^9 and 2^10 elements):
//   - t ≥ w:            the warp bits are rows 0..w−1;
//   - t = 2 (w = 3):    rows 0 and 1 and the tile's top slot bit;
//   - t < min(w, 2):    the top w slot bits.
// A pass of 9 or 10 stages (every pass from 2^10 on) thus runs in three phases with two block
// barriers, instead of a barrier before every stage.
//
// Twiddle ones. The butterflies with j = 0 (row bits below t all clear) have twiddle 1 and skip
// their product, but a warp skips it only when all its threads do. They fill whole warps where
// the rows below t are warp bits, or warp bits and the iteration bit: so the iteration bit goes
// to row w at t = w + 1 and to row 0 at t = 1, elsewhere to the highest free slot bit. A 9-stage
// pass then issues 3.53 products per element (1808 of a column's 2304 butterflies), the stages of
// half-width 1, 2, 4, 8, 16 skipping all, 1/2, 1/4, 1/8, 1/16 of theirs.
//
// The lanes take the remaining slot bits from the lowest up, so that in the load and store
// phases 32 threads touch runs of adjacent columns (or, in the last pass, of adjacent rows
// spread by the warp bits).
inline constexpr unsigned kLogWarpThreads = 5;
inline constexpr unsigned kLogBlockWarps = 3;

// The placement of a stage's butterflies. lo_slot() builds the lower slot of a thread's first
// butterfly from its lane and warp in three insertions of zeros: for the iteration bit (at
// it_index of the lane bits), for the pair bit (at pair_index, counting the slot bits that are
// not warp bits) and for the warp bits (gap_bits at slot bit gap_at), which then fill that gap;
// a warp bit beyond the gap goes to the top slot bit. The second butterfly's slot has the
// iteration bit set as well (iteration_step), the upper slots the pair bit (pair_step).
struct StagePlacement {
  unsigned log_half;   // t
  unsigned log_lanes;  // the slot's lane bits: row = slot >> log_lanes
  unsigned pair_bit;
  uint32_t pair_step;       // 2^pair_bit: hi = lo + pair_step
  uint32_t iteration_step;  // the second butterfly's lo = the first's + iteration_step
  unsigned iterations;      // butterflies per thread: 1 or 2
  unsigned it_index, pair_index, gap_at, gap_bits, top_bit;
  bool new_phase;  // a block barrier before this stage (else a warp barrier)
  uint32_t j_mask;
  unsigned twiddle_shift;
};

// The stages of a pass, in execution order: DIF from the widest half-width down, DIT up.
CUZK_HD unsigned stage_log_half(bool dif, unsigned stages, unsigned i) {
  return dif ? stages - 1 - i : i;
}

// Which warp-local phase a stage of row bit t belongs to (2, 1, 0: the three cases above).
inline unsigned warp_phase(unsigned warp_bits, unsigned t) {
  if (warp_bits == 0 || t >= warp_bits) return 2;
  return warp_bits == 3 && t == 2 ? 1 : 0;
}

// Host code: the pass's arguments carry the placement of each of its stages (pass.hpp,
// PassArgs::placement), so that the kernel only reads them.
inline StagePlacement stage_placement(const PassShape& shape, bool dif, unsigned i,
                                      unsigned table_log) {
  const unsigned bits = shape.stages + shape.log_lanes;  // slot bits of the tile
  const unsigned b_bits = bits - 1;
  const unsigned lane_bits = b_bits < kLogWarpThreads ? b_bits : kLogWarpThreads;
  const unsigned rest = b_bits - lane_bits;
  const unsigned warp_bits = rest < kLogBlockWarps ? rest : kLogBlockWarps;
  const unsigned t = stage_log_half(dif, shape.stages, i);
  const unsigned phase = warp_phase(warp_bits, t);
  StagePlacement m;
  m.log_half = t;
  m.log_lanes = shape.log_lanes;
  m.pair_bit = shape.log_lanes + t;
  m.iterations = 1u << (rest - warp_bits);
  m.top_bit = bits - 1;
  if (phase == 2) {  // rows 0 .. w−1
    m.gap_at = shape.log_lanes;
    m.gap_bits = warp_bits;
  } else if (phase == 1) {  // rows 0, 1 and the top slot bit
    m.gap_at = shape.log_lanes;
    m.gap_bits = 2;
  } else {  // the top w slot bits
    m.gap_at = bits - warp_bits;
    m.gap_bits = warp_bits;
  }
  const auto warp_bit = [&](unsigned s) {
    return (s >= m.gap_at && s < m.gap_at + m.gap_bits) || (phase == 1 && s == m.top_bit);
  };
  // The iteration bit: the one row below t that is not a warp bit, where there is exactly one;
  // else the highest free slot bit.
  unsigned iteration_bit = bits;
  if (m.iterations > 1) {
    unsigned needed = 0;
    for (unsigned r = 0; r < t; ++r) {
      if (!warp_bit(shape.log_lanes + r)) {
        iteration_bit = shape.log_lanes + r;
        ++needed;
      }
    }
    if (needed != 1) {
      iteration_bit = bits - 1;
      while (warp_bit(iteration_bit) || iteration_bit == m.pair_bit) --iteration_bit;
    }
  }
  m.pair_step = uint32_t(1) << m.pair_bit;
  m.iteration_step = m.iterations > 1 ? uint32_t(1) << iteration_bit : 0;
  m.it_index = 0;
  m.pair_index = 0;
  for (unsigned s = 0; s < bits; ++s) {
    if (warp_bit(s)) continue;
    if (s < m.pair_bit) ++m.pair_index;
    if (s != m.pair_bit && s < iteration_bit) ++m.it_index;
  }
  m.new_phase = i == 0 || warp_phase(warp_bits, stage_log_half(dif, shape.stages, i - 1)) != phase;
  m.j_mask = (uint32_t(1) << t) - 1;
  m.twiddle_shift = table_log - 1 - t;
  return m;
}

// x with `count` zero bits inserted at bit `at`: the bits from `at` up move up by `count`.
CUZK_HD uint32_t insert_zeros(uint32_t x, unsigned at, unsigned count) {
  const uint32_t below = (uint32_t(1) << at) - 1;
  return ((x & ~below) << count) | (x & below);
}

// The lower slot of the first butterfly of thread (warp, lane) in the stage.
CUZK_HD uint32_t lo_slot(const StagePlacement& m, uint32_t warp, uint32_t lane) {
  const uint32_t placed = insert_zeros(
      insert_zeros(insert_zeros(lane, m.it_index, 1), m.pair_index, 1), m.gap_at, m.gap_bits);
  const uint32_t gap_mask = (uint32_t(1) << m.gap_bits) - 1;
  return placed | ((warp & gap_mask) << m.gap_at) | ((warp >> m.gap_bits) << m.top_bit);
}

// The twiddle index of the butterfly whose lower row is lo_row: ψ^(j·2^(table_log−1−log_half)),
// j the row's offset in its group, in the column transform's table of ψ^i for i <
// 2^(table_log − 1), ψ a primitive 2^table_log-th root (index 0: twiddle 1).
CUZK_HD uint32_t twiddle_index(const StagePlacement& m, uint32_t lo_row) {
  return (lo_row & m.j_mask) << m.twiddle_shift;
}

// Where slot s (row·2^log_lanes + lane) of a tile lies among the 16-byte words of a plane of
// shared memory (pass.hpp, TileMemory). A quarter warp's 16-byte accesses take one pass of the
// banks when their words differ modulo 8 (8 × 16 bytes span the 32 banks). The 8 threads of a
// quarter warp differ in the three lowest lane bits of StagePlacement, which land on slot bits
// that depend on the stage (rows 3, 4, 6 where the warp bits are rows 0..2 and the pair bit is
// row 5, say). So the word's low 3 bits are the slot's XORed with higher slot bits folded onto
// them, chosen per lane count so that those three slot bits always give 8 different words: in
// tiles of 2^10 elements, every stage of every pass (a host test checks it). A linear fold keeps
// the upper slot's word the lower's XOR a constant. A few shifts and logic operations per slot,
// with the shifts and the mask worked out once per pass.
struct SlotSpread {
  uint32_t mask = 0;
  unsigned shift[5] = {31, 31, 31, 31, 31};

  CUZK_HD static SlotSpread of(unsigned log_lanes) {
    SlotSpread r;
    if (log_lanes == 0) {  // bit 3 onto 0, 4 onto 0-1, 5 onto 0-2, 6 onto 1-2, 7 onto 2
      r.mask = 7;
      r.shift[0] = 3;
      r.shift[1] = 4;
      r.shift[2] = 5;
    } else if (log_lanes == 1) {  // bits 3-4, 5-6, 7-8 onto 1-2
      r.mask = 6;
      r.shift[0] = 2;
      r.shift[1] = 4;
      r.shift[2] = 6;
    } else if (log_lanes == 2) {  // bits 3..7 onto 2
      r.mask = 4;
      for (unsigned i = 0; i < 5; ++i) r.shift[i] = i + 1;
    }
    return r;
  }
  CUZK_HD uint32_t operator()(uint32_t s) const {
    const uint32_t fold =
        (s >> shift[0]) ^ (s >> shift[1]) ^ (s >> shift[2]) ^ (s >> shift[3]) ^ (s >> shift[4]);
    return s ^ (fold & mask);
  }
};

// The stage counts of the passes of a 2^log_n transform, first pass (top bits) first: as few
// passes as kMaxPassStages allows, balanced (2^27: 9, 9, 9; 2^28: 10, 9, 9; 2^20: 10, 10).
inline std::vector<unsigned> pass_stages(unsigned log_n) {
  const unsigned passes =
      log_n == 0 ? 1 : (log_n + Tuning::kMaxPassStages - 1) / Tuning::kMaxPassStages;
  std::vector<unsigned> stages(passes, log_n / passes);
  for (unsigned i = 0; i < log_n % passes; ++i) ++stages[i];
  return stages;
}

// The shapes of the passes in DIF order (the DIT runs them backwards).
inline std::vector<PassShape> pass_shapes(unsigned log_n) {
  std::vector<PassShape> shapes;
  unsigned remaining = log_n;
  for (unsigned k : pass_stages(log_n)) {
    PassShape s;
    s.log_n = log_n;
    s.stages = k;
    s.log_columns = remaining - k;
    const unsigned log_lanes_max = Tuning::kLogTileElements > k ? Tuning::kLogTileElements - k : 0;
    s.log_lanes = log_lanes_max < log_n - k ? log_lanes_max : log_n - k;
    shapes.push_back(s);
    remaining -= k;
  }
  return shapes;
}

// Log2 of the columns transform's twiddle table: the largest pass.
inline unsigned column_table_log(unsigned log_n) {
  return log_n < Tuning::kMaxPassStages ? log_n : Tuning::kMaxPassStages;
}

// The two-level power tables of the domain: c·b^e = lo[e mod 2^lo_bits] · hi[e >> lo_bits] for
// e < 2^log_n, with lo[k] = c·b^k and hi[k] = b^(k·2^lo_bits). 2·√n entries instead of n.
inline unsigned power_table_lo_bits(unsigned log_n) { return (log_n + 1) / 2; }

// Which precomputed per-element factor a step multiplies by.
enum class PowerTable : uint8_t {
  kNone,
  kCosetForward,      // g^i: before a coset forward transform
  kCosetInverse,      // n⁻¹·g^(−i): after a coset inverse transform
  kInverseThenCoset,  // n⁻¹·g^i: between an inverse and a coset forward transform (H evaluation)
};

// A per-element factor: table[index]·constant, where index is the element's position
// (natural) or its bit reversal; either part may be absent.
template <class Fr>
struct ScaleSpec {
  PowerTable table = PowerTable::kNone;
  bool bit_reversed_index = false;
  bool has_constant = false;
  Fr constant{};
  bool active() const { return table != PowerTable::kNone || has_constant; }
};

template <class Fr>
struct Step {
  enum Kind : uint8_t { kDifPass, kDitPass, kBitReverse };
  Kind kind = kDifPass;
  bool inverse_root = false;  // ω⁻¹ instead of ω
  PassShape shape{};
  ScaleSpec<Fr> pre{}, post{};  // applied when the pass loads / stores an element
};

// The steps of one transform. `pre` and `post` are the factors the caller wants applied to
// the input (indexed by input order) and to the output (indexed by output order); they ride on
// the first and last pass. Natural → bit-reversed is a DIF, bit-reversed → natural a DIT, and
// the two same-order cases add an in-place bit-reversal permutation (after the DIF, or before
// it).
template <class Fr>
std::vector<Step<Fr>> transform_steps(unsigned log_n, bool inverse_root, Order in, Order out,
                                      ScaleSpec<Fr> pre, ScaleSpec<Fr> post) {
  std::vector<Step<Fr>> steps;
  const std::vector<PassShape> shapes = pass_shapes(log_n);
  Step<Fr> permute;
  permute.kind = Step<Fr>::kBitReverse;
  permute.shape.log_n = log_n;
  const bool dit = in == Order::kBitReversed && out == Order::kNatural;
  if (in == Order::kBitReversed && out == Order::kBitReversed) steps.push_back(permute);
  const size_t first = steps.size();
  for (size_t i = 0; i < shapes.size(); ++i) {
    Step<Fr> pass;
    pass.kind = dit ? Step<Fr>::kDitPass : Step<Fr>::kDifPass;
    pass.inverse_root = inverse_root;
    pass.shape = shapes[dit ? shapes.size() - 1 - i : i];
    steps.push_back(pass);
  }
  // A DIF reads natural and writes bit-reversed order; a DIT the other way round.
  pre.bit_reversed_index = dit;
  post.bit_reversed_index = !dit;
  steps[first].pre = pre;
  steps.back().post = post;
  if (in == Order::kNatural && out == Order::kNatural) steps.push_back(permute);
  return steps;
}

// Standard form → Montgomery form: x·R²·R⁻¹ = x·R, one product by the constant R².
template <class Fr>
ScaleSpec<Fr> input_conversion(bool inputs_montgomery) {
  ScaleSpec<Fr> s;
  if (!inputs_montgomery) {
    s.has_constant = true;
    s.constant = Fr::from_montgomery(Fr::kR2);
  }
  return s;
}

// The schedules of the operations of DeviceDomain (ntt.hpp), shared with the host emulation.
// Forward: the coset factor g^i and the input conversion on the way in.
template <class Fr>
std::vector<Step<Fr>> forward_steps(unsigned log_n, Order in, Order out, bool coset,
                                    bool inputs_montgomery) {
  ScaleSpec<Fr> pre = input_conversion<Fr>(inputs_montgomery);
  if (coset) pre.table = PowerTable::kCosetForward;
  return transform_steps<Fr>(log_n, false, in, out, pre, ScaleSpec<Fr>{});
}

// Inverse: n⁻¹ (or the coset table n⁻¹·g^(−i)) on the way out.
template <class Fr>
std::vector<Step<Fr>> inverse_steps(unsigned log_n, Order in, Order out, bool coset,
                                    bool inputs_montgomery, const Fr& size_inv) {
  ScaleSpec<Fr> post;
  if (coset) {
    post.table = PowerTable::kCosetInverse;
  } else {
    post.has_constant = true;
    post.constant = size_inv;
  }
  return transform_steps<Fr>(log_n, true, in, out, input_conversion<Fr>(inputs_montgomery), post);
}

// Values on H (natural) → values on the coset (natural), the first step of both H evaluations:
// an inverse transform natural → bit-reversed (DIF) and a coset forward transform
// bit-reversed → natural (DIT), no permutation in between. The inverse's n⁻¹ and the coset's
// g^i multiply the same element between the two, so they are one table, n⁻¹·g^i, applied as
// the DIT's first pass loads: 2M per element instead of 3M.
template <class Fr>
std::vector<Step<Fr>> values_to_coset_steps(unsigned log_n) {
  std::vector<Step<Fr>> steps =
      transform_steps<Fr>(log_n, true, Order::kNatural, Order::kBitReversed, {}, {});
  ScaleSpec<Fr> shift;
  shift.table = PowerTable::kInverseThenCoset;
  const std::vector<Step<Fr>> coset =
      transform_steps<Fr>(log_n, false, Order::kBitReversed, Order::kNatural, shift, {});
  steps.insert(steps.end(), coset.begin(), coset.end());
  return steps;
}

}  // namespace cuzk::gpu::ntt
