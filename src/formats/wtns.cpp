#include "formats/wtns.hpp"

#include <array>
#include <fstream>
#include <sstream>

#include "formats/binary_container.hpp"
#include "formats/field_bytes.hpp"
#include "formats/mapped_file.hpp"
#include "formats/parallel.hpp"
#include "util/error.hpp"

namespace cuzk::formats {

namespace {

constexpr ContainerSpec kWtnsSpec{"wtns", 2};
constexpr uint32_t kHeaderSection = 1;
constexpr uint32_t kValuesSection = 2;
constexpr std::string_view kHeaderTitle = "witness header";
constexpr std::string_view kValuesTitle = "witness values";
constexpr size_t kChunkValues = size_t(1) << 16;

}  // namespace

template <class Curve>
std::vector<typename Curve::Fr> parse_wtns(std::span<const uint8_t> file,
                                           std::string_view file_name,
                                           const WtnsReadOptions& options) {
  using Fr = typename Curve::Fr;
  constexpr size_t kValueBytes = detail::kElementBytes<Fr>;
  BinaryContainer c = BinaryContainer::parse(file, file_name, kWtnsSpec);

  SectionReader header(c.section(kHeaderSection, kHeaderTitle),
                       c.where(kHeaderSection, kHeaderTitle));
  uint32_t n8 = header.u32("n8 (bytes per value)");
  std::span<const uint8_t> prime = header.bytes(n8, "the prime r");
  detail::check_field_prime<Curve, Fr>(prime, header.where());
  uint32_t count = header.u32("nWitness");
  header.expect_end("n8, the prime and nWitness");

  if (count == 0) {
    CUZK_INVALID_INPUT(header.where() + ": nWitness = 0; a witness holds at least the constant 1");
  }
  if (options.expected_count && count != *options.expected_count) {
    CUZK_INVALID_INPUT(header.where() + ": the witness has " + std::to_string(count) +
                       " values but the circuit has " + std::to_string(*options.expected_count) +
                       " wires");
  }
  std::span<const uint8_t> body = c.section(kValuesSection, kValuesTitle);
  if (body.size() != uint64_t(count) * kValueBytes) {
    CUZK_INVALID_INPUT(c.where(kValuesSection, kValuesTitle) + " holds " +
                       std::to_string(body.size()) + " bytes, expected nWitness " +
                       describe_product(count, kValueBytes));
  }

  std::vector<Fr> values(count);
  const std::string where = c.where(kValuesSection, kValuesTitle);
  size_t chunks = (size_t(count) + kChunkValues - 1) / kChunkValues;
  detail::for_each_chunk(chunks, options.threads, [&](size_t k) {
    size_t end = std::min<size_t>(count, (k + 1) * kChunkValues);
    for (size_t i = k * kChunkValues; i < end; ++i) {
      typename Fr::Int v;
      if (!detail::load_le<Fr>(body.data() + i * kValueBytes, v)) {
        CUZK_INVALID_INPUT(where + ": value " + std::to_string(i) + " = " + detail::hex_of<Fr>(v) +
                           " is not below the scalar field modulus r");
      }
      values[i] = Fr::from_int(v);
    }
  });
  if (values[0] != Fr::one()) {
    CUZK_INVALID_INPUT(where + ": value 0 is " + detail::hex_of<Fr>(values[0].to_int()) +
                       ", but the constant wire must be 1");
  }
  return values;
}

template <class Curve>
std::vector<typename Curve::Fr> read_wtns(const std::filesystem::path& path,
                                          const WtnsReadOptions& options) {
  MappedFile file = MappedFile::open(path);
  file.advise(MappedFile::Access::kSequential);
  return parse_wtns<Curve>(file.bytes(), file.name(), options);
}

template <class Curve>
void write_wtns(std::ostream& out, std::span<const typename Curve::Fr> witness,
                std::string_view file_name) {
  using Fr = typename Curve::Fr;
  constexpr size_t kValueBytes = detail::kElementBytes<Fr>;
  if (witness.empty() || witness[0] != Fr::one()) {
    CUZK_INVALID_INPUT("wtns to write: the first value (the constant wire) must be 1");
  }
  if (witness.size() > UINT32_MAX) {
    CUZK_INVALID_INPUT("wtns to write: " + std::to_string(witness.size()) +
                       " values do not fit the u32 count of the format");
  }
  BinaryWriter w(out, std::string(file_name), kWtnsSpec.magic, kWtnsSpec.version, 2);
  w.begin_section(kHeaderSection, 4 + kValueBytes + 4);
  w.u32(uint32_t(kValueBytes));
  std::array<uint8_t, kValueBytes> bytes;
  detail::store_le<Fr>(Fr::kModulus, bytes.data());
  w.bytes(bytes);
  w.u32(uint32_t(witness.size()));
  w.end_section();

  w.begin_section(kValuesSection, uint64_t(witness.size()) * kValueBytes);
  std::vector<uint8_t> buffer(std::min(witness.size(), kChunkValues) * kValueBytes);
  for (size_t start = 0; start < witness.size(); start += kChunkValues) {
    size_t n = std::min(kChunkValues, witness.size() - start);
    for (size_t i = 0; i < n; ++i) {
      detail::store_le<Fr>(witness[start + i].to_int(), buffer.data() + i * kValueBytes);
    }
    w.bytes(std::span(buffer).first(n * kValueBytes));
  }
  w.end_section();
  w.finish();
}

template <class Curve>
void write_wtns(const std::filesystem::path& path, std::span<const typename Curve::Fr> witness) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) CUZK_INVALID_INPUT(path.string() + ": cannot create the file");
  write_wtns<Curve>(out, witness, path.string());
}

template <class Curve>
std::vector<uint8_t> wtns_to_bytes(std::span<const typename Curve::Fr> witness) {
  std::ostringstream out(std::ios::binary);
  write_wtns<Curve>(out, witness);
  const std::string& s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

#define CUZK_FORMATS_WTNS_INSTANTIATE(Curve)                                                    \
  template std::vector<Curve::Fr> parse_wtns<Curve>(std::span<const uint8_t>, std::string_view, \
                                                    const WtnsReadOptions&);                    \
  template std::vector<Curve::Fr> read_wtns<Curve>(const std::filesystem::path&,                \
                                                   const WtnsReadOptions&);                     \
  template void write_wtns<Curve>(std::ostream&, std::span<const Curve::Fr>, std::string_view); \
  template void write_wtns<Curve>(const std::filesystem::path&, std::span<const Curve::Fr>);    \
  template std::vector<uint8_t> wtns_to_bytes<Curve>(std::span<const Curve::Fr>);
CUZK_FORMATS_WTNS_INSTANTIATE(Bn254)
CUZK_FORMATS_WTNS_INSTANTIATE(Bls12_381)

}  // namespace cuzk::formats
