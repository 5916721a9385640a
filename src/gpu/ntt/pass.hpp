#pragma once
// The work of one NTT pass on one element or one butterfly, as CUZK_HD functions: the kernel
// (kernels.cuh) calls them from its threads with shared memory between the phases, and the
// host emulation in the tests calls the very same functions in loops, so both run one source.
//
// A pass over a tile: load every element (times the `pre` factor; a DIT pass also applies its
// twiddle here) and run the first stage on it in registers, stages 2 .. K−1 in shared memory,
// run the last stage in registers and store every element (a DIF pass applies its twiddle
// here; then the `post` factor). Passes of 0 and 1 stage (transforms of 1 and 2 elements) load
// and store single elements where no stage rides on the phase.
//
// Pointers are device pointers in the kernel and host pointers in the emulation; the caller
// guarantees 16-byte alignment of the vector (elements are then read as two 16-byte words).

#include <cstdint>
#include <cstring>

#include "gpu/ntt/plan.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::ntt {

// c·b^e = lo[e mod 2^lo_bits] · hi[e >> lo_bits]: two lookups and one product.
template <class Fr>
struct PowerTablePair {
  const Fr* lo = nullptr;
  const Fr* hi = nullptr;
  unsigned lo_bits = 0;
};

// A resolved ScaleSpec: pointers instead of a table name.
template <class Fr>
struct ScaleArgs {
  PowerTablePair<Fr> table;  // lo == nullptr: no table factor
  bool bit_reversed_index = false;
  bool has_constant = false;
  Fr constant;
};

template <class Fr>
struct PassArgs {
  Fr* data;
  PassShape shape;
  const Fr* column_twiddles;  // ψ^i, i < 2^(column_table_log − 1)
  unsigned column_table_log;
  PowerTablePair<Fr> twiddles;  // powers of the root (ω or ω⁻¹), for the pass twiddle
  // When the pass's sub-blocks fit the fine table (tables.hpp): its powers of ω^(2^fine_shift)
  // (ω⁻¹ likewise), so that the twiddle of exponent e is one lookup, fine[e >> fine_shift],
  // instead of a product of two; nullptr otherwise.
  const Fr* fine_twiddles = nullptr;
  unsigned fine_shift = 0;
  // Where the fine table does not reach (the first pass above 2^19) and the domain has its full
  // table (TwiddleTables::kFull, tables.hpp): ω^j for j < n/2, read for ω^e as half[e mod n/2],
  // negated when e ≥ n/2 (ω^(n/2) = −1), and for ω^(−e) at n − e. nullptr otherwise.
  const Fr* half_twiddles = nullptr;
  bool inverse_root = false;  // the pass multiplies by powers of ω⁻¹
  ScaleArgs<Fr> pre, post;
  StagePlacement placement[Tuning::kMaxPassStages];  // of stage i in execution order
};

// 32-byte elements as two 16-byte accesses on the device (ld.global.v4 / ld.shared.v4),
// instead of the four 8-byte ones the element's uint64_t[4] alignment would give.
template <class Fr>
CUZK_HD Fr load_element(const Fr* p) {
#if defined(__CUDA_ARCH__)
  static_assert(sizeof(Fr) % 16 == 0);
  Fr r;
  const uint4* src = reinterpret_cast<const uint4*>(p);
  uint4* dst = reinterpret_cast<uint4*>(&r);
#pragma unroll
  for (unsigned i = 0; i < sizeof(Fr) / 16; ++i) dst[i] = src[i];
  return r;
#else
  return *p;
#endif
}
template <class Fr>
CUZK_HD void store_element(Fr* p, const Fr& v) {
#if defined(__CUDA_ARCH__)
  const uint4* src = reinterpret_cast<const uint4*>(&v);
  uint4* dst = reinterpret_cast<uint4*>(p);
#pragma unroll
  for (unsigned i = 0; i < sizeof(Fr) / 16; ++i) dst[i] = src[i];
#else
  *p = v;
#endif
}

// A tile of `slots` elements in shared memory, stored as sizeof(Fr)/16 planes of 16-byte
// words: part k of slot s is word spread(s) of plane k (plan.hpp, SlotSpread). The hardware
// serves a warp's 16-byte accesses a quarter warp (8 threads) at a time: in a plane, 8 words
// that differ modulo 8 take every bank once, where whole 32-byte elements side by side would
// put the 8 accesses 32 bytes apart and on each bank twice.
template <class Fr>
struct TileMemory {
  static_assert(sizeof(Fr) % 16 == 0);
  static constexpr unsigned kParts = sizeof(Fr) / 16;
  void* base;
  uint32_t slots;
  SlotSpread spread;

  CUZK_HD Fr load(uint32_t slot) const {
    const uint32_t s = spread(slot);
    Fr r;
#if defined(__CUDA_ARCH__)
    const uint4* planes = static_cast<const uint4*>(base);
    uint4* dst = reinterpret_cast<uint4*>(&r);
#pragma unroll
    for (unsigned k = 0; k < kParts; ++k) dst[k] = planes[k * slots + s];
#else
    const auto* planes = static_cast<const unsigned char*>(base);
    for (unsigned k = 0; k < kParts; ++k) {
      std::memcpy(reinterpret_cast<unsigned char*>(&r) + 16 * k,
                  planes + 16 * (size_t(k) * slots + s), 16);
    }
#endif
    return r;
  }

  CUZK_HD void store(uint32_t slot, const Fr& v) const {
    const uint32_t s = spread(slot);
#if defined(__CUDA_ARCH__)
    uint4* planes = static_cast<uint4*>(base);
    const uint4* src = reinterpret_cast<const uint4*>(&v);
#pragma unroll
    for (unsigned k = 0; k < kParts; ++k) planes[k * slots + s] = src[k];
#else
    auto* planes = static_cast<unsigned char*>(base);
    for (unsigned k = 0; k < kParts; ++k) {
      std::memcpy(planes + 16 * (size_t(k) * slots + s),
                  reinterpret_cast<const unsigned char*>(&v) + 16 * k, 16);
    }
#endif
  }
};

template <class Fr>
CUZK_HD Fr table_power(const PowerTablePair<Fr>& t, uint32_t e) {
  const uint32_t mask = (uint32_t(1) << t.lo_bits) - 1;
  return load_element(t.lo + (e & mask)) * load_element(t.hi + (e >> t.lo_bits));
}

template <class Fr>
CUZK_HD Fr apply_scale(const ScaleArgs<Fr>& s, Fr v, uint32_t position, unsigned log_n) {
  if (s.table.lo != nullptr) {
    const uint32_t index = s.bit_reversed_index ? reverse_low_bits(position, log_n) : position;
    v = v * table_power(s.table, index);
  }
  if (s.has_constant) v = v * s.constant;
  return v;
}

// Where ω^e (ω⁻¹ when `inverse`) lies in a full table of 2^(log_n − 1) powers, and whether it
// is the negation of that entry; e in (0, 2^log_n).
struct HalfTableEntry {
  uint32_t index;
  bool negated;
};
CUZK_HD HalfTableEntry half_table_entry(unsigned log_n, uint32_t e, bool inverse) {
  const uint32_t half = uint32_t(1) << (log_n - 1);
  if (inverse) e = (half << 1) - e;  // ω^(−e) = ω^(n − e)
  return {e & (half - 1), (e & half) != 0};
}

// Multiplies by the pass twiddle; exponent 0 (row 0, column 0, the whole last pass) is 1.
template <class Fr>
CUZK_HD Fr apply_twiddle(const PassArgs<Fr>& a, Fr v, const TileElement& t) {
  const uint32_t e = a.shape.twiddle_exponent(t);
  if (e == 0) return v;
  if (a.fine_twiddles != nullptr) return v * load_element(a.fine_twiddles + (e >> a.fine_shift));
  if (a.half_twiddles != nullptr) {
    const HalfTableEntry h = half_table_entry(a.shape.log_n, e, a.inverse_root);
    const Fr w = load_element(a.half_twiddles + h.index);
    return h.negated ? -(v * w) : v * w;
  }
  return v * table_power(a.twiddles, e);
}

// An element as the stages take it: read from the vector, times the `pre` factor, and in a DIT
// pass times its twiddle.
template <class Fr, bool kDif>
CUZK_HD Fr loaded_value(const PassArgs<Fr>& a, const TileElement& t) {
  Fr v = load_element(a.data + t.position);
  v = apply_scale(a.pre, v, t.position, a.shape.log_n);
  if constexpr (!kDif) v = apply_twiddle(a, v, t);
  return v;
}

// An element as the stages leave it, written back: in a DIF pass times its twiddle, then times
// the `post` factor.
template <class Fr, bool kDif>
CUZK_HD void store_value(const PassArgs<Fr>& a, const TileElement& t, Fr v) {
  if constexpr (kDif) v = apply_twiddle(a, v, t);
  v = apply_scale(a.post, v, t.position, a.shape.log_n);
  store_element(a.data + t.position, v);
}

// One butterfly on u (the lower row) and v (Gentleman–Sande for the DIF, Cooley–Tukey for the
// DIT; see src/ntt/radix2.hpp), handing each result to put_lo / put_hi as soon as it is ready.
// Twiddle index 0 is 1 and skips the product. The DIF hands over the sum before the product, so
// that u and v need no registers during it.
template <class Fr, bool kDif, class PutLo, class PutHi>
CUZK_HD void butterfly_values(const PassArgs<Fr>& a, const Fr& u, Fr v, uint32_t twiddle_index,
                              PutLo&& put_lo, PutHi&& put_hi) {
  if constexpr (kDif) {
    Fr d = u - v;
    put_lo(u + v);
    if (twiddle_index != 0) d = d * load_element(a.column_twiddles + twiddle_index);
    put_hi(d);
  } else {
    if (twiddle_index != 0) v = v * load_element(a.column_twiddles + twiddle_index);
    put_lo(u + v);
    put_hi(u - v);
  }
}

// Load phase of a pass without stages (one element): global element → shared slot.
template <class Fr, bool kDif>
CUZK_HD void pass_load(const PassArgs<Fr>& a, const TileMemory<Fr>& shared, uint32_t tile,
                       uint32_t e) {
  const TileElement t = a.shape.element(tile, e);
  shared.store(t.slot, loaded_value<Fr, kDif>(a, t));
}

// Keeps the compiler from carrying a value written to shared memory over to a later read of
// the same slot, so that the value waits there instead of in registers (no instruction; a
// no-op on the host).
CUZK_HD void reread_shared() {
#if defined(__CUDA_ARCH__)
  asm volatile("" ::: "memory");
#endif
}

// The two elements of a butterfly of the stage in the load or store phase.
struct PairElements {
  TileElement lo, hi;
};
CUZK_HD PairElements pair_elements(const PassShape& shape, const StagePlacement& m, uint32_t tile,
                                   uint32_t lo_slot) {
  return {shape.element_at_slot(tile, lo_slot), shape.element_at_slot(tile, lo_slot + m.pair_step)};
}

// Load phase with the pass's first stage: the butterfly's two elements (lo_slot, StagePlacement)
// loaded, its butterfly, both to their shared slots. A DIT multiplies each element by its pass
// twiddle as it loads it (two products with the two-level table), so its lower element waits
// in its slot meanwhile: in registers, BLS12-381 Fr's kernel would spill 20 bytes at 64
// registers. The DIF keeps both in registers: parking either of its phases measured slower on
// BLS12-381 (docs/experiments/ntt.md).
template <class Fr, bool kDif>
CUZK_HD void pass_load_pair(const PassArgs<Fr>& a, const TileMemory<Fr>& shared,
                            const StagePlacement& m, uint32_t tile, uint32_t lo_slot) {
  const PairElements pair = pair_elements(a.shape, m, tile, lo_slot);
  const auto put_lo = [&](const Fr& x) { shared.store(pair.lo.slot, x); };
  const auto put_hi = [&](const Fr& x) { shared.store(pair.hi.slot, x); };
  const uint32_t twiddle = twiddle_index(m, pair.lo.row);
  if constexpr (kDif) {
    butterfly_values<Fr, kDif>(a, loaded_value<Fr, kDif>(a, pair.lo),
                               loaded_value<Fr, kDif>(a, pair.hi), twiddle, put_lo, put_hi);
  } else {
    put_lo(loaded_value<Fr, kDif>(a, pair.lo));
    const Fr v = loaded_value<Fr, kDif>(a, pair.hi);
    reread_shared();
    butterfly_values<Fr, kDif>(a, shared.load(pair.lo.slot), v, twiddle, put_lo, put_hi);
  }
}

// A butterfly of a stage in shared memory, in place on its two slots.
// (Two butterflies a thread with their products interleaved were measured slower: 80 registers
// instead of 64, fewer blocks per SM.)
template <class Fr, bool kDif>
CUZK_HD void pass_butterfly(const PassArgs<Fr>& a, const TileMemory<Fr>& shared,
                            const StagePlacement& m, uint32_t lo_slot) {
  const uint32_t hi_slot = lo_slot + m.pair_step;
  butterfly_values<Fr, kDif>(
      a, shared.load(lo_slot), shared.load(hi_slot), twiddle_index(m, lo_slot >> m.log_lanes),
      [&](const Fr& x) { shared.store(lo_slot, x); },
      [&](const Fr& x) { shared.store(hi_slot, x); });
}

// Store phase of a pass with at most one stage (taken by the load phase): shared slot → global
// element.
template <class Fr, bool kDif>
CUZK_HD void pass_store(const PassArgs<Fr>& a, const TileMemory<Fr>& shared, uint32_t tile,
                        uint32_t e) {
  const TileElement t = a.shape.element(tile, e);
  store_value<Fr, kDif>(a, t, shared.load(t.slot));
}

// Store phase with the pass's last stage: the butterfly's two slots, its butterfly, both
// results to the vector.
template <class Fr, bool kDif>
CUZK_HD void pass_store_pair(const PassArgs<Fr>& a, const TileMemory<Fr>& shared,
                             const StagePlacement& m, uint32_t tile, uint32_t lo_slot) {
  const PairElements pair = pair_elements(a.shape, m, tile, lo_slot);
  butterfly_values<Fr, kDif>(
      a, shared.load(pair.lo.slot), shared.load(pair.hi.slot), twiddle_index(m, pair.lo.row),
      [&](const Fr& x) { store_value<Fr, kDif>(a, pair.lo, x); },
      [&](const Fr& x) { store_value<Fr, kDif>(a, pair.hi, x); });
}

// A whole pass of fewer than 2 stages (transforms of 1 and 2 elements) on one thread: the
// stage, if any, as its two elements load, then each element stored.
template <class Fr, bool kDif>
CUZK_HD void pass_on_one_thread(const PassArgs<Fr>& a, const TileMemory<Fr>& shared,
                                uint32_t tile) {
  if (a.shape.stages == 1) {
    pass_load_pair<Fr, kDif>(a, shared, a.placement[0], tile, 0);
  } else {
    pass_load<Fr, kDif>(a, shared, tile, 0);
  }
  for (uint32_t e = 0; e < a.shape.tile_elements(); ++e) pass_store<Fr, kDif>(a, shared, tile, e);
}

}  // namespace cuzk::gpu::ntt
