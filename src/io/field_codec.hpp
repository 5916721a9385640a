#pragma once
// Encodings of prime-field elements, for any ff::Field.
//
//   text:   decimal (snarkjs JSON, public.json) and hexadecimal (test vectors, debugging);
//   binary: little-endian standard form (.wtns, .r1cs), little-endian Montgomery form (.zkey
//           coordinates) and big-endian standard form (zcash / bellman encodings).
//
// Every decoder rejects values ≥ p with a cuzk::Error of kind kInvalidInput: a non-canonical
// encoding is never reduced silently, because two different byte strings for one value would
// break hashing of keys and proofs. Decoders take a `role` ("public input 3", "zkey alpha_1 x")
// that leads the message, so the user learns which value of which file was wrong.
//
// snarkjs's Montgomery form uses R = 2^(8·n8) with n8 = 8·⌈bits/64⌉ bytes per element; for all
// four fields of BLS12-381 and BN254 that is 2^(64·limbs), our own R (checked below), so a
// Montgomery encoding is our limbs written out little-endian, with no multiplication.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "ff/bigint.hpp"
#include "io/integer_text.hpp"
#include "util/error.hpp"

namespace cuzk::io {

// Bytes per element in snarkjs's files (n8): whole 64-bit words.
template <class F>
inline constexpr size_t kSnarkjsBytes = 8 * F::kLimbs;

namespace detail {

inline std::string with_role(std::string_view role, std::string_view problem) {
  std::string message(role.empty() ? std::string_view("field element") : role);
  message += ": ";
  message += problem;
  return message;
}

template <class F>
typename F::Int checked_canonical(const typename F::Int& value, std::string_view role,
                                  std::string_view shown) {
  if (compare(value, F::kModulus) >= 0) {
    CUZK_INVALID_INPUT(with_role(role, std::string(shown) +
                                           " is not below the field modulus (an encoding "
                                           "must hold a value < p)"));
  }
  return value;
}

template <class F>
void check_length(std::span<const uint8_t> in, size_t expected, std::string_view role) {
  if (in.size() != expected) {
    CUZK_INVALID_INPUT(with_role(
        role, "expected " + std::to_string(expected) + " bytes, got " + std::to_string(in.size())));
  }
}

template <class F>
typename F::Int int_from_le(std::span<const uint8_t> in) {
  typename F::Int v{};
  for (size_t i = 0; i < in.size(); ++i) v.limb[i / 8] |= uint64_t(in[i]) << (8 * (i % 8));
  return v;
}

template <class F>
typename F::Int int_from_be(std::span<const uint8_t> in) {
  typename F::Int v{};
  for (size_t i = 0; i < in.size(); ++i) {
    v.limb[i / 8] |= uint64_t(in[in.size() - 1 - i]) << (8 * (i % 8));
  }
  return v;
}

template <class F>
std::string describe_bytes(const typename F::Int& v) {
  return "0x" + limbs_to_hex(v.limb, F::kBytes);
}

}  // namespace detail

// ---- text ----

template <class F>
std::string to_decimal(const F& x) {
  return limbs_to_decimal(x.to_int().limb);
}

// Digits 0-9 only: no sign, no spaces, not empty; the value must be < p.
template <class F>
F from_decimal(std::string_view text, std::string_view role = {}) {
  typename F::Int v{};
  switch (decimal_to_limbs(text, v.limb)) {
    case IntegerTextError::kNone:
      break;
    case IntegerTextError::kEmpty:
      CUZK_INVALID_INPUT(detail::with_role(role, "empty string is not a decimal number"));
    case IntegerTextError::kBadCharacter:
      CUZK_INVALID_INPUT(detail::with_role(
          role, quote_for_message(text) + " is not a decimal number (only digits 0-9 allowed)"));
    case IntegerTextError::kTooLarge:
      CUZK_INVALID_INPUT(detail::with_role(
          role, quote_for_message(text) + " is not below the field modulus (too many digits)"));
  }
  return F::from_int(detail::checked_canonical<F>(v, role, quote_for_message(text)));
}

// Big-endian, lower case, exactly 2·kBytes digits, no prefix.
template <class F>
std::string to_hex(const F& x) {
  return limbs_to_hex(x.to_int().limb, F::kBytes);
}

// An optional "0x" then hex digits of either case (any count; leading zeros allowed).
template <class F>
F from_hex(std::string_view text, std::string_view role = {}) {
  typename F::Int v{};
  switch (hex_to_limbs(text, v.limb)) {
    case IntegerTextError::kNone:
      break;
    case IntegerTextError::kEmpty:
      CUZK_INVALID_INPUT(detail::with_role(role, quote_for_message(text) + " has no hex digits"));
    case IntegerTextError::kBadCharacter:
      CUZK_INVALID_INPUT(detail::with_role(
          role, quote_for_message(text) + " is not a hexadecimal number (0-9, a-f after an "
                                          "optional 0x)"));
    case IntegerTextError::kTooLarge:
      CUZK_INVALID_INPUT(detail::with_role(
          role, quote_for_message(text) + " is not below the field modulus (too many digits)"));
  }
  return F::from_int(detail::checked_canonical<F>(v, role, quote_for_message(text)));
}

// ---- binary ----

// Little-endian standard form, n8 bytes (.wtns values, .r1cs coefficients).
template <class F>
void write_le_standard(const F& x, std::span<uint8_t, kSnarkjsBytes<F>> out) {
  typename F::Int v = x.to_int();
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
}
template <class F>
F read_le_standard(std::span<const uint8_t> in, std::string_view role = {}) {
  detail::check_length<F>(in, kSnarkjsBytes<F>, role);
  typename F::Int v = detail::int_from_le<F>(in);
  return F::from_int(detail::checked_canonical<F>(v, role, detail::describe_bytes<F>(v)));
}

// Little-endian Montgomery form x·R mod p, n8 bytes (.zkey coordinates).
template <class F>
void write_le_montgomery(const F& x, std::span<uint8_t, kSnarkjsBytes<F>> out) {
  static_assert(F::kR == ff::pow2_mod(8 * kSnarkjsBytes<F>, F::kModulus),
                "snarkjs's Montgomery radix 2^(8·n8) differs from this field's R");
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(x.mont[i / 8] >> (8 * (i % 8)));
}
template <class F>
F read_le_montgomery(std::span<const uint8_t> in, std::string_view role = {}) {
  static_assert(F::kR == ff::pow2_mod(8 * kSnarkjsBytes<F>, F::kModulus),
                "snarkjs's Montgomery radix 2^(8·n8) differs from this field's R");
  detail::check_length<F>(in, kSnarkjsBytes<F>, role);
  typename F::Int v = detail::int_from_le<F>(in);
  return F::from_montgomery(
      detail::checked_canonical<F>(v, role, "Montgomery value " + detail::describe_bytes<F>(v)));
}

// Big-endian standard form, kBytes bytes (zcash point encodings, without their flag bits).
template <class F>
void write_be(const F& x, std::span<uint8_t, F::kBytes> out) {
  x.to_bytes_be(out);
}
template <class F>
F read_be(std::span<const uint8_t> in, std::string_view role = {}) {
  detail::check_length<F>(in, F::kBytes, role);
  typename F::Int v = detail::int_from_be<F>(in);
  return F::from_int(detail::checked_canonical<F>(v, role, detail::describe_bytes<F>(v)));
}

}  // namespace cuzk::io
