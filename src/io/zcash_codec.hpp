#pragma once
// The zcash serialization of BLS12-381 points, used by bellman/bellperson .params files and
// Groth16 proofs (github.com/zkcrypto/pairing, src/bls12_381/README.md; the same encoding is
// Appendix C of draft-irtf-cfrg-pairing-friendly-curves-11).
//
//   G1: compressed 48 bytes = x;        uncompressed 96 bytes  = x ‖ y
//   G2: compressed 96 bytes = x;        uncompressed 192 bytes = x ‖ y
// Fp elements are big-endian (48 bytes, 381 bits used); an Fp2 element c0 + c1·u is written
// c1 then c0. The three free top bits of the first byte carry flags:
//   0x80  compressed form (set exactly in the compressed encodings)
//   0x40  the point at infinity; then every other bit is zero
//   0x20  compressed only: y is the lexicographically largest of ±y (for Fp2: compare c1,
//         then c0 when c1 = 0; an element is "largest" when it exceeds (p − 1)/2)
//
// Decoders reject, with a kInvalidInput error naming the problem: a wrong length, flags that
// do not match the form, an infinity encoding with other bits set, a coordinate ≥ p, an x with
// no point on the curve, a point off the curve, and (unless SubgroupCheck::kOff) a point
// outside the prime-order subgroup.

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "curves/bls12_381.hpp"
#include "io/point_common.hpp"

namespace cuzk::io {

inline constexpr size_t kZcashG1CompressedBytes = 48;
inline constexpr size_t kZcashG1UncompressedBytes = 96;
inline constexpr size_t kZcashG2CompressedBytes = 96;
inline constexpr size_t kZcashG2UncompressedBytes = 192;

std::array<uint8_t, kZcashG1CompressedBytes> to_zcash_compressed(const bls12_381::G1Affine& p);
std::array<uint8_t, kZcashG1UncompressedBytes> to_zcash_uncompressed(const bls12_381::G1Affine& p);
std::array<uint8_t, kZcashG2CompressedBytes> to_zcash_compressed(const bls12_381::G2Affine& p);
std::array<uint8_t, kZcashG2UncompressedBytes> to_zcash_uncompressed(const bls12_381::G2Affine& p);

// `role` leads every error message ("params h[17]"); by default the group's name.
bls12_381::G1Affine g1_from_zcash_compressed(std::span<const uint8_t> bytes,
                                             SubgroupCheck check = SubgroupCheck::kOn,
                                             std::string_view role = {});
bls12_381::G1Affine g1_from_zcash_uncompressed(std::span<const uint8_t> bytes,
                                               SubgroupCheck check = SubgroupCheck::kOn,
                                               std::string_view role = {});
bls12_381::G2Affine g2_from_zcash_compressed(std::span<const uint8_t> bytes,
                                             SubgroupCheck check = SubgroupCheck::kOn,
                                             std::string_view role = {});
bls12_381::G2Affine g2_from_zcash_uncompressed(std::span<const uint8_t> bytes,
                                               SubgroupCheck check = SubgroupCheck::kOn,
                                               std::string_view role = {});

}  // namespace cuzk::io
