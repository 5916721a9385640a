#include "formats/r1cs.hpp"

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

constexpr ContainerSpec kR1csSpec{"r1cs", 1};
constexpr uint32_t kHeaderSection = 1;
constexpr uint32_t kConstraintsSection = 2;
constexpr uint32_t kLabelsSection = 3;
constexpr uint32_t kCustomGatesListSection = 4;
constexpr uint32_t kCustomGatesUsesSection = 5;
constexpr std::string_view kHeaderTitle = "header";
constexpr std::string_view kConstraintsTitle = "constraints";
constexpr std::string_view kLabelsTitle = "wire labels";

constexpr std::array<char, 3> kMatrixNames = {'A', 'B', 'C'};

// Constraints per unit of parallel work: large enough that the per-chunk bookkeeping of the
// first pass (one ChunkStart) is noise, small enough to balance 100+ threads on 10^8 rows.
constexpr uint32_t kChunkRows = 1u << 14;

R1csHeader parse_header(const BinaryContainer& c, std::span<const uint8_t>* prime_out) {
  SectionReader reader(c.section(kHeaderSection, kHeaderTitle),
                       c.where(kHeaderSection, kHeaderTitle));
  uint32_t n8 = reader.u32("n8 (bytes per field element)");
  std::span<const uint8_t> prime = reader.bytes(n8, "the prime r");
  std::optional<CurveId> curve = curve_with_scalar_modulus(prime);
  if (!curve) {
    CUZK_INVALID_INPUT(reader.where() + ": unknown curve: holds " + detail::describe_prime(prime));
  }
  R1csHeader h{};
  h.curve = *curve;
  h.n_wires = reader.u32("nWires");
  h.n_pub_out = reader.u32("nPubOut");
  h.n_pub_in = reader.u32("nPubIn");
  h.n_prv_in = reader.u32("nPrvIn");
  h.n_labels = reader.u64("nLabels");
  h.n_constraints = reader.u32("nConstraints");
  reader.expect_end("the header fields");
  uint64_t named = 1 + uint64_t(h.n_pub_out) + h.n_pub_in + h.n_prv_in;
  if (named > h.n_wires) {
    CUZK_INVALID_INPUT(reader.where() + ": nWires = " + std::to_string(h.n_wires) +
                       " cannot hold the constant wire plus " + std::to_string(h.n_pub_out) +
                       " outputs, " + std::to_string(h.n_pub_in) + " public and " +
                       std::to_string(h.n_prv_in) + " private inputs");
  }
  if (prime_out != nullptr) *prime_out = prime;
  return h;
}

// Where a chunk of constraints starts in section 2 and how many terms of each matrix precede
// it: enough for a thread to fill its rows without looking at any other chunk.
struct ChunkStart {
  uint64_t offset;
  std::array<uint64_t, 3> nnz;
};

std::string term_place(uint64_t constraint, int matrix) {
  return "constraint " + std::to_string(constraint) + ", " + kMatrixNames[matrix] + " ";
}

// First pass: structure only (term counts and that every term lies inside the section).
template <class Fr>
std::vector<ChunkStart> scan_constraints(std::span<const uint8_t> body, uint32_t n_constraints,
                                         const std::string& where, std::array<uint64_t, 3>& nnz) {
  constexpr uint64_t kTermBytes = 4 + detail::kElementBytes<Fr>;
  std::vector<ChunkStart> chunks;
  // Every constraint takes at least 12 bytes (three term counts): a count the section cannot
  // hold must not reserve memory before the scan below refuses it.
  chunks.reserve(std::min<uint64_t>(n_constraints, body.size() / 12) / kChunkRows + 1);
  nnz = {0, 0, 0};
  uint64_t pos = 0;
  const uint64_t size = body.size();
  for (uint32_t row = 0; row < n_constraints; ++row) {
    if (row % kChunkRows == 0) chunks.push_back({pos, nnz});
    for (int m = 0; m < 3; ++m) {
      if (size - pos < 4) {
        CUZK_INVALID_INPUT(where + ": ends at byte " + std::to_string(size) + " inside " +
                           term_place(row, m) + "term count (the header announces " +
                           std::to_string(n_constraints) + " constraints)");
      }
      uint32_t terms = load_u32_le(body.data() + pos);
      pos += 4;
      uint64_t bytes = terms * kTermBytes;  // < 2^32 · 2^6: no overflow
      if (size - pos < bytes) {
        CUZK_INVALID_INPUT(where + ": " + term_place(row, m) + "announces " +
                           std::to_string(terms) + " terms (" + std::to_string(bytes) +
                           " bytes) but only " + std::to_string(size - pos) +
                           " bytes remain in the section");
      }
      pos += bytes;
      nnz[m] += terms;
    }
  }
  if (pos != size) {
    CUZK_INVALID_INPUT(where + ": " + std::to_string(size - pos) + " bytes left over after the " +
                       std::to_string(n_constraints) + " constraints the header announces");
  }
  return chunks;
}

template <class Curve>
void fill_constraints(std::span<const uint8_t> body, const R1csHeader& header,
                      const std::vector<ChunkStart>& chunks, const std::string& where,
                      unsigned threads, std::array<SparseMatrix<typename Curve::Fr>*, 3> out) {
  using Fr = typename Curve::Fr;
  constexpr uint64_t kValueBytes = detail::kElementBytes<Fr>;
  const std::array<uint64_t, 3> total = {out[0]->nnz(), out[1]->nnz(), out[2]->nnz()};

  detail::for_each_chunk(chunks.size(), threads, [&](size_t k) {
    uint32_t first = uint32_t(k * kChunkRows);
    uint32_t last = std::min<uint64_t>(uint64_t(first) + kChunkRows, header.n_constraints);
    const std::array<uint64_t, 3>& limit = k + 1 < chunks.size() ? chunks[k + 1].nnz : total;
    std::array<uint64_t, 3> cursor = chunks[k].nnz;
    const uint8_t* p = body.data() + chunks[k].offset;
    for (uint32_t row = first; row < last; ++row) {
      for (int m = 0; m < 3; ++m) {
        SparseMatrix<Fr>& matrix = *out[m];
        uint32_t terms = load_u32_le(p);
        p += 4;
        // The first pass fixed these counts; a mapped file rewritten underneath us must not
        // turn into writes past the arrays.
        if (terms > limit[m] - cursor[m]) {
          CUZK_INVALID_INPUT(where + ": changed while being read (" + term_place(row, m) +
                             "term count differs between passes)");
        }
        matrix.row_start[row] = cursor[m];
        for (uint32_t t = 0; t < terms; ++t) {
          uint32_t wire = load_u32_le(p);
          if (wire >= header.n_wires) {
            CUZK_INVALID_INPUT(where + ": " + term_place(row, m) + "term " + std::to_string(t) +
                               ": wire " + std::to_string(wire) + " is out of range (nWires = " +
                               std::to_string(header.n_wires) + ")");
          }
          typename Fr::Int v;
          if (!detail::load_le<Fr>(p + 4, v)) {
            CUZK_INVALID_INPUT(where + ": " + term_place(row, m) + "term " + std::to_string(t) +
                               ": coefficient " + detail::hex_of<Fr>(v) +
                               " is not below the scalar field modulus r");
          }
          matrix.column[cursor[m]] = wire;
          matrix.value[cursor[m]] = Fr::from_int(v);
          ++cursor[m];
          p += 4 + kValueBytes;
        }
      }
    }
  });
}

template <class Curve>
void check_for_writing(const R1cs<Curve>& r1cs) {
  const R1csHeader& h = r1cs.header;
  if (h.curve != Curve::kId) {
    CUZK_INVALID_INPUT("r1cs to write: header names " + std::string(curve_display_name(h.curve)) +
                       " but the matrices are over " + std::string(curve_display_name(Curve::kId)));
  }
  if (1 + uint64_t(h.n_pub_out) + h.n_pub_in + h.n_prv_in > h.n_wires) {
    CUZK_INVALID_INPUT("r1cs to write: nWires = " + std::to_string(h.n_wires) +
                       " is less than 1 + outputs + public inputs + private inputs");
  }
  const std::array<const SparseMatrix<typename Curve::Fr>*, 3> matrices = {&r1cs.a, &r1cs.b,
                                                                           &r1cs.c};
  for (int m = 0; m < 3; ++m) {
    const auto& matrix = *matrices[m];
    std::string name = std::string("r1cs to write: matrix ") + kMatrixNames[m];
    bool empty = matrix.row_start.empty() && matrix.nnz() == 0 && h.n_constraints == 0;
    if (!empty &&
        (matrix.rows() != h.n_constraints || matrix.row_start.front() != 0 ||
         matrix.row_start.back() != matrix.nnz() || matrix.value.size() != matrix.nnz())) {
      CUZK_INVALID_INPUT(name + " is not a CSR matrix of nConstraints = " +
                         std::to_string(h.n_constraints) + " rows");
    }
    for (size_t row = 0; row < matrix.rows(); ++row) {
      if (matrix.row_start[row + 1] < matrix.row_start[row] ||
          matrix.row_start[row + 1] - matrix.row_start[row] > UINT32_MAX) {
        CUZK_INVALID_INPUT(name + ": row " + std::to_string(row) + " has a bad extent");
      }
    }
    for (size_t t = 0; t < matrix.nnz(); ++t) {
      if (matrix.column[t] >= h.n_wires) {
        CUZK_INVALID_INPUT(name + ": term " + std::to_string(t) + " uses wire " +
                           std::to_string(matrix.column[t]) +
                           " ≥ nWires = " + std::to_string(h.n_wires));
      }
    }
  }
  if (!r1cs.wire_labels.empty() && r1cs.wire_labels.size() != h.n_wires) {
    CUZK_INVALID_INPUT("r1cs to write: " + std::to_string(r1cs.wire_labels.size()) +
                       " wire labels for " + std::to_string(h.n_wires) + " wires");
  }
}

}  // namespace

R1csHeader parse_r1cs_header(std::span<const uint8_t> file, std::string_view file_name) {
  BinaryContainer c = BinaryContainer::parse(file, file_name, kR1csSpec);
  return parse_header(c, nullptr);
}

template <class Curve>
R1cs<Curve> parse_r1cs(std::span<const uint8_t> file, std::string_view file_name,
                       const R1csReadOptions& options) {
  using Fr = typename Curve::Fr;
  BinaryContainer c = BinaryContainer::parse(file, file_name, kR1csSpec);
  std::span<const uint8_t> prime;
  R1cs<Curve> r1cs{};
  r1cs.header = parse_header(c, &prime);
  detail::check_field_prime<Curve, Fr>(prime, c.where(kHeaderSection, kHeaderTitle));
  const R1csHeader& h = r1cs.header;

  if (c.optional_section(kCustomGatesListSection, "custom gates list") ||
      c.optional_section(kCustomGatesUsesSection, "custom gates uses")) {
    CUZK_INVALID_INPUT(std::string(file_name) +
                       ": uses custom gates (sections 4 and 5), a PLONK feature: its constraints "
                       "alone do not describe the circuit, so it cannot be proven with Groth16");
  }

  std::span<const uint8_t> body = c.section(kConstraintsSection, kConstraintsTitle);
  const std::string where = c.where(kConstraintsSection, kConstraintsTitle);
  std::array<uint64_t, 3> nnz{};
  std::vector<ChunkStart> chunks = scan_constraints<Fr>(body, h.n_constraints, where, nnz);

  std::array<SparseMatrix<Fr>*, 3> matrices = {&r1cs.a, &r1cs.b, &r1cs.c};
  for (int m = 0; m < 3; ++m) {
    matrices[m]->row_start.resize(uint64_t(h.n_constraints) + 1);
    matrices[m]->row_start[h.n_constraints] = nnz[m];
    matrices[m]->column.resize(nnz[m]);
    matrices[m]->value.resize(nnz[m]);
  }
  fill_constraints<Curve>(body, h, chunks, where, options.threads, matrices);

  std::optional<std::span<const uint8_t>> labels = c.optional_section(kLabelsSection, kLabelsTitle);
  if (labels) {
    uint64_t expected = uint64_t(h.n_wires) * 8;
    if (labels->size() != expected) {
      CUZK_INVALID_INPUT(c.where(kLabelsSection, kLabelsTitle) + " holds " +
                         std::to_string(labels->size()) + " bytes, expected nWires " +
                         describe_product(h.n_wires, 8));
    }
    if (options.read_labels) {
      r1cs.wire_labels.resize(h.n_wires);
      for (uint32_t i = 0; i < h.n_wires; ++i) {
        r1cs.wire_labels[i] = load_u64_le(labels->data() + 8 * uint64_t(i));
      }
    }
  } else if (options.read_labels) {
    c.section(kLabelsSection, kLabelsTitle);  // throws: missing
  }
  return r1cs;
}

template <class Curve>
R1cs<Curve> read_r1cs(const std::filesystem::path& path, const R1csReadOptions& options) {
  MappedFile file = MappedFile::open(path);
  file.advise(MappedFile::Access::kSequential);
  return parse_r1cs<Curve>(file.bytes(), file.name(), options);
}

template <class Curve>
void write_r1cs(std::ostream& out, const R1cs<Curve>& r1cs, std::string_view file_name) {
  using Fr = typename Curve::Fr;
  constexpr size_t kValueBytes = detail::kElementBytes<Fr>;
  check_for_writing(r1cs);
  const R1csHeader& h = r1cs.header;

  BinaryWriter w(out, std::string(file_name), kR1csSpec.magic, kR1csSpec.version, 3);
  w.begin_section(kHeaderSection, 4 + kValueBytes + 4 * 4 + 8 + 4);
  w.u32(uint32_t(kValueBytes));
  std::array<uint8_t, kValueBytes> prime;
  detail::store_le<Fr>(Fr::kModulus, prime.data());
  w.bytes(prime);
  w.u32(h.n_wires);
  w.u32(h.n_pub_out);
  w.u32(h.n_pub_in);
  w.u32(h.n_prv_in);
  w.u64(h.n_labels);
  w.u32(h.n_constraints);
  w.end_section();

  const std::array<const SparseMatrix<Fr>*, 3> matrices = {&r1cs.a, &r1cs.b, &r1cs.c};
  uint64_t terms = r1cs.a.nnz() + r1cs.b.nnz() + r1cs.c.nnz();
  w.begin_section(kConstraintsSection, 12 * uint64_t(h.n_constraints) + terms * (4 + kValueBytes));
  // Records are staged in a buffer and written in large blocks: one stream call per term
  // would dominate the time for 10^8-term systems.
  std::vector<uint8_t> buffer;
  constexpr size_t kFlushBytes = size_t(1) << 20;
  buffer.reserve(kFlushBytes + 4096);
  auto put_u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) buffer.push_back(uint8_t(v >> (8 * i)));
  };
  for (uint32_t row = 0; row < h.n_constraints; ++row) {
    for (const SparseMatrix<Fr>* matrix : matrices) {
      std::span<const uint32_t> columns = matrix->row_columns(row);
      std::span<const Fr> values = matrix->row_values(row);
      put_u32(uint32_t(columns.size()));
      for (size_t t = 0; t < columns.size(); ++t) {
        put_u32(columns[t]);
        size_t at = buffer.size();
        buffer.resize(at + kValueBytes);
        detail::store_le<Fr>(values[t].to_int(), buffer.data() + at);
        if (buffer.size() >= kFlushBytes) {
          w.bytes(buffer);
          buffer.clear();
        }
      }
    }
  }
  w.bytes(buffer);
  w.end_section();

  w.begin_section(kLabelsSection, uint64_t(h.n_wires) * 8);
  for (uint32_t i = 0; i < h.n_wires; ++i) {
    w.u64(r1cs.wire_labels.empty() ? i : r1cs.wire_labels[i]);
  }
  w.end_section();
  w.finish();
}

template <class Curve>
void write_r1cs(const std::filesystem::path& path, const R1cs<Curve>& r1cs) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) CUZK_INVALID_INPUT(path.string() + ": cannot create the file");
  write_r1cs(out, r1cs, path.string());
}

template <class Curve>
std::vector<uint8_t> r1cs_to_bytes(const R1cs<Curve>& r1cs) {
  std::ostringstream out(std::ios::binary);
  write_r1cs(out, r1cs);
  const std::string& s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

#define CUZK_FORMATS_R1CS_INSTANTIATE(Curve)                                                   \
  template R1cs<Curve> parse_r1cs<Curve>(std::span<const uint8_t>, std::string_view,           \
                                         const R1csReadOptions&);                              \
  template R1cs<Curve> read_r1cs<Curve>(const std::filesystem::path&, const R1csReadOptions&); \
  template void write_r1cs<Curve>(std::ostream&, const R1cs<Curve>&, std::string_view);        \
  template void write_r1cs<Curve>(const std::filesystem::path&, const R1cs<Curve>&);           \
  template std::vector<uint8_t> r1cs_to_bytes<Curve>(const R1cs<Curve>&);
CUZK_FORMATS_R1CS_INSTANTIATE(Bn254)
CUZK_FORMATS_R1CS_INSTANTIATE(Bls12_381)

}  // namespace cuzk::formats
