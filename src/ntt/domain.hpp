#pragma once
// A radix-2 evaluation domain H = {ω^i : i < n}, n = 2^k, of a prime field Fr, its coset g·H,
// and the number-theoretic transforms between coefficients and values on them:
//   forward:        X_i = Σ_j x_j ω^(ij)         (values at ω^i)
//   inverse:        x_j = n⁻¹ Σ_i X_i ω^(-ij)
//   coset_forward:  X_i = Σ_j x_j (g·ω^i)^j      (values at g·ω^i)
//   coset_inverse:  its inverse.
// Each takes the order of its input and of its output (natural or bit-reversed), so that a
// forward/inverse pair skips the permutation in between: natural → bit-reversed is one
// decimation-in-frequency (DIF) pass, bit-reversed → natural one decimation-in-time (DIT) pass,
// and only natural → natural (or bit-reversed → bit-reversed) adds a bit-reversal permutation.
//
// Which ω and g: two provers fix them differently and keys bake them in (constraint j is the
// point ω^j of the key's Lagrange basis), so the Convention chooses.
//   kSnarkjs (snarkjs, rapidsnark, circom): ω_(2^s) = 5^t, 5 the smallest quadratic
//     non-residue (ffjavascript's nqr), r − 1 = 2^s·t; ω = ω_(2^s)^(2^(s−k)). The coset is the
//     odd 2n-th roots, g = ω_2n, except for n = 2^s, where no 2n-th root exists and snarkjs
//     shifts by Fr.shift = nqr² = 25 (ffjavascript wasm_field1.js; groth16_prove.js).
//   kBellman (bellman, bellperson): ω_(2^s) = 7^t and g = 7, the field's
//     MULTIPLICATIVE_GENERATOR (zkcrypto bls12_381 scalar.rs: ROOT_OF_UNITY = GENERATOR^t;
//     bellman domain.rs: coset_fft, icoset_fft, divide_by_z_on_coset). .params keys exist for
//     BLS12-381 only; on BN254 the same rule with 7, the generator ff-derived BN254 fields use.
//
// Layout. Up to 2^DomainOptions::max_single_pass_log_size elements a transform is one radix-2 pass
// over the vector (it fits in L2). Larger ones use the four-step split n = R·C: viewing the
// vector as R rows of C, a DIF is R-point transforms down the columns (root ω^C), a twiddle
// ω^(c·rev_R(row)) at (row, c), then C-point transforms along the rows (root ω^R); the result is
// exactly the bit-reversed output of the full DIF, as rev_n(row·C + col) = rev_C(col)·R +
// rev_R(row). A DIT is the same steps in reverse order. Each step reads the vector once with
// √n-sized working sets, instead of log2(n) full passes; the twiddle costs 2M per element
// (one to apply, one to step the power along the row), and the inverse's n⁻¹ rides on it.
// Columns are copied out kColumnLanes at a time (256 contiguous bytes of each row), transformed
// as interleaved lanes, and copied back.
// Measured (bench_ntt, forward, BLS12-381, Xeon host of an H200 machine), four-step against
// log2(n) stages each one parallel loop over the whole vector: 2 cores 2^20 258 vs 332 ms,
// 2^22 1171 vs 1585 ms; 16 cores 2^20 44 vs 61 ms, 2^22 185 vs 257 ms — despite the 2M per
// element of twiddles, which the plain stages do not pay.
//
// Thread-safety: immutable after construction; transforms may run concurrently on distinct
// vectors. Each transform runs on the calling thread and oneTBB workers.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ntt/bit_reverse.hpp"
#include "ntt/powers.hpp"
#include "ntt/radix2.hpp"
#include "util/error.hpp"

namespace cuzk::ntt {

enum class Convention { kSnarkjs, kBellman };

// The multiplicative generator of bellman's scalar fields (see the header comment).
inline constexpr uint64_t kBellmanGenerator = 7;

struct DomainOptions {
  // Transforms of at most 2^this elements run as one in-cache radix-2 pass; larger ones use the
  // four-step split. 2^12 elements are 128 KiB: they stay in L2 next to their twiddles.
  unsigned max_single_pass_log_size = 12;
};

template <class Fr>
class Domain {
 public:
  // Throws kInvalidInput when 2^log_size exceeds the field's largest radix-2 domain (2^s).
  Domain(unsigned log_size, Convention convention, DomainOptions options = {});

  unsigned log_size() const { return log_size_; }
  size_t size() const { return size_t(1) << log_size_; }
  Convention convention() const { return convention_; }
  const Fr& omega() const { return omega_; }
  const Fr& omega_inv() const { return omega_inv_; }
  const Fr& size_inv() const { return size_inv_; }
  // g: the coset is g·H.
  const Fr& coset_shift() const { return coset_shift_; }
  // Rows × columns of the four-step layout (rows = 1: a single pass).
  unsigned log_rows() const { return log_rows_; }
  unsigned log_columns() const { return log_columns_; }

  // In place on size() elements (kInvalidInput otherwise).
  void forward(std::span<Fr> values, Order in = Order::kNatural, Order out = Order::kNatural) const;
  void inverse(std::span<Fr> values, Order in = Order::kNatural, Order out = Order::kNatural) const;
  void coset_forward(std::span<Fr> values, Order in = Order::kNatural,
                     Order out = Order::kNatural) const;
  void coset_inverse(std::span<Fr> values, Order in = Order::kNatural,
                     Order out = Order::kNatural) const;

 private:
  enum Direction { kForward = 0, kInverse = 1 };
  static constexpr size_t kColumnLanes = 8;

  void transform(std::span<Fr> values, Direction direction, Order in, Order out) const;
  // Natural → bit-reversed and bit-reversed → natural, outputs multiplied by `scale`.
  void dif(std::span<Fr> values, Direction direction, const Fr& scale) const;
  void dit(std::span<Fr> values, Direction direction, const Fr& scale) const;
  void twiddle_row(std::span<Fr> row_values, Direction direction, const Fr& scale,
                   size_t row) const;
  template <size_t Lanes, bool kDif>
  void transform_columns(std::span<Fr> values, Direction direction) const;
  void check_size(std::span<const Fr> values, const char* operation) const;

  unsigned log_size_;
  Convention convention_;
  Fr omega_, omega_inv_, size_inv_, coset_shift_, coset_shift_inv_;
  unsigned log_rows_, log_columns_;
  // Per direction: stage twiddles of the C-point row and R-point column transforms, and the
  // step of the four-step twiddle on each row, ω^rev_R(row) (ω⁻¹ for the inverse).
  std::vector<Fr> row_twiddles_[2], column_twiddles_[2], row_steps_[2];
};

template <class Fr>
Domain<Fr>::Domain(unsigned log_size, Convention convention, DomainOptions options)
    : log_size_(log_size), convention_(convention) {
  constexpr size_t s = Fr::kTwoAdicity;
  if (log_size > s) {
    CUZK_INVALID_INPUT("ntt::Domain: size 2^" + std::to_string(log_size) +
                       " exceeds the field's largest radix-2 domain, 2^" + std::to_string(s));
  }
  const Fr max_root = convention == Convention::kSnarkjs
                          ? Fr::kRootOfUnity
                          : Fr::from_u64(kBellmanGenerator).pow(Fr::kOddPart);
  // ω_(2^s) must have order exactly 2^s: its 2^(s−1)-th power is −1.
  Fr check = max_root;
  for (size_t i = 1; i < s; ++i) check = check.sqr();
  if (check != -Fr::one()) {
    CUZK_THROW(ErrorKind::kInternal, "ntt::Domain: the 2^s-th root of unity has the wrong order");
  }
  // ω_2n for the snarkjs odd coset, then ω_n one squaring further.
  Fr root = max_root;
  for (size_t i = log_size + 1; i < s; ++i) root = root.sqr();
  if (log_size < s) {
    coset_shift_ = root;
    omega_ = root.sqr();
  } else {
    coset_shift_ = Fr::kNonResidue.sqr();
    omega_ = max_root;
  }
  if (convention == Convention::kBellman) coset_shift_ = Fr::from_u64(kBellmanGenerator);
  omega_inv_ = omega_.inverse();
  size_inv_ = Fr::from_u64(uint64_t(1) << log_size).inverse();
  coset_shift_inv_ = coset_shift_.inverse();
  // The coset must miss H (g^n ≠ 1), or coset values would repeat those on H.
  Fr shift_to_n = coset_shift_;
  for (size_t i = 0; i < log_size; ++i) shift_to_n = shift_to_n.sqr();
  if (shift_to_n == Fr::one()) {
    CUZK_THROW(ErrorKind::kInternal, "ntt::Domain: the coset shift lies in the domain");
  }

  if (log_size <= options.max_single_pass_log_size) {
    log_rows_ = 0;
    log_columns_ = log_size;
  } else {
    log_columns_ = (log_size + 1) / 2;
    log_rows_ = log_size - log_columns_;
  }
  const Fr roots[2] = {omega_, omega_inv_};
  for (int d = 0; d < 2; ++d) {
    row_twiddles_[d] = stage_twiddles(roots[d].pow(uint64_t(1) << log_rows_), log_columns_);
    column_twiddles_[d] = stage_twiddles(roots[d].pow(uint64_t(1) << log_columns_), log_rows_);
    const size_t rows = size_t(1) << log_rows_;
    std::vector<Fr> powers(rows);
    fill_powers(std::span<Fr>(powers), roots[d]);
    row_steps_[d].resize(rows);
    for (size_t row = 0; row < rows; ++row) {
      row_steps_[d][row] = powers[reverse_bits(row, log_rows_)];
    }
  }
}

template <class Fr>
void Domain<Fr>::check_size(std::span<const Fr> values, const char* operation) const {
  if (values.size() != size()) {
    CUZK_INVALID_INPUT(std::string("ntt::Domain::") + operation + ": " +
                       std::to_string(values.size()) + " values for a domain of size " +
                       std::to_string(size()));
  }
}

template <class Fr>
void Domain<Fr>::forward(std::span<Fr> values, Order in, Order out) const {
  check_size(values, "forward");
  transform(values, kForward, in, out);
}

template <class Fr>
void Domain<Fr>::inverse(std::span<Fr> values, Order in, Order out) const {
  check_size(values, "inverse");
  transform(values, kInverse, in, out);
}

// Σ_j x_j (g ω^i)^j = Σ_j (x_j g^j) ω^(ij): scale coefficient j by g^j, then forward.
template <class Fr>
void Domain<Fr>::coset_forward(std::span<Fr> values, Order in, Order out) const {
  check_size(values, "coset_forward");
  scale_by_powers(values, in, Fr::one(), coset_shift_);
  transform(values, kForward, in, out);
}

template <class Fr>
void Domain<Fr>::coset_inverse(std::span<Fr> values, Order in, Order out) const {
  check_size(values, "coset_inverse");
  transform(values, kInverse, in, out);
  scale_by_powers(values, out, Fr::one(), coset_shift_inv_);
}

template <class Fr>
void Domain<Fr>::transform(std::span<Fr> values, Direction direction, Order in, Order out) const {
  const Fr scale = direction == kForward ? Fr::one() : size_inv_;
  if (in == Order::kNatural) {
    dif(values, direction, scale);
    if (out == Order::kNatural) bit_reverse_permute(values);
  } else if (out == Order::kNatural) {
    dit(values, direction, scale);
  } else {
    bit_reverse_permute(values);
    dif(values, direction, scale);
  }
}

template <class Fr>
void Domain<Fr>::dif(std::span<Fr> values, Direction direction, const Fr& scale) const {
  if (log_rows_ > 0) {
    if (log_columns_ >= 3) {
      transform_columns<kColumnLanes, true>(values, direction);
    } else {
      transform_columns<1, true>(values, direction);
    }
  }
  const size_t columns = size_t(1) << log_columns_;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, size_t(1) << log_rows_),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t row = range.begin(); row != range.end(); ++row) {
                        const std::span<Fr> row_values = values.subspan(row * columns, columns);
                        twiddle_row(row_values, direction, scale, row);
                        dif_in_cache<1>(row_values, log_columns_,
                                        std::span<const Fr>(row_twiddles_[direction]));
                      }
                    });
}

template <class Fr>
void Domain<Fr>::dit(std::span<Fr> values, Direction direction, const Fr& scale) const {
  const size_t columns = size_t(1) << log_columns_;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, size_t(1) << log_rows_),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t row = range.begin(); row != range.end(); ++row) {
                        const std::span<Fr> row_values = values.subspan(row * columns, columns);
                        dit_in_cache<1>(row_values, log_columns_,
                                        std::span<const Fr>(row_twiddles_[direction]));
                        twiddle_row(row_values, direction, scale, row);
                      }
                    });
  if (log_rows_ > 0) {
    if (log_columns_ >= 3) {
      transform_columns<kColumnLanes, false>(values, direction);
    } else {
      transform_columns<1, false>(values, direction);
    }
  }
}

// row_values[c] *= scale · step^c with step = row_steps_[direction][row]. Row 0 (step 1) and
// single-pass layouts only apply the scale, and skip it when it is 1.
template <class Fr>
void Domain<Fr>::twiddle_row(std::span<Fr> row_values, Direction direction, const Fr& scale,
                             size_t row) const {
  const Fr step = row_steps_[direction][row];
  if (step == Fr::one()) {
    if (scale == Fr::one()) return;
    for (Fr& x : row_values) x *= scale;
    return;
  }
  Fr factor = scale;
  for (Fr& x : row_values) {
    x *= factor;
    factor *= step;
  }
}

// The R-point transforms down every column, Lanes columns at a time through a contiguous copy.
template <class Fr>
template <size_t Lanes, bool kDif>
void Domain<Fr>::transform_columns(std::span<Fr> values, Direction direction) const {
  const size_t rows = size_t(1) << log_rows_;
  const size_t columns = size_t(1) << log_columns_;
  const std::span<const Fr> twiddles(column_twiddles_[direction]);
  tbb::parallel_for(tbb::blocked_range<size_t>(0, columns / Lanes),
                    [&](const tbb::blocked_range<size_t>& range) {
                      std::vector<Fr> block(rows * Lanes);
                      for (size_t b = range.begin(); b != range.end(); ++b) {
                        const Fr* source = values.data() + b * Lanes;
                        for (size_t r = 0; r < rows; ++r) {
                          for (size_t l = 0; l < Lanes; ++l)
                            block[r * Lanes + l] = source[r * columns + l];
                        }
                        if constexpr (kDif) {
                          dif_in_cache<Lanes>(std::span<Fr>(block), log_rows_, twiddles);
                        } else {
                          dit_in_cache<Lanes>(std::span<Fr>(block), log_rows_, twiddles);
                        }
                        Fr* target = values.data() + b * Lanes;
                        for (size_t r = 0; r < rows; ++r) {
                          for (size_t l = 0; l < Lanes; ++l)
                            target[r * columns + l] = block[r * Lanes + l];
                        }
                      }
                    });
}

}  // namespace cuzk::ntt
