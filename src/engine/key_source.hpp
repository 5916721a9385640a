#pragma once
// KeySource → groth16::KeyFileSource: how the engine's backends open a key file.

#include "engine/backend.hpp"
#include "groth16/key_file.hpp"

namespace cuzk::engine {

inline groth16::KeyFileSource key_file_source(const KeySource& source) {
  return {source.path, source.r1cs,
          source.assignments_only ? groth16::Matrices::kNone : groth16::Matrices::kRequired};
}

}  // namespace cuzk::engine
