#pragma once
// Geometric sequences over a field: filling a table with powers, and multiplying a vector by
// the powers of an element (coset shifts, the odd-coset step of the snarkjs prover), in either
// the natural or the bit-reversed order of the vector.
//
// Thread-safety: stateless; the work runs on the calling thread and oneTBB workers.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "ntt/bit_reverse.hpp"

namespace cuzk::ntt {

// Whether position p of a vector of 2^k elements holds index p (natural) or reverse_bits(p, k).
enum class Order { kNatural, kBitReversed };

// out[i] = first · base^i. Chunks run in parallel; each starts from first·base^start (one
// exponentiation, at most 2·log2(start) multiplications), then costs 1M per element.
template <class Fr>
void fill_powers(std::span<Fr> out, const Fr& base, const Fr& first = Fr::one()) {
  constexpr size_t kChunk = 4096;
  tbb::parallel_for(tbb::blocked_range<size_t>(0, out.size(), kChunk),
                    [&](const tbb::blocked_range<size_t>& range) {
                      Fr power = first * base.pow(uint64_t(range.begin()));
                      for (size_t i = range.begin(); i != range.end(); ++i) {
                        out[i] = power;
                        power *= base;
                      }
                    });
}

// values[p] *= factor · base^index(p), where index(p) = p in natural order and
// reverse_bits(p, k) in bit-reversed order (values has 2^k elements).
//
// The exponent is split at bit b = ⌈k/2⌉ of the position p = p_hi·2^b + p_lo:
//   natural:      base^p           = (base^(2^b))^p_hi · base^p_lo
//   bit-reversed: base^rev_k(p)    = base^rev_(k-b)(p_hi) · (base^(2^(k-b)))^rev_b(p_lo)
// so two tables of about √n entries (built here, 2·√n multiplications) give every factor with
// one product: cost 2M per element, no serial chain, and both orders share one loop.
template <class Fr>
void scale_by_powers(std::span<Fr> values, Order order, const Fr& factor, const Fr& base) {
  const unsigned log_n = log2_exact(values.size(), "scale_by_powers");
  const unsigned lo_bits = (log_n + 1) / 2;
  const unsigned hi_bits = log_n - lo_bits;
  const size_t lo_count = size_t(1) << lo_bits;
  const size_t hi_count = size_t(1) << hi_bits;

  std::vector<Fr> lo_table(lo_count), hi_table(hi_count);
  if (order == Order::kNatural) {
    fill_powers(std::span<Fr>(lo_table), base, factor);
    fill_powers(std::span<Fr>(hi_table), base.pow(uint64_t(lo_count)));
  } else {
    std::vector<Fr> lo_powers(lo_count), hi_powers(hi_count);
    fill_powers(std::span<Fr>(lo_powers), base.pow(uint64_t(hi_count)), factor);
    fill_powers(std::span<Fr>(hi_powers), base);
    for (size_t q = 0; q < lo_count; ++q) lo_table[q] = lo_powers[reverse_bits(q, lo_bits)];
    for (size_t r = 0; r < hi_count; ++r) hi_table[r] = hi_powers[reverse_bits(r, hi_bits)];
  }
  tbb::parallel_for(tbb::blocked_range<size_t>(0, hi_count, std::max<size_t>(1, 4096 / lo_count)),
                    [&](const tbb::blocked_range<size_t>& range) {
                      for (size_t hi = range.begin(); hi != range.end(); ++hi) {
                        Fr* row = values.data() + hi * lo_count;
                        const Fr hi_factor = hi_table[hi];
                        for (size_t lo = 0; lo < lo_count; ++lo) {
                          row[lo] *= hi_factor * lo_table[lo];
                        }
                      }
                    });
}

}  // namespace cuzk::ntt
