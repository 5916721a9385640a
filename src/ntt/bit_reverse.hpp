#pragma once
// Bit-reversal: the index map between the natural order of a radix-2 transform and the order in
// which a decimation-in-frequency pass leaves its output (and a decimation-in-time pass wants its
// input), and the in-place permutation of a whole vector.
//
// Thread-safety: stateless; bit_reverse_permute runs on the calling thread and oneTBB workers.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "util/error.hpp"

namespace cuzk::ntt {

// The low `bits` bits of x in reverse order (bits ≤ 64; bits = 0 gives 0). Swaps halves of
// ever smaller widths: 6 mask-and-shift steps instead of a loop over the bits.
constexpr uint64_t reverse_bits(uint64_t x, unsigned bits) {
  if (bits == 0) return 0;
  x = ((x >> 1) & 0x5555555555555555ull) | ((x & 0x5555555555555555ull) << 1);
  x = ((x >> 2) & 0x3333333333333333ull) | ((x & 0x3333333333333333ull) << 2);
  x = ((x >> 4) & 0x0f0f0f0f0f0f0f0full) | ((x & 0x0f0f0f0f0f0f0f0full) << 4);
  x = ((x >> 8) & 0x00ff00ff00ff00ffull) | ((x & 0x00ff00ff00ff00ffull) << 8);
  x = ((x >> 16) & 0x0000ffff0000ffffull) | ((x & 0x0000ffff0000ffffull) << 16);
  x = (x >> 32) | (x << 32);
  return x >> (64 - bits);
}

// log2 of a power of two; throws kInvalidInput for any other size (zero included).
inline unsigned log2_exact(size_t n, const char* what) {
  if (!std::has_single_bit(n)) {
    CUZK_INVALID_INPUT(std::string(what) + ": size " + std::to_string(n) +
                       " is not a power of two");
  }
  return unsigned(std::countr_zero(n));
}

// values[i] ↔ values[reverse_bits(i, log2 n)] for every i, in place.
//
// A plain swap loop touches a new cache line for almost every element once n outgrows the
// cache. Instead the index is split as (hi | mid | lo) with hi and lo kTileBits wide; the
// reversal maps it to (rev lo | rev mid | rev hi), so the 2^(2·kTileBits) elements sharing one
// `mid` (runs of 2^kTileBits contiguous elements) go, as a tile, to the positions sharing
// rev(mid), again in contiguous runs. Tiles mid and rev(mid) are swapped through a buffer;
// distinct tile pairs are independent and run in parallel.
template <class T>
void bit_reverse_permute(std::span<T> values) {
  const unsigned log_n = log2_exact(values.size(), "bit_reverse_permute");
  constexpr unsigned kTileBits = 4;  // runs of 16 elements: 512 bytes for a 256-bit field
  constexpr size_t kTile = size_t(1) << kTileBits;
  if (log_n < 2 * kTileBits + 2) {
    for (size_t i = 0; i < values.size(); ++i) {
      size_t j = reverse_bits(i, log_n);
      if (i < j) std::swap(values[i], values[j]);
    }
    return;
  }
  const unsigned mid_bits = log_n - 2 * kTileBits;
  const unsigned hi_shift = log_n - kTileBits;
  auto at = [&](size_t hi, size_t mid, size_t lo) -> T& {
    return values[(hi << hi_shift) | (mid << kTileBits) | lo];
  };
  tbb::parallel_for(tbb::blocked_range<size_t>(0, size_t(1) << mid_bits, 64),
                    [&](const tbb::blocked_range<size_t>& range) {
                      std::vector<T> tile(kTile * kTile), partner(kTile * kTile);
                      for (size_t mid = range.begin(); mid != range.end(); ++mid) {
                        const size_t mid_rev = reverse_bits(mid, mid_bits);
                        if (mid > mid_rev) continue;  // the pair is handled from its smaller member
                        for (size_t hi = 0; hi < kTile; ++hi) {
                          for (size_t lo = 0; lo < kTile; ++lo) {
                            tile[hi * kTile + lo] = at(hi, mid, lo);
                            if (mid != mid_rev) partner[hi * kTile + lo] = at(hi, mid_rev, lo);
                          }
                        }
                        for (size_t lo = 0; lo < kTile; ++lo) {
                          const size_t lo_rev = reverse_bits(lo, kTileBits);
                          for (size_t hi = 0; hi < kTile; ++hi) {
                            const size_t hi_rev = reverse_bits(hi, kTileBits);
                            at(lo_rev, mid_rev, hi_rev) = tile[hi * kTile + lo];
                            if (mid != mid_rev) at(lo_rev, mid, hi_rev) = partner[hi * kTile + lo];
                          }
                        }
                      }
                    });
}

}  // namespace cuzk::ntt
