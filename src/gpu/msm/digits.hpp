#pragma once
// Signed digits and sort keys of the GPU MSM, as CUZK_HD functions on raw 64-bit limbs, so that
// the very code the kernels run is unit-tested on the host against msm/signed_digits.hpp.
//
// The recoding is the CPU layer's (msm/signed_digits.hpp): window w of width c reads the c + 1
// bits [cw − 1, cw + c) of k and gives d_w in [−2^(c−1), 2^(c−1)]. Here the limbs are read
// through a pointer (on the device: straight from global memory) instead of a BigInt value, so
// that a run-time window index never indexes a register array.
//
// Sort keys. One sort orders the (scalar, window) pairs of several windows at once (a "pass"
// of G windows). The key of a non-zero digit d in window w_local (0 ≤ w_local < G) is
//   key = w_local·2^c + |d|                 (|d| in [1, 2^(c−1)], so c bits hold it)
// and a zero digit gets the sentinel G·2^c, larger than every real key: after the sort the
// zeros form the tail and are never read. The value beside the key is the base index with the
// sign of d in bit 31 (a negative digit adds the negated base: the bucket of |d| serves ±d).
//
// Shifted bases (msm_shifted): window w reads its base from a table holding 2^(c·w)·P_i at
// w·stride + i, so the digit d_w of k_i contributes d_w·(2^(c·w)·P_i) and every window adds
// into one shared set of 2^(c−1) buckets. The key is then |d| alone (sentinel 2^(c−1) + 1,
// c bits), the value's index points into the table, and a bucket holds entries of all windows.
// A partial table of R rows (fewer than the windows) serves the windows in groups of R: window
// w reads row w mod R and adds into bucket set ⌊w/R⌋, which then weighs 2^(c·R·⌊w/R⌋). A pass
// never spans two groups, so its keys are |d| alone as well.

#include <bit>
#include <cstdint>

#include "util/hd.hpp"

namespace cuzk::gpu::msm {

// Bit 31 of a sort value: the digit was negative.
inline constexpr uint32_t kNegativeFlag = uint32_t(1) << 31;
// Largest base index a sort value can carry.
inline constexpr uint32_t kMaxBaseIndex = kNegativeFlag - 1;
// A key that no bucket has: the filler of unused partial-sum slots (larger than any sentinel).
inline constexpr uint32_t kNoKey = 0xffffffffu;

// Bits [pos, pos + count) of the little-endian integer limbs[0..limb_count), count ≤ 63; bits
// past the top limb read as zero.
CUZK_HD constexpr uint64_t extract_bits(const uint64_t* limbs, unsigned limb_count, unsigned pos,
                                        unsigned count) {
  const unsigned limb = pos / 64, shift = pos % 64;
  if (limb >= limb_count) return 0;
  uint64_t v = limbs[limb] >> shift;
  if (shift + count > 64 && limb + 1 < limb_count) v |= limbs[limb + 1] << (64 - shift);
  return v & ((uint64_t(1) << count) - 1);
}

// The signed digit d_w of window w (width c, 1 ≤ c ≤ 30): see msm/signed_digits.hpp.
CUZK_HD constexpr int32_t signed_digit(const uint64_t* limbs, unsigned limb_count, unsigned c,
                                       unsigned w) {
  const uint64_t bits = w == 0 ? extract_bits(limbs, limb_count, 0, c) << 1
                               : extract_bits(limbs, limb_count, c * w - 1, c + 1);
  const int32_t raw = int32_t(bits >> 1);
  const int32_t carry_in = int32_t(bits & 1);
  const int32_t top = raw >> (c - 1);
  return raw + carry_in - (top << c);
}

// Keys of one pass of `windows_in_pass` windows of width c.
struct KeyLayout {
  unsigned c;
  unsigned windows_in_pass;
  // Shifted bases: the table's row stride (the number of points, below 2^31); 0 for plain
  // bases, one bucket set per window. (32 bits keep the layout at 16 bytes: the accumulation
  // kernels carry it.)
  uint32_t shifted_stride = 0;
  // Shifted bases: the window that row 0 stands for in this pass, the first of its group of
  // rows in a partial table (0 for a table with a row for every window).
  unsigned row_base = 0;

  CUZK_HD constexpr bool shifted() const { return shifted_stride != 0; }
  CUZK_HD constexpr uint32_t sentinel() const {
    return shifted() ? (uint32_t(1) << (c - 1)) + 1 : uint32_t(windows_in_pass) << c;
  }
  // Radix sort bits [0, end_bit) cover every key, the sentinel included.
  constexpr int end_bit() const { return int(std::bit_width(sentinel())); }
  CUZK_HD constexpr uint32_t key(int32_t digit, unsigned w_local) const {
    if (digit == 0) return sentinel();
    const uint32_t magnitude = uint32_t(digit < 0 ? -digit : digit);
    return shifted() ? magnitude : (uint32_t(w_local) << c) | magnitude;
  }
  // Where the base of point `index` in window first_window + w_local lies.
  CUZK_HD constexpr uint32_t base_index(uint32_t index, unsigned first_window,
                                        unsigned w_local) const {
    if (!shifted()) return index;
    return uint32_t(size_t(first_window + w_local - row_base) * shifted_stride + index);
  }
  CUZK_HD static constexpr uint32_t value(uint32_t base_index, int32_t digit) {
    return base_index | (digit < 0 ? kNegativeFlag : 0u);
  }
  // The bucket of a (non-sentinel) key in a bucket array of sets of 2^(c−1) buckets, bucket j
  // of a set holding the bases of digit ±(j + 1), the pass's first window adding into set
  // first_set: with plain bases a set per window (key >> c counts windows from the pass's
  // first), with shifted bases one set for the whole pass.
  CUZK_HD constexpr uint64_t bucket(uint32_t key, unsigned first_set) const {
    const uint64_t magnitude = key & ((uint32_t(1) << c) - 1);
    if (shifted()) return (uint64_t(first_set) << (c - 1)) + magnitude - 1;
    const uint64_t window = first_set + (key >> c);
    return (window << (c - 1)) + magnitude - 1;
  }
};

}  // namespace cuzk::gpu::msm
