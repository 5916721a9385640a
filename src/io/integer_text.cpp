#include "io/integer_text.hpp"

#include <algorithm>
#include <vector>

namespace cuzk::io {
namespace {

using u128 = unsigned __int128;

// 10^19 is the largest power of ten below 2^64: one 128-by-64 division per 19 digits.
constexpr uint64_t kDecimalChunk = 10'000'000'000'000'000'000ull;
constexpr size_t kDecimalChunkDigits = 19;

bool all_zero(std::span<const uint64_t> limbs) {
  return std::all_of(limbs.begin(), limbs.end(), [](uint64_t l) { return l == 0; });
}

// limbs = limbs·factor + addend; returns false when the result does not fit.
bool mul_add_in_place(std::span<uint64_t> limbs, uint64_t factor, uint64_t addend) {
  u128 carry = addend;
  for (uint64_t& limb : limbs) {
    carry += u128(limb) * factor;
    limb = uint64_t(carry);
    carry >>= 64;
  }
  return carry == 0;
}

int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string limbs_to_decimal(std::span<const uint64_t> limbs) {
  std::vector<uint64_t> rest(limbs.begin(), limbs.end());
  std::vector<uint64_t> chunks;  // base-10^19 digits, least significant first
  while (!all_zero(rest)) {
    u128 remainder = 0;
    for (size_t i = rest.size(); i-- > 0;) {
      u128 current = (remainder << 64) | rest[i];
      rest[i] = uint64_t(current / kDecimalChunk);
      remainder = current % kDecimalChunk;
    }
    chunks.push_back(uint64_t(remainder));
  }
  if (chunks.empty()) return "0";
  std::string text = std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::string digits = std::to_string(chunks[i]);
    text.append(kDecimalChunkDigits - digits.size(), '0');
    text += digits;
  }
  return text;
}

std::string limbs_to_hex(std::span<const uint64_t> limbs, size_t width_bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text(2 * width_bytes, '0');
  for (size_t byte = 0; byte < width_bytes && byte / 8 < limbs.size(); ++byte) {
    uint8_t value = uint8_t(limbs[byte / 8] >> (8 * (byte % 8)));
    size_t pos = 2 * (width_bytes - 1 - byte);
    text[pos] = kDigits[value >> 4];
    text[pos + 1] = kDigits[value & 15];
  }
  return text;
}

IntegerTextError decimal_to_limbs(std::string_view text, std::span<uint64_t> out) {
  std::fill(out.begin(), out.end(), 0);
  if (text.empty()) return IntegerTextError::kEmpty;
  for (char c : text) {
    if (c < '0' || c > '9') return IntegerTextError::kBadCharacter;
  }
  // Leading zeros cannot overflow; skipping them keeps a long run of zeros from being "too large".
  size_t first = text.find_first_not_of('0');
  if (first == std::string_view::npos) return IntegerTextError::kNone;
  text.remove_prefix(first);
  // Chunks of up to 19 digits: limbs = limbs·10^len + chunk.
  while (!text.empty()) {
    size_t len = std::min(text.size(), kDecimalChunkDigits);
    uint64_t chunk = 0, scale = 1;
    for (size_t i = 0; i < len; ++i) {
      chunk = chunk * 10 + uint64_t(text[i] - '0');
      scale *= 10;
    }
    if (!mul_add_in_place(out, scale, chunk)) return IntegerTextError::kTooLarge;
    text.remove_prefix(len);
  }
  return IntegerTextError::kNone;
}

IntegerTextError hex_to_limbs(std::string_view text, std::span<uint64_t> out) {
  std::fill(out.begin(), out.end(), 0);
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty()) return IntegerTextError::kEmpty;
  for (char c : text) {
    if (hex_digit_value(c) < 0) return IntegerTextError::kBadCharacter;
  }
  size_t first = text.find_first_not_of('0');
  if (first == std::string_view::npos) return IntegerTextError::kNone;
  text.remove_prefix(first);
  if (text.size() > 16 * out.size()) return IntegerTextError::kTooLarge;
  for (size_t k = 0; k < text.size(); ++k) {
    uint64_t digit = uint64_t(hex_digit_value(text[text.size() - 1 - k]));
    out[k / 16] |= digit << (4 * (k % 16));
  }
  return IntegerTextError::kNone;
}

std::string quote_for_message(std::string_view text) {
  constexpr size_t kMaxShown = 120;
  std::string quoted = "\"";
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      quoted += '\\';
      quoted += char(c);
    } else if (c < 0x20 || c >= 0x7f) {
      static constexpr char kDigits[] = "0123456789abcdef";
      quoted += "\\x";
      quoted += kDigits[c >> 4];
      quoted += kDigits[c & 15];
    } else {
      quoted += char(c);
    }
  }
  quoted += '"';
  if (text.size() > kMaxShown) quoted += "... (" + std::to_string(text.size()) + " characters)";
  return quoted;
}

}  // namespace cuzk::io
