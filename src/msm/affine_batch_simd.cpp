// The vector batch-affine additions of affine_batch_simd.hpp. Everything that touches 512-bit
// registers carries CUZK_IFMA_TARGET (ff/lanes_ifma.hpp), so this file is compiled for the
// baseline instruction set and its vector code only runs after the CPU check.
#include "msm/affine_batch_simd.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "ec/affine_addition.hpp"
#include "msm/batch_inversion.hpp"

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
namespace lanes = ff::ifma;

// The coordinate field on eight lanes: a prime field as one vector of limbs.
template <class Field>
struct LaneCoordinate {
  using Base = Field;
  using BaseVec = typename Lanes<Base>::Vec;
  static constexpr size_t kParts = 1;
  struct Vec {
    BaseVec part[kParts];
  };
  CUZK_IFMA static Vec sub(const Vec& a, const Vec& b) {
    return {{lanes::sub<Base>(a.part[0], b.part[0])}};
  }
  CUZK_IFMA static Vec mul(const Vec& a, const Vec& b) {
    return {{lanes::mul<Base>(a.part[0], b.part[0])}};
  }
  CUZK_IFMA static Vec sqr(const Vec& a) { return {{lanes::sqr<Base>(a.part[0])}}; }
  // What Montgomery's trick inverts for a, and a⁻¹ from that value's inverse.
  CUZK_IFMA static BaseVec trick_value(const Vec& a) { return a.part[0]; }
  CUZK_IFMA static Vec inverse_from(const Vec&, const BaseVec& trick_inverse) {
    return {{trick_inverse}};
  }
};

// Fp2 = Fp[u]/(u² + 1) (both curves' G2) as two vectors. The trick inverts the norm
// c0² + c1² in Fp, and a⁻¹ = ā/N(a), as BatchInverter does in scalar arithmetic.
template <class Fp>
struct LaneCoordinate<ff::Fp2<Fp>> {
  using Base = Fp;
  using BaseVec = typename Lanes<Base>::Vec;
  static constexpr size_t kParts = 2;
  struct Vec {
    BaseVec part[kParts];
  };
  CUZK_IFMA static Vec sub(const Vec& a, const Vec& b) {
    return {{lanes::sub<Base>(a.part[0], b.part[0]), lanes::sub<Base>(a.part[1], b.part[1])}};
  }
  CUZK_IFMA static Vec mul(const Vec& a, const Vec& b) {  // Karatsuba: 3 products
    const BaseVec t0 = lanes::mul<Base>(a.part[0], b.part[0]);
    const BaseVec t1 = lanes::mul<Base>(a.part[1], b.part[1]);
    const BaseVec t2 = lanes::mul<Base>(lanes::add<Base>(a.part[0], a.part[1]),
                                        lanes::add<Base>(b.part[0], b.part[1]));
    return {{lanes::sub<Base>(t0, t1), lanes::sub<Base>(lanes::sub<Base>(t2, t0), t1)}};
  }
  CUZK_IFMA static Vec sqr(const Vec& a) {  // (c0 + c1)(c0 − c1) + 2·c0·c1·u: 2 products
    const BaseVec cross = lanes::mul<Base>(a.part[0], a.part[1]);
    return {{lanes::mul<Base>(lanes::add<Base>(a.part[0], a.part[1]),
                              lanes::sub<Base>(a.part[0], a.part[1])),
             lanes::add<Base>(cross, cross)}};
  }
  CUZK_IFMA static BaseVec trick_value(const Vec& a) {
    return lanes::add<Base>(lanes::sqr<Base>(a.part[0]), lanes::sqr<Base>(a.part[1]));
  }
  CUZK_IFMA static Vec inverse_from(const Vec& a, const BaseVec& norm_inverse) {
    const BaseVec zero = lanes::broadcast(Base::zero());
    return {{lanes::mul<Base>(a.part[0], norm_inverse),
             lanes::sub<Base>(zero, lanes::mul<Base>(a.part[1], norm_inverse))}};
  }
};

// Eight additions of a batch between the forward and the backward sweep, as plain words so
// that the containers around them need no vector types: x1, y1, x2, y2 and the slope
// denominator (kParts base-field vectors each), then the trick's value and prefix product.
template <class Coordinate>
struct Group {
  using Base = typename LaneCoordinate<Coordinate>::Base;
  static constexpr size_t kParts = LaneCoordinate<Coordinate>::kParts;
  static constexpr size_t kLimbs = Lanes<Base>::kLimbs;
  enum Slot : size_t {
    kX1 = 0,
    kY1 = kParts,
    kX2 = 2 * kParts,
    kY2 = 3 * kParts,
    kDenominator = 4 * kParts,
    kTrickValue = 5 * kParts,
    kPrefix,
    kSlots
  };
  alignas(64) uint64_t limbs[kSlots][kLimbs][8];
  alignas(64) uint64_t target_offset[8];  // byte offset of each lane's target in `targets`
  uint8_t active;                         // lanes that hold an addition
  uint8_t special;                        // active lanes left to the scalar path (equal x)
};

template <class Base>
CUZK_IFMA void store(uint64_t (&out)[Lanes<Base>::kLimbs][8], const typename Lanes<Base>::Vec& v) {
  for (size_t k = 0; k < Lanes<Base>::kLimbs; ++k) _mm512_store_si512(out[k], v.limb[k]);
}

template <class Base>
CUZK_IFMA typename Lanes<Base>::Vec load(const uint64_t (&in)[Lanes<Base>::kLimbs][8]) {
  typename Lanes<Base>::Vec v;
  for (size_t k = 0; k < Lanes<Base>::kLimbs; ++k) v.limb[k] = _mm512_load_si512(in[k]);
  return v;
}

// A coordinate stored from slot `slot` on (kParts slots), and loaded back.
template <class Coordinate, class G>
CUZK_IFMA void store_coordinate(G& group, size_t slot,
                                const typename LaneCoordinate<Coordinate>::Vec& v) {
  for (size_t i = 0; i < G::kParts; ++i) store<typename G::Base>(group.limbs[slot + i], v.part[i]);
}

template <class Coordinate, class G>
CUZK_IFMA typename LaneCoordinate<Coordinate>::Vec load_coordinate(const G& group, size_t slot) {
  typename LaneCoordinate<Coordinate>::Vec v;
  for (size_t i = 0; i < G::kParts; ++i) v.part[i] = load<typename G::Base>(group.limbs[slot + i]);
  return v;
}

// The coordinate that starts `first_word` words into each lane's point (x: 0, y: the
// coordinate's words), gathered from `base` + `offsets` (bytes; a null base and absolute
// addresses for points read where they lie) on the lanes of `lanes`.
template <class Coordinate>
CUZK_IFMA typename LaneCoordinate<Coordinate>::Vec gather(const void* base, __m512i offsets,
                                                          __mmask8 lanes, size_t first_word) {
  using Base = typename LaneCoordinate<Coordinate>::Base;
  typename LaneCoordinate<Coordinate>::Vec r;
  for (size_t i = 0; i < LaneCoordinate<Coordinate>::kParts; ++i) {
    __m512i words[Base::kLimbs];
    for (size_t w = 0; w < Base::kLimbs; ++w) {
      const __m512i at = _mm512_add_epi64(
          offsets,
          _mm512_set1_epi64(static_cast<long long>(8 * (first_word + i * Base::kLimbs + w))));
      words[w] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lanes, at, base, 1);
    }
    r.part[i] = lanes::from_words<Base>(words);
  }
  return r;
}

template <class Coordinate>
CUZK_IFMA void scatter(void* base, __m512i offsets, __mmask8 lanes, size_t first_word,
                       const typename LaneCoordinate<Coordinate>::Vec& v) {
  using Base = typename LaneCoordinate<Coordinate>::Base;
  for (size_t i = 0; i < LaneCoordinate<Coordinate>::kParts; ++i) {
    __m512i words[Base::kLimbs];
    lanes::to_words<Base>(v.part[i], words);
    for (size_t w = 0; w < Base::kLimbs; ++w) {
      const __m512i at = _mm512_add_epi64(
          offsets,
          _mm512_set1_epi64(static_cast<long long>(8 * (first_word + i * Base::kLimbs + w))));
      _mm512_mask_i64scatter_epi64(base, lanes, at, words[w], 1);
    }
  }
}

template <class Curve>
CUZK_IFMA_TARGET void add_batch_ifma(std::span<ec::Affine<Curve>> targets,
                                     std::span<const BatchAddition<Curve>> batch) {
  using Coordinate = typename Curve::Base;
  using C = LaneCoordinate<Coordinate>;
  using Base = typename C::Base;
  using BaseVec = typename C::BaseVec;
  using Vec = typename C::Vec;
  using G = Group<Coordinate>;
  constexpr size_t kCoordinateWords = C::kParts * Base::kLimbs;
  static_assert(sizeof(ec::Affine<Curve>) == 16 * kCoordinateWords,
                "Affine is x then y, no padding");

  const size_t n = batch.size();
  const size_t groups = (n + 7) / 8;
  thread_local std::vector<G> scratch;
  if (scratch.size() < groups) scratch.resize(groups);

  const BaseVec one = lanes::broadcast(Base::one());
  const BaseVec zero = lanes::broadcast(Base::zero());
  Vec zero_coordinate;
  for (size_t i = 0; i < C::kParts; ++i) zero_coordinate.part[i] = zero;
  BaseVec chain[2] = {one, one};  // the trick's two vectors of chains, groups alternating
  for (size_t g = 0; g < groups; ++g) {
    G& group = scratch[g];
    const size_t first = 8 * g;
    const size_t count = n - first < 8 ? n - first : 8;
    group.active = uint8_t((1u << count) - 1);
    alignas(64) uint64_t point_address[8];
    uint8_t negate = 0;
    for (size_t lane = 0; lane < 8; ++lane) {
      const bool live = lane < count;
      const BatchAddition<Curve>& a = batch[first + (live ? lane : 0)];
      group.target_offset[lane] = live ? uint64_t(a.bucket) * sizeof(ec::Affine<Curve>) : 0;
      point_address[lane] = live ? reinterpret_cast<uint64_t>(a.point) : 0;
      negate |= uint8_t((live && a.negate) << lane);
    }
    const __m512i target_at = _mm512_load_si512(group.target_offset);
    const __m512i point_at = _mm512_load_si512(point_address);
    const Vec x1 = gather<Coordinate>(targets.data(), target_at, group.active, 0);
    const Vec y1 = gather<Coordinate>(targets.data(), target_at, group.active, kCoordinateWords);
    const Vec x2 = gather<Coordinate>(nullptr, point_at, group.active, 0);
    Vec y2 = gather<Coordinate>(nullptr, point_at, group.active, kCoordinateWords);
    if (negate != 0) {  // −(x, y) = (x, −y); y ≠ 0 off infinity
      const Vec negated = C::sub(zero_coordinate, y2);
      for (size_t i = 0; i < C::kParts; ++i) {
        y2.part[i] = lanes::select<Base>(negate, y2.part[i], negated.part[i]);
      }
    }
    __mmask8 same_x = group.active;
    for (size_t i = 0; i < C::kParts; ++i) same_x &= lanes::equal<Base>(x1.part[i], x2.part[i]);
    group.special = uint8_t(same_x);
    // Lanes without a chord take the denominator one: their inverse is one, never used.
    Vec denominator = C::sub(x2, x1);
    const __mmask8 placeholder = __mmask8(group.special | uint8_t(~group.active));
    for (size_t i = 0; i < C::kParts; ++i) {
      denominator.part[i] =
          lanes::select<Base>(placeholder, denominator.part[i], i == 0 ? one : zero);
    }
    const BaseVec trick_value = C::trick_value(denominator);
    store_coordinate<Coordinate>(group, G::kX1, x1);
    store_coordinate<Coordinate>(group, G::kY1, y1);
    store_coordinate<Coordinate>(group, G::kX2, x2);
    store_coordinate<Coordinate>(group, G::kY2, y2);
    store_coordinate<Coordinate>(group, G::kDenominator, denominator);
    store<Base>(group.limbs[G::kTrickValue], trick_value);
    store<Base>(group.limbs[G::kPrefix], chain[g % 2]);
    chain[g % 2] = lanes::mul<Base>(chain[g % 2], trick_value);
  }

  Base chain_products[16];
  lanes::to_fields<Base>(chain[0], chain_products);
  lanes::to_fields<Base>(chain[1], chain_products + 8);
  thread_local BatchInverter<Base> inverter;
  inverter.invert(chain_products);
  BaseVec chain_inverse[2] = {lanes::from_fields<Base>(chain_products),
                              lanes::from_fields<Base>(chain_products + 8)};

  for (size_t g = groups; g-- > 0;) {
    const G& group = scratch[g];
    BaseVec& inverse = chain_inverse[g % 2];
    const BaseVec trick_inverse = lanes::mul<Base>(inverse, load<Base>(group.limbs[G::kPrefix]));
    inverse = lanes::mul<Base>(inverse, load<Base>(group.limbs[G::kTrickValue]));
    const Vec denominator_inverse =
        C::inverse_from(load_coordinate<Coordinate>(group, G::kDenominator), trick_inverse);
    const Vec x1 = load_coordinate<Coordinate>(group, G::kX1);
    const Vec y1 = load_coordinate<Coordinate>(group, G::kY1);
    const Vec lambda =
        C::mul(C::sub(load_coordinate<Coordinate>(group, G::kY2), y1), denominator_inverse);
    const Vec x3 = C::sub(C::sub(C::sqr(lambda), x1), load_coordinate<Coordinate>(group, G::kX2));
    const Vec y3 = C::sub(C::mul(lambda, C::sub(x1, x3)), y1);
    const __mmask8 chords = __mmask8(group.active & ~group.special);
    const __m512i target_at = _mm512_load_si512(group.target_offset);
    scatter<Coordinate>(targets.data(), target_at, chords, 0, x3);
    scatter<Coordinate>(targets.data(), target_at, chords, kCoordinateWords, y3);
  }

  for (size_t g = 0; g < groups; ++g) {
    for (unsigned lane = 0; lane < 8; ++lane) {
      if (((scratch[g].special >> lane) & 1) == 0) continue;
      const BatchAddition<Curve>& a = batch[8 * g + lane];
      const ec::Affine<Curve> point = a.negate ? -*a.point : *a.point;
      ec::Affine<Curve>& target = targets[a.bucket];
      const Coordinate denominator = ec::affine_sum_denominator(target, point);
      target = ec::affine_sum(target, point, denominator.inverse());
    }
  }
}

}  // namespace

template <>
void add_batch<bn254::G1Curve>(std::span<ec::Affine<bn254::G1Curve>> targets,
                               std::span<const BatchAddition<bn254::G1Curve>> batch) {
  add_batch_ifma<bn254::G1Curve>(targets, batch);
}

template <>
void add_batch<bls12_381::G1Curve>(std::span<ec::Affine<bls12_381::G1Curve>> targets,
                                   std::span<const BatchAddition<bls12_381::G1Curve>> batch) {
  add_batch_ifma<bls12_381::G1Curve>(targets, batch);
}

template <>
void add_batch<bn254::G2Curve>(std::span<ec::Affine<bn254::G2Curve>> targets,
                               std::span<const BatchAddition<bn254::G2Curve>> batch) {
  add_batch_ifma<bn254::G2Curve>(targets, batch);
}

template <>
void add_batch<bls12_381::G2Curve>(std::span<ec::Affine<bls12_381::G2Curve>> targets,
                                   std::span<const BatchAddition<bls12_381::G2Curve>> batch) {
  add_batch_ifma<bls12_381::G2Curve>(targets, batch);
}

#endif

}  // namespace cuzk::msm::simd
