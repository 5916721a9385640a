#pragma once
// Which curve a file belongs to, and the compile-time records the readers are templates over.
//
// The curve is a runtime property of a file (its primes), while every type is fixed at compile
// time. So each reader is a template over one of the records below, and sniff_curve() reads
// just enough of a file to say which record to instantiate; with_curve() turns the answer
// into a call of a generic lambda:
//
//   formats::with_curve(formats::sniff_curve(path), [&](auto curve) {
//     using Curve = decltype(curve);
//     auto key = formats::read_zkey<Curve>(path);
//     ...
//   });

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"

namespace cuzk::formats {

enum class CurveId { kBn254, kBls12_381 };

// The name snarkjs writes in proof.json and verification_key.json: "bn128" or "bls12381".
std::string_view snarkjs_curve_name(CurveId id);
// The name people use: "BN254" or "BLS12-381".
std::string_view curve_display_name(CurveId id);

struct Bn254 {
  static constexpr CurveId kId = CurveId::kBn254;
  using Fr = bn254::Fr;  // scalars: circuit values, witnesses, coefficients
  using Fq = bn254::Fp;  // point coordinates
  using G1 = bn254::G1Affine;
  using G2 = bn254::G2Affine;
};

struct Bls12_381 {
  static constexpr CurveId kId = CurveId::kBls12_381;
  using Fr = bls12_381::Fr;
  using Fq = bls12_381::Fp;
  using G1 = bls12_381::G1Affine;
  using G2 = bls12_381::G2Affine;
};

// The curve whose scalar field (r) or base field (q) has this modulus, written as snarkjs does
// (n8 little-endian bytes, n8 = 8·⌈bits/64⌉); nullopt for any other prime or length.
std::optional<CurveId> curve_with_scalar_modulus(std::span<const uint8_t> le_bytes);
std::optional<CurveId> curve_with_base_modulus(std::span<const uint8_t> le_bytes);

// Reads the magic and the prime of a .r1cs or .wtns (section 1: r) or a .zkey (section 2: q,
// then r, which must belong to the same curve). Throws kInvalidInput for other files and
// for a prime of neither curve.
CurveId sniff_curve(std::span<const uint8_t> file, std::string_view file_name);
CurveId sniff_curve(const std::filesystem::path& path);

template <class Fn>
decltype(auto) with_curve(CurveId id, Fn&& fn) {
  if (id == CurveId::kBn254) return fn(Bn254{});
  return fn(Bls12_381{});
}

namespace detail {

// "BN254's scalar field prime r", or the prime in hex when it belongs to neither curve.
std::string describe_prime(std::span<const uint8_t> prime);

// Checks that a prime read from a file (n8 bytes, little-endian) is the modulus of field F of
// curve Curve, with a message that says what the file holds instead: "holds BN254's scalar
// field prime, but a BLS12-381 file was expected". `where` prefixes the message.
void check_prime(std::span<const uint8_t> prime, std::span<const uint64_t> expected_limbs,
                 CurveId expected_curve, bool is_scalar_field, const std::string& where);

template <class Curve, class F>
void check_field_prime(std::span<const uint8_t> prime, const std::string& where) {
  static_assert(std::is_same_v<F, typename Curve::Fr> || std::is_same_v<F, typename Curve::Fq>);
  check_prime(prime, F::kModulus.limb, Curve::kId, std::is_same_v<F, typename Curve::Fr>, where);
}

}  // namespace detail

}  // namespace cuzk::formats
