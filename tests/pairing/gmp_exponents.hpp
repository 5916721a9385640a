#pragma once
// Exponents for the naive reference computations of the pairing tests (p^k, (p^12 − 1)/r,
// (p^4 − p^2 + 1)/r, ...), computed with GMP from the fields' moduli so that no test trusts
// the integer arithmetic it checks.

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "ff/bigint.hpp"

namespace cuzk::test {

// An mpz_t that frees itself.
class Integer {
 public:
  Integer() { mpz_init(v_); }
  template <size_t N>
  explicit Integer(const ff::BigInt<N>& x) {
    mpz_init(v_);
    mpz_import(v_, N, -1, sizeof(uint64_t), 0, 0, x.limb);
  }
  // A hexadecimal literal (no prefix); throws on a malformed one (a bug in the test itself).
  static Integer from_hex(const char* digits) {
    Integer r;
    if (mpz_set_str(r.v_, digits, 16) != 0) throw std::invalid_argument(digits);
    return r;
  }
  Integer(const Integer& o) { mpz_init_set(v_, o.v_); }
  Integer& operator=(const Integer& o) {
    mpz_set(v_, o.v_);
    return *this;
  }
  ~Integer() { mpz_clear(v_); }

  mpz_ptr get() { return v_; }
  mpz_srcptr get() const { return v_; }

  friend Integer operator*(const Integer& a, const Integer& b) {
    Integer r;
    mpz_mul(r.v_, a.v_, b.v_);
    return r;
  }
  friend Integer operator+(const Integer& a, const Integer& b) {
    Integer r;
    mpz_add(r.v_, a.v_, b.v_);
    return r;
  }
  friend Integer operator+(const Integer& a, long b) {
    Integer r;
    if (b >= 0) {
      mpz_add_ui(r.v_, a.v_, static_cast<unsigned long>(b));
    } else {
      mpz_sub_ui(r.v_, a.v_, static_cast<unsigned long>(-b));
    }
    return r;
  }
  friend Integer operator-(const Integer& a, const Integer& b) {
    Integer r;
    mpz_sub(r.v_, a.v_, b.v_);
    return r;
  }
  Integer mod(const Integer& m) const {
    Integer r;
    mpz_mod(r.v_, v_, m.v_);
    return r;
  }
  Integer pow(unsigned long e) const {
    Integer r;
    mpz_pow_ui(r.v_, v_, e);
    return r;
  }
  // Exact quotient; throws if d does not divide this (a wrong exponent in a test).
  Integer divided_exactly_by(const Integer& d) const {
    if (!mpz_divisible_p(v_, d.v_)) throw std::logic_error("exponent is not divisible");
    Integer r;
    mpz_divexact(r.v_, v_, d.v_);
    return r;
  }

  // The value as M limbs; throws if it does not fit.
  template <size_t M>
  ff::BigInt<M> limbs() const {
    if (mpz_sgn(v_) < 0 || mpz_sizeinbase(v_, 2) > 64 * M) {
      throw std::out_of_range("integer does not fit the limb count");
    }
    ff::BigInt<M> r{};
    size_t written = 0;
    mpz_export(r.limb, &written, -1, sizeof(uint64_t), 0, 0, v_);
    return r;
  }

 private:
  mpz_t v_;
};

}  // namespace cuzk::test
