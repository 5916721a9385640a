#pragma once
// Text forms of unsigned multi-limb integers (little-endian 64-bit limbs), shared by the field
// codecs of every curve. Parsing is strict: the grammar is exactly what snarkjs and noble write
// (decimal: digits only; hexadecimal: an optional "0x" and hex digits), so that a stray sign,
// a space or an empty string is reported instead of being read as some other number.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace cuzk::io {

// Why a text could not be read as an integer.
enum class IntegerTextError {
  kNone,
  kEmpty,         // no digits at all
  kBadCharacter,  // a character outside the grammar (sign, space, letter, ...)
  kTooLarge,      // the value needs more limbs than the destination has
};

// Base-10 digits of the integer, without leading zeros ("0" for zero).
std::string limbs_to_decimal(std::span<const uint64_t> limbs);

// Lower-case hexadecimal digits, exactly 2·width_bytes of them (leading zeros kept), no prefix.
// The value must fit in width_bytes.
std::string limbs_to_hex(std::span<const uint64_t> limbs, size_t width_bytes);

// Parses digits 0-9 only (leading zeros allowed) into `out`; on error `out` is unspecified.
IntegerTextError decimal_to_limbs(std::string_view text, std::span<uint64_t> out);

// Parses an optional "0x"/"0X" prefix followed by hex digits of either case.
IntegerTextError hex_to_limbs(std::string_view text, std::span<uint64_t> out);

// The text for an error message: quoted, cut to a readable length, control bytes escaped.
std::string quote_for_message(std::string_view text);

}  // namespace cuzk::io
