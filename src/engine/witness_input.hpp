#pragma once
// A partition's witness as bytes, whichever way it came (PartitionInput): its own bytes, or its
// file (opened at submission) mapped when the partition is prepared. The view keeps the mapping
// alive.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "engine/job.hpp"
#include "formats/mapped_file.hpp"

namespace cuzk::engine {

class WitnessView {
 public:
  // Maps the opened file of a by-file input (kInvalidInput naming the file when it shrank
  // since submission or cannot be mapped); kInvalidInput for an empty witness.
  static WitnessView of(const PartitionInput& input);

  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::string& name() const { return name_; }  // "witness" or the file's path

 private:
  std::optional<formats::MappedFile> file_;
  std::span<const uint8_t> bytes_;
  std::string name_ = "witness";
};

// What Engine::submit checks of partition `index` before accepting it: a witness is given one
// way, not both, not empty, or a bellman assignment alone. kInvalidInput names the partition
// and the problem.
void check_partition_input(const PartitionInput& input, size_t index);

// The bytes a by-value witness holds in host memory while its partition waits (0 for a file).
inline uint64_t witness_bytes_held(const PartitionInput& input) {
  return input.witness ? input.witness->size() : 0;
}

}  // namespace cuzk::engine
