#pragma once
// r and s of one proof as little-endian integers below the scalar field's modulus, for either
// curve: fixed blinding for callers that draw their own (bellperson hands r and s to the
// prover) and for tests that compare proofs byte for byte. key_file.hpp turns them into field
// elements (kInvalidInput for a value ≥ r).

#include <array>
#include <cstdint>

namespace cuzk::groth16 {

struct BlindingBytes {
  std::array<uint8_t, 32> r{}, s{};
};

}  // namespace cuzk::groth16
