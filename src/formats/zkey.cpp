#include "formats/zkey.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "formats/binary_container.hpp"
#include "formats/field_bytes.hpp"
#include "formats/mapped_file.hpp"
#include "formats/parallel.hpp"
#include "util/huge_pages.hpp"
#include "io/snarkjs_codec.hpp"
#include "util/error.hpp"

namespace cuzk::formats {

namespace {

constexpr ContainerSpec kZkeySpec{"zkey", 1};
constexpr uint32_t kGroth16Protocol = 1;

struct SectionId {
  uint32_t id;
  std::string_view title;
};
constexpr SectionId kProtocolSection{1, "protocol header"};
constexpr SectionId kHeaderSection{2, "Groth16 header"};
constexpr SectionId kIcSection{3, "IC points"};
constexpr SectionId kCoefficientsSection{4, "coefficients"};
constexpr SectionId kASection{5, "A points"};
constexpr SectionId kB1Section{6, "B1 points"};
constexpr SectionId kB2Section{7, "B2 points"};
constexpr SectionId kCSection{8, "C points"};
constexpr SectionId kHSection{9, "H points"};
constexpr SectionId kMpcSection{10, "MPC parameters"};

constexpr size_t kCircuitHashBytes = 64;
constexpr size_t kPointsPerChunk = size_t(1) << 14;
constexpr size_t kCoefficientsPerChunk = size_t(1) << 16;

std::string where(std::string_view file_name, SectionId s) {
  return std::string(file_name) + ": section " + std::to_string(s.id) + " (" +
         std::string(s.title) + ")";
}

std::string protocol_name(uint32_t id) {
  switch (id) {
    case 1:
      return "Groth16";
    case 2:
      return "PLONK";
    case 10:
      return "FFLONK";
    default:
      return "unknown";
  }
}

// The body of section s, which must hold exactly count points of `unit` bytes.
std::span<const uint8_t> sized_section(const BinaryContainer& c, SectionId s, uint64_t count,
                                       uint64_t unit, std::string_view count_name,
                                       bool count_is_power_of_two = false) {
  std::span<const uint8_t> body = c.section(s.id, s.title);
  std::optional<uint64_t> expected = checked_product(count, unit);
  if (!expected || body.size() != *expected) {
    CUZK_INVALID_INPUT(c.where(s.id, s.title) + " holds " + std::to_string(body.size()) +
                       " bytes, expected " + std::string(count_name) +
                       (count_name.empty() ? "" : " ") +
                       describe_product(count, unit, count_is_power_of_two));
  }
  return body;
}

// Section 10's structure (snarkjs zkey_utils.js readMPCParams/readContribution): lengths only;
// the contents are re-checked by snarkjs's own MPC commands, the only ones that use them.
template <class Curve>
void check_mpc_params(std::span<const uint8_t> body, const std::string& at) {
  constexpr uint64_t kG1 = io::kSnarkjsPointBytes<typename Curve::G1>;
  constexpr uint64_t kG2 = io::kSnarkjsPointBytes<typename Curve::G2>;
  SectionReader reader(body, at);
  reader.skip(kCircuitHashBytes, "the circuit hash");
  uint32_t contributions = reader.u32("the contribution count");
  for (uint32_t i = 0; i < contributions; ++i) {
    std::string what = "contribution " + std::to_string(i);
    reader.skip(3 * kG1 + kG2 + 64, what + " (points and transcript)");
    reader.u32(what + " type");
    uint32_t params = reader.u32(what + " parameter length");
    reader.skip(params, what + " parameters");
  }
  reader.expect_end(std::to_string(contributions) + " contributions");
}

template <class Curve>
ZkeySections<Curve> parse_sections(const BinaryContainer& c) {
  using Fr = typename Curve::Fr;
  using Fq = typename Curve::Fq;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  constexpr uint64_t kG1 = io::kSnarkjsPointBytes<G1>;
  constexpr uint64_t kG2 = io::kSnarkjsPointBytes<G2>;

  ZkeySections<Curve> s{};
  s.file_name = c.file_name();

  {
    SectionReader reader(c.section(kProtocolSection.id, kProtocolSection.title),
                         where(c.file_name(), kProtocolSection));
    uint32_t protocol = reader.u32("the protocol id");
    reader.expect_end("the protocol id");
    if (protocol != kGroth16Protocol) {
      CUZK_INVALID_INPUT(reader.where() + ": protocol " + std::to_string(protocol) + " (" +
                         protocol_name(protocol) + ") is not Groth16 (1)");
    }
  }

  Groth16Header<Curve>& h = s.header;
  {
    SectionReader reader(c.section(kHeaderSection.id, kHeaderSection.title),
                         where(c.file_name(), kHeaderSection));
    uint32_t n8q = reader.u32("n8q (bytes per coordinate)");
    detail::check_field_prime<Curve, Fq>(reader.bytes(n8q, "the base field prime q"),
                                         reader.where());
    uint32_t n8r = reader.u32("n8r (bytes per scalar)");
    detail::check_field_prime<Curve, Fr>(reader.bytes(n8r, "the scalar field prime r"),
                                         reader.where());
    h.n_vars = reader.u32("nVars");
    h.n_public = reader.u32("nPublic");
    h.domain_size = reader.u32("domainSize");
    auto g1 = [&](std::string_view name) {
      std::string role = reader.where() + ": " + std::string(name);
      G1 p = io::read_snarkjs_point<G1>(reader.bytes(kG1, name), io::SubgroupCheck::kOn, role);
      if (p.is_infinity()) CUZK_INVALID_INPUT(role + ": is the point at infinity");
      return p;
    };
    auto g2 = [&](std::string_view name) {
      std::string role = reader.where() + ": " + std::string(name);
      G2 p = io::read_snarkjs_point<G2>(reader.bytes(kG2, name), io::SubgroupCheck::kOn, role);
      if (p.is_infinity()) CUZK_INVALID_INPUT(role + ": is the point at infinity");
      return p;
    };
    h.alpha1 = g1("alpha_1");
    h.beta1 = g1("beta_1");
    h.beta2 = g2("beta_2");
    h.gamma2 = g2("gamma_2");
    h.delta1 = g1("delta_1");
    h.delta2 = g2("delta_2");
    reader.expect_end("the header fields and points");

    if (uint64_t(h.n_public) + 1 > h.n_vars) {
      CUZK_INVALID_INPUT(reader.where() + ": nVars = " + std::to_string(h.n_vars) +
                         " cannot hold the constant wire and nPublic = " +
                         std::to_string(h.n_public) + " public values");
    }
    if (!std::has_single_bit(h.domain_size)) {
      CUZK_INVALID_INPUT(reader.where() + ": domain size " + std::to_string(h.domain_size) +
                         " is not a power of two");
    }
    if (h.log_domain_size() > Fr::kTwoAdicity) {
      CUZK_INVALID_INPUT(reader.where() + ": domain size 2^" + std::to_string(h.log_domain_size()) +
                         " exceeds the largest, 2^" + std::to_string(Fr::kTwoAdicity) +
                         ", that the scalar field supports");
    }
  }

  s.ic = sized_section(c, kIcSection, uint64_t(h.n_public) + 1, kG1, "nPublic + 1 =");
  {
    std::span<const uint8_t> body = c.section(kCoefficientsSection.id, kCoefficientsSection.title);
    SectionReader reader(body, where(c.file_name(), kCoefficientsSection));
    uint32_t count = reader.u32("the coefficient count");
    constexpr uint64_t kRecord = 12 + detail::kElementBytes<Fr>;
    if (reader.remaining() != uint64_t(count) * kRecord) {
      CUZK_INVALID_INPUT(reader.where() + " holds " + std::to_string(body.size()) +
                         " bytes, expected 4 + " + describe_product(count, kRecord) + " for its " +
                         std::to_string(count) + " coefficients");
    }
    s.coefficients = body;
  }
  s.a = sized_section(c, kASection, h.n_vars, kG1, "nVars");
  s.b1 = sized_section(c, kB1Section, h.n_vars, kG1, "nVars");
  s.b2 = sized_section(c, kB2Section, h.n_vars, kG2, "nVars");
  s.c = sized_section(c, kCSection, uint64_t(h.n_vars) - h.n_public - 1, kG1,
                      "nVars − nPublic − 1 =");
  s.h = sized_section(c, kHSection, h.domain_size, kG1, "", true);
  s.mpc_params = c.optional_section(kMpcSection.id, kMpcSection.title);
  if (s.mpc_params) check_mpc_params<Curve>(*s.mpc_params, where(c.file_name(), kMpcSection));
  return s;
}

template <class Curve>
void check_for_writing(const Groth16Zkey<Curve>& key) {
  const Groth16Header<Curve>& h = key.header;
  auto fail = [](const std::string& problem) { CUZK_INVALID_INPUT("zkey to write: " + problem); };
  if (uint64_t(h.n_public) + 1 > h.n_vars) fail("nVars < nPublic + 1");
  if (!std::has_single_bit(h.domain_size)) {
    fail("domain size " + std::to_string(h.domain_size) + " is not a power of two");
  }
  auto count = [&](std::string_view name, size_t have, uint64_t want) {
    if (have != want) {
      fail(std::string(name) + " has " + std::to_string(have) + " points, the header implies " +
           std::to_string(want));
    }
  };
  count("IC", key.ic.size(), uint64_t(h.n_public) + 1);
  count("A", key.a.size(), h.n_vars);
  count("B1", key.b1.size(), h.n_vars);
  count("B2", key.b2.size(), h.n_vars);
  count("C", key.c.size(), uint64_t(h.n_vars) - h.n_public - 1);
  count("H", key.h.size(), h.domain_size);
  if (key.coefficients.size() > UINT32_MAX) fail("more than 2^32 − 1 coefficients");
  for (size_t i = 0; i < key.coefficients.size(); ++i) {
    const auto& e = key.coefficients[i];
    if (e.matrix > 1 || e.row >= h.domain_size || e.wire >= h.n_vars) {
      fail("coefficient " + std::to_string(i) + " (matrix " + std::to_string(e.matrix) + ", row " +
           std::to_string(e.row) + ", wire " + std::to_string(e.wire) + ") is out of range");
    }
  }
  if (!key.mpc_params.empty()) {
    check_mpc_params<Curve>(key.mpc_params, "zkey to write: MPC parameters");
  }
}

}  // namespace

template <class Point>
void decode_points(std::span<const uint8_t> bytes, std::span<Point> out,
                   const ZkeyReadOptions& options, const std::string& at) {
  using Field = typename Point::Field;
  constexpr size_t kPointBytes = io::kSnarkjsPointBytes<Point>;
  // The copy below relies on the file layout being our memory layout (see zkey.hpp).
  static_assert(std::endian::native == std::endian::little);
  static_assert(std::is_trivially_copyable_v<Point> && sizeof(Point) == kPointBytes);
  if (bytes.size() != out.size() * kPointBytes) {
    CUZK_INVALID_INPUT(at + " holds " + std::to_string(bytes.size()) + " bytes, expected " +
                       describe_product(out.size(), kPointBytes));
  }
  size_t chunks = (out.size() + kPointsPerChunk - 1) / kPointsPerChunk;
  detail::for_each_chunk(chunks, options.threads, [&](size_t k) {
    size_t first = k * kPointsPerChunk;
    size_t n = std::min(kPointsPerChunk, out.size() - first);
    std::memcpy(static_cast<void*>(out.data() + first), bytes.data() + first * kPointBytes,
                n * kPointBytes);
    for (size_t i = first; i < first + n; ++i) {
      const Point& p = out[i];
      bool ok = true;
      // Canonical coordinates first: is_on_curve computes modulo q and would accept x + q.
      if constexpr (io::QuadraticExtension<Field>) {
        using Fq = typename Field::Base;
        for (const Fq* f : {&p.x.c0, &p.x.c1, &p.y.c0, &p.y.c1}) {
          ok = ok && compare(f->as_int(), Fq::kModulus) < 0;
        }
      } else {
        ok = compare(p.x.as_int(), Field::kModulus) < 0 &&
             compare(p.y.as_int(), Field::kModulus) < 0;
      }
      ok = ok && (p.is_infinity() ||
                  (p.is_on_curve() &&
                   (options.subgroup_check == io::SubgroupCheck::kOff || is_in_subgroup(p))));
      if (!ok) {
        // The io decoder produces the message (it knows which check failed and how to say it).
        std::string role = at + ": point " + std::to_string(i);
        io::read_snarkjs_point<Point>(bytes.subspan(i * kPointBytes, kPointBytes),
                                      options.subgroup_check, role);
        CUZK_THROW(ErrorKind::kInternal, role + ": rejected here but accepted by the io decoder");
      }
    }
  });
}

template <class Curve>
std::vector<ZkeyCoefficient<typename Curve::Fr>> decode_coefficients(
    const ZkeySections<Curve>& sections, unsigned threads) {
  using Fr = typename Curve::Fr;
  constexpr size_t kRecord = 12 + detail::kElementBytes<Fr>;
  const Groth16Header<Curve>& h = sections.header;
  const std::string at = where(sections.file_name, kCoefficientsSection);
  std::span<const uint8_t> records = sections.coefficients.subspan(4);
  size_t count = records.size() / kRecord;  // sizes were checked by parse_zkey_sections
  std::vector<ZkeyCoefficient<Fr>> out(count);
  size_t chunks = (count + kCoefficientsPerChunk - 1) / kCoefficientsPerChunk;
  detail::for_each_chunk(chunks, threads, [&](size_t k) {
    size_t end = std::min(count, (k + 1) * kCoefficientsPerChunk);
    for (size_t i = k * kCoefficientsPerChunk; i < end; ++i) {
      const uint8_t* p = records.data() + i * kRecord;
      ZkeyCoefficient<Fr>& e = out[i];
      e.matrix = load_u32_le(p);
      e.row = load_u32_le(p + 4);
      e.wire = load_u32_le(p + 8);
      typename Fr::Int v;
      bool canonical = detail::load_le<Fr>(p + 12, v);
      std::string problem;
      if (e.matrix > 1) {
        problem = "matrix " + std::to_string(e.matrix) + " is neither A (0) nor B (1)";
      } else if (e.row >= h.domain_size) {
        problem = "row " + std::to_string(e.row) + " is outside the domain (size " +
                  std::to_string(h.domain_size) + ")";
      } else if (e.wire >= h.n_vars) {
        problem = "wire " + std::to_string(e.wire) +
                  " is out of range (nVars = " + std::to_string(h.n_vars) + ")";
      } else if (!canonical) {
        problem = "value " + detail::hex_of<Fr>(v) + " is not below the scalar field modulus r";
      }
      if (!problem.empty()) {
        CUZK_INVALID_INPUT(at + ": coefficient " + std::to_string(i) + ": " + problem);
      }
      e.value = Fr::from_montgomery(v);
    }
  });
  return out;
}

template <class Curve>
ZkeySections<Curve> parse_zkey_sections(std::span<const uint8_t> file, std::string_view file_name) {
  return parse_sections<Curve>(BinaryContainer::parse(file, file_name, kZkeySpec));
}

template <class Curve>
Groth16Zkey<Curve> parse_zkey(std::span<const uint8_t> file, std::string_view file_name,
                              const ZkeyReadOptions& options) {
  ZkeySections<Curve> s = parse_zkey_sections<Curve>(file, file_name);
  const Groth16Header<Curve>& h = s.header;
  Groth16Zkey<Curve> key{};
  key.header = h;
  auto points = [&](auto& vec, std::span<const uint8_t> bytes, size_t count, SectionId id) {
    util::resize_on_huge_pages(vec, count);
    decode_points(bytes, std::span(vec), options, where(file_name, id));
  };
  points(key.ic, s.ic, size_t(h.n_public) + 1, kIcSection);
  if (options.coefficients) key.coefficients = decode_coefficients<Curve>(s, options.threads);
  points(key.a, s.a, h.n_vars, kASection);
  points(key.b1, s.b1, h.n_vars, kB1Section);
  points(key.b2, s.b2, h.n_vars, kB2Section);
  points(key.c, s.c, size_t(h.n_vars) - h.n_public - 1, kCSection);
  points(key.h, s.h, h.domain_size, kHSection);
  if (s.mpc_params) key.mpc_params.assign(s.mpc_params->begin(), s.mpc_params->end());
  return key;
}

template <class Curve>
Groth16Zkey<Curve> read_zkey(const std::filesystem::path& path, const ZkeyReadOptions& options) {
  MappedFile file = MappedFile::open(path);
  file.advise(MappedFile::Access::kSequential);
  file.advise(MappedFile::Access::kPopulate);  // every section is copied out
  return parse_zkey<Curve>(file.bytes(), file.name(), options);
}

std::vector<uint8_t> fresh_mpc_params(std::span<const uint8_t, 64> circuit_hash) {
  std::vector<uint8_t> out(kCircuitHashBytes + 4, 0);  // the trailing u32 0: no contributions
  std::copy(circuit_hash.begin(), circuit_hash.end(), out.begin());
  return out;
}

template <class Curve>
void write_zkey(std::ostream& out, const Groth16Zkey<Curve>& key, std::string_view file_name) {
  using Fr = typename Curve::Fr;
  using Fq = typename Curve::Fq;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  constexpr size_t kG1 = io::kSnarkjsPointBytes<G1>;
  constexpr size_t kG2 = io::kSnarkjsPointBytes<G2>;
  constexpr size_t kN8q = detail::kElementBytes<Fq>;
  constexpr size_t kN8r = detail::kElementBytes<Fr>;
  static_assert(std::endian::native == std::endian::little);
  static_assert(sizeof(G1) == kG1 && sizeof(G2) == kG2);
  check_for_writing(key);
  const Groth16Header<Curve>& h = key.header;

  BinaryWriter w(out, std::string(file_name), kZkeySpec.magic, kZkeySpec.version, 10);
  w.begin_section(kProtocolSection.id, 4);
  w.u32(kGroth16Protocol);
  w.end_section();

  w.begin_section(kHeaderSection.id, 4 + kN8q + 4 + kN8r + 12 + 3 * kG1 + 3 * kG2);
  std::array<uint8_t, kN8q> q;
  detail::store_le<Fq>(Fq::kModulus, q.data());
  std::array<uint8_t, kN8r> r;
  detail::store_le<Fr>(Fr::kModulus, r.data());
  w.u32(kN8q);
  w.bytes(q);
  w.u32(kN8r);
  w.bytes(r);
  w.u32(h.n_vars);
  w.u32(h.n_public);
  w.u32(h.domain_size);
  auto point = [&](const auto& p) {
    w.bytes(std::span(reinterpret_cast<const uint8_t*>(&p), sizeof(p)));
  };
  point(h.alpha1);
  point(h.beta1);
  point(h.beta2);
  point(h.gamma2);
  point(h.delta1);
  point(h.delta2);
  w.end_section();

  constexpr size_t kRecord = 12 + kN8r;
  w.begin_section(kCoefficientsSection.id, 4 + key.coefficients.size() * kRecord);
  w.u32(uint32_t(key.coefficients.size()));
  {
    std::vector<uint8_t> buffer;
    constexpr size_t kFlushRecords = size_t(1) << 14;
    buffer.reserve(kFlushRecords * kRecord);
    for (size_t i = 0; i < key.coefficients.size(); ++i) {
      const auto& e = key.coefficients[i];
      size_t at = buffer.size();
      buffer.resize(at + kRecord);
      for (int b = 0; b < 4; ++b) {
        buffer[at + b] = uint8_t(e.matrix >> (8 * b));
        buffer[at + 4 + b] = uint8_t(e.row >> (8 * b));
        buffer[at + 8 + b] = uint8_t(e.wire >> (8 * b));
      }
      detail::store_le<Fr>(e.value.as_int(), buffer.data() + at + 12);
      if (buffer.size() >= kFlushRecords * kRecord) {
        w.bytes(buffer);
        buffer.clear();
      }
    }
    w.bytes(buffer);
  }
  w.end_section();

  // Point arrays are written from memory as they are (the layouts agree, see zkey.hpp).
  auto section = [&](SectionId id, const auto& points) {
    using Point = typename std::decay_t<decltype(points)>::value_type;
    w.begin_section(id.id, points.size() * sizeof(Point));
    w.bytes(
        std::span(reinterpret_cast<const uint8_t*>(points.data()), points.size() * sizeof(Point)));
    w.end_section();
  };
  section(kIcSection, key.ic);
  section(kHSection, key.h);
  section(kCSection, key.c);
  section(kASection, key.a);
  section(kB1Section, key.b1);
  section(kB2Section, key.b2);

  std::vector<uint8_t> mpc = key.mpc_params;
  if (mpc.empty()) mpc = fresh_mpc_params(std::array<uint8_t, kCircuitHashBytes>{});
  w.begin_section(kMpcSection.id, mpc.size());
  w.bytes(mpc);
  w.end_section();
  w.finish();
}

template <class Curve>
void write_zkey(const std::filesystem::path& path, const Groth16Zkey<Curve>& key) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) CUZK_INVALID_INPUT(path.string() + ": cannot create the file");
  write_zkey(out, key, path.string());
}

template <class Curve>
std::vector<uint8_t> zkey_to_bytes(const Groth16Zkey<Curve>& key) {
  std::ostringstream out(std::ios::binary);
  write_zkey(out, key);
  const std::string& s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

#define CUZK_FORMATS_ZKEY_INSTANTIATE(Curve)                                                   \
  template ZkeySections<Curve> parse_zkey_sections<Curve>(std::span<const uint8_t>,            \
                                                          std::string_view);                   \
  template Groth16Zkey<Curve> parse_zkey<Curve>(std::span<const uint8_t>, std::string_view,    \
                                                const ZkeyReadOptions&);                       \
  template Groth16Zkey<Curve> read_zkey<Curve>(const std::filesystem::path&,                   \
                                               const ZkeyReadOptions&);                        \
  template void decode_points<Curve::G1>(std::span<const uint8_t>, std::span<Curve::G1>,       \
                                         const ZkeyReadOptions&, const std::string&);          \
  template void decode_points<Curve::G2>(std::span<const uint8_t>, std::span<Curve::G2>,       \
                                         const ZkeyReadOptions&, const std::string&);          \
  template std::vector<ZkeyCoefficient<Curve::Fr>> decode_coefficients<Curve>(                 \
      const ZkeySections<Curve>&, unsigned);                                                   \
  template void write_zkey<Curve>(std::ostream&, const Groth16Zkey<Curve>&, std::string_view); \
  template void write_zkey<Curve>(const std::filesystem::path&, const Groth16Zkey<Curve>&);    \
  template std::vector<uint8_t> zkey_to_bytes<Curve>(const Groth16Zkey<Curve>&);
CUZK_FORMATS_ZKEY_INSTANTIATE(Bn254)
CUZK_FORMATS_ZKEY_INSTANTIATE(Bls12_381)

}  // namespace cuzk::formats
