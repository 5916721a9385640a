#pragma once
// Device arithmetic of ff::Field: Montgomery multiplication and modular addition on 32-bit
// words with PTX carry chains (mad.lo.cc / madc.hi.cc / addc / subc).
//
// An element of W words (W = 8: BN254 Fp and Fr, BLS12-381 Fr; W = 12: BLS12-381 Fp) is the
// host's N = W/2 little-endian 64-bit limbs read as little-endian 32-bit words, so R = 2^(32W)
// = 2^(64N) on both sides and results are bit-for-bit those of the host. Inputs and outputs are
// fully reduced (< p). Every function requires p < 2^(32W-1) (one spare top bit, which
// ff::Field static_asserts): sums of two elements then never carry out of W words.
//
// Arrays are passed by pointer but all indices are compile-time constants in fully unrolled
// loops, so after inlining every word lives in a register (no local memory; check with
// -Xptxas -v). The modulus words are compile-time constants, which ptxas folds into the
// multiply-add instructions as immediates.
//
// The carry flag (CC) is invisible to C++, so a carry chain spans several asm statements that
// must stay adjacent and in order: they are all `asm volatile` (the compiler keeps volatile
// asm in program order) and each helper below holds whole chains, with no C++ arithmetic
// between the statements of one chain.

#include <cstddef>
#include <cstdint>

#include "util/host_device.hpp"

namespace cuzk::ff::ptx {

namespace detail {

// acc = Σ_k a[2k + kOffset]·b placed at words 2k, 2k+1 (k < W/2): the products of b with the
// even (kOffset = 0) or odd (kOffset = 1) words of a. Their low and high halves land on
// disjoint words, so no carries: W/2 mul.lo + W/2 mul.hi.
template <size_t W, size_t kOffset>
CUZK_DEVICE void mul_words(uint32_t* acc, const uint32_t* a, uint32_t b) {
#pragma unroll
  for (size_t k = 0; k < W; k += 2) {
    asm volatile("mul.lo.u32 %0, %2, %3;\n\tmul.hi.u32 %1, %2, %3;"
                 : "=r"(acc[k]), "=r"(acc[k + 1])
                 : "r"(a[k + kOffset]), "r"(b));
  }
}

// acc += Σ_k a[2k + kOffset]·b at words 2k, 2k+1, as one carry chain; the carry out of word
// W-1 is left in CC for the caller's next asm statement.
template <size_t W, size_t kOffset>
CUZK_DEVICE void mad_words_cc(uint32_t* acc, const uint32_t* a, uint32_t b) {
  asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
               : "+r"(acc[0]), "+r"(acc[1])
               : "r"(a[kOffset]), "r"(b));
#pragma unroll
  for (size_t k = 2; k < W; k += 2) {
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(acc[k]), "+r"(acc[k + 1])
                 : "r"(a[k + kOffset]), "r"(b));
  }
}

// The two accumulators of the interleaved product below. The running value is
// T = lo + 2^32·hi: `lo` is aligned at word 0 and collects the products whose low half falls
// on an even word, `hi` is aligned at word 1 and collects those of the odd words. Splitting
// this way makes each row of products one carry chain per accumulator (the halves of a
// product never overlap the next product's), and it makes the division by 2^32 at the end of
// a Montgomery step free: after the step lo[0] = 0, so T/2^32 = hi + lo/2^32, whose aligned
// part is hi and whose 2^32-offset part is lo >> 64 — the two arrays swap roles (see
// `add_row`).

// One reduction step: m = lo[0]·(-p⁻¹) mod 2^32, then lo + 2^32·hi += m·p, which makes
// lo[0] = 0. The odd words of p go to hi, the even words to lo; lo's carry out of word W-1
// is at word W, which is hi[W-1]. Cost: 1 mul + 2W mad + 1 addc.
//
// hi's own carry out is provably zero: with T < 2p, a < p and b < 2^32 the whole sum
// S = T + a·b + m·p is < 2p·2^32, and 2^32·hi ≤ S, so hi < 2p ≤ 2^(32W) at every stage of its
// accumulation (all terms are non-negative).
template <size_t W>
CUZK_DEVICE void reduce_row(uint32_t* lo, uint32_t* hi, const uint32_t* p, uint32_t inv) {
  uint32_t m = lo[0] * inv;
  mad_words_cc<W, 1>(hi, p, m);
  mad_words_cc<W, 0>(lo, p, m);
  asm volatile("addc.u32 %0, %0, 0;" : "+r"(hi[W - 1]));
}

// reduce_row for a modulus whose two low words are 1 and 2^32 − 1 (p ≡ 2^64 − 2^32 + 1 mod
// 2^64, as BLS12-381's scalar field r): -p⁻¹ ≡ -1 mod 2^32, so m = -t_0 with t_0 = lo[0], and
// the two low words' products need no multiplication. Their sum m·(1 + 2^32·(2^32 − 1)) clears
// word 0 with the carry c_0 = [t_0 ≠ 0] and adds Y = c_0 + m·(2^32 − 1) = c_0 − m + 2^32·m at
// word 1: a 64-bit value from one subtraction with borrow (Y ≥ 0 since m·2^32 ≥ m). The rows of
// the other words are those of reduce_row. The value added is m·p as there, so the bounds hold.
// Cost: 2W − 4 mad + 7 add/sub/min, against 1 mul + 2W mad + 1 addc: per Montgomery product of
// 8 words, 16 fewer wide multiply-adds and no multiplication for m (SASS: 112 IMAD.WIDE).
//
// m is computed as inv + 1 − t_0 from the opaque inv (= 0xffffffff, Field::device_inv32): an
// addition, not a multiplication. Written as a negation that ptxas can see (neg.s32), the same
// rows ran 6% slower than reduce_row (55.0 against 58.3·10⁹ products/s on an H200): ptxas then
// splits the m·p rows into separate low and high multiply-adds, as Field::device_inv32 notes
// for an immediate inv. As written: 65.8 against 58.5·10⁹/s, the NTT 1.5-2% faster
// (bench/results/ff/2026-12-03_h200_a6cbc0f_fr_reduction_rows.txt).
template <size_t W>
CUZK_DEVICE void reduce_row_low_one_max(uint32_t* lo, uint32_t* hi, const uint32_t* p,
                                        uint32_t inv) {
  const uint32_t m = inv + 1 - lo[0];
  uint32_t c0, y_lo, y_hi;
  asm volatile("min.u32 %0, %1, 1;" : "=r"(c0) : "r"(lo[0]));
  asm volatile("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %3, 0;"
               : "=r"(y_lo), "=r"(y_hi)
               : "r"(c0), "r"(m));
  asm volatile("add.cc.u32 %0, %0, %2;\n\taddc.cc.u32 %1, %1, %3;"
               : "+r"(hi[0]), "+r"(hi[1])
               : "r"(y_lo), "r"(y_hi));
#pragma unroll
  for (size_t k = 2; k < W; k += 2) {
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(hi[k]), "+r"(hi[k + 1])
                 : "r"(p[k + 1]), "r"(m));
  }
  asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
               : "+r"(lo[2]), "+r"(lo[3])
               : "r"(p[2]), "r"(m));
#pragma unroll
  for (size_t k = 4; k < W; k += 2) {
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(lo[k]), "+r"(lo[k + 1])
                 : "r"(p[k]), "r"(m));
  }
  asm volatile("addc.u32 %0, %0, 0;" : "+r"(hi[W - 1]));
}

// One reduction step of a Montgomery product: reduce_row_low_one_max where the modulus allows.
template <size_t W, bool kLowOneMax>
CUZK_DEVICE void reduce_step(uint32_t* lo, uint32_t* hi, const uint32_t* p, uint32_t inv) {
  if constexpr (kLowOneMax) {
    reduce_row_low_one_max<W>(lo, hi, p, inv);
  } else {
    reduce_row<W>(lo, hi, p, inv);
  }
}

// The next word of b after a reduction step that left lo[0] = 0. The value to continue from is
// T/2^32 = hi + lo[1] + 2^32·(lo >> 64). It is rebuilt in place with the roles swapped: `hi`
// becomes the aligned accumulator (its word 0 takes lo[1]) and `lo` becomes the offset one,
// shifted down by two words while the odd products of a·b are added to it — the shift costs
// no extra instruction because the multiply-adds read their addend from two words up. The even
// products of a·b then go to the aligned accumulator, and its carry out to the offset one's
// top word. After the call the caller passes (hi, lo) to `reduce_row`. Cost: 2W mad + 2 add.
template <size_t W>
CUZK_DEVICE void add_row(uint32_t* lo, uint32_t* hi, const uint32_t* a, uint32_t b) {
  asm volatile("add.cc.u32 %0, %0, %1;" : "+r"(hi[0]) : "r"(lo[1]));
#pragma unroll
  for (size_t k = 0; k + 2 < W; k += 2) {
    asm volatile("madc.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.cc.u32 %1, %2, %3, %5;"
                 : "=r"(lo[k]), "=r"(lo[k + 1])
                 : "r"(a[k + 1]), "r"(b), "r"(lo[k + 2]), "r"(lo[k + 3]));
  }
  // The top product's high half is < 2^32 - 1, so the carry in cannot overflow it.
  asm volatile("madc.lo.cc.u32 %0, %2, %3, 0;\n\tmadc.hi.u32 %1, %2, %3, 0;"
               : "=r"(lo[W - 2]), "=r"(lo[W - 1])
               : "r"(a[W - 1]), "r"(b));
  mad_words_cc<W, 0>(hi, a, b);
  asm volatile("addc.u32 %0, %0, 0;" : "+r"(lo[W - 1]));
}

// r = t - p if t ≥ p, else t; for t < 2p. Branch-free: the borrow of t - p selects.
template <size_t W>
CUZK_DEVICE void reduce_once(uint32_t* r, const uint32_t* t, const uint32_t* p) {
  uint32_t d[W], borrow;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(t[0]), "r"(p[0]));
#pragma unroll
  for (size_t k = 1; k < W; ++k) {
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[k]) : "r"(t[k]), "r"(p[k]));
  }
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(borrow));  // 0 or 0xffffffff
#pragma unroll
  for (size_t k = 0; k < W; ++k) r[k] = borrow ? t[k] : d[k];
}

// acc[2k], acc[2k+1] += a[2k]·b for k < kCount as one carry chain, then the carry into
// acc[2·kCount] (which must not overflow: the caller guarantees it holds at most 1).
template <size_t kCount>
CUZK_DEVICE void mad_pairs_with_carry(uint32_t* acc, const uint32_t* a, uint32_t b) {
  if constexpr (kCount > 0) {
    asm volatile("mad.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                 : "+r"(acc[0]), "+r"(acc[1])
                 : "r"(a[0]), "r"(b));
#pragma unroll
    for (size_t k = 1; k < kCount; ++k) {
      asm volatile("madc.lo.cc.u32 %0, %2, %3, %0;\n\tmadc.hi.cc.u32 %1, %2, %3, %1;"
                   : "+r"(acc[2 * k]), "+r"(acc[2 * k + 1])
                   : "r"(a[2 * k]), "r"(b));
    }
    asm volatile("addc.u32 %0, %0, 0;" : "+r"(acc[2 * kCount]));
  }
}

// Rows I..W-2 of the cross products of a square: row i adds a_i·a_j for j > i, those with
// i + j odd to `odd` (words 2i ..), those with i + j even to `even` (words 2i+2 ..). Each row's
// two chains end one word above the previous row's, and a carry word receives at most two
// carries (from rows i and i+1) before a later row accumulates over it, so it never
// overflows. Cost: W² − W multiply-adds and 2W − 3 carry additions in all.
template <size_t W, size_t I>
CUZK_DEVICE void square_cross_rows(uint32_t* even, uint32_t* odd, const uint32_t* a) {
  if constexpr (I + 1 < W) {
    mad_pairs_with_carry<(W - I) / 2>(odd + 2 * I, a + I + 1, a[I]);
    mad_pairs_with_carry<(W - I - 1) / 2>(even + 2 * I + 2, a + I + 2, a[I]);
    square_cross_rows<W, I + 1>(even, odd, a);
  }
}

// r = t·2^(-32W) mod p, fully reduced, for a 2W-word t < p·2^(32W): REDC(lo) + hi, with
// lo, hi the low and high W words of t. REDC(lo) = (lo + M·p)/2^(32W) ≤ p for the M that
// clears lo, and hi < p, so the sum is < 2p and one conditional subtraction ends it.
// REDC(lo) is mont_mul's reduction alone: reduce_row, then add_row with a = p and the next m
// as b, which adds m·p and shifts in one pass. Step k's m must clear the aligned word after
// add_row's first addition, (hi[0] + lo[1])·(-p⁻¹); it is computed before the carry chain
// starts. Bounds: with V < 2^(32W) before a step, V + m·p < 2^(32W) + 2^(32W+31), so the
// offset accumulator stays below 2^(32W). Cost: 2W² + 5W instructions, about.
template <size_t W>
CUZK_DEVICE void redc_wide(uint32_t* r, const uint32_t* t, const uint32_t* p, uint32_t inv) {
  uint32_t x[W], y[W] = {};
#pragma unroll
  for (size_t k = 0; k < W; ++k) x[k] = t[k];
  reduce_row<W>(x, y, p, inv);
#pragma unroll
  for (size_t k = 1; k < W; k += 2) {
    add_row<W>(x, y, p, (y[0] + x[1]) * inv);
    if (k + 1 < W) add_row<W>(y, x, p, (x[0] + y[1]) * inv);
  }
  // The last step (odd) left y aligned with y[0] = 0: REDC(lo) = x + (y >> 32) ≤ p; then + hi.
  uint32_t u[W], s[W];
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(u[0]) : "r"(x[0]), "r"(y[1]));
#pragma unroll
  for (size_t k = 1; k + 1 < W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(u[k]) : "r"(x[k]), "r"(y[k + 1]));
  }
  asm volatile("addc.u32 %0, %1, 0;" : "=r"(u[W - 1]) : "r"(x[W - 1]));
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(u[0]), "r"(t[W]));
#pragma unroll
  for (size_t k = 1; k < W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[k]) : "r"(u[k]), "r"(t[W + k]));
  }
  reduce_once<W>(r, s, p);
}

// t = a·b, the whole 2W-word product of W-word a and b (schoolbook). Row i adds a_j·b_i for
// every j: the products with i + j even go to `even` (aligned at word 0), those with i + j odd
// to `odd` (aligned at word 1), each as one carry chain of W/2 products whose carry goes into
// the word above the chain. A row's chain covers words [i, i + W) or [i + 1, i + W + 1) of its
// accumulator; a carry word collects at most two carries (rows i and i + 1) before the next
// row's chain runs over it, so it never overflows, and the top rows' carries are zero (the
// product is < 2^(64W)). Cost: 2W² multiply-adds, 2W carry additions and a 2W-word merge.
template <size_t W>
CUZK_DEVICE void mul_wide(uint32_t* t, const uint32_t* a, const uint32_t* b) {
  uint32_t even[2 * W + 2] = {}, odd[2 * W + 2] = {};
#pragma unroll
  for (size_t i = 0; i < W; ++i) {
    if (i % 2 == 0) {  // even j to `even` from word i, odd j to `odd` (word i + j − 1) from i
      mad_pairs_with_carry<W / 2>(even + i, a, b[i]);
      mad_pairs_with_carry<W / 2>(odd + i, a + 1, b[i]);
    } else {  // odd j to `even` from word i + 1, even j to `odd` from index i − 1
      mad_pairs_with_carry<W / 2>(even + i + 1, a + 1, b[i]);
      mad_pairs_with_carry<W / 2>(odd + i - 1, a, b[i]);
    }
  }
  // t = even + 2^32·odd (even[0] is word 0; odd[k] is word k + 1).
  t[0] = even[0];
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[1]) : "r"(even[1]), "r"(odd[0]));
#pragma unroll
  for (size_t k = 2; k + 1 < 2 * W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[k]) : "r"(even[k]), "r"(odd[k - 1]));
  }
  asm volatile("addc.u32 %0, %1, %2;"
               : "=r"(t[2 * W - 1])
               : "r"(even[2 * W - 1]), "r"(odd[2 * W - 2]));
}

// r = a + b on n words, no reduction, the carry out dropped (callers bound the sum).
template <size_t N>
CUZK_DEVICE void add_words(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (size_t k = 1; k + 1 < N; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[k]) : "r"(a[k]), "r"(b[k]));
  }
  asm volatile("addc.u32 %0, %1, %2;" : "=r"(r[N - 1]) : "r"(a[N - 1]), "r"(b[N - 1]));
}

// r = a − b on n words, the borrow out dropped (callers guarantee a ≥ b).
template <size_t N>
CUZK_DEVICE void sub_words(uint32_t* r, const uint32_t* a, const uint32_t* b) {
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (size_t k = 1; k + 1 < N; ++k) {
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r[k]) : "r"(a[k]), "r"(b[k]));
  }
  asm volatile("subc.u32 %0, %1, %2;" : "=r"(r[N - 1]) : "r"(a[N - 1]), "r"(b[N - 1]));
}

}  // namespace detail

// r = a·b·2^(-32W) mod p, all fully reduced; r may alias a or b. inv = -p⁻¹ mod 2^32.
//
// CIOS Montgomery multiplication (Koç, Acar, Kaliski 1996) with the even/odd split of each
// row of products into two accumulators, the arrangement of sppark's mont_t (ff/mont_t.cuh).
// Each of the W steps: add a·b[i] (add_row), then add m·p and drop a zero word (reduce_row).
// The invariant T < 2p of CIOS holds after every step, so one conditional subtraction ends it.
// Cost: 4W² + 7W − 1 instructions, 4W² + W of them multiplications or multiply-adds
// (W = 8: 311, W = 12: 659).
//
// kLowOneMax: the reduction steps of reduce_row_low_one_max (moduli ≡ 2^64 − 2^32 + 1 mod 2^64).
//
// Measured on an H200 (2^20 threads, chains of 256 dependent products): 26.6·10⁹/s for
// BLS12-381 Fp, 58.5·10⁹/s for BN254 Fp and Fr, 65.8·10⁹/s for BLS12-381 Fr with kLowOneMax,
// and 58.3·10⁹/s for it without, once its inv = 0xffffffff is opaque to the compiler
// (Field::device_inv32 reads it from constant memory). As an immediate, ptxas turns
// m = t_0·inv into a negation and then leaves the m·p rows as separate low and high
// multiply-adds instead of wide ones (178 IMAD against 137 in the SASS of the same loop):
// 51.1·10⁹/s. The modulus words themselves (1 and 0xffffffff among
// them) cost nothing as immediates: from constant memory they measured the same.
template <size_t W, bool kLowOneMax = false>
CUZK_DEVICE void mont_mul(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* p,
                          uint32_t inv) {
  static_assert(W % 2 == 0 && W >= 4, "the even/odd split needs an even number of words");
  uint32_t even[W], odd[W];
  detail::mul_words<W, 0>(even, a, b[0]);
  detail::mul_words<W, 1>(odd, a, b[0]);
  detail::reduce_step<W, kLowOneMax>(even, odd, p, inv);
#pragma unroll
  for (size_t i = 1; i < W; i += 2) {
    detail::add_row<W>(even, odd, a, b[i]);
    detail::reduce_step<W, kLowOneMax>(odd, even, p, inv);
    if (i + 1 < W) {
      detail::add_row<W>(odd, even, a, b[i + 1]);
      detail::reduce_step<W, kLowOneMax>(even, odd, p, inv);
    }
  }
  // The last step (an odd index) left odd[0] = 0 with `odd` aligned at word 0:
  // T = even + (odd >> 32) < 2p < 2^(32W), so the merge carries nothing out.
  uint32_t t[W];
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[0]) : "r"(even[0]), "r"(odd[1]));
#pragma unroll
  for (size_t k = 1; k + 1 < W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[k]) : "r"(even[k]), "r"(odd[k + 1]));
  }
  asm volatile("addc.u32 %0, %1, 0;" : "=r"(t[W - 1]) : "r"(even[W - 1]));
  detail::reduce_once<W>(r, t, p);
}

// r = (a·b − c·d)·2^(-32W) mod p with one reduction: the two products at double width,
// a·b + (p² − c·d) < 2p² < p·2^(32W) (the spare top bit), then redc_wide. p2 is p² on 2W words.
// All inputs are read before r is written. Cost: 4W² multiply-adds for the products and
// 2W² + W for the reduction, against 8W² + 2W for two mont_mul.
//
// The XYZZ mixed addition of the MSM's buckets ends with Y3 = R·(Q − X3) − Y1·PPP, one of its
// ten products: this form saves one reduction there. Measured on an H200 (bench_gpu_msm,
// random scalars, medians of 5, against two products;
// bench/results/ff/2026-12-02_h200_e3d8bc7_difference_of_products.txt):
// BLS12-381 G1 2^24 shifted 91.5 → 86.4 ms, 2^26 shifted 329.0 → 310.0, 2^26 388.5 → 366.1;
// BN254 G1 2^26 186.4 → 181.1.
// Tried with a one-level Karatsuba double-width product for 12 words (three 6-word products,
// 1.5W² multiply-adds instead of 2W²), here and in the Montgomery product: alone 5% faster for
// BLS12-381 Fp (27.96 against 26.64·10⁹ products/s; in SASS 273 multiply-adds against 304 but
// 576 instructions against 424, the carry chains of the recombination), inside the MSM slower
// than this schoolbook form (G1 2^26 shifted 324.3 ms against 310.0; G2 2^22 89.2 against
// 82.3 as Fp's product), where the extra temporaries compete for the kernels' registers.
template <size_t W>
CUZK_DEVICE void mont_difference_of_products(uint32_t* r, const uint32_t* a, const uint32_t* b,
                                             const uint32_t* c, const uint32_t* d,
                                             const uint32_t* p, const uint32_t* p2, uint32_t inv) {
  uint32_t t[2 * W], v[2 * W];
  detail::mul_wide<W>(v, c, d);
  detail::sub_words<2 * W>(v, p2, v);
  detail::mul_wide<W>(t, a, b);
  detail::add_words<2 * W>(t, t, v);
  detail::redc_wide<W>(r, t, p, inv);
}

// r = a²·2^(-32W) mod p; r may alias a.
//
// Square, then reduce (separated operand scanning): each cross product a_i·a_j (i < j) is
// computed once and the sum doubled, so the 2W-word square costs W² − W multiply instructions
// instead of 2W², plus the diagonal a_i² and three carry chains of 2W words. The square S = lo +
// 2^(32W)·hi is then reduced as REDC(lo) + hi: REDC(lo) = (lo + M·p)/2^(32W) ≤ p for the M that
// clears lo, hi = ⌊a²/2^(32W)⌋ < p²/2^(32W) < p, so the sum is < 2p and one conditional
// subtraction ends it. REDC(lo) is mont_mul's reduction alone: reduce_row, then add_row with
// a = p and the next m as b, which adds m·p and shifts in one pass.
// Cost: 3W² + 15W − 7 instructions, 3W² + 2W of them multiplications or multiply-adds
// (W = 8: 305 and 208, W = 12: 605 and 456; mont_mul: 311 and 264, 659 and 588).
// Measured on an H200 (tests/gpu FieldThroughput: 2^20 threads, chains of 256 dependent
// operations): BLS12-381 Fp squaring 33.1·10⁹/s against 26.5·10⁹/s for the product, BN254 Fp
// 69.4 against 58.7.
template <size_t W>
CUZK_DEVICE void mont_sqr(uint32_t* r, const uint32_t* a, const uint32_t* p, uint32_t inv) {
  static_assert(W % 2 == 0 && W >= 4, "the even/odd split needs an even number of words");
  // Cross products Σ_(i<j) a_i·a_j·2^(32(i+j)): `even` aligned at word 0 (products whose low
  // half falls on an even word), `odd` aligned at word 1. Zero-initialized, because each row's
  // chains accumulate into words that earlier rows may or may not have reached.
  uint32_t even[2 * W] = {}, odd[2 * W] = {};
  detail::square_cross_rows<W, 0>(even, odd, a);

  // t = 2·(even + 2^32·odd) + Σ a_i²·2^(64i). Row 0's even products start at word 2, so
  // even[0] = even[1] = 0; no row reaches even[2W − 1]. a < 2^(32W−1) keeps every chain's
  // top free of carries (the cross sum is < 2^(64W−3)).
  uint32_t t[2 * W];
  t[0] = 0;
  t[1] = odd[0];
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(t[2]) : "r"(even[2]), "r"(odd[1]));
#pragma unroll
  for (size_t k = 3; k + 1 < 2 * W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(t[k]) : "r"(even[k]), "r"(odd[k - 1]));
  }
  asm volatile("addc.u32 %0, %1, 0;" : "=r"(t[2 * W - 1]) : "r"(odd[2 * W - 2]));
  asm volatile("add.cc.u32 %0, %0, %0;" : "+r"(t[1]));
#pragma unroll
  for (size_t k = 2; k + 1 < 2 * W; ++k) asm volatile("addc.cc.u32 %0, %0, %0;" : "+r"(t[k]));
  asm volatile("addc.u32 %0, %0, %0;" : "+r"(t[2 * W - 1]));
  asm volatile("mad.lo.cc.u32 %0, %2, %2, %0;\n\tmadc.hi.cc.u32 %1, %2, %2, %1;"
               : "+r"(t[0]), "+r"(t[1])
               : "r"(a[0]));
#pragma unroll
  for (size_t i = 1; i + 1 < W; ++i) {
    asm volatile("madc.lo.cc.u32 %0, %2, %2, %0;\n\tmadc.hi.cc.u32 %1, %2, %2, %1;"
                 : "+r"(t[2 * i]), "+r"(t[2 * i + 1])
                 : "r"(a[i]));
  }
  asm volatile("madc.lo.cc.u32 %0, %2, %2, %0;\n\tmadc.hi.u32 %1, %2, %2, %1;"
               : "+r"(t[2 * W - 2]), "+r"(t[2 * W - 1])
               : "r"(a[W - 1]));

  detail::redc_wide<W>(r, t, p, inv);
}

// r = a + b mod p. a + b < 2p < 2^(32W): no carry out, one conditional subtraction.
// Cost: 2W add/sub + W select.
template <size_t W>
CUZK_DEVICE void mod_add(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* p) {
  uint32_t s[W];
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (size_t k = 1; k < W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s[k]) : "r"(a[k]), "r"(b[k]));
  }
  detail::reduce_once<W>(r, s, p);
}

// r = a - b mod p: subtract, then add p back under the borrow mask. Cost: 2W add/sub + W and.
template <size_t W>
CUZK_DEVICE void mod_sub(uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* p) {
  uint32_t d[W], mask;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d[0]) : "r"(a[0]), "r"(b[0]));
#pragma unroll
  for (size_t k = 1; k < W; ++k) {
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d[k]) : "r"(a[k]), "r"(b[k]));
  }
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(mask));  // 0xffffffff when a < b
  uint32_t q[W];
#pragma unroll
  for (size_t k = 0; k < W; ++k) q[k] = p[k] & mask;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(d[0]), "r"(q[0]));
#pragma unroll
  for (size_t k = 1; k < W; ++k) {
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r[k]) : "r"(d[k]), "r"(q[k]));
  }
}

// r = -a mod p: p - a, except that -0 must be 0 (not p); masking p by "a ≠ 0" covers both
// without a branch. Cost: W sub + W or + W and.
template <size_t W>
CUZK_DEVICE void mod_neg(uint32_t* r, const uint32_t* a, const uint32_t* p) {
  uint32_t nonzero = a[0];
#pragma unroll
  for (size_t k = 1; k < W; ++k) nonzero |= a[k];
  uint32_t mask = nonzero ? 0xffffffffu : 0u;
  uint32_t q[W];
#pragma unroll
  for (size_t k = 0; k < W; ++k) q[k] = p[k] & mask;
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r[0]) : "r"(q[0]), "r"(a[0]));
#pragma unroll
  for (size_t k = 1; k < W; ++k) {
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r[k]) : "r"(q[k]), "r"(a[k]));
  }
}

// (r0 + r1·u) = (a0 + a1·u)(b0 + b1·u) in Fp2 = Fp[u]/(u² + 1), Karatsuba with lazy
// reduction: the three products stay at double width and only the two coefficients are
// reduced (two REDCs instead of three Montgomery products, and no reduction of the sums
// a0 + a1, b0 + b1 < 2p, which fit W words since p < 2^(32W−1)):
//   r0 = REDC(a0·b0 − a1·b1 + p²)                     0 ≤ · < 2p² < p·2^(32W)
//   r1 = REDC((a0 + a1)(b0 + b1) − a0·b0 − a1·b1)      = a0·b1 + a1·b0 < 2p²
// Both bounds need 2p < 2^(32W), which the spare top bit gives. p2 is p² on 2W words. All
// inputs are read before r0 or r1 is written, so outputs may alias inputs.
// Cost: 3·2W² multiply-adds for the products and 2·(2W² + W) for the reductions, against
// 3·(4W² + W) for three mont_mul: about 18% fewer instructions than the plain Karatsuba
// (W = 12: some 1,560 against 2,160 with its five modular additions).
template <size_t W>
CUZK_DEVICE void fp2_mul(uint32_t* r0, uint32_t* r1, const uint32_t* a0, const uint32_t* a1,
                         const uint32_t* b0, const uint32_t* b1, const uint32_t* p,
                         const uint32_t* p2, uint32_t inv) {
  // Ordered so that at most two double-width values are live besides the product being formed
  // (the G2 bucket additions run at the register limit).
  uint32_t c1[2 * W], c0[2 * W], v[2 * W];
  {
    uint32_t sa[W], sb[W];
    detail::add_words<W>(sa, a0, a1);
    detail::add_words<W>(sb, b0, b1);
    detail::mul_wide<W>(c1, sa, sb);
  }
  detail::mul_wide<W>(v, a0, b0);
  detail::sub_words<2 * W>(c1, c1, v);
  detail::add_words<2 * W>(c0, v, p2);
  detail::mul_wide<W>(v, a1, b1);
  detail::sub_words<2 * W>(c1, c1, v);
  detail::sub_words<2 * W>(c0, c0, v);
  detail::redc_wide<W>(r1, c1, p, inv);
  detail::redc_wide<W>(r0, c0, p, inv);
}

// A 64-bit word of shared memory at a 32-bit shared-window address (__cvta_generic_to_shared).
// Volatile, with memory clobbers: values that a caller stores here and a called
// function then reads stay in that order.
CUZK_DEVICE uint64_t load_shared_u64(uint32_t address) {
  uint64_t v;
  asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(address) : "memory");
  return v;
}
CUZK_DEVICE void store_shared_u64(uint32_t address, uint64_t v) {
  asm volatile("st.shared.u64 [%0], %1;" ::"r"(address), "l"(v) : "memory");
}

}  // namespace cuzk::ff::ptx
