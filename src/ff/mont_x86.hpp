#pragma once
// Host Montgomery multiplication and squaring for 4 and 6 limbs with MULX, ADCX and ADOX
// (x86-64 with BMI2 and ADX): the host half of Field::operator* and Field::sqr when the
// compiler targets such a CPU. Elsewhere (other architectures, device code, constant
// evaluation, unoptimized builds) Field uses the portable CIOS in field.hpp; both compute the
// same function bit for bit, and the GMP property tests in tests/ff run against whichever one
// the build selects.
//
// Multiplication is CIOS (Koç, Acar, Kaliski 1996), one row per limb b_i of b, fully unrolled:
//   t ← t + a·b_i           (N MULX; two carry chains: ADOX adds the low halves at position j,
//                            ADCX the high halves at position j+1; the chains use different
//                            flags, so the core runs them side by side)
//   m ← t_0·(−p⁻¹) mod 2^64 (IMUL)
//   t ← (t + m·p) / 2^64    (N MULX, the same two chains; t_0 becomes 0 and is dropped)
// t lives in N+1 registers. Dropping t_0 is a renaming, not a move: row i uses the registers in
// an order rotated by i, so the register that held t_0 becomes the next row's free top limb.
// Cost: 2N² MULX + N IMUL and about 2N² ADCX/ADOX.
//
// Why N+1 limbs suffice (no carry limb beyond t_N): with a, b < p and t < 2p before a row,
// t + a·b_i + m·p < 2p + 2·2^64·p = 2^65·p, which is below 2^(64(N+1)) whenever p < 2^(64N−1);
// Field static_asserts that spare bit for every modulus. The same bound gives t < 2p after the
// row, so one conditional subtraction of p finishes (in C++ after the assembly, where the
// compiler allocates the registers the subtraction needs).
//
// Every limb of every array is its own memory operand, so the assembly never does address
// arithmetic and the compiler may address the arrays however it likes (that keeps the operand
// count at GCC's limit of 30 for the 6-limb squaring).
//
// Measured ns/op on the development host: see src/ff/README.md.

#include <cstddef>
#include <cstdint>

#include "ff/add_x86.hpp"  // CUZK_FF_MONT_X86 and subtract_modulus_once

#if CUZK_FF_MONT_X86

#include <immintrin.h>

// Assembly fragments. Operands: %[a0]..%[a5], %[b0].., %[p0].. are limbs of the inputs and the
// modulus, %[w0].. limbs of a scratch array on the stack, %[inv] = −p⁻¹ mod 2^64, %[lo] and
// %[hi] scratch registers, rdx the MULX multiplier, and t0..t8 limbs, passed to the macros in
// rotated order.

// GCC sizes an asm statement by its line count when it decides what to inline, so callers of
// Field::operator* would otherwise call it out of line and copy every result through the
// stack; `asm inline` (GCC 9+, Clang) declares the statement small. bench_ff on the development
// host, BLS12-381 Fp: mul 59 → 48 ns, sqr 54 → 41 ns (4-limb fields unchanged). nvcc's front
// end is not known to accept the qualifier: host code in .cu files gets plain asm.
#if defined(__CUDACC__)
#define CUZK_X86_ASM asm
#else
#define CUZK_X86_ASM asm inline
#endif

// clang-format off
// (column-aligned assembly reads better than what the formatter makes of string pasting)

// rdx ← x_i, and both carry flags cleared for a new pair of chains.
#define CUZK_X86_MULTIPLIER(x, i) "movq %[" #x #i "], %%rdx\n\t"
#define CUZK_X86_CLEAR_FLAGS "xorl %k[lo], %k[lo]\n\t"

// Adds x_j·rdx to t at position j (low half, OF chain) and j+1 (high half, CF chain).
#define CUZK_X86_MULADD(x, j, Tj, Tj1)           \
  "mulxq %[" #x #j "], %[lo], %[hi]\n\t"         \
  "adoxq %[lo], %[" #Tj "]\n\t"                  \
  "adcxq %[hi], %[" #Tj1 "]\n\t"

// A row that starts from zero: Ti, Ti1 = a_j·rdx, then ADD/ADC steps (one chain suffices).
#define CUZK_X86_FIRST_PRODUCT(j, Ti, Ti1)       \
  "mulxq %[a" #j "], %[" #Ti "], %[" #Ti1 "]\n\t"
#define CUZK_X86_FIRST_PRODUCT_STEP(op, j, Tj, Tj1) \
  "mulxq %[a" #j "], %[lo], %[" #Tj1 "]\n\t"     \
  op " %[lo], %[" #Tj "]\n\t"

// Last product of an accumulating row: its high half lands in the fresh top limb Tn, which then
// takes both pending carries.
#define CUZK_X86_PRODUCT_TAIL(last, Tl, Tn)      \
  "mulxq %[a" #last "], %[lo], %[" #Tn "]\n\t"   \
  "adoxq %[lo], %[" #Tl "]\n\t"                  \
  "movl $0, %k[lo]\n\t"                          \
  "adcxq %[lo], %[" #Tn "]\n\t"                  \
  "adoxq %[lo], %[" #Tn "]\n\t"

// t ← (t + m·p)/2^64 with m = t_0·inv: the drop of t_0 happens in the caller's rotation.
#define CUZK_X86_REDUCE_HEAD(T0)                 \
  "movq %[" #T0 "], %%rdx\n\t"                   \
  "imulq %[inv], %%rdx\n\t"                      \
  CUZK_X86_CLEAR_FLAGS
#define CUZK_X86_REDUCE_TAIL(Tn)                 \
  "movl $0, %k[lo]\n\t"                          \
  "adoxq %[lo], %[" #Tn "]\n\t"

// Squaring: Tk ← 2·Tk + x (CF chain doubles, OF chain adds the diagonal half x); the _MEM form
// does the same to scratch limb wk through register tmp.
#define CUZK_X86_SQUARE_LIMB(i, LO)              \
  CUZK_X86_MULTIPLIER(a, i)                      \
  "mulxq %%rdx, %[" #LO "], %[hi]\n\t"
#define CUZK_X86_DOUBLE_ADD(Tk, x)               \
  "adcxq %[" #Tk "], %[" #Tk "]\n\t"             \
  "adoxq %[" #x "], %[" #Tk "]\n\t"
#define CUZK_X86_DOUBLE_ADD_MEM(k, tmp, x)       \
  "movq %[w" #k "], %[" #tmp "]\n\t"             \
  CUZK_X86_DOUBLE_ADD(tmp, x)                    \
  "movq %[" #tmp "], %[w" #k "]\n\t"
#define CUZK_X86_SPILL(k, Tk) "movq %[" #Tk "], %[w" #k "]\n\t"
#define CUZK_X86_ADD_SPILLED(op, k, Tk) op " %[w" #k "], %[" #Tk "]\n\t"

// ---- 4 limbs: t in t0..t4 -------------------------------------------------------------------

#define CUZK_X86_REDUCE4(T0, T1, T2, T3, T4)     \
  CUZK_X86_REDUCE_HEAD(T0)                       \
  CUZK_X86_MULADD(p, 0, T0, T1)                  \
  CUZK_X86_MULADD(p, 1, T1, T2)                  \
  CUZK_X86_MULADD(p, 2, T2, T3)                  \
  CUZK_X86_MULADD(p, 3, T3, T4)                  \
  CUZK_X86_REDUCE_TAIL(T4)

// t ← t + a·b_i (T4 is the fresh top limb).
#define CUZK_X86_PRODUCT_ROW4(i, T0, T1, T2, T3, T4) \
  CUZK_X86_MULTIPLIER(b, i)                      \
  CUZK_X86_CLEAR_FLAGS                           \
  CUZK_X86_MULADD(a, 0, T0, T1)                  \
  CUZK_X86_MULADD(a, 1, T1, T2)                  \
  CUZK_X86_MULADD(a, 2, T2, T3)                  \
  CUZK_X86_PRODUCT_TAIL(3, T3, T4)

#define CUZK_X86_ROW4(i, T0, T1, T2, T3, T4)     \
  CUZK_X86_PRODUCT_ROW4(i, T0, T1, T2, T3, T4)   \
  CUZK_X86_REDUCE4(T0, T1, T2, T3, T4)

// ---- 6 limbs: t in t0..t6 -------------------------------------------------------------------

#define CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6) \
  CUZK_X86_REDUCE_HEAD(T0)                       \
  CUZK_X86_MULADD(p, 0, T0, T1)                  \
  CUZK_X86_MULADD(p, 1, T1, T2)                  \
  CUZK_X86_MULADD(p, 2, T2, T3)                  \
  CUZK_X86_MULADD(p, 3, T3, T4)                  \
  CUZK_X86_MULADD(p, 4, T4, T5)                  \
  CUZK_X86_MULADD(p, 5, T5, T6)                  \
  CUZK_X86_REDUCE_TAIL(T6)

#define CUZK_X86_PRODUCT_ROW6(i, T0, T1, T2, T3, T4, T5, T6) \
  CUZK_X86_MULTIPLIER(b, i)                      \
  CUZK_X86_CLEAR_FLAGS                           \
  CUZK_X86_MULADD(a, 0, T0, T1)                  \
  CUZK_X86_MULADD(a, 1, T1, T2)                  \
  CUZK_X86_MULADD(a, 2, T2, T3)                  \
  CUZK_X86_MULADD(a, 3, T3, T4)                  \
  CUZK_X86_MULADD(a, 4, T4, T5)                  \
  CUZK_X86_PRODUCT_TAIL(5, T5, T6)

#define CUZK_X86_ROW6(i, T0, T1, T2, T3, T4, T5, T6) \
  CUZK_X86_PRODUCT_ROW6(i, T0, T1, T2, T3, T4, T5, T6) \
  CUZK_X86_REDUCE6(T0, T1, T2, T3, T4, T5, T6)

// Row 0 of a product: t0..tN = a·b_0.
#define CUZK_X86_FIRST_ROW4                      \
  CUZK_X86_MULTIPLIER(b, 0)                      \
  CUZK_X86_FIRST_PRODUCT(0, t0, t1)              \
  CUZK_X86_FIRST_PRODUCT_STEP("addq", 1, t1, t2) \
  CUZK_X86_FIRST_PRODUCT_STEP("adcq", 2, t2, t3) \
  CUZK_X86_FIRST_PRODUCT_STEP("adcq", 3, t3, t4) \
  "adcq $0, %[t4]\n\t"
#define CUZK_X86_FIRST_ROW6                      \
  CUZK_X86_MULTIPLIER(b, 0)                      \
  CUZK_X86_FIRST_PRODUCT(0, t0, t1)              \
  CUZK_X86_FIRST_PRODUCT_STEP("addq", 1, t1, t2) \
  CUZK_X86_FIRST_PRODUCT_STEP("adcq", 2, t2, t3) \
  CUZK_X86_FIRST_PRODUCT_STEP("adcq", 3, t3, t4) \
  CUZK_X86_FIRST_PRODUCT_STEP("adcq", 4, t4, t5) \
  CUZK_X86_FIRST_PRODUCT_STEP("adcq", 5, t5, t6) \
  "adcq $0, %[t6]\n\t"
// Wide products and REDC keep finished limbs in the output array w.
#define CUZK_X86_STORE(k, Tk) "movq %[" #Tk "], %[w" #k "]\n\t"
#define CUZK_X86_LOAD(k, Tk) "movq %[w" #k "], %[" #Tk "]\n\t"

// Operand lists: one memory operand per limb.
#define CUZK_X86_LIMBS4(x, v) \
  [x##0] "m"(v[0]), [x##1] "m"(v[1]), [x##2] "m"(v[2]), [x##3] "m"(v[3])
#define CUZK_X86_LIMBS6(x, v) CUZK_X86_LIMBS4(x, v), [x##4] "m"(v[4]), [x##5] "m"(v[5])
#define CUZK_X86_SCRATCH4(v) \
  [w0] "=&m"(v[0]), [w1] "=&m"(v[1]), [w2] "=&m"(v[2]), [w3] "=&m"(v[3])
#define CUZK_X86_SCRATCH6(v) CUZK_X86_SCRATCH4(v), [w4] "=&m"(v[4]), [w5] "=&m"(v[5])
// clang-format on

namespace cuzk::ff::x86 {

// r = a·b·R⁻¹ mod p for a, b < p < 2^(64N−1), R = 2^(64N), inv = −p⁻¹ mod 2^64; the result is
// fully reduced. r may alias a or b.
template <size_t N>
__attribute__((always_inline)) inline void mont_mul(uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* p,
                     uint64_t inv) {
  static_assert(N == 4 || N == 6, "MULX/ADX kernels exist for 4 and 6 limbs");
  uint64_t t0, t1, t2, t3, t4, lo, hi;
  // clang-format off
  if constexpr (N == 4) {
    // Rows rotate t0..t4 by one each; after row 3 the result is in t4, t0, t1, t2.
    CUZK_X86_ASM(CUZK_X86_FIRST_ROW4
        CUZK_X86_REDUCE4(t0, t1, t2, t3, t4)
        CUZK_X86_ROW4(1, t1, t2, t3, t4, t0)
        CUZK_X86_ROW4(2, t2, t3, t4, t0, t1)
        CUZK_X86_ROW4(3, t3, t4, t0, t1, t2)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS4(a, a), CUZK_X86_LIMBS4(b, b), CUZK_X86_LIMBS4(p, p), [inv] "m"(inv)
        : "rdx", "cc");
    subtract_modulus_once<4>(r, {t4, t0, t1, t2}, p);
  } else {
    uint64_t t5, t6;
    // Rows rotate t0..t6 by one each; after row 5 the result is in t6, t0, t1, t2, t3, t4.
    CUZK_X86_ASM(CUZK_X86_FIRST_ROW6
        CUZK_X86_REDUCE6(t0, t1, t2, t3, t4, t5, t6)
        CUZK_X86_ROW6(1, t1, t2, t3, t4, t5, t6, t0)
        CUZK_X86_ROW6(2, t2, t3, t4, t5, t6, t0, t1)
        CUZK_X86_ROW6(3, t3, t4, t5, t6, t0, t1, t2)
        CUZK_X86_ROW6(4, t4, t5, t6, t0, t1, t2, t3)
        CUZK_X86_ROW6(5, t5, t6, t0, t1, t2, t3, t4)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS6(a, a), CUZK_X86_LIMBS6(b, b), CUZK_X86_LIMBS6(p, p), [inv] "m"(inv)
        : "rdx", "cc");
    subtract_modulus_once<6>(r, {t6, t0, t1, t2, t3, t4}, p);
  }
  // clang-format on
}

// r = a²·R⁻¹ mod p, same contract as mont_mul. Separated operand scanning: the 2N-limb square
// first, then N reduction rows, then the high half added in.
//   square: the N(N−1)/2 products a_i·a_j (i < j) in rows of MULX/ADOX/ADCX, then one pass that
//           doubles them (ADCX x, x) and adds the N diagonal squares a_i² (ADOX);
//   reduce: u = (t_low + M·p)/R by N rows exactly like the multiplication's (t_low < R, so
//           u ≤ p), then u + t_high < p + p²/R < 2p: one conditional subtraction.
// Cost: N(N+1)/2 + N² MULX + N IMUL, against 2N² + N for mont_mul(a, a): 63 instead of 78
// multiplications for N = 6, 30 instead of 36 for N = 4. The high half of the square waits in
// scratch limbs on the stack: N+1 rotating limbs plus N more would not fit in 15 registers.
template <size_t N>
__attribute__((always_inline)) inline void mont_sqr(uint64_t* r, const uint64_t* a, const uint64_t* p, uint64_t inv) {
  static_assert(N == 4 || N == 6, "MULX/ADX kernels exist for 4 and 6 limbs");
  uint64_t high[N];  // limbs N..2N−1 of the square
  uint64_t t0, t1, t2, t3, t4, t5, lo, hi;
  // clang-format off
  if constexpr (N == 4) {
    // Off-diagonal products into positions 1..6 (t1..t5, t0; 5 and 6 then wait in w1, w2).
    CUZK_X86_ASM(CUZK_X86_MULTIPLIER(a, 0)
        CUZK_X86_FIRST_PRODUCT(1, t1, t2)
        CUZK_X86_FIRST_PRODUCT_STEP("addq", 2, t2, t3)
        CUZK_X86_FIRST_PRODUCT_STEP("adcq", 3, t3, t4)
        "adcq $0, %[t4]\n\t"
        CUZK_X86_MULTIPLIER(a, 1)
        CUZK_X86_CLEAR_FLAGS
        CUZK_X86_MULADD(a, 2, t3, t4)
        CUZK_X86_PRODUCT_TAIL(3, t4, t5)
        CUZK_X86_MULTIPLIER(a, 2)
        "mulxq %[a3], %[lo], %[t0]\n\t"
        "addq %[lo], %[t5]\n\t"
        "adcq $0, %[t0]\n\t"
        CUZK_X86_SPILL(1, t5) CUZK_X86_SPILL(2, t0)
        // Double and add the diagonal: positions 0..4 in t0..t4, 4..7 end in w.
        CUZK_X86_CLEAR_FLAGS
        CUZK_X86_SQUARE_LIMB(0, t0)
        CUZK_X86_DOUBLE_ADD(t1, hi)
        CUZK_X86_SQUARE_LIMB(1, lo)
        CUZK_X86_DOUBLE_ADD(t2, lo)
        CUZK_X86_DOUBLE_ADD(t3, hi)
        CUZK_X86_SQUARE_LIMB(2, lo)
        CUZK_X86_DOUBLE_ADD(t4, lo)
        CUZK_X86_SPILL(0, t4)
        CUZK_X86_DOUBLE_ADD_MEM(1, t5, hi)
        CUZK_X86_SQUARE_LIMB(3, lo)
        CUZK_X86_DOUBLE_ADD_MEM(2, t5, lo)
        "movl $0, %k[t5]\n\t"
        CUZK_X86_DOUBLE_ADD(t5, hi)
        CUZK_X86_SPILL(3, t5)
        // Reduce the low half (t4 is the fresh top limb), then add the high half.
        "xorl %k[t4], %k[t4]\n\t"
        CUZK_X86_REDUCE4(t0, t1, t2, t3, t4)
        CUZK_X86_REDUCE4(t1, t2, t3, t4, t0)
        CUZK_X86_REDUCE4(t2, t3, t4, t0, t1)
        CUZK_X86_REDUCE4(t3, t4, t0, t1, t2)
        CUZK_X86_ADD_SPILLED("addq", 0, t4) CUZK_X86_ADD_SPILLED("adcq", 1, t0)
        CUZK_X86_ADD_SPILLED("adcq", 2, t1) CUZK_X86_ADD_SPILLED("adcq", 3, t2)
        : CUZK_X86_SCRATCH4(high), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
          [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS4(a, a), CUZK_X86_LIMBS4(p, p), [inv] "m"(inv)
        : "rdx", "cc");
    subtract_modulus_once<4>(r, {t4, t0, t1, t2}, p);
  } else {
    uint64_t t6, t7, t8;
    // Off-diagonal products into positions 1..10: t1..t8 for 1..8, t0 for 9 (free until the
    // diagonal pass), t7 again for 10 once 7 and 8 wait in w1, w2.
    CUZK_X86_ASM(CUZK_X86_MULTIPLIER(a, 0)
        CUZK_X86_FIRST_PRODUCT(1, t1, t2)
        CUZK_X86_FIRST_PRODUCT_STEP("addq", 2, t2, t3)
        CUZK_X86_FIRST_PRODUCT_STEP("adcq", 3, t3, t4)
        CUZK_X86_FIRST_PRODUCT_STEP("adcq", 4, t4, t5)
        CUZK_X86_FIRST_PRODUCT_STEP("adcq", 5, t5, t6)
        "adcq $0, %[t6]\n\t"
        CUZK_X86_MULTIPLIER(a, 1)
        CUZK_X86_CLEAR_FLAGS
        CUZK_X86_MULADD(a, 2, t3, t4)
        CUZK_X86_MULADD(a, 3, t4, t5)
        CUZK_X86_MULADD(a, 4, t5, t6)
        CUZK_X86_PRODUCT_TAIL(5, t6, t7)
        CUZK_X86_MULTIPLIER(a, 2)
        CUZK_X86_CLEAR_FLAGS
        CUZK_X86_MULADD(a, 3, t5, t6)
        CUZK_X86_MULADD(a, 4, t6, t7)
        CUZK_X86_PRODUCT_TAIL(5, t7, t8)
        CUZK_X86_MULTIPLIER(a, 3)
        CUZK_X86_CLEAR_FLAGS
        CUZK_X86_MULADD(a, 4, t7, t8)
        CUZK_X86_PRODUCT_TAIL(5, t8, t0)
        CUZK_X86_SPILL(1, t7) CUZK_X86_SPILL(2, t8)
        CUZK_X86_MULTIPLIER(a, 4)
        "mulxq %[a5], %[lo], %[t7]\n\t"
        "addq %[lo], %[t0]\n\t"
        "adcq $0, %[t7]\n\t"
        CUZK_X86_SPILL(3, t0) CUZK_X86_SPILL(4, t7)
        // Double and add the diagonal: positions 0..6 in t0..t6, 6..11 end in w.
        CUZK_X86_CLEAR_FLAGS
        CUZK_X86_SQUARE_LIMB(0, t0)
        CUZK_X86_DOUBLE_ADD(t1, hi)
        CUZK_X86_SQUARE_LIMB(1, lo)
        CUZK_X86_DOUBLE_ADD(t2, lo)
        CUZK_X86_DOUBLE_ADD(t3, hi)
        CUZK_X86_SQUARE_LIMB(2, lo)
        CUZK_X86_DOUBLE_ADD(t4, lo)
        CUZK_X86_DOUBLE_ADD(t5, hi)
        CUZK_X86_SQUARE_LIMB(3, lo)
        CUZK_X86_DOUBLE_ADD(t6, lo)
        CUZK_X86_SPILL(0, t6)
        CUZK_X86_DOUBLE_ADD_MEM(1, t7, hi)
        CUZK_X86_SQUARE_LIMB(4, lo)
        CUZK_X86_DOUBLE_ADD_MEM(2, t7, lo)
        CUZK_X86_DOUBLE_ADD_MEM(3, t7, hi)
        CUZK_X86_SQUARE_LIMB(5, lo)
        CUZK_X86_DOUBLE_ADD_MEM(4, t7, lo)
        "movl $0, %k[t7]\n\t"
        CUZK_X86_DOUBLE_ADD(t7, hi)
        CUZK_X86_SPILL(5, t7)
        // Reduce the low half (t6 is the fresh top limb), then add the high half.
        "xorl %k[t6], %k[t6]\n\t"
        CUZK_X86_REDUCE6(t0, t1, t2, t3, t4, t5, t6)
        CUZK_X86_REDUCE6(t1, t2, t3, t4, t5, t6, t0)
        CUZK_X86_REDUCE6(t2, t3, t4, t5, t6, t0, t1)
        CUZK_X86_REDUCE6(t3, t4, t5, t6, t0, t1, t2)
        CUZK_X86_REDUCE6(t4, t5, t6, t0, t1, t2, t3)
        CUZK_X86_REDUCE6(t5, t6, t0, t1, t2, t3, t4)
        CUZK_X86_ADD_SPILLED("addq", 0, t6) CUZK_X86_ADD_SPILLED("adcq", 1, t0)
        CUZK_X86_ADD_SPILLED("adcq", 2, t1) CUZK_X86_ADD_SPILLED("adcq", 3, t2)
        CUZK_X86_ADD_SPILLED("adcq", 4, t3) CUZK_X86_ADD_SPILLED("adcq", 5, t4)
        : CUZK_X86_SCRATCH6(high), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2),
          [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6), [t7] "=&r"(t7),
          [t8] "=&r"(t8), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS6(a, a), CUZK_X86_LIMBS6(p, p), [inv] "m"(inv)
        : "rdx", "cc");
    subtract_modulus_once<6>(r, {t6, t0, t1, t2, t3, t4}, p);
  }
  // clang-format on
}

// The two halves of a Montgomery product, for sums of products reduced once (lazy reduction,
// as in the Fp2 multiplication of fp2.hpp): mul_wide gives the 2N-limb integer product,
// redc reduces a 2N-limb integer.

// w = a·b as a 2N-limb integer, for any a, b < 2^(64N). Operand scanning: row i adds a·b_i at
// position i, after which limb i is final and leaves for w. N² MULX.
template <size_t N>
__attribute__((always_inline)) inline void mul_wide(uint64_t* w, const uint64_t* a, const uint64_t* b) {
  static_assert(N == 4 || N == 6, "MULX/ADX kernels exist for 4 and 6 limbs");
  uint64_t t0, t1, t2, t3, t4, lo, hi;
  // clang-format off
  if constexpr (N == 4) {
    CUZK_X86_ASM(CUZK_X86_FIRST_ROW4 CUZK_X86_STORE(0, t0)
        CUZK_X86_PRODUCT_ROW4(1, t1, t2, t3, t4, t0) CUZK_X86_STORE(1, t1)
        CUZK_X86_PRODUCT_ROW4(2, t2, t3, t4, t0, t1) CUZK_X86_STORE(2, t2)
        CUZK_X86_PRODUCT_ROW4(3, t3, t4, t0, t1, t2) CUZK_X86_STORE(3, t3)
        : CUZK_X86_SCRATCH4(w), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
          [t4] "=&r"(t4), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS4(a, a), CUZK_X86_LIMBS4(b, b)
        : "rdx", "cc");
    w[4] = t4; w[5] = t0; w[6] = t1; w[7] = t2;
  } else {
    uint64_t t5, t6;
    CUZK_X86_ASM(CUZK_X86_FIRST_ROW6 CUZK_X86_STORE(0, t0)
        CUZK_X86_PRODUCT_ROW6(1, t1, t2, t3, t4, t5, t6, t0) CUZK_X86_STORE(1, t1)
        CUZK_X86_PRODUCT_ROW6(2, t2, t3, t4, t5, t6, t0, t1) CUZK_X86_STORE(2, t2)
        CUZK_X86_PRODUCT_ROW6(3, t3, t4, t5, t6, t0, t1, t2) CUZK_X86_STORE(3, t3)
        CUZK_X86_PRODUCT_ROW6(4, t4, t5, t6, t0, t1, t2, t3) CUZK_X86_STORE(4, t4)
        CUZK_X86_PRODUCT_ROW6(5, t5, t6, t0, t1, t2, t3, t4) CUZK_X86_STORE(5, t5)
        : CUZK_X86_SCRATCH6(w), [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3),
          [t4] "=&r"(t4), [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS6(a, a), CUZK_X86_LIMBS6(b, b)
        : "rdx", "cc");
    w[6] = t6; w[7] = t0; w[8] = t1; w[9] = t2; w[10] = t3; w[11] = t4;
  }
  // clang-format on
}

// r = w·R⁻¹ mod p for a 2N-limb w < p·R, fully reduced. The reduction half of mont_sqr: N
// rows u = (w_low + M·p)/R (u ≤ p since w_low < R), then u + w_high < p + p = 2p and one
// conditional subtraction. N² + N multiplications.
template <size_t N>
__attribute__((always_inline)) inline void redc(uint64_t* r, const uint64_t* w, const uint64_t* p,
                                        uint64_t inv) {
  static_assert(N == 4 || N == 6, "MULX/ADX kernels exist for 4 and 6 limbs");
  uint64_t t0, t1, t2, t3, t4, lo, hi;
  // clang-format off
  if constexpr (N == 4) {
    CUZK_X86_ASM(CUZK_X86_LOAD(0, t0) CUZK_X86_LOAD(1, t1) CUZK_X86_LOAD(2, t2)
        CUZK_X86_LOAD(3, t3)
        "xorl %k[t4], %k[t4]\n\t"
        CUZK_X86_REDUCE4(t0, t1, t2, t3, t4)
        CUZK_X86_REDUCE4(t1, t2, t3, t4, t0)
        CUZK_X86_REDUCE4(t2, t3, t4, t0, t1)
        CUZK_X86_REDUCE4(t3, t4, t0, t1, t2)
        CUZK_X86_ADD_SPILLED("addq", 4, t4) CUZK_X86_ADD_SPILLED("adcq", 5, t0)
        CUZK_X86_ADD_SPILLED("adcq", 6, t1) CUZK_X86_ADD_SPILLED("adcq", 7, t2)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS4(w, w), [w4] "m"(w[4]), [w5] "m"(w[5]), [w6] "m"(w[6]), [w7] "m"(w[7]),
          CUZK_X86_LIMBS4(p, p), [inv] "m"(inv)
        : "rdx", "cc");
    subtract_modulus_once<4>(r, {t4, t0, t1, t2}, p);
  } else {
    uint64_t t5, t6;
    CUZK_X86_ASM(CUZK_X86_LOAD(0, t0) CUZK_X86_LOAD(1, t1) CUZK_X86_LOAD(2, t2)
        CUZK_X86_LOAD(3, t3) CUZK_X86_LOAD(4, t4) CUZK_X86_LOAD(5, t5)
        "xorl %k[t6], %k[t6]\n\t"
        CUZK_X86_REDUCE6(t0, t1, t2, t3, t4, t5, t6)
        CUZK_X86_REDUCE6(t1, t2, t3, t4, t5, t6, t0)
        CUZK_X86_REDUCE6(t2, t3, t4, t5, t6, t0, t1)
        CUZK_X86_REDUCE6(t3, t4, t5, t6, t0, t1, t2)
        CUZK_X86_REDUCE6(t4, t5, t6, t0, t1, t2, t3)
        CUZK_X86_REDUCE6(t5, t6, t0, t1, t2, t3, t4)
        CUZK_X86_ADD_SPILLED("addq", 6, t6) CUZK_X86_ADD_SPILLED("adcq", 7, t0)
        CUZK_X86_ADD_SPILLED("adcq", 8, t1) CUZK_X86_ADD_SPILLED("adcq", 9, t2)
        CUZK_X86_ADD_SPILLED("adcq", 10, t3) CUZK_X86_ADD_SPILLED("adcq", 11, t4)
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
          [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
        : CUZK_X86_LIMBS6(w, w), [w6] "m"(w[6]), [w7] "m"(w[7]), [w8] "m"(w[8]),
          [w9] "m"(w[9]), [w10] "m"(w[10]), [w11] "m"(w[11]), CUZK_X86_LIMBS6(p, p),
          [inv] "m"(inv)
        : "rdx", "cc");
    subtract_modulus_once<6>(r, {t6, t0, t1, t2, t3, t4}, p);
  }
  // clang-format on
}

// w += p·R on 2N limbs (p to the high half) when `borrowed` is 1, as a masked addition with no
// branch on the data: brings a difference of double-width products that went negative back
// into [0, p·R). The carry out is dropped (the callers' sums are below 2^(128N)).
template <size_t N>
__attribute__((always_inline)) inline void add_modulus_high_if(uint64_t* w, unsigned char borrowed,
                                                               const uint64_t* p) {
  const uint64_t mask = uint64_t(0) - borrowed;
  unsigned char carry = 0;
  for (size_t j = 0; j < N; ++j) {
    unsigned long long x;
    carry = _addcarry_u64(carry, w[N + j], p[j] & mask, &x);
    w[N + j] = x;
  }
}

// Fp2 = Fp[u]/(u² + 1) multiplication with lazy reduction (Karatsuba on integers, two REDCs):
//   t0 = a0·b0, t1 = a1·b1, t2 = (a0 + a1)(b0 + b1)      three N×N → 2N products
//   c1 = t2 − t0 − t1 = a0·b1 + a1·b0                   exact: < 2p² < p·R
//   c0 = t0 − t1, plus p·R if that borrows                in [0, p·R)
//   r0 = redc(c0), r1 = redc(c1)
// The sums a0 + a1, b0 + b1 stay unreduced (< 2p < 2^(64N): the spare top bit), so their
// product is < 4p² < 2^(128N). 3N² + 2(N² + N) multiplications against 3(2N² + N) for three
// Montgomery products, and no modular additions (the wide ones need no reduction).
// r0, r1 may alias the inputs.
template <size_t N>
__attribute__((always_inline)) inline void fp2_mul(uint64_t* r0, uint64_t* r1, const uint64_t* a0,
                                           const uint64_t* a1, const uint64_t* b0,
                                           const uint64_t* b1, const uint64_t* p, uint64_t inv) {
  uint64_t sa[N], sb[N], t0[2 * N], t1[2 * N], t2[2 * N];
  unsigned char ca = 0, cb = 0;
  for (size_t j = 0; j < N; ++j) {
    unsigned long long x, y;
    ca = _addcarry_u64(ca, a0[j], a1[j], &x);
    cb = _addcarry_u64(cb, b0[j], b1[j], &y);
    sa[j] = x;
    sb[j] = y;
  }
  mul_wide<N>(t0, a0, b0);
  mul_wide<N>(t1, a1, b1);
  mul_wide<N>(t2, sa, sb);
  unsigned char b2 = 0, b3 = 0, bc = 0;
  for (size_t j = 0; j < 2 * N; ++j) {
    unsigned long long x, y, z;
    b2 = _subborrow_u64(b2, t2[j], t0[j], &x);
    b3 = _subborrow_u64(b3, x, t1[j], &y);
    bc = _subborrow_u64(bc, t0[j], t1[j], &z);
    t2[j] = y;
    t0[j] = z;
  }
  add_modulus_high_if<N>(t0, bc, p);  // c0 borrowed
  redc<N>(r0, t0, p, inv);
  redc<N>(r1, t2, p, inv);
}

// r = (a·b − c·d)·R⁻¹ mod p with one reduction: w = a·b − c·d on 2N limbs, plus p·R if that
// borrows (then w is in [0, p·R), since c·d < p² < p·R), and redc. 3N² + N multiplications
// against 2(2N² + N) for two Montgomery products. r may alias the inputs.
template <size_t N>
__attribute__((always_inline)) inline void mont_difference_of_products(
    uint64_t* r, const uint64_t* a, const uint64_t* b, const uint64_t* c, const uint64_t* d,
    const uint64_t* p, uint64_t inv) {
  uint64_t w[2 * N], v[2 * N];
  mul_wide<N>(w, a, b);
  mul_wide<N>(v, c, d);
  unsigned char borrow = 0;
  for (size_t j = 0; j < 2 * N; ++j) {
    unsigned long long x;
    borrow = _subborrow_u64(borrow, w[j], v[j], &x);
    w[j] = x;
  }
  add_modulus_high_if<N>(w, borrow, p);
  redc<N>(r, w, p, inv);
}

}  // namespace cuzk::ff::x86

// The fragments were expanded where the kernels were defined; keep them out of includers.
#undef CUZK_X86_ADD_SPILLED
#undef CUZK_X86_ASM
#undef CUZK_X86_CLEAR_FLAGS
#undef CUZK_X86_DOUBLE_ADD
#undef CUZK_X86_DOUBLE_ADD_MEM
#undef CUZK_X86_FIRST_PRODUCT
#undef CUZK_X86_FIRST_PRODUCT_STEP
#undef CUZK_X86_LIMBS4
#undef CUZK_X86_LIMBS6
#undef CUZK_X86_MULADD
#undef CUZK_X86_MULTIPLIER
#undef CUZK_X86_PRODUCT_TAIL
#undef CUZK_X86_REDUCE4
#undef CUZK_X86_REDUCE6
#undef CUZK_X86_REDUCE_HEAD
#undef CUZK_X86_REDUCE_TAIL
#undef CUZK_X86_ROW4
#undef CUZK_X86_ROW6
#undef CUZK_X86_PRODUCT_ROW4
#undef CUZK_X86_PRODUCT_ROW6
#undef CUZK_X86_FIRST_ROW4
#undef CUZK_X86_FIRST_ROW6
#undef CUZK_X86_STORE
#undef CUZK_X86_LOAD
#undef CUZK_X86_SCRATCH4
#undef CUZK_X86_SCRATCH6
#undef CUZK_X86_SPILL
#undef CUZK_X86_SQUARE_LIMB

#endif  // CUZK_FF_MONT_X86
