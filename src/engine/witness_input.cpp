#include "engine/witness_input.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

namespace cuzk::engine {

namespace fs = std::filesystem;

WitnessView WitnessView::of(const PartitionInput& input) {
  WitnessView view;
  if (input.witness) {
    view.bytes_ = *input.witness;
  } else {
    view.file_ = formats::MappedFile::open(input.witness_path);
    view.file_->advise(formats::MappedFile::Access::kSequential);
    view.bytes_ = view.file_->bytes();
    view.name_ = input.witness_path.string();
  }
  if (view.bytes_.empty()) CUZK_INVALID_INPUT(view.name_ + ": empty witness");
  return view;
}

void check_partition_input(const PartitionInput& input, size_t index) {
  const std::string partition = "partition " + std::to_string(index);
  const bool has_path = !input.witness_path.empty();
  if (input.assignment) {
    if (input.witness || has_path) {
      CUZK_INVALID_INPUT(partition + ": both a witness and a bellman assignment are given");
    }
    return;  // its contents are checked against the key when it is proved
  }
  if (input.witness && has_path) {
    CUZK_INVALID_INPUT(partition + ": a witness is given both as bytes and as a path");
  }
  if (!input.witness && !has_path) CUZK_INVALID_INPUT(partition + " has no witness");
  if (input.witness) {
    if (input.witness->empty()) CUZK_INVALID_INPUT(partition + ": empty witness");
    return;
  }
  const std::string file = "witness file '" + input.witness_path.string() + "'";
  std::error_code ec;
  const auto status = fs::status(input.witness_path, ec);
  if (ec || !fs::exists(status)) CUZK_INVALID_INPUT(partition + ": no " + file);
  if (!fs::is_regular_file(status)) CUZK_INVALID_INPUT(partition + ": " + file + " is not a file");
  if (fs::file_size(input.witness_path, ec) == 0 || ec) {
    CUZK_INVALID_INPUT(partition + ": " + file + " is empty");
  }
  if (!std::ifstream(input.witness_path, std::ios::binary)) {
    CUZK_INVALID_INPUT(partition + ": cannot read " + file + ": " + std::strerror(errno));
  }
}

}  // namespace cuzk::engine
