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
//
// Odd radices (shifted tables only). With one bucket set, the radix need not be a power of two:
// B = odd·2^c (odd > 1) gives balanced digits d_w in [−B/2, B/2] and B/2 buckets, row w holding
// B^w·P_i. Taking k − r for scalars above r/2 (negating every digit) halves what the digits
// must reach, so W windows serve while B^W ≥ r: for BLS12-381's r, 11 windows of B = 9·2^20
// (4.72 M buckets) where powers of two need c = 24 (8.39 M). The digits then come one after the
// other (RadixDigits): each divides the rest of the scalar by B.

#include <bit>
#include <cstddef>
#include <cstdint>

#include "util/host_device.hpp"

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

// Odd factors of a radix are below this bound, which keeps OddDivisor's quotients exact.
inline constexpr uint32_t kRadixOddBound = uint32_t(1) << 8;

// Division by a small odd number m (1 < m < kRadixOddBound) of numbers below m·2^16, by one
// high product: q = ⌊a·magic / 2^32⌋ with magic = ⌈2^32 / m⌉. Exact: magic·m − 2^32 < m, so
// the product overshoots a/m by less than a/2^32 < 1/m, while a/m falls at least 1/m short of
// the next integer, when a < 2^32/m, which a < m·2^16 and m < 2^8 ensure.
struct OddDivisor {
  uint32_t m = 1;
  uint32_t magic = 0;

  static constexpr OddDivisor of(uint32_t m) {
    if (m == 1) return {};
    return {m, uint32_t(((uint64_t(1) << 32) - 1) / m + 1)};
  }
  CUZK_HD uint32_t quotient(uint32_t a) const {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, magic);
#else
    return uint32_t((uint64_t(a) * magic) >> 32);
#endif
  }
};

// (high << 16) | (low >> 16) and (high << 16) | (low & 0xffff) for high below 2^16: one byte
// permutation each on the device.
CUZK_HD uint32_t join_high_halves(uint32_t high, uint32_t low) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(low, high, 0x5432);
#else
  return (high << 16) | (low >> 16);
#endif
}
CUZK_HD uint32_t join_low_halves(uint32_t high, uint32_t low) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(low, high, 0x5410);
#else
  return (high << 16) | (low & 0xffffu);
#endif
}

// The balanced digits of a scalar k < r in radix B = m·2^shift (an odd m with 1 < m <
// kRadixOddBound, B ≤ 2^30), least significant first, one per next(): d in [−B/2, B/2] with
// Σ d_w·B^w ≡ k (mod r). A scalar above r/2 is replaced by r − k and its digits negated, so that
// W digits suffice where B^W ≥ r (radix_window_count); the rest after them is then zero.
//
// The rest is kept in 32-bit words. Each digit shifts it right by `shift` bits and divides it
// by m from the top word down, 16 bits at a time (OddDivisor), the remainder and the bits
// shifted out making the digit; a digit above B/2 becomes d − B and carries one into the next
// (added to that digit rather than to the rest). next() divides every word; each() (the
// kernels') only those the rest can still fill.
template <unsigned kLimbs>
struct RadixDigits {
  static constexpr unsigned kWords = 2 * kLimbs;
  uint32_t k[kWords];
  bool negated;
  uint32_t carry = 0;
  unsigned shift;
  OddDivisor divisor;

  CUZK_HD RadixDigits(const uint64_t* limbs, const uint64_t* modulus, unsigned shift_bits,
                      OddDivisor odd)
      : shift(shift_bits), divisor(odd) {
    uint64_t rest[kLimbs];  // r − k
    uint64_t borrow = 0;
    for (unsigned i = 0; i < kLimbs; ++i) {
      const uint64_t a = modulus[i], b = limbs[i];
      rest[i] = a - b - borrow;
      borrow = (a < b || (a == b && borrow != 0)) ? 1 : 0;
    }
    // r − k < k, compared from the top limb.
    bool less = false, decided = false;
    for (unsigned i = kLimbs; i-- > 0;) {
      if (!decided && rest[i] != limbs[i]) {
        less = rest[i] < limbs[i];
        decided = true;
      }
    }
    negated = less;
    for (unsigned i = 0; i < kLimbs; ++i) {
      const uint64_t limb = negated ? rest[i] : limbs[i];
      k[2 * i] = uint32_t(limb);
      k[2 * i + 1] = uint32_t(limb >> 32);
    }
  }

  CUZK_HD int32_t next() { return step<kWords>(); }

  // Digits 0..count−1 into emit(w, d), for a scalar below 2^scalar_bits. Each digit takes at
  // least ⌊log2 B⌋ − 1 bits off the rest, so before digit w it has at most scalar_bits −
  // w·(⌊log2 B⌋ − 1) bits: a bound the same for every thread, from which the divisions run over
  // just the words the rest can still fill, in one straight-line loop per word count.
  template <class Emit>
  CUZK_HD void each(unsigned count, unsigned scalar_bits, Emit& emit) {
    unsigned bits_per_digit = shift - 1;
    for (uint32_t m = divisor.m; m > 1; m >>= 1) ++bits_per_digit;
    each_from<kWords>(0, count, scalar_bits, bits_per_digit, emit);
  }

 private:
  // The next digit, the rest shifted right by `shift` and divided by m over its low kActive words
  // (those above are zero, and the one at kActive becomes zero). One straight-line body per word
  // count: predicated words would issue all the same.
  template <unsigned kActive>
  CUZK_HD int32_t step() {
    const uint32_t low = k[0] & ((uint32_t(1) << shift) - 1);
    constexpr unsigned kShifted = kActive < kWords ? kActive + 1 : kWords;
    for (unsigned i = 0; i < kShifted; ++i) {
      const uint32_t above = i + 1 < kWords ? k[i + 1] : 0;
      k[i] = uint32_t(((uint64_t(above) << 32) | k[i]) >> shift);
    }
    // Remainders as q·(−m) + a: one multiply-add each (a − q·m costs a negation more).
    const uint32_t minus_m = 0u - divisor.m;
    uint32_t rem = 0;
    for (unsigned i = kActive; i-- > 0;) {
      const uint32_t high = join_high_halves(rem, k[i]);
      const uint32_t q_high = divisor.quotient(high);
      const uint32_t mid = join_low_halves(q_high * minus_m + high, k[i]);
      const uint32_t q_low = divisor.quotient(mid);
      rem = q_low * minus_m + mid;
      k[i] = join_low_halves(q_high, q_low);
    }
    const uint32_t radix = divisor.m << shift;
    const uint32_t d = low + (rem << shift) + carry;  // in [0, B]
    carry = d > radix / 2 ? 1 : 0;
    const int32_t signed_d = int32_t(d) - int32_t(carry != 0 ? radix : 0);
    return negated ? -signed_d : signed_d;
  }
  template <unsigned kActive, class Emit>
  CUZK_HD void each_from(unsigned w, unsigned count, unsigned scalar_bits,
                         unsigned bits_per_digit, Emit& emit) {
    for (; w < count; ++w) {
      const unsigned spent = w * bits_per_digit;
      const unsigned bits = scalar_bits > spent ? scalar_bits - spent : 1;
      const unsigned words = bits > shift ? (bits - shift + 31) / 32 : 1;
      if (words < kActive) break;
      emit(w, step<kActive>());
    }
    if constexpr (kActive > 1) each_from<kActive - 1>(w, count, scalar_bits, bits_per_digit, emit);
  }
};

// Windows of an odd radix B = odd·2^shift for scalars below `modulus`: the least W with
// B^W ≥ r (RadixDigits), found with integers of kLimbs + 1 limbs.
template <unsigned kLimbs>
constexpr unsigned radix_window_count(const uint64_t* modulus, unsigned shift, uint32_t odd) {
  const uint64_t radix = uint64_t(odd) << shift;
  uint64_t power[kLimbs + 2] = {1};
  for (unsigned windows = 1;; ++windows) {
    unsigned __int128 carry = 0;
    for (unsigned i = 0; i < kLimbs + 2; ++i) {
      const unsigned __int128 t = (unsigned __int128)power[i] * radix + carry;
      power[i] = uint64_t(t);
      carry = t >> 64;
    }
    bool at_least = power[kLimbs] != 0 || power[kLimbs + 1] != 0;
    bool decided = at_least;
    for (unsigned i = kLimbs; i-- > 0 && !decided;) {
      if (power[i] != modulus[i]) {
        at_least = power[i] > modulus[i];
        decided = true;
      }
    }
    if (!decided || at_least) return windows;  // equal counts as reaching r
  }
}

// Keys of one pass of `windows_in_pass` windows of width c.
struct KeyLayout {
  unsigned c;
  unsigned windows_in_pass;
  // Shifted bases: the table's row stride (the number of points, below 2^31); 0 for plain
  // bases, one bucket set per window. (32 bits keep the layout small: the accumulation kernels
  // carry it.)
  uint32_t shifted_stride = 0;
  // Shifted bases: the window that row 0 stands for in this pass, the first of its group of
  // rows in a partial table (0 for a table with a row for every window).
  unsigned row_base = 0;
  // Shifted bases: the odd factor m of the radix m·2^c (m = 1: the power of two 2^c), with
  // what dividing by it takes.
  OddDivisor divisor = {};

  CUZK_HD constexpr bool shifted() const { return shifted_stride != 0; }
  // Shifted bases: the buckets of a set, B/2 for the radix B.
  CUZK_HD constexpr uint32_t set_buckets() const { return divisor.m << (c - 1); }
  CUZK_HD constexpr uint32_t sentinel() const {
    return shifted() ? set_buckets() + 1 : uint32_t(windows_in_pass) << c;
  }
  // Radix sort bits [0, end_bit) cover every key, the sentinel included.
  constexpr int end_bit() const { return int(std::bit_width(sentinel())); }
  // The key of a digit in a set of buckets by magnitude alone (shifted bases): |d|, or the
  // sentinel for d = 0. Static, so that a loop over many digits can hold the sentinel.
  CUZK_HD static constexpr uint32_t magnitude_key(int32_t digit, uint32_t sentinel) {
    return digit == 0 ? sentinel : uint32_t(digit < 0 ? -digit : digit);
  }
  CUZK_HD constexpr uint32_t key(int32_t digit, unsigned w_local) const {
    const uint32_t k = magnitude_key(digit, sentinel());
    return shifted() || digit == 0 ? k : (uint32_t(w_local) << c) | k;
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
  // The bucket of a (non-sentinel) key in a bucket array of sets of 2^(c−1) buckets (B/2 with
  // shifted bases), bucket j of a set holding the bases of digit ±(j + 1), the pass's first
  // window adding into set first_set: with plain bases a set per window (key >> c counts
  // windows from the pass's first), with shifted bases one set for the whole pass.
  CUZK_HD constexpr uint64_t bucket(uint32_t key, unsigned first_set) const {
    if (shifted()) return uint64_t(first_set) * set_buckets() + key - 1;
    const uint64_t magnitude = key & ((uint32_t(1) << c) - 1);
    const uint64_t window = first_set + (key >> c);
    return (window << (c - 1)) + magnitude - 1;
  }
};

}  // namespace cuzk::gpu::msm
