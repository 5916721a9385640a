#include "formats/wtns.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <fstream>
#include <ostream>
#include <streambuf>

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

namespace {

// Parses the header and checks the body's length; then store(i, v) for every value's integer v
// (checked < r, on options.threads threads), and the constant wire. Returns the count.
template <class Curve, class Reserve, class Store>
size_t parse_wtns_values(std::span<const uint8_t> file, std::string_view file_name,
                         const WtnsReadOptions& options, Reserve&& reserve, Store&& store) {
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
  reserve(size_t(count), header.where());

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
      store(i, v);
    }
  });
  typename Fr::Int first;
  detail::load_le<Fr>(body.data(), first);
  if (first != Fr::Int::from_u64(1)) {
    CUZK_INVALID_INPUT(where + ": value 0 is " + detail::hex_of<Fr>(first) +
                       ", but the constant wire must be 1");
  }
  return count;
}

}  // namespace

template <class Curve>
std::vector<typename Curve::Fr> parse_wtns(std::span<const uint8_t> file,
                                           std::string_view file_name,
                                           const WtnsReadOptions& options) {
  using Fr = typename Curve::Fr;
  std::vector<Fr> values;
  parse_wtns_values<Curve>(
      file, file_name, options, [&](size_t count, const std::string&) { values.resize(count); },
      [&](size_t i, const typename Fr::Int& v) { values[i] = Fr::from_int(v); });
  return values;
}

template <class Curve>
size_t parse_wtns_standard(std::span<const uint8_t> file, std::string_view file_name,
                           std::span<typename Curve::Fr> out, const WtnsReadOptions& options) {
  using Fr = typename Curve::Fr;
  static_assert(sizeof(Fr) == detail::kElementBytes<Fr>, "a value is the limbs of one element");
  return parse_wtns_values<Curve>(
      file, file_name, options,
      [&](size_t count, const std::string& where) {
        if (count > out.size()) {
          CUZK_INVALID_INPUT(where + ": " + std::to_string(count) +
                             " values do not fit the buffer of " + std::to_string(out.size()));
        }
      },
      [&](size_t i, const typename Fr::Int& v) { std::memcpy(&out[i], &v, sizeof(Fr)); });
}

template <class Curve>
std::vector<typename Curve::Fr> read_wtns(const std::filesystem::path& path,
                                          const WtnsReadOptions& options) {
  MappedFile file = MappedFile::open(path);
  file.advise(MappedFile::Access::kSequential);
  return parse_wtns<Curve>(file.bytes(), file.name(), options);
}

namespace {

// The .wtns of `count` values, value(i) giving the integer of value i (standard form, < r).
template <class Curve, class Value>
void write_wtns_values(std::ostream& out, size_t count, Value&& value, std::string_view file_name) {
  using Fr = typename Curve::Fr;
  constexpr size_t kValueBytes = detail::kElementBytes<Fr>;
  if (count == 0 || value(0) != Fr::one().to_int()) {
    CUZK_INVALID_INPUT("wtns to write: the first value (the constant wire) must be 1");
  }
  if (count > UINT32_MAX) {
    CUZK_INVALID_INPUT("wtns to write: " + std::to_string(count) +
                       " values do not fit the u32 count of the format");
  }
  BinaryWriter w(out, std::string(file_name), kWtnsSpec.magic, kWtnsSpec.version, 2);
  w.begin_section(kHeaderSection, 4 + kValueBytes + 4);
  w.u32(uint32_t(kValueBytes));
  std::array<uint8_t, kValueBytes> bytes;
  detail::store_le<Fr>(Fr::kModulus, bytes.data());
  w.bytes(bytes);
  w.u32(uint32_t(count));
  w.end_section();

  w.begin_section(kValuesSection, uint64_t(count) * kValueBytes);
  std::vector<uint8_t> buffer(std::min(count, kChunkValues) * kValueBytes);
  for (size_t start = 0; start < count; start += kChunkValues) {
    size_t n = std::min(kChunkValues, count - start);
    for (size_t i = 0; i < n; ++i) {
      detail::store_le<Fr>(value(start + i), buffer.data() + i * kValueBytes);
    }
    w.bytes(std::span(buffer).first(n * kValueBytes));
  }
  w.end_section();
  w.finish();
}

// An output stream appending to a byte vector (no intermediate string: one copy of the file).
class VectorStreambuf : public std::streambuf {
 public:
  explicit VectorStreambuf(std::vector<uint8_t>& out) : out_(out) {}

 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) out_.push_back(uint8_t(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.insert(out_.end(), reinterpret_cast<const uint8_t*>(s),
                reinterpret_cast<const uint8_t*>(s) + n);
    return n;
  }

 private:
  std::vector<uint8_t>& out_;
};

template <class Curve, class Value>
std::vector<uint8_t> wtns_bytes(size_t count, Value&& value) {
  constexpr size_t kValueBytes = detail::kElementBytes<typename Curve::Fr>;
  std::vector<uint8_t> bytes;
  // Magic, version, section count; two section headers (id, size); n8, r, count; the values.
  bytes.reserve(12 + 2 * 12 + 8 + kValueBytes + count * kValueBytes);
  VectorStreambuf sink(bytes);
  std::ostream out(&sink);
  write_wtns_values<Curve>(out, count, value, "wtns");
  return bytes;
}

}  // namespace

template <class Curve>
void write_wtns(std::ostream& out, std::span<const typename Curve::Fr> witness,
                std::string_view file_name) {
  write_wtns_values<Curve>(
      out, witness.size(), [&](size_t i) { return witness[i].to_int(); }, file_name);
}

template <class Curve>
void write_wtns(const std::filesystem::path& path, std::span<const typename Curve::Fr> witness) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) CUZK_INVALID_INPUT(path.string() + ": cannot create the file");
  write_wtns<Curve>(out, witness, path.string());
}

template <class Curve>
std::vector<uint8_t> wtns_to_bytes(std::span<const typename Curve::Fr> witness) {
  return wtns_bytes<Curve>(witness.size(), [&](size_t i) { return witness[i].to_int(); });
}

template <class Curve>
std::vector<uint8_t> wtns_to_bytes_from_standard(std::span<const typename Curve::Fr> standard) {
  using Int = typename Curve::Fr::Int;
  return wtns_bytes<Curve>(standard.size(),
                           [&](size_t i) { return std::bit_cast<Int>(standard[i]); });
}

#define CUZK_FORMATS_WTNS_INSTANTIATE(Curve)                                                    \
  template std::vector<Curve::Fr> parse_wtns<Curve>(std::span<const uint8_t>, std::string_view, \
                                                    const WtnsReadOptions&);                    \
  template std::vector<Curve::Fr> read_wtns<Curve>(const std::filesystem::path&,                \
                                                   const WtnsReadOptions&);                     \
  template size_t parse_wtns_standard<Curve>(std::span<const uint8_t>, std::string_view,        \
                                             std::span<Curve::Fr>, const WtnsReadOptions&);     \
  template void write_wtns<Curve>(std::ostream&, std::span<const Curve::Fr>, std::string_view); \
  template void write_wtns<Curve>(const std::filesystem::path&, std::span<const Curve::Fr>);    \
  template std::vector<uint8_t> wtns_to_bytes<Curve>(std::span<const Curve::Fr>);               \
  template std::vector<uint8_t> wtns_to_bytes_from_standard<Curve>(std::span<const Curve::Fr>);
CUZK_FORMATS_WTNS_INSTANTIATE(Bn254)
CUZK_FORMATS_WTNS_INSTANTIATE(Bls12_381)

}  // namespace cuzk::formats
