#pragma once
// GMP as the oracle for the Montgomery fields: an RAII mpz, conversions between mpz and the
// limbs of ff::BigInt, a model of each field on canonical integers, and the input generator
// shared by the property tests (uniform values mixed with edge values and limb patterns that
// stress carry chains).

#include <gmp.h>

#include <cstdint>
#include <ostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "curves/bls12_381_fields.hpp"
#include "curves/bn254_fields.hpp"
#include "ff/bigint.hpp"

namespace cuzk::test {

class Mpz {
 public:
  Mpz() { mpz_init(v_); }
  explicit Mpz(unsigned long x) { mpz_init_set_ui(v_, x); }
  // A literal in the given base; throws on a malformed literal (a bug in the test itself).
  Mpz(const char* digits, int base) {
    if (mpz_init_set_str(v_, digits, base) != 0) {
      mpz_clear(v_);
      throw std::invalid_argument(std::string("bad integer literal: ") + digits);
    }
  }
  Mpz(const Mpz& o) { mpz_init_set(v_, o.v_); }
  Mpz& operator=(const Mpz& o) {
    mpz_set(v_, o.v_);
    return *this;
  }
  ~Mpz() { mpz_clear(v_); }

  mpz_ptr get() { return v_; }
  mpz_srcptr get() const { return v_; }

  std::string hex() const {
    std::vector<char> buf(mpz_sizeinbase(v_, 16) + 2);
    mpz_get_str(buf.data(), 16, v_);
    return "0x" + std::string(buf.data());
  }
  friend bool operator==(const Mpz& a, const Mpz& b) { return mpz_cmp(a.v_, b.v_) == 0; }
  friend std::ostream& operator<<(std::ostream& os, const Mpz& x) { return os << x.hex(); }

 private:
  mpz_t v_;
};

template <size_t N>
Mpz to_mpz(const ff::BigInt<N>& x) {
  Mpz r;
  mpz_import(r.get(), N, -1, sizeof(uint64_t), 0, 0, x.limb);
  return r;
}

// x must be below 2^(64N).
template <size_t N>
ff::BigInt<N> to_bigint(const Mpz& x) {
  ff::BigInt<N> r{};
  if (mpz_sizeinbase(x.get(), 2) > 64 * N) throw std::out_of_range("integer wider than N limbs");
  size_t written = 0;
  mpz_export(r.limb, &written, -1, sizeof(uint64_t), 0, 0, x.get());
  return r;
}

// Display names for typed tests.
template <class F>
constexpr const char* field_name();
template <>
constexpr const char* field_name<bls12_381::Fp>() {
  return "bls12_381_Fp";
}
template <>
constexpr const char* field_name<bls12_381::Fr>() {
  return "bls12_381_Fr";
}
template <>
constexpr const char* field_name<bn254::Fp>() {
  return "bn254_Fp";
}
template <>
constexpr const char* field_name<bn254::Fr>() {
  return "bn254_Fr";
}
template <>
constexpr const char* field_name<bls12_381::Fp2>() {
  return "bls12_381_Fp2";
}
template <>
constexpr const char* field_name<bn254::Fp2>() {
  return "bn254_Fp2";
}

struct FieldNames {
  template <class F>
  static std::string GetName(int) {
    return field_name<F>();
  }
};

// The field modelled on canonical integers mod p. The Montgomery representative of a value v
// is v·R mod p; `value` undoes that with GMP's own R⁻¹, so checks do not rely on Field::to_int.
template <class F>
struct GmpField {
  static constexpr size_t N = F::kLimbs;
  Mpz p = to_mpz(F::kModulus);
  Mpz r;      // R = 2^(64N) mod p
  Mpz r_inv;  // R⁻¹ mod p

  GmpField() {
    mpz_setbit(r.get(), 64 * N);
    mpz_mod(r.get(), r.get(), p.get());
    mpz_invert(r_inv.get(), r.get(), p.get());
  }

  Mpz value(const F& x) const {
    Mpz v = to_mpz(x.as_int());
    mpz_mul(v.get(), v.get(), r_inv.get());
    mpz_mod(v.get(), v.get(), p.get());
    return v;
  }
  // The element whose canonical value is v mod p.
  F element(const Mpz& v) const {
    Mpz m;
    mpz_mul(m.get(), v.get(), r.get());
    mpz_mod(m.get(), m.get(), p.get());
    return F::from_montgomery(to_bigint<N>(m));
  }
  Mpz reduce(Mpz v) const {
    mpz_mod(v.get(), v.get(), p.get());
    return v;
  }
  Mpz add(const Mpz& a, const Mpz& b) const {
    Mpz s;
    mpz_add(s.get(), a.get(), b.get());
    return reduce(s);
  }
  Mpz sub(const Mpz& a, const Mpz& b) const {
    Mpz s;
    mpz_sub(s.get(), a.get(), b.get());
    return reduce(s);  // mpz_mod is non-negative
  }
  Mpz mul(const Mpz& a, const Mpz& b) const {
    Mpz s;
    mpz_mul(s.get(), a.get(), b.get());
    return reduce(s);
  }
  // Inverse with 0 ↦ 0, the convention of Field::inverse.
  Mpz inv(const Mpz& a) const {
    Mpz s;
    if (mpz_sgn(a.get()) != 0) mpz_invert(s.get(), a.get(), p.get());
    return s;
  }
  Mpz pow(const Mpz& a, const Mpz& e) const {
    Mpz s;
    mpz_powm(s.get(), a.get(), e.get(), p.get());
    return s;
  }
  int legendre(const Mpz& a) const { return mpz_legendre(a.get(), p.get()); }

  // Canonical edge values: 0, 1, 2, p−1, p−2, (p−1)/2, (p+1)/2, and the largest value below p
  // whose lower limbs are all saturated (top limb one below p's).
  std::vector<Mpz> edge_values() const {
    std::vector<Mpz> out;
    for (unsigned long k : {0ul, 1ul, 2ul}) out.emplace_back(k);
    for (unsigned long k : {1ul, 2ul}) {
      Mpz v;
      mpz_sub_ui(v.get(), p.get(), k);
      out.push_back(v);
    }
    Mpz half;
    mpz_sub_ui(half.get(), p.get(), 1);
    mpz_fdiv_q_2exp(half.get(), half.get(), 1);
    out.push_back(half);
    mpz_add_ui(half.get(), half.get(), 1);
    out.push_back(half);
    ff::BigInt<N> saturated;
    for (size_t i = 0; i + 1 < N; ++i) saturated.limb[i] = ~uint64_t(0);
    saturated.limb[N - 1] = F::kModulus.limb[N - 1] - 1;
    out.push_back(to_mpz(saturated));
    return out;
  }
};

// Inputs for the property tests. Case i < edge count is the i-th edge value (canonical values
// above, then Montgomery representatives with saturated or empty limbs); afterwards one case
// in eight is a random edge value, one in four has each Montgomery limb independently 0, all
// ones, or random (which walks carry chains end to end), and the rest are uniform.
template <class F>
class Inputs {
 public:
  static constexpr size_t N = F::kLimbs;

  Inputs(const GmpField<F>& gmp, std::mt19937_64& rng) : rng_(rng) {
    for (const Mpz& v : gmp.edge_values()) edges_.push_back(gmp.element(v));
    ff::BigInt<N> m{};
    for (size_t i = 0; i + 1 < N; ++i) m.limb[i] = ~uint64_t(0);
    edges_.push_back(F::from_montgomery(m));  // 2^(64(N−1)) − 1
    m.limb[N - 1] = F::kModulus.limb[N - 1] - 1;
    edges_.push_back(F::from_montgomery(m));
    m = F::kModulus;
    m.limb[0] -= 1;
    edges_.push_back(F::from_montgomery(m));  // representative p − 1
  }

  size_t edge_count() const { return edges_.size(); }

  F next() {
    size_t i = count_++;
    if (i < edges_.size()) return edges_[i];
    switch (rng_() % 8) {
      case 0:
        return edges_[rng_() % edges_.size()];
      case 1:
      case 2:
        return limb_pattern();
      default:
        return F::random(rng_);
    }
  }

 private:
  F limb_pattern() {
    for (;;) {
      ff::BigInt<N> m;
      for (size_t i = 0; i < N; ++i) {
        uint64_t kind = rng_() % 3;
        m.limb[i] = kind == 0 ? 0 : kind == 1 ? ~uint64_t(0) : rng_();
      }
      m.limb[N - 1] &= (uint64_t(1) << (F::kBits - 64 * (N - 1))) - 1;
      if (ff::compare(m, F::kModulus) < 0) return F::from_montgomery(m);
    }
  }

  std::mt19937_64& rng_;
  std::vector<F> edges_;
  size_t count_ = 0;
};

}  // namespace cuzk::test
