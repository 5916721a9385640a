// The host side of witness staging (witness_staging.hpp): filling the pinned buffer.

#include <cstring>
#include <string>

#include "formats/binary_container.hpp"
#include "formats/curve.hpp"
#include "formats/field_bytes.hpp"
#include "formats/mapped_file.hpp"
#include "formats/parallel.hpp"
#include "gpu/prover/witness_staging.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

template <class Fr>
using CurveOfScalar =
    std::conditional_t<std::is_same_v<Fr, bn254::Fr>, formats::Bn254, formats::Bls12_381>;

constexpr size_t kChunkValues = size_t(1) << 16;

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
  using namespace formats;
  constexpr size_t kValueBytes = detail::kElementBytes<Fr>;
  static_assert(kValueBytes == sizeof(Fr), "a .wtns value is the limbs of one element");
  const BinaryContainer c = BinaryContainer::parse(wtns, name, {"wtns", 2});
  SectionReader header(c.section(1, "witness header"), c.where(1, "witness header"));
  const uint32_t n8 = header.u32("n8 (bytes per value)");
  detail::check_field_prime<CurveOfScalar<Fr>, Fr>(header.bytes(n8, "the prime r"), header.where());
  const uint32_t count = header.u32("nWitness");
  header.expect_end("n8, the prime and nWitness");
  const std::string where = c.where(2, "witness values");
  if (count == 0 || (expected_count != 0 && count != expected_count)) {
    CUZK_INVALID_INPUT(header.where() + ": the witness has " + std::to_string(count) +
                       " values, the circuit has " + std::to_string(expected_count) + " wires");
  }
  if (count > buffer_.size()) {
    CUZK_INVALID_INPUT(header.where() + ": " + std::to_string(count) +
                       " values do not fit the staging buffer of " +
                       std::to_string(buffer_.size()));
  }
  const std::span<const uint8_t> body = c.section(2, "witness values");
  if (body.size() != size_t(count) * kValueBytes) {
    CUZK_INVALID_INPUT(where + " holds " + std::to_string(body.size()) + " bytes, expected " +
                       std::to_string(count) + " values of " + std::to_string(kValueBytes));
  }
  // Copy and range check in one pass per chunk, on all cores.
  uint8_t* out = reinterpret_cast<uint8_t*>(buffer_.data());
  detail::for_each_chunk((size_t(count) + kChunkValues - 1) / kChunkValues, 0, [&](size_t k) {
    const size_t begin = k * kChunkValues;
    const size_t end = std::min<size_t>(count, begin + kChunkValues);
    std::memcpy(out + begin * kValueBytes, body.data() + begin * kValueBytes,
                (end - begin) * kValueBytes);
    for (size_t i = begin; i < end; ++i) {
      typename Fr::Int v;
      if (!detail::load_le<Fr>(body.data() + i * kValueBytes, v)) {
        CUZK_INVALID_INPUT(where + ": value " + std::to_string(i) + " = " + detail::hex_of<Fr>(v) +
                           " is not below the scalar field modulus r");
      }
    }
  });
  typename Fr::Int first;
  detail::load_le<Fr>(body.data(), first);
  if (first != Fr::Int::from_u64(1)) {
    CUZK_INVALID_INPUT(where + ": value 0 is " + detail::hex_of<Fr>(first) +
                       ", but the constant wire must be 1");
  }
  size_ = count;
  form_ = WitnessForm::kStandard;
}

template class PinnedWitness<bn254::Fr>;
template class PinnedWitness<bls12_381::Fr>;

}  // namespace cuzk::gpu::prover
