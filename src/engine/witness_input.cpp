#include "engine/witness_input.hpp"

namespace cuzk::engine {

WitnessView WitnessView::of(const PartitionInput& input) {
  WitnessView view;
  if (input.witness) {
    view.bytes_ = *input.witness;
  } else if (input.witness_file) {
    view.file_ = input.witness_file->map();
    view.file_->advise(formats::MappedFile::Access::kSequential);
    view.bytes_ = view.file_->bytes();
    view.name_ = input.witness_file->name();
  }
  if (view.bytes_.empty()) CUZK_INVALID_INPUT(view.name_ + ": empty witness");
  return view;
}

void check_partition_input(const PartitionInput& input, size_t index) {
  const std::string partition = "partition " + std::to_string(index);
  if (input.assignment) {
    if (input.witness || input.witness_file) {
      CUZK_INVALID_INPUT(partition + ": both a witness and a bellman assignment are given");
    }
    return;  // its contents are checked against the key when it is proved
  }
  if (input.witness && input.witness_file) {
    CUZK_INVALID_INPUT(partition + ": a witness is given both as bytes and as a file");
  }
  if (!input.witness && !input.witness_file) CUZK_INVALID_INPUT(partition + " has no witness");
  if (input.witness && input.witness->empty()) CUZK_INVALID_INPUT(partition + ": empty witness");
  if (input.witness_file && input.witness_file->size() == 0) {
    CUZK_INVALID_INPUT(partition + ": witness file '" + input.witness_file->name() + "' is empty");
  }
}

}  // namespace cuzk::engine
