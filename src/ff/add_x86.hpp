#pragma once
// Host modular addition, subtraction and doubling for 4 and 6 limbs in x86-64 assembly: the
// host half of Field's + − dbl and unary − wherever the MULX/ADX kernels are selected
// (CUZK_FF_MONT_X86, mont_x86.hpp). Elsewhere Field uses its portable constexpr code; both
// compute the same function bit for bit, and tests/ff checks each against the other and GMP.
//
// Why assembly. Point formulas do as many additions as multiplications, and the portable code
// (a loop over BigInt limbs with data-dependent selects) left them out of line behind a call,
// returning through the stack; GCC's SLP vectorizer then read the four 8-byte stores of a
// result back as one 32-byte load, which misses store forwarding (about 20 cycles each). Here
// each is one ADD/ADC (or SUB/SBB) chain and a CMOV select on registers, always inlined:
//   a + b:  s = a + b (no carry out: p < 2^(64N−1)); t = s − p; r = borrow ? s : t
//   a − b:  d = a − b; r = d + (borrow ? p : 0)
//   2a:     as a + b with b = a
// No branch depends on the values (CMOV selects), so the time does not depend on them either.
// Cost: about 3N (add) or 4N (sub) simple instructions on 2N registers (the 6-limb subtraction
// N + 2, see there); the modulus is read from memory (a constant, addressed relative to the
// instruction pointer once inlined). The limbs that the assembly overwrites before it has read
// every input are early-clobbered ("+&r"), so no input can share their registers.

#include <cstddef>
#include <cstdint>

// Whether the host assembly (these kernels and the MULX/ADX ones of mont_x86.hpp) is selected.
// Unoptimized builds keep a frame pointer and do not inline: the 6-limb squaring's 12 registers
// plus the base registers of its memory operands could then exceed what the compiler has left,
// so they take the portable code. So do AddressSanitizer builds (the fuzzers): the frame
// pointer and the instrumentation leave clang too few registers for the 6-limb product.
#if defined(__SANITIZE_ADDRESS__)
#define CUZK_FF_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CUZK_FF_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && defined(__ADX__) && defined(__BMI2__) && defined(__OPTIMIZE__) && \
    !defined(__CUDA_ARCH__) && !defined(CUZK_FF_SANITIZED)
#define CUZK_FF_MONT_X86 1
#else
#define CUZK_FF_MONT_X86 0
#endif

#if CUZK_FF_MONT_X86

// `asm inline` tells GCC that the statement is small when it weighs inlining the callers (see
// mont_x86.hpp); host code in .cu files gets plain asm.
#if defined(__CUDACC__)
#define CUZK_X86_ASM_SMALL asm
#else
#define CUZK_X86_ASM_SMALL asm inline
#endif

// clang-format off
#define CUZK_X86_ADC_LIMB(op, x, y, j) op " %[" #y #j "], %[" #x #j "]\n\t"
#define CUZK_X86_ADD_CHAIN4(x, y)  \
  CUZK_X86_ADC_LIMB("addq", x, y, 0) CUZK_X86_ADC_LIMB("adcq", x, y, 1) \
  CUZK_X86_ADC_LIMB("adcq", x, y, 2) CUZK_X86_ADC_LIMB("adcq", x, y, 3)
#define CUZK_X86_ADD_CHAIN6(x, y)  CUZK_X86_ADD_CHAIN4(x, y) \
  CUZK_X86_ADC_LIMB("adcq", x, y, 4) CUZK_X86_ADC_LIMB("adcq", x, y, 5)
#define CUZK_X86_SUB_CHAIN4(x, y)  \
  CUZK_X86_ADC_LIMB("subq", x, y, 0) CUZK_X86_ADC_LIMB("sbbq", x, y, 1) \
  CUZK_X86_ADC_LIMB("sbbq", x, y, 2) CUZK_X86_ADC_LIMB("sbbq", x, y, 3)
#define CUZK_X86_SUB_CHAIN6(x, y)  CUZK_X86_SUB_CHAIN4(x, y) \
  CUZK_X86_ADC_LIMB("sbbq", x, y, 4) CUZK_X86_ADC_LIMB("sbbq", x, y, 5)
// t ← s − p, limb by limb (MOV leaves the flags alone, so the borrow chain runs through).
#define CUZK_X86_COPY_SUB_P(j, op) "movq %[s" #j "], %[t" #j "]\n\t" op " %[p" #j "], %[t" #j "]\n\t"
#define CUZK_X86_COPY_SUB_P4 CUZK_X86_COPY_SUB_P(0, "subq") CUZK_X86_COPY_SUB_P(1, "sbbq") \
  CUZK_X86_COPY_SUB_P(2, "sbbq") CUZK_X86_COPY_SUB_P(3, "sbbq")
#define CUZK_X86_COPY_SUB_P6 CUZK_X86_COPY_SUB_P4 CUZK_X86_COPY_SUB_P(4, "sbbq") \
  CUZK_X86_COPY_SUB_P(5, "sbbq")
// x_j ← y_j where CF is set.
#define CUZK_X86_CMOVC4(x, y) \
  "cmovcq %[" #y "0], %[" #x "0]\n\t" "cmovcq %[" #y "1], %[" #x "1]\n\t" \
  "cmovcq %[" #y "2], %[" #x "2]\n\t" "cmovcq %[" #y "3], %[" #x "3]\n\t"
#define CUZK_X86_CMOVC6(x, y) CUZK_X86_CMOVC4(x, y) \
  "cmovcq %[" #y "4], %[" #x "4]\n\t" "cmovcq %[" #y "5], %[" #x "5]\n\t"
// t ← 0 without touching the flags.
#define CUZK_X86_ZERO4(x) \
  "movl $0, %k[" #x "0]\n\t" "movl $0, %k[" #x "1]\n\t" "movl $0, %k[" #x "2]\n\t" \
  "movl $0, %k[" #x "3]\n\t"
#define CUZK_X86_ZERO6(x) CUZK_X86_ZERO4(x) "movl $0, %k[" #x "4]\n\t" "movl $0, %k[" #x "5]\n\t"

// s_j += (CF ? p_j : 0) on the OF chain, CF untouched.
#define CUZK_X86_ADD_P_IF_BORROW(j) \
  "movl $0, %k[x]\n\t" "cmovcq %[p" #j "], %[x]\n\t" "adoxq %[x], %[s" #j "]\n\t"

#define CUZK_X86_REGS4(x, v) \
  [x##0] "+&r"(v[0]), [x##1] "+&r"(v[1]), [x##2] "+&r"(v[2]), [x##3] "+&r"(v[3])
#define CUZK_X86_REGS6(x, v) CUZK_X86_REGS4(x, v), [x##4] "+&r"(v[4]), [x##5] "+&r"(v[5])
#define CUZK_X86_TEMPS4(x, v) \
  [x##0] "=&r"(v[0]), [x##1] "=&r"(v[1]), [x##2] "=&r"(v[2]), [x##3] "=&r"(v[3])
#define CUZK_X86_TEMPS6(x, v) CUZK_X86_TEMPS4(x, v), [x##4] "=&r"(v[4]), [x##5] "=&r"(v[5])
#define CUZK_X86_MEM4(x, v) \
  [x##0] "m"(v[0]), [x##1] "m"(v[1]), [x##2] "m"(v[2]), [x##3] "m"(v[3])
#define CUZK_X86_IN4(x, v) \
  [x##0] "rm"(v[0]), [x##1] "rm"(v[1]), [x##2] "rm"(v[2]), [x##3] "rm"(v[3])
#define CUZK_X86_MEM6(x, v) CUZK_X86_MEM4(x, v), [x##4] "m"(v[4]), [x##5] "m"(v[5])
// clang-format on

namespace cuzk::ff::x86 {

// r = a + b mod p for a, b < p < 2^(64N−1). r may alias a or b.
template <size_t N>
__attribute__((always_inline)) inline void mod_add(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                           const uint64_t* p) {
  static_assert(N == 4 || N == 6, "assembly kernels exist for 4 and 6 limbs");
  uint64_t s[N], t[N];
  for (size_t j = 0; j < N; ++j) s[j] = a[j];
  // clang-format off
  if constexpr (N == 4) {
    CUZK_X86_ASM_SMALL(CUZK_X86_ADD_CHAIN4(s, b) CUZK_X86_COPY_SUB_P4 CUZK_X86_CMOVC4(t, s)
        : CUZK_X86_REGS4(s, s), CUZK_X86_TEMPS4(t, t)
        : CUZK_X86_IN4(b, b), CUZK_X86_MEM4(p, p)
        : "cc");
  } else {
    CUZK_X86_ASM_SMALL(CUZK_X86_ADD_CHAIN6(s, b) CUZK_X86_COPY_SUB_P6 CUZK_X86_CMOVC6(t, s)
        : CUZK_X86_REGS6(s, s), CUZK_X86_TEMPS6(t, t)
        : CUZK_X86_MEM6(b, b), CUZK_X86_MEM6(p, p)
        : "cc");
  }
  // clang-format on
  for (size_t j = 0; j < N; ++j) r[j] = t[j];
}

// r = t − p if that does not borrow, else t: t mod p for t < 2p < 2^(64N). The last step of the
// Montgomery products (mont_x86.hpp); as a select on registers it also keeps GCC from
// vectorizing a masked select, whose 32-byte loads of 8-byte stores miss store forwarding.
template <size_t N>
__attribute__((always_inline)) inline void subtract_modulus_once(uint64_t* r, const uint64_t (&t)[N],
                                                         const uint64_t* p) {
  static_assert(N == 4 || N == 6, "assembly kernels exist for 4 and 6 limbs");
  uint64_t s[N], d[N];
  for (size_t j = 0; j < N; ++j) s[j] = t[j];
  // clang-format off
  if constexpr (N == 4) {
    CUZK_X86_ASM_SMALL(CUZK_X86_COPY_SUB_P4 CUZK_X86_CMOVC4(t, s)
        : CUZK_X86_REGS4(s, s), CUZK_X86_TEMPS4(t, d)
        : CUZK_X86_MEM4(p, p)
        : "cc");
  } else {
    CUZK_X86_ASM_SMALL(CUZK_X86_COPY_SUB_P6 CUZK_X86_CMOVC6(t, s)
        : CUZK_X86_REGS6(s, s), CUZK_X86_TEMPS6(t, d)
        : CUZK_X86_MEM6(p, p)
        : "cc");
  }
  // clang-format on
  for (size_t j = 0; j < N; ++j) r[j] = d[j];
}

// r = 2a mod p for a < p < 2^(64N−1). r may alias a.
template <size_t N>
__attribute__((always_inline)) inline void mod_dbl(uint64_t* r, const uint64_t* a, const uint64_t* p) {
  static_assert(N == 4 || N == 6, "assembly kernels exist for 4 and 6 limbs");
  uint64_t s[N], t[N];
  for (size_t j = 0; j < N; ++j) s[j] = a[j];
  // clang-format off
  if constexpr (N == 4) {
    CUZK_X86_ASM_SMALL(CUZK_X86_ADD_CHAIN4(s, s) CUZK_X86_COPY_SUB_P4 CUZK_X86_CMOVC4(t, s)
        : CUZK_X86_REGS4(s, s), CUZK_X86_TEMPS4(t, t)
        : CUZK_X86_MEM4(p, p)
        : "cc");
  } else {
    CUZK_X86_ASM_SMALL(CUZK_X86_ADD_CHAIN6(s, s) CUZK_X86_COPY_SUB_P6 CUZK_X86_CMOVC6(t, s)
        : CUZK_X86_REGS6(s, s), CUZK_X86_TEMPS6(t, t)
        : CUZK_X86_MEM6(p, p)
        : "cc");
  }
  // clang-format on
  for (size_t j = 0; j < N; ++j) r[j] = t[j];
}

// r = a − b mod p for a, b < p. r may alias a or b. With a = 0 this is the negation −b (0 ↦ 0:
// no borrow, nothing added).
template <size_t N>
__attribute__((always_inline)) inline void mod_sub(uint64_t* r, const uint64_t* a, const uint64_t* b,
                                           const uint64_t* p) {
  static_assert(N == 4 || N == 6, "assembly kernels exist for 4 and 6 limbs");
  uint64_t s[N];
  for (size_t j = 0; j < N; ++j) s[j] = a[j];
  // clang-format off
  if constexpr (N == 4) {
    uint64_t t[N];
    CUZK_X86_ASM_SMALL(CUZK_X86_SUB_CHAIN4(s, b) CUZK_X86_ZERO4(t) CUZK_X86_CMOVC4(t, p) CUZK_X86_ADD_CHAIN4(s, t)
        : CUZK_X86_REGS4(s, s), CUZK_X86_TEMPS4(t, t)
        : CUZK_X86_IN4(b, b), CUZK_X86_MEM4(p, p)
        : "cc");
  } else {
    // Twelve registers plus the bases of b and p can exceed what is left where this is inlined,
    // so p is added back through one scratch register: SBB m, m keeps the borrow in CF and
    // clears OF, each limb of p is selected by CMOVC (CF stays) and added on the OF chain (ADOX).
    uint64_t m, x;
    CUZK_X86_ASM_SMALL(CUZK_X86_SUB_CHAIN6(s, b) "sbbq %[m], %[m]\n\t"
        CUZK_X86_ADD_P_IF_BORROW(0) CUZK_X86_ADD_P_IF_BORROW(1) CUZK_X86_ADD_P_IF_BORROW(2)
        CUZK_X86_ADD_P_IF_BORROW(3) CUZK_X86_ADD_P_IF_BORROW(4) CUZK_X86_ADD_P_IF_BORROW(5)
        : CUZK_X86_REGS6(s, s), [m] "=&r"(m), [x] "=&r"(x)
        : CUZK_X86_MEM6(b, b), CUZK_X86_MEM6(p, p)
        : "cc");
  }
  // clang-format on
  for (size_t j = 0; j < N; ++j) r[j] = s[j];
}

}  // namespace cuzk::ff::x86

#undef CUZK_X86_ASM_SMALL
#undef CUZK_X86_ADC_LIMB
#undef CUZK_X86_ADD_CHAIN4
#undef CUZK_X86_ADD_CHAIN6
#undef CUZK_X86_SUB_CHAIN4
#undef CUZK_X86_SUB_CHAIN6
#undef CUZK_X86_COPY_SUB_P
#undef CUZK_X86_COPY_SUB_P4
#undef CUZK_X86_COPY_SUB_P6
#undef CUZK_X86_CMOVC4
#undef CUZK_X86_CMOVC6
#undef CUZK_X86_ZERO4
#undef CUZK_X86_ZERO6
#undef CUZK_X86_ADD_P_IF_BORROW
#undef CUZK_X86_REGS4
#undef CUZK_X86_REGS6
#undef CUZK_X86_TEMPS4
#undef CUZK_X86_TEMPS6
#undef CUZK_X86_MEM4
#undef CUZK_X86_MEM6
#undef CUZK_X86_IN4

#endif  // CUZK_FF_MONT_X86
