#pragma once
// In-cache radix-2 transforms: the building blocks that Domain runs on rows and on blocks of
// columns. Each works on `Lanes` interleaved vectors of length m = 2^log_m (element r of lane l
// at data[r·Lanes + l]), so that a block of columns copied out of a larger matrix is transformed
// with unit-stride inner loops; Lanes = 1 is a plain contiguous vector.
//
// Butterflies (Gentleman–Sande for DIF, Cooley–Tukey for DIT), ψ a primitive m-th root and
// h the half-width of a stage:
//   DIF, h = m/2 … 1:  (u, v) ← (u + v, (u − v)·ψ_2h^j)      natural in → bit-reversed out
//   DIT, h = 1 … m/2:  (u, v) ← (u + ψ_2h^j·v, u − ψ_2h^j·v)  bit-reversed in → natural out
// Each computes Σ_j x_j ψ^(ij); m/2·log2(m) butterflies of 1M + 2A, less the m − 1 with
// twiddle 1 (j = 0), which skip the multiplication.
//
// Thread-safety: stateless; callers give each thread its own data.

#include <cstddef>
#include <span>
#include <vector>

#include "ntt/powers.hpp"

namespace cuzk::ntt {

// The twiddles of every stage of an m-point transform with root ψ, one contiguous run per
// stage: table[h + j] = ψ_2h^j for h = 1, 2, …, m/2 and j < h, where ψ_2h = ψ^(m/2h) (table[0]
// is unused). The widest stage is filled with powers of ψ; each narrower one takes every other
// entry of the next: ψ_2h^j = ψ_4h^(2j).
template <class Fr>
std::vector<Fr> stage_twiddles(const Fr& root, unsigned log_m) {
  const size_t m = size_t(1) << log_m;
  std::vector<Fr> table(m, Fr::one());
  if (m < 2) return table;
  fill_powers(std::span<Fr>(table).subspan(m / 2), root);
  for (size_t h = m / 4; h >= 1; h /= 2) {
    for (size_t j = 0; j < h; ++j) table[h + j] = table[2 * h + 2 * j];
  }
  return table;
}

template <size_t Lanes, class Fr>
void dif_in_cache(std::span<Fr> data, unsigned log_m, std::span<const Fr> twiddles) {
  const size_t m = size_t(1) << log_m;
  Fr* x = data.data();
  for (size_t h = m / 2; h >= 1; h /= 2) {
    for (size_t start = 0; start < m; start += 2 * h) {
      Fr* lo = x + start * Lanes;
      Fr* hi = lo + h * Lanes;
      for (size_t l = 0; l < Lanes; ++l) {
        const Fr u = lo[l], v = hi[l];
        lo[l] = u + v;
        hi[l] = u - v;
      }
      for (size_t j = 1; j < h; ++j) {
        const Fr w = twiddles[h + j];
        for (size_t l = j * Lanes; l < (j + 1) * Lanes; ++l) {
          const Fr u = lo[l], v = hi[l];
          lo[l] = u + v;
          hi[l] = (u - v) * w;
        }
      }
    }
  }
}

template <size_t Lanes, class Fr>
void dit_in_cache(std::span<Fr> data, unsigned log_m, std::span<const Fr> twiddles) {
  const size_t m = size_t(1) << log_m;
  Fr* x = data.data();
  for (size_t h = 1; h < m; h *= 2) {
    for (size_t start = 0; start < m; start += 2 * h) {
      Fr* lo = x + start * Lanes;
      Fr* hi = lo + h * Lanes;
      for (size_t l = 0; l < Lanes; ++l) {
        const Fr u = lo[l], v = hi[l];
        lo[l] = u + v;
        hi[l] = u - v;
      }
      for (size_t j = 1; j < h; ++j) {
        const Fr w = twiddles[h + j];
        for (size_t l = j * Lanes; l < (j + 1) * Lanes; ++l) {
          const Fr u = lo[l], v = hi[l] * w;
          lo[l] = u + v;
          hi[l] = u - v;
        }
      }
    }
  }
}

}  // namespace cuzk::ntt
