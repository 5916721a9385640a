#pragma once
// Field elements in the byte layouts of snarkjs's files, for the readers' inner loops.
//
// io/field_codec.hpp has the same conversions for single values with rich messages; these
// versions do no allocation on the success path, which matters at 10^8-10^9 elements per
// file, and leave the message to the caller, who knows which record was bad.

#include <cstddef>
#include <cstdint>
#include <string>

#include "formats/binary_container.hpp"
#include "io/field_codec.hpp"
#include "io/integer_text.hpp"

namespace cuzk::formats::detail {

// Bytes per element of F in snarkjs's files (n8 = 8 per limb).
template <class F>
inline constexpr size_t kElementBytes = io::kSnarkjsBytes<F>;

// The integer in kElementBytes<F> little-endian bytes at p, and whether it is below F's
// modulus (a canonical encoding).
template <class F>
bool load_le(const uint8_t* p, typename F::Int& out) {
  for (size_t i = 0; i < F::kLimbs; ++i) out.limb[i] = load_u64_le(p + 8 * i);
  return compare(out, F::kModulus) < 0;
}

template <class F>
void store_le(const typename F::Int& v, uint8_t* out) {
  for (size_t i = 0; i < kElementBytes<F>; ++i) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
}

// "0x1234…" for an error message: the integer as big-endian hex.
template <class F>
std::string hex_of(const typename F::Int& v) {
  return "0x" + io::limbs_to_hex(v.limb, kElementBytes<F>);
}

}  // namespace cuzk::formats::detail
