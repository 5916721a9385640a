// The host side of witness staging (witness_staging.hpp): filling the pinned buffer.

#include <cstring>
#include <string>

#include "formats/curve_id.hpp"
#include "formats/mapped_file.hpp"
#include "formats/wtns.hpp"
#include "gpu/prover/witness_staging.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

template <class Fr>
using CurveOfScalar =
    std::conditional_t<std::is_same_v<Fr, bn254::Fr>, formats::Bn254, formats::Bls12_381>;

}  // namespace

template <class Fr>
void PinnedWitness<Fr>::assign_montgomery(std::span<const Fr> witness) {
  if (witness.size() > buffer_.size()) {
    CUZK_INVALID_INPUT("PinnedWitness: a witness of " + std::to_string(witness.size()) +
                       " values does not fit the staging buffer of " +
                       std::to_string(buffer_.size()));
  }
  std::memcpy(buffer_.data(), witness.data(), witness.size_bytes());
  size_ = witness.size();
  form_ = WitnessForm::kMontgomery;
}

template <class Fr>
void PinnedWitness<Fr>::load_wtns(const std::filesystem::path& path, size_t expected_count) {
  formats::MappedFile file = formats::MappedFile::open(path);
  file.advise(formats::MappedFile::Access::kSequential);
  load_wtns_bytes(file.bytes(), file.name(), expected_count);
}

template <class Fr>
void PinnedWitness<Fr>::load_wtns_bytes(std::span<const uint8_t> wtns, std::string_view name,
                                        size_t expected_count) {
  formats::WtnsReadOptions read;
  if (expected_count != 0) read.expected_count = uint32_t(expected_count);
  size_ = formats::parse_wtns_standard<CurveOfScalar<Fr>>(
      wtns, name, std::span<Fr>(buffer_.data(), buffer_.size()), read);
  form_ = WitnessForm::kStandard;
}

template class PinnedWitness<bn254::Fr>;
template class PinnedWitness<bls12_381::Fr>;

}  // namespace cuzk::gpu::prover
