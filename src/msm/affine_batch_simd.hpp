#pragma once
// Batch-affine additions eight at a time with AVX-512 IFMA (ff/lanes_ifma.hpp), where the CPU
// MSM spends most of its time: the chords and Montgomery's trick of a batch
// (affine_buckets.hpp) run as 8-lane vector products instead of 64-bit scalar ones, for G1 and
// G2 (Fp2 coordinates as two vectors; the trick inverts their norms in Fp, as BatchInverter
// does).
//
// The trick runs as sixteen chains (two vectors of eight lanes, the two vectors advanced in
// turn so that their products overlap), whose sixteen products are inverted together in scalar
// arithmetic with one inversion. Additions whose inputs share x (a doubling, or a sum that is
// the point at infinity) take no part in the vector batch: they are finished one by one in
// scalar arithmetic afterwards, as ec::affine_sum does them (repeated bases only).
//
// The results equal the scalar path's bit for bit (the same canonical Montgomery values), so
// an MSM's output does not depend on the CPU it ran on. Machines without AVX-512 IFMA, and
// runs with CUZK_CPU_SIMD=0 in the environment, take the scalar path.

#include <cstdint>
#include <span>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/affine.hpp"

namespace cuzk::msm::simd {

// Whether add_batch may be called: the CPU has AVX-512 IFMA and the vector path is not
// turned off.
bool enabled();
// Turns the vector path on (where the CPU has it) or off; tests and benchmarks compare both.
void set_enabled(bool on);

// One addition of a batch: targets[bucket] += *point, or −*point if negate.
template <class Curve>
struct BatchAddition {
  uint32_t bucket;
  bool negate;
  const ec::Affine<Curve>* point;
};

// The groups with a vector path: all four.
template <class Curve>
inline constexpr bool kHasAddBatch = false;
#if defined(__x86_64__)
template <>
inline constexpr bool kHasAddBatch<bn254::G1Curve> = true;
template <>
inline constexpr bool kHasAddBatch<bls12_381::G1Curve> = true;
template <>
inline constexpr bool kHasAddBatch<bn254::G2Curve> = true;
template <>
inline constexpr bool kHasAddBatch<bls12_381::G2Curve> = true;
#endif

// targets[a.bucket] += ±*a.point for every addition a of the batch, reading each point where it
// lies (the vector path gathers it and negates y itself: no copy per addition). The buckets
// are distinct and no input is the point at infinity (as for ec::affine_sum). Call only when
// enabled().
template <class Curve>
void add_batch(std::span<ec::Affine<Curve>> targets, std::span<const BatchAddition<Curve>> batch);
#if defined(__x86_64__)
template <>
void add_batch<bn254::G1Curve>(std::span<ec::Affine<bn254::G1Curve>> targets,
                               std::span<const BatchAddition<bn254::G1Curve>> batch);
template <>
void add_batch<bls12_381::G1Curve>(std::span<ec::Affine<bls12_381::G1Curve>> targets,
                                   std::span<const BatchAddition<bls12_381::G1Curve>> batch);
template <>
void add_batch<bn254::G2Curve>(std::span<ec::Affine<bn254::G2Curve>> targets,
                               std::span<const BatchAddition<bn254::G2Curve>> batch);
template <>
void add_batch<bls12_381::G2Curve>(std::span<ec::Affine<bls12_381::G2Curve>> targets,
                                   std::span<const BatchAddition<bls12_381::G2Curve>> batch);
#endif

}  // namespace cuzk::msm::simd
