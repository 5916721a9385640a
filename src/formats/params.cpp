#include "formats/params.hpp"

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <type_traits>

#include "formats/binary_container.hpp"
#include "formats/mapped_file.hpp"
#include "formats/parallel.hpp"
#include "io/zcash_codec.hpp"
#include "util/error.hpp"

namespace cuzk::formats {

namespace {

using bls12_381::Fp;
using bls12_381::Fp2;
using G1 = bls12_381::G1Affine;
using G2 = bls12_381::G2Affine;

template <class Point>
constexpr size_t kUncompressedBytes =
    std::is_same_v<Point, G1> ? io::kZcashG1UncompressedBytes : io::kZcashG2UncompressedBytes;

constexpr size_t kPointsPerChunk = size_t(1) << 12;
// Points encoded per write: bounds the writer's buffer (2^16 × 192 bytes = 12 MiB for G2).
constexpr size_t kPointsPerWriteBatch = size_t(1) << 16;
constexpr uint8_t kFlagBits = 0xe0;  // compressed, infinity, sign: see io/zcash_codec.hpp

std::string str(std::string_view s) { return std::string(s); }

std::string indexed(std::string_view where, size_t i) {
  return str(where) + "[" + std::to_string(i) + "]";
}

// Sequential big-endian reads over a whole file; every read is checked against what is left,
// and a short file names the field it ends in.
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, std::string_view name) : bytes_(bytes), name_(name) {}

  std::span<const uint8_t> take(uint64_t n, std::string_view what) {
    if (n > remaining()) {
      CUZK_INVALID_INPUT(name_ + ": truncated: " + str(what) + " needs " + std::to_string(n) +
                         " bytes at offset " + std::to_string(position_) + ", only " +
                         std::to_string(remaining()) + " remain");
    }
    std::span<const uint8_t> out = bytes_.subspan(position_, n);
    position_ += n;
    return out;
  }

  uint32_t u32_be(std::string_view what) {
    std::span<const uint8_t> b = take(4, what);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | uint32_t(b[3]);
  }

  // A u32-counted vector of points of `unit` bytes each: the count is checked against the
  // bytes left before the caller allocates anything for it.
  std::span<const uint8_t> vector(std::string_view vector_name, uint64_t unit) {
    uint32_t count = u32_be(str(vector_name) + " count");
    uint64_t size = uint64_t(count) * unit;  // < 2^32 · 192: no overflow
    if (size > remaining()) {
      CUZK_INVALID_INPUT(name_ + ": " + str(vector_name) + " count " + std::to_string(count) +
                         " needs " + describe_product(count, unit) + " bytes of points at offset " +
                         std::to_string(position_) + ", only " + std::to_string(remaining()) +
                         " remain (the file is truncated or the count corrupt)");
    }
    return take(size, vector_name);
  }

  void expect_end(std::string_view after) const {
    if (remaining() != 0) {
      CUZK_INVALID_INPUT(name_ + ": " + std::to_string(remaining()) + " unexpected bytes after " +
                         str(after) + " at offset " + std::to_string(position_));
    }
  }

  uint64_t remaining() const { return bytes_.size() - position_; }
  const std::string& name() const { return name_; }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
  uint64_t position_ = 0;
};

[[noreturn]] void refuse_infinity(const std::string& role) {
  CUZK_INVALID_INPUT(role +
                     ": is the point at infinity, which bellman never writes into a key and its "
                     "reader refuses");
}

// One key point (vk or IC): full validation through the io decoder, then no infinity.
template <class Point>
Point decode_key_point(Cursor& cursor, std::string_view role_in) {
  const std::string role = cursor.name() + ": " + str(role_in);
  std::span<const uint8_t> bytes = cursor.take(kUncompressedBytes<Point>, role_in);
  Point p;
  if constexpr (std::is_same_v<Point, G1>) {
    p = io::g1_from_zcash_uncompressed(bytes, io::SubgroupCheck::kOn, role);
  } else {
    p = io::g2_from_zcash_uncompressed(bytes, io::SubgroupCheck::kOn, role);
  }
  if (p.is_infinity()) refuse_infinity(role);
  return p;
}

BellmanVerifyingKey decode_verifying_key(Cursor& cursor) {
  BellmanVerifyingKey vk;
  vk.alpha_g1 = decode_key_point<G1>(cursor, "vk alpha_g1");
  vk.beta_g1 = decode_key_point<G1>(cursor, "vk beta_g1");
  vk.beta_g2 = decode_key_point<G2>(cursor, "vk beta_g2");
  vk.gamma_g2 = decode_key_point<G2>(cursor, "vk gamma_g2");
  vk.delta_g1 = decode_key_point<G1>(cursor, "vk delta_g1");
  vk.delta_g2 = decode_key_point<G2>(cursor, "vk delta_g2");
  std::span<const uint8_t> ic = cursor.vector("ic", kUncompressedBytes<G1>);
  size_t count = ic.size() / kUncompressedBytes<G1>;
  if (count == 0) {
    CUZK_INVALID_INPUT(cursor.name() +
                       ": ic holds no points (a key has one at least, for the constant wire)");
  }
  Cursor points(ic, cursor.name());
  vk.ic.reserve(count);
  for (size_t i = 0; i < count; ++i)
    vk.ic.push_back(decode_key_point<G1>(points, indexed("ic", i)));
  return vk;
}

// The integer of 48 big-endian bytes (one Fp coordinate without flags), and whether it is a
// canonical encoding (< p).
bool load_fp(const uint8_t* p, Fp& out) {
  Fp::Int v;
  for (size_t i = 0; i < Fp::kLimbs; ++i) {
    const uint8_t* word = p + 8 * (Fp::kLimbs - 1 - i);
    uint64_t limb = 0;
    for (int b = 0; b < 8; ++b) limb = limb << 8 | word[b];
    v.limb[i] = limb;
  }
  if (compare(v, Fp::kModulus) >= 0) return false;
  out = Fp::from_int(v);
  return true;
}

bool load_coordinate(const uint8_t* p, Fp& out) { return load_fp(p, out); }
bool load_coordinate(const uint8_t* p, Fp2& out) {  // c1 first, then c0
  return load_fp(p, out.c1) && load_fp(p + Fp::kBytes, out.c0);
}

// The allocation-free check of one point of a vector; false sends the point to the io decoder,
// which says what is wrong with it.
template <class Point>
bool fast_decode(const uint8_t* bytes, io::SubgroupCheck check, Point& out) {
  constexpr size_t kCoordinate = kUncompressedBytes<Point> / 2;
  if ((bytes[0] & kFlagBits) != 0) return false;  // infinity, or flags of another form
  if (!load_coordinate(bytes, out.x) || !load_coordinate(bytes + kCoordinate, out.y)) return false;
  if (out.is_infinity() || !out.is_on_curve()) return false;
  return check == io::SubgroupCheck::kOff || bls12_381::is_in_subgroup(out);
}

template <class Point>
void decode_points(std::span<const uint8_t> bytes, std::span<Point> out,
                   const ParamsReadOptions& options, std::string_view where) {
  constexpr size_t kBytes = kUncompressedBytes<Point>;
  if (bytes.size() != out.size() * kBytes) {
    CUZK_INVALID_INPUT(str(where) + ": holds " + std::to_string(bytes.size()) +
                       " bytes, expected " + describe_product(out.size(), kBytes));
  }
  size_t chunks = (out.size() + kPointsPerChunk - 1) / kPointsPerChunk;
  detail::for_each_chunk(chunks, options.threads, [&](size_t k) {
    size_t end = std::min(out.size(), (k + 1) * kPointsPerChunk);
    for (size_t i = k * kPointsPerChunk; i < end; ++i) {
      std::span<const uint8_t> point = bytes.subspan(i * kBytes, kBytes);
      if (fast_decode(point.data(), options.subgroup_check, out[i])) continue;
      const std::string role = indexed(where, i);
      Point p;
      if constexpr (std::is_same_v<Point, G1>) {
        p = io::g1_from_zcash_uncompressed(point, options.subgroup_check, role);
      } else {
        p = io::g2_from_zcash_uncompressed(point, options.subgroup_check, role);
      }
      if (p.is_infinity()) refuse_infinity(role);
      CUZK_THROW(ErrorKind::kInternal, role + ": rejected here but accepted by the io decoder");
    }
  });
}

std::string describe_h_count(size_t count) {
  return "h holds " + std::to_string(count) +
         " points, but bellman's H query has the domain size minus one (2^k − 1)";
}

void check_vector_sizes(size_t h, size_t b_g1, size_t b_g2, const std::string& where) {
  if (!std::has_single_bit(uint64_t(h) + 1)) CUZK_INVALID_INPUT(where + ": " + describe_h_count(h));
  if (b_g1 != b_g2) {
    CUZK_INVALID_INPUT(where + ": b_g2 holds " + std::to_string(b_g2) + " points but b_g1 holds " +
                       std::to_string(b_g1) + " (one point in each group per wire of B)");
  }
}

// ---- writing ----

template <class Point>
void check_point_for_writing(const Point& p, const std::string& role) {
  if (p.is_infinity()) {
    CUZK_INVALID_INPUT(role + ": is the point at infinity, which bellman's reader refuses");
  }
  if (!p.is_on_curve()) {
    CUZK_INVALID_INPUT(role + ": point is not on the curve " +
                       std::string(io::CurveOf<Point>::type::kName));
  }
}

void write_bytes(std::ostream& out, std::span<const uint8_t> bytes, std::string_view file_name) {
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!out) CUZK_THROW(ErrorKind::kInternal, str(file_name) + ": write failed");
}

void write_u32_be(std::ostream& out, uint32_t v, std::string_view file_name) {
  std::array<uint8_t, 4> b{uint8_t(v >> 24), uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
  write_bytes(out, b, file_name);
}

template <class Point>
void write_point(std::ostream& out, const Point& p, const std::string& role,
                 std::string_view file_name) {
  check_point_for_writing(p, role);
  write_bytes(out, io::to_zcash_uncompressed(p), file_name);
}

// A u32 count and the points, encoded in parallel batches.
template <class Point>
void write_vector(std::ostream& out, std::span<const Point> points, std::string_view vector_name,
                  std::string_view file_name, unsigned threads) {
  constexpr size_t kBytes = kUncompressedBytes<Point>;
  const std::string where = str(file_name) + " to write: " + str(vector_name);
  if (points.size() > UINT32_MAX) {
    CUZK_INVALID_INPUT(where + ": " + std::to_string(points.size()) +
                       " points do not fit the u32 count");
  }
  write_u32_be(out, uint32_t(points.size()), file_name);
  std::vector<uint8_t> buffer(std::min(points.size(), kPointsPerWriteBatch) * kBytes);
  for (size_t first = 0; first < points.size(); first += kPointsPerWriteBatch) {
    size_t n = std::min(kPointsPerWriteBatch, points.size() - first);
    size_t chunks = (n + kPointsPerChunk - 1) / kPointsPerChunk;
    detail::for_each_chunk(chunks, threads, [&](size_t k) {
      size_t end = std::min(n, (k + 1) * kPointsPerChunk);
      for (size_t i = k * kPointsPerChunk; i < end; ++i) {
        const Point& p = points[first + i];
        if (p.is_infinity() || !p.is_on_curve())
          check_point_for_writing(p, indexed(where, first + i));
        auto encoded = io::to_zcash_uncompressed(p);
        std::copy(encoded.begin(), encoded.end(), buffer.begin() + i * kBytes);
      }
    });
    write_bytes(out, std::span(buffer).first(n * kBytes), file_name);
  }
}

void write_vk(std::ostream& out, const BellmanVerifyingKey& vk, std::string_view file_name) {
  const std::string where = str(file_name) + " to write: ";
  if (vk.ic.empty()) CUZK_INVALID_INPUT(where + "ic is empty (the constant wire needs a point)");
  write_point(out, vk.alpha_g1, where + "vk alpha_g1", file_name);
  write_point(out, vk.beta_g1, where + "vk beta_g1", file_name);
  write_point(out, vk.beta_g2, where + "vk beta_g2", file_name);
  write_point(out, vk.gamma_g2, where + "vk gamma_g2", file_name);
  write_point(out, vk.delta_g1, where + "vk delta_g1", file_name);
  write_point(out, vk.delta_g2, where + "vk delta_g2", file_name);
  write_vector(out, std::span(vk.ic), "ic", file_name, 1);
}

// Writes through `write` into <path>.partial and renames it to path once complete, so that a
// refused key (found bad half-way) or a failed write never leaves a truncated file under the
// final name, and a reader that maps the old file keeps seeing it whole.
template <class Write>
void write_file_replacing(const std::filesystem::path& path, Write&& write) {
  std::filesystem::path partial = path;
  partial += ".partial";
  try {
    {
      std::ofstream out(partial, std::ios::binary | std::ios::trunc);
      if (!out) CUZK_INVALID_INPUT(partial.string() + ": cannot create the file");
      write(out);
      out.close();
      if (!out) CUZK_THROW(ErrorKind::kInternal, partial.string() + ": write failed");
    }
    std::error_code error;
    std::filesystem::rename(partial, path, error);
    if (error) {
      CUZK_THROW(ErrorKind::kInternal,
                 path.string() + ": cannot replace the file: " + error.message());
    }
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(partial, ignored);
    throw;
  }
}

std::vector<uint8_t> bytes_of(const std::ostringstream& out) {
  const std::string& s = out.str();
  return std::vector<uint8_t>(s.begin(), s.end());
}

// ---- proofs ----

template <class Point>
Point decode_proof_point(std::span<const uint8_t> bytes, const std::string& role) {
  Point p;
  if constexpr (std::is_same_v<Point, G1>) {
    p = io::g1_from_zcash_compressed(bytes, io::SubgroupCheck::kOn, role);
  } else {
    p = io::g2_from_zcash_compressed(bytes, io::SubgroupCheck::kOn, role);
  }
  if (p.is_infinity()) {
    CUZK_INVALID_INPUT(role + ": is the point at infinity, which bellman's Proof::read refuses");
  }
  return p;
}

// Refuses what decode_bellman_proof would refuse but for the subgroup (a proof made by a
// prover is in it; checking would cost more than the encoding).
std::array<uint8_t, kBellmanProofBytes> encode_proof(const BellmanProof& proof,
                                                     const std::string& where) {
  check_point_for_writing(proof.a, where + ": A");
  check_point_for_writing(proof.b, where + ": B");
  check_point_for_writing(proof.c, where + ": C");
  std::array<uint8_t, kBellmanProofBytes> out;
  auto a = io::to_zcash_compressed(proof.a);
  auto b = io::to_zcash_compressed(proof.b);
  auto c = io::to_zcash_compressed(proof.c);
  auto at = std::copy(a.begin(), a.end(), out.begin());
  at = std::copy(b.begin(), b.end(), at);
  std::copy(c.begin(), c.end(), at);
  return out;
}

}  // namespace

void decode_bellman_points(std::span<const uint8_t> bytes, std::span<G1> out,
                           const ParamsReadOptions& options, std::string_view where) {
  decode_points(bytes, out, options, where);
}
void decode_bellman_points(std::span<const uint8_t> bytes, std::span<G2> out,
                           const ParamsReadOptions& options, std::string_view where) {
  decode_points(bytes, out, options, where);
}

BellmanVerifyingKey parse_bellman_verifying_key(std::span<const uint8_t> file,
                                                std::string_view file_name) {
  Cursor cursor(file, file_name);
  BellmanVerifyingKey vk = decode_verifying_key(cursor);
  cursor.expect_end("the verifying key");
  return vk;
}

BellmanVerifyingKey read_bellman_verifying_key(const std::filesystem::path& path) {
  MappedFile file = MappedFile::open(path);
  return parse_bellman_verifying_key(file.bytes(), file.name());
}

BellmanParamsLayout parse_bellman_params_layout(std::span<const uint8_t> file,
                                                std::string_view file_name) {
  Cursor cursor(file, file_name);
  BellmanParamsLayout layout;
  layout.vk = decode_verifying_key(cursor);
  layout.h = cursor.vector("h", kUncompressedBytes<G1>);
  layout.l = cursor.vector("l", kUncompressedBytes<G1>);
  layout.a = cursor.vector("a", kUncompressedBytes<G1>);
  layout.b_g1 = cursor.vector("b_g1", kUncompressedBytes<G1>);
  layout.b_g2 = cursor.vector("b_g2", kUncompressedBytes<G2>);
  cursor.expect_end("the last vector (b_g2)");
  check_vector_sizes(layout.h.size() / kUncompressedBytes<G1>,
                     layout.b_g1.size() / kUncompressedBytes<G1>,
                     layout.b_g2.size() / kUncompressedBytes<G2>, str(file_name));
  return layout;
}

BellmanParams parse_bellman_params(std::span<const uint8_t> file, std::string_view file_name,
                                   const ParamsReadOptions& options) {
  BellmanParamsLayout layout = parse_bellman_params_layout(file, file_name);
  BellmanParams params;
  params.vk = std::move(layout.vk);
  auto decode = [&](auto& vec, std::span<const uint8_t> bytes, std::string_view name) {
    using Point = typename std::decay_t<decltype(vec)>::value_type;
    vec.resize(bytes.size() / kUncompressedBytes<Point>);
    decode_points(bytes, std::span(vec), options, str(file_name) + ": " + str(name));
  };
  decode(params.h, layout.h, "h");
  decode(params.l, layout.l, "l");
  decode(params.a, layout.a, "a");
  decode(params.b_g1, layout.b_g1, "b_g1");
  decode(params.b_g2, layout.b_g2, "b_g2");
  return params;
}

BellmanParams read_bellman_params(const std::filesystem::path& path,
                                  const ParamsReadOptions& options) {
  MappedFile file = MappedFile::open(path);
  file.advise(MappedFile::Access::kSequential);
  return parse_bellman_params(file.bytes(), file.name(), options);
}

void write_bellman_verifying_key(std::ostream& out, const BellmanVerifyingKey& vk,
                                 std::string_view file_name) {
  write_vk(out, vk, file_name);
}

void write_bellman_verifying_key(const std::filesystem::path& path, const BellmanVerifyingKey& vk) {
  write_file_replacing(path, [&](std::ostream& out) { write_vk(out, vk, path.string()); });
}

std::vector<uint8_t> bellman_verifying_key_to_bytes(const BellmanVerifyingKey& vk) {
  std::ostringstream out(std::ios::binary);
  write_vk(out, vk, "vk");
  return bytes_of(out);
}

void write_bellman_params(std::ostream& out, const BellmanParams& params,
                          std::string_view file_name, unsigned threads) {
  // Sizes first: a key refused for its shape writes nothing (a bad point is found only while
  // its vector is encoded; the path overload then removes the partial file).
  check_vector_sizes(params.h.size(), params.b_g1.size(), params.b_g2.size(),
                     str(file_name) + " to write");
  write_vk(out, params.vk, file_name);
  write_vector(out, std::span(params.h), "h", file_name, threads);
  write_vector(out, std::span(params.l), "l", file_name, threads);
  write_vector(out, std::span(params.a), "a", file_name, threads);
  write_vector(out, std::span(params.b_g1), "b_g1", file_name, threads);
  write_vector(out, std::span(params.b_g2), "b_g2", file_name, threads);
}

void write_bellman_params(const std::filesystem::path& path, const BellmanParams& params,
                          unsigned threads) {
  write_file_replacing(
      path, [&](std::ostream& out) { write_bellman_params(out, params, path.string(), threads); });
}

std::vector<uint8_t> bellman_params_to_bytes(const BellmanParams& params) {
  std::ostringstream out(std::ios::binary);
  write_bellman_params(out, params);
  return bytes_of(out);
}

BellmanProof decode_bellman_proof(std::span<const uint8_t> bytes, std::string_view name) {
  if (bytes.size() != kBellmanProofBytes) {
    CUZK_INVALID_INPUT(str(name) + ": holds " + std::to_string(bytes.size()) +
                       " bytes, a Groth16 proof has 192 (A 48, B 96, C 48)");
  }
  constexpr size_t kG1 = io::kZcashG1CompressedBytes, kG2 = io::kZcashG2CompressedBytes;
  BellmanProof proof;
  proof.a = decode_proof_point<G1>(bytes.first(kG1), str(name) + ": A");
  proof.b = decode_proof_point<G2>(bytes.subspan(kG1, kG2), str(name) + ": B");
  proof.c = decode_proof_point<G1>(bytes.subspan(kG1 + kG2, kG1), str(name) + ": C");
  return proof;
}

std::array<uint8_t, kBellmanProofBytes> encode_bellman_proof(const BellmanProof& proof) {
  return encode_proof(proof, "proof to write");
}

std::vector<BellmanProof> decode_bellman_proofs(std::span<const uint8_t> bytes,
                                                std::string_view name,
                                                std::optional<size_t> expected_count) {
  if (bytes.size() % kBellmanProofBytes != 0) {
    CUZK_INVALID_INPUT(str(name) + ": holds " + std::to_string(bytes.size()) +
                       " bytes, not a whole number of 192-byte proofs");
  }
  size_t count = bytes.size() / kBellmanProofBytes;
  if (expected_count && count != *expected_count) {
    CUZK_INVALID_INPUT(str(name) + ": holds " + std::to_string(count) + " proofs, expected " +
                       std::to_string(*expected_count));
  }
  std::vector<BellmanProof> proofs(count);
  // About 0.5 ms per proof (two square roots and three subgroup checks): one proof per chunk.
  detail::for_each_chunk(count, 0, [&](size_t i) {
    proofs[i] = decode_bellman_proof(bytes.subspan(i * kBellmanProofBytes, kBellmanProofBytes),
                                     str(name) + ": proof " + std::to_string(i));
  });
  return proofs;
}

std::vector<uint8_t> encode_bellman_proofs(std::span<const BellmanProof> proofs) {
  std::vector<uint8_t> out;
  out.reserve(proofs.size() * kBellmanProofBytes);
  for (size_t i = 0; i < proofs.size(); ++i) {
    auto encoded = encode_proof(proofs[i], "proofs to write: proof " + std::to_string(i));
    out.insert(out.end(), encoded.begin(), encoded.end());
  }
  return out;
}

}  // namespace cuzk::formats
