#pragma once
// Montgomery prime fields, one template for every modulus.
//
// A field is data: a record with the limb count, the modulus in hex and its smallest quadratic
// non-residue. Everything else (R, R², R³, -p⁻¹, the 2-adic decomposition p - 1 = 2^s·t and
// the 2^s-th root of unity) is derived here at compile time and checked with static_assert.
//
// One name, two implementations, one memory layout: an element is N little-endian 64-bit
// limbs holding a·R mod p (R = 2^(64N)), fully reduced (< p). On the host, products use
// MULX/ADCX/ADOX assembly for 4 and 6 limbs where the CPU has them (mont_x86.hpp) and portable
// 64-bit CIOS with 128-bit intermediates otherwise and in constant evaluation; on the device
// (`__CUDA_ARCH__`) the same bytes are read as 2N 32-bit words and multiplied with PTX
// multiply-add carry chains (mont_ptx.cuh).
// A buffer of elements written on one side is therefore valid on the other.
//
// Thread-safety: values only; no shared state.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "ff/add_x86.hpp"
#include "ff/bigint.hpp"
#include "ff/binary_gcd.hpp"
#include "ff/mont_x86.hpp"
#include "util/host_device.hpp"

#if defined(__CUDACC__)
#include "ff/mont_ptx.cuh"
#endif

// The element-wise operations (+ − * sqr dbl, unary −) are always inlined on the host: they are
// a few dozen instructions, and a call would return the result through the stack. (nvcc's
// CUZK_HD already forces inlining on both sides.)
#if defined(__CUDACC__)
#define CUZK_FF_HOT CUZK_HD
#else
#define CUZK_FF_HOT [[gnu::always_inline]] inline
#endif

namespace cuzk::ff {

namespace detail {
using u128 = unsigned __int128;

// The portable modular addition and subtraction (a, b < p < 2^(64N−1)): the constant-evaluation
// path, and the host path where the assembly of add_x86.hpp is not selected.
template <size_t N>
constexpr BigInt<N> mod_add_portable(BigInt<N> a, const BigInt<N>& b, const BigInt<N>& p) {
  add_in_place(a, b);  // no carry out: both < p < 2^(64N-1)
  BigInt<N> d = a;
  if (!sub_in_place(d, p)) a = d;
  return a;
}
template <size_t N>
constexpr BigInt<N> mod_sub_portable(BigInt<N> a, const BigInt<N>& b, const BigInt<N>& p) {
  if (sub_in_place(a, b)) add_in_place(a, p);
  return a;
}

// Montgomery product r = a·b·R⁻¹ mod p (CIOS, Koç et al. 1996), for moduli whose top limb
// leaves at least one bit spare: then the running sum stays below 2p < 2^(64N) and needs only
// N+1 limbs. Cost: 2N² + N 64×64→128 multiplications.
template <size_t N>
CUZK_HD constexpr void mont_mul_cios(uint64_t r[N], const uint64_t a[N], const uint64_t b[N],
                                     const uint64_t p[N], uint64_t inv) {
  uint64_t t[N + 1] = {};
  for (size_t i = 0; i < N; ++i) {
    u128 acc = 0;
    for (size_t j = 0; j < N; ++j) {
      acc += u128(a[j]) * b[i] + t[j];
      t[j] = uint64_t(acc);
      acc >>= 64;
    }
    uint64_t hi = t[N] + uint64_t(acc);
    uint64_t m = t[0] * inv;
    acc = u128(m) * p[0] + t[0];
    acc >>= 64;
    for (size_t j = 1; j < N; ++j) {
      acc += u128(m) * p[j] + t[j];
      t[j - 1] = uint64_t(acc);
      acc >>= 64;
    }
    acc += hi;
    t[N - 1] = uint64_t(acc);
    t[N] = uint64_t(acc >> 64);
  }
  // t < 2p: one conditional subtraction.
  uint64_t d[N];
  uint64_t borrow = 0;
  for (size_t j = 0; j < N; ++j) {
    u128 diff = u128(t[j]) - p[j] - borrow;
    d[j] = uint64_t(diff);
    borrow = uint64_t(diff >> 64) & 1;
  }
  bool keep_t = (t[N] == 0) && borrow;
  for (size_t j = 0; j < N; ++j) r[j] = keep_t ? t[j] : d[j];
}

#if defined(__CUDACC__)
// An element as the device holds it: the host's N 64-bit limbs as 2N little-endian 32-bit
// words, in registers.
template <size_t W>
struct DeviceWords {
  uint32_t w[W];
};

template <size_t N>
CUZK_HD constexpr DeviceWords<2 * N> words_of(const BigInt<N>& x) {
  DeviceWords<2 * N> r{};
  for (size_t i = 0; i < N; ++i) {
    r.w[2 * i] = uint32_t(x.limb[i]);
    r.w[2 * i + 1] = uint32_t(x.limb[i] >> 32);
  }
  return r;
}
#endif
}  // namespace detail

template <class Data>
class Field {
 public:
  static constexpr size_t kLimbs = Data::kLimbs;
  using Int = BigInt<kLimbs>;

  static constexpr Int kModulus = parse_hex<kLimbs>(Data::kModulusHex);
  static constexpr size_t kBits = kModulus.bit_length();
  static constexpr size_t kBytes = (kBits + 7) / 8;                    // canonical encoding length
  static constexpr uint64_t kInv = neg_inverse_u64(kModulus.limb[0]);  // -p⁻¹ mod 2^64
  static constexpr Int kR = pow2_mod(64 * kLimbs, kModulus);
  static constexpr Int kR2 = pow2_mod(128 * kLimbs, kModulus);
  static constexpr Int kR3 = pow2_mod(192 * kLimbs, kModulus);

  static_assert(kModulus.is_odd(), "Montgomery arithmetic needs an odd modulus");
  static_assert(kModulus.limb[kLimbs - 1] >> 63 == 0,
                "the spare top bit keeps sums below 2^(64N): additions need no carry limb");
  static_assert(kInv * kModulus.limb[0] == ~uint64_t(0), "-p^-1 mod 2^64 is wrong");
  static_assert(compare(kR, kModulus) < 0 && compare(kR2, kModulus) < 0);

  // Limbs of a·R mod p, < p. Public so that buffers can be filled, copied to the device and
  // reinterpreted without conversion; use the named constructors to create values.
  uint64_t mont[kLimbs];

  Field() = default;  // trivially constructible: large buffers are not zero-filled twice

  static constexpr Field from_montgomery(const Int& m) {
    Field r;
    for (size_t i = 0; i < kLimbs; ++i) r.mont[i] = m.limb[i];
    return r;
  }
  CUZK_HD static constexpr Field zero() {
    Field r;
    for (size_t i = 0; i < kLimbs; ++i) r.mont[i] = 0;
    return r;
  }
  CUZK_HD static constexpr Field one() { return from_montgomery(kR); }
  // The canonical integer v (< p) into Montgomery form.
  CUZK_HD static constexpr Field from_int(const Int& v) {
    return from_montgomery(v) * from_montgomery(kR2);
  }
  CUZK_HD static constexpr Field from_u64(uint64_t v) { return from_int(Int::from_u64(v)); }
  // The canonical integer (< p).
  CUZK_HD constexpr Int to_int() const {
    Int unit = Int::from_u64(1);
    return (*this * from_montgomery(unit)).as_int();
  }
  CUZK_HD constexpr Int as_int() const {
    Int r;
    for (size_t i = 0; i < kLimbs; ++i) r.limb[i] = mont[i];
    return r;
  }

  CUZK_FF_HOT constexpr bool is_zero() const { return as_int().is_zero(); }
  CUZK_FF_HOT constexpr bool operator==(const Field& o) const {
    uint64_t acc = 0;
    for (size_t i = 0; i < kLimbs; ++i) acc |= mont[i] ^ o.mont[i];
    return acc == 0;
  }
  CUZK_FF_HOT constexpr bool operator!=(const Field& o) const { return !(*this == o); }

  // Each operation below has two implementations: PTX on the device and portable 64-bit limb
  // code on the host. Constant evaluation in the device compilation pass (static_asserts,
  // constexpr constants) also takes the portable code, which is why the device branches test
  // std::is_constant_evaluated().
  CUZK_FF_HOT constexpr Field operator+(const Field& o) const {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      DeviceWords a = to_words(*this), b = to_words(o), r;
      ptx::mod_add<kWords>(r.w, a.w, b.w, modulus_words().w);
      return from_words(r);
    }
#elif CUZK_FF_MONT_X86
    // ADD/ADC and CMOV assembly (add_x86.hpp); constant evaluation keeps the portable code.
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Field r;
        x86::mod_add<kLimbs>(r.mont, mont, o.mont, kModulus.limb);
        return r;
      }
    }
#endif
    return add_portable(*this, o);
  }
  CUZK_FF_HOT constexpr Field operator-(const Field& o) const {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      DeviceWords a = to_words(*this), b = to_words(o), r;
      ptx::mod_sub<kWords>(r.w, a.w, b.w, modulus_words().w);
      return from_words(r);
    }
#elif CUZK_FF_MONT_X86
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Field r;
        x86::mod_sub<kLimbs>(r.mont, mont, o.mont, kModulus.limb);
        return r;
      }
    }
#endif
    return sub_portable(*this, o);
  }
  CUZK_FF_HOT constexpr Field operator-() const {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      DeviceWords a = to_words(*this), r;
      ptx::mod_neg<kWords>(r.w, a.w, modulus_words().w);
      return from_words(r);
    }
#endif
    return zero() - *this;
  }
  CUZK_FF_HOT constexpr Field operator*(const Field& o) const {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      if constexpr (kOutlinedDeviceProducts) return product_outlined(*this, o);
      return product_inline(*this, o);
    }
#elif CUZK_FF_MONT_X86
    // MULX/ADX kernel (mont_x86.hpp); constant evaluation keeps the portable CIOS.
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Field r;
        x86::mont_mul<kLimbs>(r.mont, mont, o.mont, kModulus.limb, kInv);
        return r;
      }
    }
#endif
    return mul_portable(*this, o);
  }
  // a·b − c·d. On the device and in the x86 kernels both products stay at double width and
  // share one Montgomery reduction (ptx:: and x86::mont_difference_of_products); elsewhere two
  // products and a subtraction, with the same result.
  CUZK_FF_HOT static constexpr Field difference_of_products(const Field& a, const Field& b,
                                                            const Field& c, const Field& d) {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      if constexpr (kOutlinedDeviceProducts) return difference_of_products_outlined(a, b, c, d);
      return difference_of_products_inline(a, b, c, d);
    }
#elif CUZK_FF_MONT_X86
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Field r;
        x86::mont_difference_of_products<kLimbs>(r.mont, a.mont, b.mont, c.mont, d.mont,
                                                 kModulus.limb, kInv);
        return r;
      }
    }
#endif
    return a * b - c * d;
  }
  CUZK_FF_HOT constexpr Field& operator+=(const Field& o) { return *this = *this + o; }
  CUZK_FF_HOT constexpr Field& operator-=(const Field& o) { return *this = *this - o; }
  CUZK_FF_HOT constexpr Field& operator*=(const Field& o) { return *this = *this * o; }
  CUZK_FF_HOT constexpr Field sqr() const {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      if constexpr (kOutlinedDeviceProducts) return square_outlined(*this);
      return square_inline(*this);
    }
#elif CUZK_FF_MONT_X86
    // Dedicated MULX/ADX squaring: 63 instead of 78 multiplications for 6 limbs (mont_x86.hpp).
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Field r;
        x86::mont_sqr<kLimbs>(r.mont, mont, kModulus.limb, kInv);
        return r;
      }
    }
#endif
    return *this * *this;
  }
  CUZK_FF_HOT constexpr Field dbl() const {
#if !defined(__CUDA_ARCH__) && CUZK_FF_MONT_X86
    if constexpr (kLimbs == 4 || kLimbs == 6) {
      if (!std::is_constant_evaluated()) {
        Field r;
        x86::mod_dbl<kLimbs>(r.mont, mont, kModulus.limb);
        return r;
      }
    }
#endif
    return *this + *this;
  }

  // this^e for a little-endian exponent (square-and-multiply, left to right).
  template <size_t M>
  CUZK_HD constexpr Field pow(const BigInt<M>& e) const {
    Field r = one();
    for (size_t i = e.bit_length(); i-- > 0;) {
      r = r.sqr();
      if (e.bit(i)) r *= *this;
    }
    return r;
  }
  CUZK_HD constexpr Field pow(uint64_t e) const { return pow(BigInt<1>{{e}}); }

  // Multiplicative inverse; zero maps to zero (callers that can see zero check first).
  // Host: Pornin's constant-time binary GCD (binary_gcd.hpp), 2.5-3× faster than the binary
  // extended Euclid that constant evaluation uses (inverse_portable; variable time); device:
  // Fermat (a^(p-2)), which has no data-dependent branches across a warp.
  CUZK_HD constexpr Field inverse() const {
#if defined(__CUDA_ARCH__)
    if (!std::is_constant_evaluated()) {
      return pow_modulus_minus_2(std::make_index_sequence<kLimbs>{});
    }
#else
    if (!std::is_constant_evaluated()) return inverse_binary_gcd(*this);
#endif
    return inverse_portable(*this);
  }

  // Legendre symbol: 1 for a non-zero square, -1 for a non-square, 0 for zero.
  constexpr int legendre() const {
    if (is_zero()) return 0;
    return pow(kHalfModulusMinus1) == one() ? 1 : -1;
  }

  // A square root, if one exists (either root; callers pick a sign by their convention).
  // p ≡ 3 (mod 4): a^((p+1)/4). Otherwise Tonelli–Shanks with the 2^s-th root of unity.
  constexpr std::optional<Field> sqrt() const {
    if (is_zero()) return zero();
    if constexpr (kTwoAdicity == 1) {
      Field r = pow(kQuarterModulusPlus1);
      if (r.sqr() != *this) return std::nullopt;
      return r;
    } else {
      if (legendre() != 1) return std::nullopt;
      // Invariants: x² = a·b, b has order 2^m, z has order 2^m.
      Field z = kRootOfUnity;
      size_t m = kTwoAdicity;
      Field x = pow(kHalfOddPartPlus1);  // a^((t+1)/2)
      Field b = pow(kOddPart);           // a^t
      while (b != one()) {
        size_t k = 0;
        for (Field b2 = b; b2 != one(); b2 = b2.sqr()) ++k;
        Field w = z;
        for (size_t i = 0; i + 1 < m - k; ++i) w = w.sqr();
        z = w.sqr();
        b *= z;
        x *= w;
        m = k;
      }
      return x;
    }
  }

  // Replaces every element by its inverse with one field inversion (Montgomery's trick,
  // 3(n-1) multiplications). Zeros stay zero and do not poison the others.
  static void batch_inverse(std::span<Field> values) {
    if (values.empty()) return;
    std::vector<Field> prefix(values.size());
    Field acc = one();
    for (size_t i = 0; i < values.size(); ++i) {
      prefix[i] = acc;
      if (!values[i].is_zero()) acc *= values[i];
    }
    Field inv = acc.inverse();
    for (size_t i = values.size(); i-- > 0;) {
      if (values[i].is_zero()) continue;
      Field next = inv * values[i];
      values[i] = inv * prefix[i];
      inv = next;
    }
  }

  // A primitive 2^log_n-th root of unity, ω_(2^s)^(2^(s-log_n)) with ω_(2^s) = g^t for the
  // smallest non-residue g (the convention of snarkjs/ffjavascript, so evaluation domains
  // agree point for point with theirs). Requires log_n ≤ kTwoAdicity.
  static constexpr Field root_of_unity(size_t log_n) {
    Field w = kRootOfUnity;
    for (size_t i = log_n; i < kTwoAdicity; ++i) w = w.sqr();
    return w;
  }

  // Canonical bytes (kBytes long), little- or big-endian.
  void to_bytes_le(std::span<uint8_t, kBytes> out) const {
    Int v = to_int();
    for (size_t i = 0; i < kBytes; ++i) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
  }
  void to_bytes_be(std::span<uint8_t, kBytes> out) const {
    Int v = to_int();
    for (size_t i = 0; i < kBytes; ++i)
      out[kBytes - 1 - i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
  }
  // Rejects (nullopt) any encoding of an integer ≥ p: non-canonical input is never reduced
  // silently.
  static std::optional<Field> from_bytes_le(std::span<const uint8_t, kBytes> in) {
    Int v{};
    for (size_t i = 0; i < kBytes; ++i) v.limb[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
    if (compare(v, kModulus) >= 0) return std::nullopt;
    return from_int(v);
  }
  static std::optional<Field> from_bytes_be(std::span<const uint8_t, kBytes> in) {
    Int v{};
    for (size_t i = 0; i < kBytes; ++i)
      v.limb[i / 8] |= uint64_t(in[kBytes - 1 - i]) << (8 * (i % 8));
    if (compare(v, kModulus) >= 0) return std::nullopt;
    return from_int(v);
  }

  // Uniform sample by rejection (each try succeeds with probability > 1/2).
  template <class Rng>  // a UniformRandomBitGenerator producing 64-bit words
  static Field random(Rng& rng) {
    static_assert(sizeof(typename Rng::result_type) == 8);
    for (;;) {
      Int v;
      for (size_t i = 0; i < kLimbs; ++i) v.limb[i] = rng();
      size_t top_bits = kBits - 64 * (kLimbs - 1);
      if (top_bits < 64) v.limb[kLimbs - 1] &= (uint64_t(1) << top_bits) - 1;
      if (compare(v, kModulus) < 0) return from_montgomery(v);  // uniform in Montgomery form too
    }
  }

  // p - 1 = 2^s · t with t odd.
  static constexpr size_t kTwoAdicity = [] {
    Int m = kModulus;
    m.limb[0] -= 1;
    size_t s = 0;
    while (!m.bit(s)) ++s;
    return s;
  }();
  static constexpr Int kOddPart = [] {
    Int m = kModulus;
    m.limb[0] -= 1;
    return shr(m, kTwoAdicity);
  }();
  // Defined below the class (a class is incomplete inside its own body).
  static const Field kNonResidue;   // the smallest quadratic non-residue
  static const Field kRootOfUnity;  // g^t: order exactly 2^s

  // Checks of the derived constants; each field instantiation static_asserts this.
  // The non-residue and the root are recomputed by the same formulas as kNonResidue and
  // kRootOfUnity rather than read from them: nvcc's front end (CUDA 13.0) cannot
  // constant-evaluate a static member of a class template whose constexpr definition is out
  // of class, and CUDA sources include the curve headers that static_assert this.
  static constexpr bool constants_are_consistent() {
    const Field non_residue = from_u64(Data::kSmallestNonResidue);
    Field w = non_residue.pow(kOddPart);
    for (size_t i = 1; i < kTwoAdicity; ++i) w = w.sqr();
    // w = ω^(2^(s-1)) must be -1: then ω has order exactly 2^s.
    bool root_ok = w == -one() && w.sqr() == one();
    bool non_residue_ok = non_residue.pow(kHalfModulusMinus1) == -one();
    bool one_ok = from_u64(1) == one() && one().to_int() == Int::from_u64(1);
    return root_ok && non_residue_ok && one_ok;
  }

#if defined(__CUDACC__)
  // Products whose operands lie in shared memory, for fields whose device products are calls
  // (kOutlinedDeviceProducts): an operand is the 32-bit shared-window address of its first
  // 64-bit limb, the next limbs kStride bytes apart (a block's per-thread values stored
  // limb-major). A call then passes an address
  // where a by-value operand is kWords registers moved into the call's argument registers, and
  // the caller holds nothing in registers across it. The GPU MSM's G1 accumulation calls these
  // (gpu/msm/kernels.cuh, SharedSum): BLS12-381 G1 2^26 300.9 → 297.7 ms on an H200
  // (bench/results/msm/2026-12-04_h200_de7556f_msm_shared_operands_ab.txt).
  template <unsigned kStride>
  CUZK_DEVICE static Field load_shared(uint32_t address) {
    Field f;
#pragma unroll
    for (size_t i = 0; i < kLimbs; ++i) f.mont[i] = ptx::load_shared_u64(address + i * kStride);
    return f;
  }
  template <unsigned kStride>
  CUZK_DEVICE static void store_shared(uint32_t address, const Field& f) {
#pragma unroll
    for (size_t i = 0; i < kLimbs; ++i) ptx::store_shared_u64(address + i * kStride, f.mont[i]);
  }
  template <unsigned kStride>
  __device__ __noinline__ static Field product_of_shared(uint32_t a, uint32_t b) {
    static_assert(kOutlinedDeviceProducts);
    return product_inline(load_shared<kStride>(a), load_shared<kStride>(b));
  }
  template <unsigned kStride>
  __device__ __noinline__ static Field square_of_shared(uint32_t a) {
    static_assert(kOutlinedDeviceProducts);
    return square_inline(load_shared<kStride>(a));
  }
  // a·b − c·d (difference_of_products).
  template <unsigned kStride>
  __device__ __noinline__ static Field difference_of_products_of_shared(uint32_t a, uint32_t b,
                                                                       uint32_t c, uint32_t d) {
    static_assert(kOutlinedDeviceProducts);
    return difference_of_products_inline(load_shared<kStride>(a), load_shared<kStride>(b),
                                         load_shared<kStride>(c), load_shared<kStride>(d));
  }

  // (r0 + r1·u) = (a0 + a1·u)(b0 + b1·u) with u² = −1, reduced lazily (ptx::fp2_mul): the
  // device product of Fp2 = Fp[u]/(u² + 1). Outputs may alias inputs.
  CUZK_DEVICE static void fp2_mul(Field& r0, Field& r1, const Field& a0, const Field& a1,
                                  const Field& b0, const Field& b1);
#endif

  // Device products and squares of fields of 6 limbs and more are calls to one copy of their
  // code rather than inlined. A BLS12-381 Fp product is about 420 instructions; inlined, a G1
  // mixed addition is ~4200 of them and a G2 one ~14700, more than the SM's instruction caches
  // hold, and the MSM accumulation spent 36-38% of its cycles (G1 and G2 in registers) and 78%
  // (G2 with shared sums) with warps waiting for instructions (Nsight Compute, H200). Called,
  // the loop's code is the product's plus the formula's glue: G1 2^26 393.5 ms against 447.0,
  // G2 2^24 371.6 against 599.6 (BLS12-381, random scalars, measured against the inlined
  // products; bench/results/msm/2026-11-30_h200_da63575_msm.json). 4-limb fields stay inlined:
  // BN254 Fp outlined made G1 slower (2^24 60.0 ms against 56.3, 2^26 198.6 against 189.1) for
  // little on G2 (2^24 185.1 against 188.1; bench/results/msm/2026-11-30_h200_1745b08_msm.json),
  // and the NTT's butterfly holds a single scalar-field product.
  static constexpr bool kOutlinedDeviceProducts = kLimbs >= 6;

 private:
  static constexpr Int kModulusMinus2 = [] {
    Int m = kModulus;
    m.limb[0] -= 2;  // p is odd and > 2: no borrow
    return m;
  }();
  static constexpr Int kHalfModulusMinus1 = [] {
    Int m = kModulus;
    m.limb[0] -= 1;
    return shr(m, 1);
  }();
  static constexpr Int kQuarterModulusPlus1 = [] {
    Int m = kModulus;
    add_in_place(m, Int::from_u64(1));
    return shr(m, 2);
  }();
  static constexpr Int kHalfOddPartPlus1 = [] {
    Int m = kOddPart;
    add_in_place(m, Int::from_u64(1));
    return shr(m, 1);
  }();

  // The host implementations; constexpr and host-only (they read the host constants), so the
  // device pass evaluates them only at compile time.
  static constexpr Field add_portable(const Field& a, const Field& b) {
    return from_montgomery(detail::mod_add_portable(a.as_int(), b.as_int(), kModulus));
  }
  static constexpr Field sub_portable(const Field& a, const Field& b) {
    return from_montgomery(detail::mod_sub_portable(a.as_int(), b.as_int(), kModulus));
  }
  static constexpr Field mul_portable(const Field& a, const Field& b) {
    Field r;
    detail::mont_mul_cios<kLimbs>(r.mont, a.mont, b.mont, kModulus.limb, kInv);
    return r;
  }
  // x = aR; the GCD gives x⁻¹ = a⁻¹R⁻¹; one Montgomery product with R³ gives a⁻¹R. Only
  // whether the value is zero decides a branch.
  static Field inverse_binary_gcd(const Field& a) {
    if (a.is_zero()) return zero();
    Field r;
    if (!detail::binary_gcd_inverse<kLimbs>(r.mont, a.mont, kModulus.limb, kInv, kBits)) {
      return inverse_portable(a);  // unreachable by the step bound; kept as a guard
    }
    return r * from_montgomery(kR3);
  }
  static constexpr Field inverse_portable(const Field& a) {
    if (a.is_zero()) return zero();
    // x = aR; binary Euclid gives x⁻¹ = a⁻¹R⁻¹; one Montgomery product with R³ gives a⁻¹R.
    Int u = a.as_int(), v = kModulus;
    Int x1 = Int::from_u64(1), x2{};
    auto halve = [](Int& x) {  // x/2 mod p
      uint64_t carry = x.is_odd() ? add_in_place(x, kModulus) : 0;
      shr1_in_place(x, carry);
    };
    const Int unit = Int::from_u64(1);
    while (u != unit && v != unit) {
      while (!u.is_odd()) {
        shr1_in_place(u);
        halve(x1);
      }
      while (!v.is_odd()) {
        shr1_in_place(v);
        halve(x2);
      }
      if (compare(u, v) >= 0) {
        sub_in_place(u, v);
        if (sub_in_place(x1, x2)) add_in_place(x1, kModulus);
      } else {
        sub_in_place(v, u);
        if (sub_in_place(x2, x1)) add_in_place(x2, kModulus);
      }
    }
    return from_montgomery(u == unit ? x1 : x2) * from_montgomery(kR3);
  }

#if defined(__CUDACC__)
  // Device view of an element: the same bytes as 2N little-endian 32-bit words, held in
  // registers. Converting limb by limb (rather than reinterpreting the array) lets the compiler
  // keep both views in registers: each 64-bit limb splits into a register pair at no cost.
  static constexpr size_t kWords = 2 * kLimbs;
  using DeviceWords = detail::DeviceWords<kWords>;
  static constexpr uint32_t kInv32 = uint32_t(kInv);  // -p⁻¹ mod 2^32 is the low word of -p⁻¹

  // Device code may use a host constexpr scalar but not index a host constexpr array (that
  // would reference host memory), so constants reach the device one scalar at a time, with
  // compile-time indices.
  template <size_t I>
  static constexpr uint32_t kModulusWord = uint32_t(kModulus.limb[I / 2] >> (32 * (I % 2)));
  template <size_t I>
  static constexpr uint64_t kModulusMinus2Limb = kModulusMinus2.limb[I];
  // p ≡ 2^64 − 2^32 + 1 mod 2^64 (BLS12-381's r): the products' reduction steps take
  // ptx::reduce_row_low_one_max, which needs no multiplication for the two low words.
  static constexpr bool kModulusLowOneMax = kModulusWord<0> == 1 && kModulusWord<1> == 0xffffffffu;
  // p² on 2N limbs (schoolbook), for the lazy reductions of fp2_mul.
  static constexpr BigInt<2 * kLimbs> kModulusSquared = [] {
    BigInt<2 * kLimbs> r{};
    for (size_t i = 0; i < kLimbs; ++i) {
      uint64_t carry = 0;
      for (size_t j = 0; j < kLimbs; ++j) {
        const detail::u128 t =
            detail::u128(kModulus.limb[i]) * kModulus.limb[j] + r.limb[i + j] + carry;
        r.limb[i + j] = uint64_t(t);
        carry = uint64_t(t >> 64);
      }
      r.limb[i + kLimbs] = carry;
    }
    return r;
  }();
  template <size_t I>
  static constexpr uint32_t kModulusSquaredWord = uint32_t(kModulusSquared.limb[I / 2] >>
                                                           (32 * (I % 2)));

  __device__ __noinline__ static Field product_outlined(Field a, Field b);
  __device__ __noinline__ static Field square_outlined(Field a);
  __device__ __noinline__ static Field difference_of_products_outlined(Field a, Field b, Field c,
                                                                       Field d);
  // The device products' one body each, inlined where called: in operator* and sqr, or in
  // the outlined and shared-operand functions for fields whose products are calls.
  CUZK_DEVICE static Field product_inline(const Field& a, const Field& b) {
    const DeviceWords x = to_words(a), y = to_words(b);
    DeviceWords r;
    ptx::mont_mul<kWords, kModulusLowOneMax>(r.w, x.w, y.w, modulus_words().w, device_inv32());
    return from_words(r);
  }
  CUZK_DEVICE static Field square_inline(const Field& a) {
    const DeviceWords x = to_words(a);
    DeviceWords r;
    ptx::mont_sqr<kWords>(r.w, x.w, modulus_words().w, device_inv32());
    return from_words(r);
  }
  CUZK_DEVICE static Field difference_of_products_inline(const Field& a, const Field& b,
                                                         const Field& c, const Field& d) {
    const DeviceWords x = to_words(a), y = to_words(b), u = to_words(c), v = to_words(d);
    DeviceWords r;
    ptx::mont_difference_of_products<kWords>(
        r.w, x.w, y.w, u.w, v.w, modulus_words().w,
        modulus_squared_words(std::make_index_sequence<2 * kWords>{}).w, device_inv32());
    return from_words(r);
  }
  CUZK_DEVICE static DeviceWords to_words(const Field& f) {
    DeviceWords r;
#pragma unroll
    for (size_t i = 0; i < kLimbs; ++i) {
      r.w[2 * i] = uint32_t(f.mont[i]);
      r.w[2 * i + 1] = uint32_t(f.mont[i] >> 32);
    }
    return r;
  }
  CUZK_DEVICE static Field from_words(const DeviceWords& d) {
    Field r;
#pragma unroll
    for (size_t i = 0; i < kLimbs; ++i) r.mont[i] = d.w[2 * i] | (uint64_t(d.w[2 * i + 1]) << 32);
    return r;
  }
  template <size_t... I>
  CUZK_DEVICE static DeviceWords modulus_words(std::index_sequence<I...>) {
    return DeviceWords{{kModulusWord<I>...}};
  }
  CUZK_DEVICE static DeviceWords modulus_words() {
    return modulus_words(std::make_index_sequence<kWords>{});
  }
  template <size_t... I>
  CUZK_DEVICE static detail::DeviceWords<2 * kWords> modulus_squared_words(
      std::index_sequence<I...>) {
    return detail::DeviceWords<2 * kWords>{{kModulusSquaredWord<I>...}};
  }
  // -p⁻¹ mod 2^32 as the device products use it: read from constant memory (kDeviceInv32,
  // below the class) rather than written as an immediate. For BLS12-381 Fr it is 0xffffffff;
  // as an immediate ptxas turns each m = t_0·inv into a negation and then no longer fuses the
  // m·p rows into wide multiply-adds (178 IMAD per product instead of 137, 51 against 58·10⁹
  // products/s on an H200). Opaque, every field gets the same code; the other fields measured
  // the same either way (tests/gpu/field_throughput_test.cu compares both). BLS12-381 Fr's
  // products no longer read it (kModulusLowOneMax); its squares still do.
  CUZK_DEVICE static uint32_t device_inv32();

  // a^(p-2) by square-and-multiply, most significant limb first, each limb an immediate (an
  // exponent array indexed at run time would live in local memory). The loop's branch depends
  // only on the constant exponent, so a warp never diverges. Cost: 64N squarings and about
  // 32N multiplications.
  template <size_t... I>
  CUZK_DEVICE Field pow_modulus_minus_2(std::index_sequence<I...>) const {
    Field r = one();
    (pow_step(r, kModulusMinus2Limb<kLimbs - 1 - I>), ...);
    return r;
  }
  CUZK_DEVICE void pow_step(Field& r, uint64_t exponent_limb) const {
#pragma unroll 1
    for (int bit = 63; bit >= 0; --bit) {
      r = r.sqr();
      if ((exponent_limb >> bit) & 1) r *= *this;
    }
  }
#endif
};

#if defined(__CUDACC__)
// One copy per translation unit's device module (cuzk compiles CUDA without relocatable device
// code); all threads read the same word, which constant memory broadcasts.
template <class Data>
__constant__ uint32_t kDeviceInv32 = uint32_t(Field<Data>::kInv);

template <class Data>
CUZK_DEVICE uint32_t Field<Data>::device_inv32() {
  return kDeviceInv32<Data>;
}

template <class Data>
__device__ __noinline__ Field<Data> Field<Data>::product_outlined(Field a, Field b) {
  return product_inline(a, b);
}

template <class Data>
__device__ __noinline__ Field<Data> Field<Data>::difference_of_products_outlined(Field a, Field b,
                                                                                 Field c, Field d) {
  return difference_of_products_inline(a, b, c, d);
}

template <class Data>
__device__ __noinline__ Field<Data> Field<Data>::square_outlined(Field a) {
  return square_inline(a);
}

template <class Data>
CUZK_DEVICE void Field<Data>::fp2_mul(Field& r0, Field& r1, const Field& a0, const Field& a1,
                                      const Field& b0, const Field& b1) {
  const DeviceWords x0 = to_words(a0), x1 = to_words(a1), y0 = to_words(b0), y1 = to_words(b1);
  DeviceWords z0, z1;
  ptx::fp2_mul<kWords>(z0.w, z1.w, x0.w, x1.w, y0.w, y1.w, modulus_words().w,
                       modulus_squared_words(std::make_index_sequence<2 * kWords>{}).w,
                       device_inv32());
  r0 = from_words(z0);
  r1 = from_words(z1);
}
#endif

// `constexpr const` rather than `constexpr` alone: nvcc's front end drops `constexpr` when it
// regenerates these definitions for the host compiler, which then needs the `const` to match
// the declarations above.
template <class Data>
constexpr const Field<Data> Field<Data>::kNonResidue =
    Field<Data>::from_u64(Data::kSmallestNonResidue);
template <class Data>
constexpr const Field<Data> Field<Data>::kRootOfUnity =
    Field<Data>::kNonResidue.pow(Field<Data>::kOddPart);

}  // namespace cuzk::ff
