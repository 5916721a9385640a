#include "engine/key_files.hpp"

#include <array>
#include <cstdint>
#include <system_error>

#include "formats/params.hpp"
#include "util/error.hpp"

namespace cuzk::engine {

groth16::KeyFormat key_file_format(const KeySource& source) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(source.path, error)) {
    CUZK_THROW(ErrorKind::kNotFound, source.path.string() + ": no such key file");
  }
  return groth16::detect_key_format(source.path);
}

std::filesystem::path bellman_r1cs_path(const KeySource& source) {
  std::error_code error;
  if (!source.r1cs.empty()) {
    if (!std::filesystem::is_regular_file(source.r1cs, error)) {
      CUZK_INVALID_INPUT(source.path.string() + ": the .r1cs given for this .params key, " +
                         source.r1cs.string() + ", does not exist");
    }
    return source.r1cs;
  }
  std::filesystem::path beside = source.path;
  beside.replace_extension(".r1cs");
  if (!std::filesystem::is_regular_file(beside, error)) {
    CUZK_INVALID_INPUT(source.path.string() +
                       ": a bellman .params key needs its circuit's .r1cs (the key holds no "
                       "constraint matrices); none was given and " +
                       beside.string() + " does not exist");
  }
  return beside;
}

std::string bellman_proof_text(const groth16::Proof<groth16::BellmanCurve>& proof) {
  static constexpr char kDigits[] = "0123456789abcdef";
  const auto bytes = formats::encode_bellman_proof(groth16::proof_to_bellman(proof));
  std::string text;
  text.reserve(2 * bytes.size());
  for (uint8_t b : bytes) {
    text.push_back(kDigits[b >> 4]);
    text.push_back(kDigits[b & 15]);
  }
  return text;
}

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

bool is_bellman_proof_text(const std::string& text) {
  if (text.size() != 2 * formats::kBellmanProofBytes) return false;
  for (char c : text) {
    if (hex_digit(c) < 0) return false;
  }
  return true;
}

std::array<uint8_t, formats::kBellmanProofBytes> bellman_proof_bytes(const std::string& text) {
  if (text.size() != 2 * formats::kBellmanProofBytes) {
    CUZK_INVALID_INPUT("a bellman proof text has " +
                       std::to_string(2 * formats::kBellmanProofBytes) + " hex digits, not " +
                       std::to_string(text.size()));
  }
  std::array<uint8_t, formats::kBellmanProofBytes> bytes;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int hi = hex_digit(text[2 * i]), lo = hex_digit(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      CUZK_INVALID_INPUT(
          "a bellman proof text holds a character that is not a lowercase hex "
          "digit at position " +
          std::to_string(hi < 0 ? 2 * i : 2 * i + 1));
    }
    bytes[i] = uint8_t(hi << 4 | lo);
  }
  return bytes;
}

groth16::Proof<groth16::BellmanCurve> bellman_proof_from_text(const std::string& text) {
  return groth16::proof_from_bellman(formats::decode_bellman_proof(bellman_proof_bytes(text)));
}

}  // namespace cuzk::engine
