#include "formats/curve.hpp"

#include <array>

#include "formats/binary_container.hpp"
#include "formats/mapped_file.hpp"
#include "util/error.hpp"

namespace cuzk::formats {

namespace {

// n8 little-endian bytes equal to the limbs of a modulus (n8 = 8 bytes per limb).
bool equals_modulus(std::span<const uint8_t> bytes, std::span<const uint64_t> limbs) {
  if (bytes.size() != 8 * limbs.size()) return false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != uint8_t(limbs[i / 8] >> (8 * (i % 8)))) return false;
  }
  return true;
}

std::string hex_of_le(std::span<const uint8_t> bytes) {
  static const char* kHex = "0123456789abcdef";
  constexpr size_t kShown = 64;  // enough to recognize a prime; the rest is elided
  std::string out = "0x";
  size_t shown = 0;
  for (size_t i = bytes.size(); i-- > 0 && shown < kShown; ++shown) {
    out += kHex[bytes[i] >> 4];
    out += kHex[bytes[i] & 15];
  }
  if (shown < bytes.size()) out += "...";
  return out;
}

}  // namespace

std::string detail::describe_prime(std::span<const uint8_t> prime) {
  if (auto id = curve_with_scalar_modulus(prime)) {
    return std::string(curve_display_name(*id)) + "'s scalar field prime r";
  }
  if (auto id = curve_with_base_modulus(prime)) {
    return std::string(curve_display_name(*id)) + "'s base field prime q";
  }
  return "the prime " + hex_of_le(prime) + " (" + std::to_string(prime.size()) +
         " bytes), which is neither BN254's nor BLS12-381's";
}

namespace {

// Section 1 of an .r1cs or .wtns starts with u32 n8, then the prime r.
std::span<const uint8_t> leading_prime(const BinaryContainer& c, uint32_t section_id,
                                       std::string_view title) {
  SectionReader reader(c.section(section_id, title), c.where(section_id, title));
  uint32_t n8 = reader.u32("n8 (bytes per field element)");
  return reader.bytes(n8, "the prime");
}

}  // namespace

std::string_view snarkjs_curve_name(CurveId id) {
  return id == CurveId::kBn254 ? "bn128" : "bls12381";
}

std::string_view curve_display_name(CurveId id) {
  return id == CurveId::kBn254 ? "BN254" : "BLS12-381";
}

std::optional<CurveId> curve_with_scalar_modulus(std::span<const uint8_t> le_bytes) {
  if (equals_modulus(le_bytes, bn254::Fr::kModulus.limb)) return CurveId::kBn254;
  if (equals_modulus(le_bytes, bls12_381::Fr::kModulus.limb)) return CurveId::kBls12_381;
  return std::nullopt;
}

std::optional<CurveId> curve_with_base_modulus(std::span<const uint8_t> le_bytes) {
  if (equals_modulus(le_bytes, bn254::Fp::kModulus.limb)) return CurveId::kBn254;
  if (equals_modulus(le_bytes, bls12_381::Fp::kModulus.limb)) return CurveId::kBls12_381;
  return std::nullopt;
}

namespace detail {

void check_prime(std::span<const uint8_t> prime, std::span<const uint64_t> expected_limbs,
                 CurveId expected_curve, bool is_scalar_field, const std::string& where) {
  if (equals_modulus(prime, expected_limbs)) return;
  CUZK_INVALID_INPUT(where + ": holds " + detail::describe_prime(prime) + ", but " +
                     std::string(curve_display_name(expected_curve)) + "'s " +
                     (is_scalar_field ? "scalar field prime r" : "base field prime q") +
                     " was expected (wrong curve?)");
}

}  // namespace detail

CurveId sniff_curve(std::span<const uint8_t> file, std::string_view file_name) {
  std::optional<std::string> magic = container_magic(file);
  const std::string name(file_name);
  if (magic == "r1cs" || magic == "wtns") {
    bool is_r1cs = magic == "r1cs";
    BinaryContainer c = BinaryContainer::parse(
        file, file_name, is_r1cs ? ContainerSpec{"r1cs", 1} : ContainerSpec{"wtns", 2});
    std::string_view title = is_r1cs ? "header" : "witness header";
    std::span<const uint8_t> prime = leading_prime(c, 1, title);
    if (auto id = curve_with_scalar_modulus(prime)) return *id;
    CUZK_INVALID_INPUT(c.where(1, title) + ": unknown curve: holds " +
                       detail::describe_prime(prime));
  }
  if (magic == "zkey") {
    BinaryContainer c = BinaryContainer::parse(file, file_name, ContainerSpec{"zkey", 1});
    constexpr std::string_view kTitle = "Groth16 header";
    SectionReader reader(c.section(2, kTitle), c.where(2, kTitle));
    uint32_t n8q = reader.u32("n8q (bytes per coordinate)");
    std::span<const uint8_t> q = reader.bytes(n8q, "the base field prime q");
    uint32_t n8r = reader.u32("n8r (bytes per scalar)");
    std::span<const uint8_t> r = reader.bytes(n8r, "the scalar field prime r");
    std::optional<CurveId> by_q = curve_with_base_modulus(q);
    if (!by_q)
      CUZK_INVALID_INPUT(c.where(2, kTitle) + ": unknown curve: q is " + detail::describe_prime(q));
    if (curve_with_scalar_modulus(r) != by_q) {
      CUZK_INVALID_INPUT(c.where(2, kTitle) + ": q is " + detail::describe_prime(q) + " but r is " +
                         detail::describe_prime(r));
    }
    return *by_q;
  }
  CUZK_INVALID_INPUT(name + ": not a .r1cs, .wtns or .zkey file (" +
                     (magic ? describe_magic(file.first(4)) : std::string("no magic")) + ")");
}

CurveId sniff_curve(const std::filesystem::path& path) {
  MappedFile file = MappedFile::open(path);
  file.advise(MappedFile::Access::kRandom);
  return sniff_curve(file.bytes(), file.name());
}

}  // namespace cuzk::formats
