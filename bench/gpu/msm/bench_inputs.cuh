#pragma once
// Benchmark inputs made on the device: host generation of 2^26 affine bases would take
// minutes. Bases: a few random points P_s (multiples of the generator, made on the host) and a
// per-index walk Q_i = P_(t mod S) + Σ_(j ≤ i) D_(j mod 16) over 16 random steps D, each thread
// walking a run of kWalk consecutive indices, then normalized to affine with one inversion per
// thread (Montgomery's trick). The bases are therefore not independent, which an MSM's cost and
// correctness do not depend on. Scalars: a hash of (seed, index), below 2^(bits−1) < r;
// "porep" makes 40% zeros, 40% ones and 20% random.

#include <cstddef>
#include <cstdint>

#include "ec/affine.hpp"

namespace cuzk::bench {

enum class ScalarShape { kRandom, kPorep };

// Fills bases[0..n) on `stream` (blocks until done; uses its own scratch allocation).
template <class Curve>
void make_device_bases(ec::Affine<Curve>* bases, size_t n, uint64_t seed, cudaStream_t stream);

// Fills scalars[0..n) (Montgomery form) on `stream`.
template <class Curve>
void make_device_scalars(typename Curve::Scalar* scalars, size_t n, ScalarShape shape,
                         uint64_t seed, cudaStream_t stream);

}  // namespace cuzk::bench
