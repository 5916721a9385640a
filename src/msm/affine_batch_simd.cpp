// The vector batch-affine additions of affine_batch_simd.hpp. Everything that touches 512-bit
// registers carries CUZK_IFMA_TARGET (ff/lanes_ifma.hpp), so this file is compiled for the
// baseline instruction set and its vector code only runs after the CPU check.
#include "msm/affine_batch_simd.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ec/affine_addition.hpp"

#if defined(__x86_64__)
#include "ff/lanes_ifma.hpp"
#endif

namespace cuzk::msm::simd {

namespace {

#if defined(__x86_64__)
bool cpu_supports() { return ff::ifma::cpu_has_ifma(); }
#else
bool cpu_supports() { return false; }
#endif

bool enabled_by_environment() {
  const char* value = std::getenv("CUZK_CPU_SIMD");
  return value == nullptr || (std::strcmp(value, "0") != 0 && std::strcmp(value, "off") != 0);
}

std::atomic<bool>& enabled_flag() {
  static std::atomic<bool> flag{cpu_supports() && enabled_by_environment()};
  return flag;
}

}  // namespace

bool enabled() { return enabled_flag().load(std::memory_order_relaxed); }

void set_enabled(bool on) { enabled_flag().store(on && cpu_supports(), std::memory_order_relaxed); }

#if defined(__x86_64__)

namespace {

using ff::ifma::Lanes;

// Eight additions of a batch between the forward and the backward sweep, as plain words so
// that the containers around them need no vector types.
template <class Field>
struct Group {
  static constexpr size_t kLimbs = Lanes<Field>::kLimbs;
  enum Slot { kX1, kY1, kX2, kY2, kDenominator, kPrefix, kSlots };
  alignas(64) uint64_t limbs[kSlots][kLimbs][8];
  alignas(64) uint64_t target_word[8];  // word offset of each lane's target in `targets`
  uint8_t active;                       // lanes that hold an addition
  uint8_t special;                      // active lanes left to the scalar path (equal x)
};

template <class Field>
CUZK_IFMA void store(uint64_t (&out)[Lanes<Field>::kLimbs][8],
                     const typename Lanes<Field>::Vec& v) {
  for (size_t k = 0; k < Lanes<Field>::kLimbs; ++k) _mm512_store_si512(out[k], v.limb[k]);
}

template <class Field>
CUZK_IFMA typename Lanes<Field>::Vec load(const uint64_t (&in)[Lanes<Field>::kLimbs][8]) {
  typename Lanes<Field>::Vec v;
  for (size_t k = 0; k < Lanes<Field>::kLimbs; ++k) v.limb[k] = _mm512_load_si512(in[k]);
  return v;
}

// The coordinate that starts `first_word` words into each lane's point (x: 0, y: the field's
// words), gathered from `base` at word offsets `offsets` on the lanes of `lanes`.
template <class Field>
CUZK_IFMA typename Lanes<Field>::Vec gather(const void* base, __m512i offsets, __mmask8 lanes,
                                            size_t first_word) {
  __m512i words[Field::kLimbs];
  for (size_t w = 0; w < Field::kLimbs; ++w) {
    const __m512i at = _mm512_add_epi64(offsets, _mm512_set1_epi64(static_cast<long long>(first_word + w)));
    words[w] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, at, base, 8);
  }
  return ff::ifma::from_words<Field>(words);
}

template <class Field>
CUZK_IFMA void scatter(void* base, __m512i offsets, __mmask8 lanes, size_t first_word,
                       const typename Lanes<Field>::Vec& v) {
  __m512i words[Field::kLimbs];
  ff::ifma::to_words<Field>(v, words);
  for (size_t w = 0; w < Field::kLimbs; ++w) {
    const __m512i at = _mm512_add_epi64(offsets, _mm512_set1_epi64(static_cast<long long>(first_word + w)));
    _mm512_mask_i64scatter_epi64(base, lanes, at, words[w], 8);
  }
}

// values[i] ← values[i]⁻¹ for non-zero values, by Montgomery's trick in scalar arithmetic.
template <class Field, size_t N>
void invert_all(Field (&values)[N]) {
  Field prefix[N];
  Field acc = Field::one();
  for (size_t i = 0; i < N; ++i) {
    prefix[i] = acc;
    acc *= values[i];
  }
  Field inv = acc.inverse();
  for (size_t i = N; i-- > 0;) {
    const Field value_inv = inv * prefix[i];
    inv *= values[i];
    values[i] = value_inv;
  }
}

template <class Curve>
CUZK_IFMA_TARGET void add_batch_ifma(std::span<ec::Affine<Curve>> targets,
                                     std::span<const uint32_t> buckets,
                                     std::span<const ec::Affine<Curve>> points) {
  using Field = typename Curve::Base;
  using Vec = typename Lanes<Field>::Vec;
  using G = Group<Field>;
  namespace v = ff::ifma;
  constexpr size_t kPointWords = 2 * Field::kLimbs;
  static_assert(sizeof(ec::Affine<Curve>) == 8 * kPointWords, "Affine is x then y, no padding");

  const size_t n = buckets.size();
  const size_t groups = (n + 7) / 8;
  thread_local std::vector<G> scratch;
  if (scratch.size() < groups) scratch.resize(groups);

  const Vec one = v::broadcast(Field::one());
  Vec chain[2] = {one, one};  // the trick's two vectors of chains, groups alternating
  for (size_t g = 0; g < groups; ++g) {
    G& group = scratch[g];
    const size_t first = 8 * g;
    const size_t count = n - first < 8 ? n - first : 8;
    group.active = uint8_t((1u << count) - 1);
    alignas(64) uint64_t point_word[8];
    for (size_t lane = 0; lane < 8; ++lane) {
      const bool live = lane < count;
      group.target_word[lane] = live ? uint64_t(buckets[first + lane]) * kPointWords : 0;
      point_word[lane] = live ? uint64_t(first + lane) * kPointWords : 0;
    }
    const __m512i target_at = _mm512_load_si512(group.target_word);
    const __m512i point_at = _mm512_load_si512(point_word);
    const Vec x1 = gather<Field>(targets.data(), target_at, group.active, 0);
    const Vec y1 = gather<Field>(targets.data(), target_at, group.active, Field::kLimbs);
    const Vec x2 = gather<Field>(points.data(), point_at, group.active, 0);
    const Vec y2 = gather<Field>(points.data(), point_at, group.active, Field::kLimbs);
    group.special = uint8_t(v::equal<Field>(x1, x2) & group.active);
    // Lanes without a chord multiply their chain by one: their inverse is one, never used.
    Vec denominator = v::sub<Field>(x2, x1);
    const __mmask8 placeholder = __mmask8(group.special | uint8_t(~group.active));
    for (size_t k = 0; k < Lanes<Field>::kLimbs; ++k) {
      denominator.limb[k] = _mm512_mask_blend_epi64(placeholder, denominator.limb[k], one.limb[k]);
    }
    store<Field>(group.limbs[G::kX1], x1);
    store<Field>(group.limbs[G::kY1], y1);
    store<Field>(group.limbs[G::kX2], x2);
    store<Field>(group.limbs[G::kY2], y2);
    store<Field>(group.limbs[G::kDenominator], denominator);
    store<Field>(group.limbs[G::kPrefix], chain[g % 2]);
    chain[g % 2] = v::mul<Field>(chain[g % 2], denominator);
  }

  Field chain_products[16];
  v::to_fields<Field>(chain[0], chain_products);
  v::to_fields<Field>(chain[1], chain_products + 8);
  invert_all(chain_products);
  Vec chain_inverse[2] = {v::from_fields<Field>(chain_products),
                          v::from_fields<Field>(chain_products + 8)};

  for (size_t g = groups; g-- > 0;) {
    const G& group = scratch[g];
    Vec& inverse = chain_inverse[g % 2];
    const Vec denominator_inverse = v::mul<Field>(inverse, load<Field>(group.limbs[G::kPrefix]));
    inverse = v::mul<Field>(inverse, load<Field>(group.limbs[G::kDenominator]));
    const Vec x1 = load<Field>(group.limbs[G::kX1]);
    const Vec y1 = load<Field>(group.limbs[G::kY1]);
    const Vec lambda =
        v::mul<Field>(v::sub<Field>(load<Field>(group.limbs[G::kY2]), y1), denominator_inverse);
    const Vec x3 = v::sub<Field>(v::sub<Field>(v::mul<Field>(lambda, lambda), x1),
                                 load<Field>(group.limbs[G::kX2]));
    const Vec y3 = v::sub<Field>(v::mul<Field>(lambda, v::sub<Field>(x1, x3)), y1);
    const __mmask8 chords = __mmask8(group.active & ~group.special);
    const __m512i target_at = _mm512_load_si512(group.target_word);
    scatter<Field>(targets.data(), target_at, chords, 0, x3);
    scatter<Field>(targets.data(), target_at, chords, Field::kLimbs, y3);
  }

  for (size_t g = 0; g < groups; ++g) {
    for (unsigned lane = 0; lane < 8; ++lane) {
      if (((scratch[g].special >> lane) & 1) == 0) continue;
      const size_t k = 8 * g + lane;
      ec::Affine<Curve>& target = targets[buckets[k]];
      const Field denominator = ec::affine_sum_denominator(target, points[k]);
      target = ec::affine_sum(target, points[k], denominator.inverse());
    }
  }
}

}  // namespace

template <>
void add_batch<bn254::G1Curve>(std::span<ec::Affine<bn254::G1Curve>> targets,
                               std::span<const uint32_t> buckets,
                               std::span<const ec::Affine<bn254::G1Curve>> points) {
  add_batch_ifma<bn254::G1Curve>(targets, buckets, points);
}

template <>
void add_batch<bls12_381::G1Curve>(std::span<ec::Affine<bls12_381::G1Curve>> targets,
                                   std::span<const uint32_t> buckets,
                                   std::span<const ec::Affine<bls12_381::G1Curve>> points) {
  add_batch_ifma<bls12_381::G1Curve>(targets, buckets, points);
}

#endif

}  // namespace cuzk::msm::simd
