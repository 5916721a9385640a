#include "formats/binary_container.hpp"

#include <bit>

#include "util/error.hpp"

namespace cuzk::formats {

namespace {

constexpr size_t kHeaderBytes = 12;         // magic, version, section count
constexpr size_t kSectionHeaderBytes = 12;  // id, size

}  // namespace

std::string describe_magic(std::span<const uint8_t> bytes) {
  for (std::string_view known : {"r1cs", "wtns", "zkey"}) {
    if (bytes.size() >= 4 &&
        std::string_view(reinterpret_cast<const char*>(bytes.data()), 4) == known) {
      return "a ." + std::string(known) + " file";
    }
  }
  return "a file without the magic of a .r1cs, .wtns or .zkey file";
}

BinaryContainer BinaryContainer::parse(std::span<const uint8_t> bytes, std::string_view file_name,
                                       ContainerSpec spec) {
  BinaryContainer c;
  c.bytes_ = bytes;
  c.file_name_ = std::string(file_name);
  const std::string& name = c.file_name_;
  const std::string expected_magic(spec.magic);

  if (bytes.size() < 4) {
    CUZK_INVALID_INPUT(name + ": " + std::to_string(bytes.size()) + " bytes is too short for a ." +
                       expected_magic + " file (no magic)");
  }
  std::span<const uint8_t> magic = bytes.first(4);
  if (std::string_view(reinterpret_cast<const char*>(magic.data()), 4) != spec.magic) {
    CUZK_INVALID_INPUT(name + ": not a ." + expected_magic + " file (it does not begin with \"" +
                       expected_magic + "\"): " + describe_magic(magic));
  }
  if (bytes.size() < kHeaderBytes) {
    CUZK_INVALID_INPUT(name + ": truncated header: " + std::to_string(bytes.size()) +
                       " bytes, the header alone needs " + std::to_string(kHeaderBytes));
  }
  c.version_ = load_u32_le(bytes.data() + 4);
  if (c.version_ != spec.version) {
    // Reached only by a file with this format's magic: its version is no secret of another file.
    CUZK_INVALID_INPUT(name + ": ." + expected_magic + " version " + std::to_string(c.version_) +
                       " is not supported (this reader knows version " +
                       std::to_string(spec.version) + ")");
  }
  uint32_t count = load_u32_le(bytes.data() + 8);

  uint64_t pos = kHeaderBytes;
  c.sections_.reserve(std::min<uint64_t>(count, bytes.size() / kSectionHeaderBytes));
  for (uint32_t i = 0; i < count; ++i) {
    if (bytes.size() - pos < kSectionHeaderBytes) {
      CUZK_INVALID_INPUT(name + ": truncated: the header of section " + std::to_string(i + 1) +
                         " of " + std::to_string(count) + " starts at byte " + std::to_string(pos) +
                         " but the file ends at byte " + std::to_string(bytes.size()));
    }
    SectionEntry e;
    e.id = load_u32_le(bytes.data() + pos);
    e.size = load_u64_le(bytes.data() + pos + 4);
    e.offset = pos + kSectionHeaderBytes;
    uint64_t left = bytes.size() - e.offset;
    if (e.size > left) {
      CUZK_INVALID_INPUT(name + ": section " + std::to_string(e.id) + " declares " +
                         std::to_string(e.size) + " bytes at byte " + std::to_string(e.offset) +
                         ", but only " + std::to_string(left) +
                         " bytes remain in the file (truncated or corrupt)");
    }
    c.sections_.push_back(e);
    pos = e.offset + e.size;
  }
  if (pos != bytes.size()) {
    CUZK_INVALID_INPUT(name + ": " + std::to_string(bytes.size() - pos) +
                       " unexpected bytes after the last of " + std::to_string(count) +
                       " sections (the section count or a size is wrong)");
  }
  return c;
}

std::string BinaryContainer::where(uint32_t id, std::string_view title) const {
  return file_name_ + ": section " + std::to_string(id) + " (" + std::string(title) + ")";
}

const SectionEntry* BinaryContainer::find_unique(uint32_t id, std::string_view title) const {
  const SectionEntry* found = nullptr;
  for (const SectionEntry& e : sections_) {
    if (e.id != id) continue;
    if (found != nullptr) {
      CUZK_INVALID_INPUT(where(id, title) + " appears more than once (at bytes " +
                         std::to_string(found->offset) + " and " + std::to_string(e.offset) + ")");
    }
    found = &e;
  }
  return found;
}

const SectionEntry& BinaryContainer::entry(uint32_t id, std::string_view title) const {
  const SectionEntry* e = find_unique(id, title);
  if (e == nullptr) CUZK_INVALID_INPUT(where(id, title) + " is missing");
  return *e;
}

std::span<const uint8_t> BinaryContainer::section(uint32_t id, std::string_view title) const {
  const SectionEntry& e = entry(id, title);
  return bytes_.subspan(e.offset, e.size);
}

std::optional<std::span<const uint8_t>> BinaryContainer::optional_section(
    uint32_t id, std::string_view title) const {
  const SectionEntry* e = find_unique(id, title);
  if (e == nullptr) return std::nullopt;
  return bytes_.subspan(e->offset, e->size);
}

std::optional<std::string> container_magic(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes.data()), 4);
}

std::span<const uint8_t> SectionReader::bytes(uint64_t n, std::string_view what) {
  if (n > remaining()) {
    CUZK_INVALID_INPUT(where_ + ": ends while reading " + std::string(what) + " (needs " +
                       std::to_string(n) + " bytes at offset " + std::to_string(position_) + ", " +
                       std::to_string(remaining()) + " left of " + std::to_string(body_.size()) +
                       ")");
  }
  std::span<const uint8_t> out = body_.subspan(position_, n);
  position_ += n;
  return out;
}

uint32_t SectionReader::u32(std::string_view what) { return load_u32_le(bytes(4, what).data()); }

uint64_t SectionReader::u64(std::string_view what) { return load_u64_le(bytes(8, what).data()); }

void SectionReader::expect_end(std::string_view content) const {
  if (remaining() != 0) {
    CUZK_INVALID_INPUT(where_ + ": " + std::to_string(remaining()) + " bytes left over after " +
                       std::string(content) + " (the section holds " +
                       std::to_string(body_.size()) + " bytes, its content " +
                       std::to_string(position_) + ")");
  }
}

BinaryWriter::BinaryWriter(std::ostream& out, std::string file_name, std::string_view magic,
                           uint32_t version, uint32_t section_count)
    : out_(out), file_name_(std::move(file_name)), sections_left_(section_count) {
  if (magic.size() != 4) {
    CUZK_THROW(ErrorKind::kInternal, "container magic must be 4 characters: " + std::string(magic));
  }
  write_raw(magic.data(), 4);
  write_le(version, 4);
  write_le(section_count, 4);
}

void BinaryWriter::write_raw(const void* data, size_t n) {
  out_.write(static_cast<const char*>(data), std::streamsize(n));
  if (!out_) CUZK_THROW(ErrorKind::kInternal, file_name_ + ": write failed");
}

void BinaryWriter::write_le(uint64_t v, int n) {
  uint8_t b[8];
  for (int i = 0; i < n; ++i) b[i] = uint8_t(v >> (8 * i));
  write_raw(b, size_t(n));
}

void BinaryWriter::put(const void* data, size_t n) {
  if (!in_section_) {
    CUZK_THROW(ErrorKind::kInternal, file_name_ + ": content written outside a section");
  }
  if (n > section_left_) {
    CUZK_THROW(ErrorKind::kInternal, file_name_ + ": section " + std::to_string(section_id_) +
                                         " written past its declared size");
  }
  section_left_ -= n;
  write_raw(data, n);
}

void BinaryWriter::u32(uint32_t v) {
  uint8_t b[4];
  for (int i = 0; i < 4; ++i) b[i] = uint8_t(v >> (8 * i));
  put(b, 4);
}

void BinaryWriter::u64(uint64_t v) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
  put(b, 8);
}

void BinaryWriter::bytes(std::span<const uint8_t> data) { put(data.data(), data.size()); }

void BinaryWriter::begin_section(uint32_t id, uint64_t size) {
  if (in_section_ || sections_left_ == 0) {
    CUZK_THROW(ErrorKind::kInternal,
               file_name_ + ": section " + std::to_string(id) + " begun out of turn");
  }
  write_le(id, 4);
  write_le(size, 8);
  in_section_ = true;
  section_id_ = id;
  section_left_ = size;
}

void BinaryWriter::end_section() {
  if (!in_section_) CUZK_THROW(ErrorKind::kInternal, file_name_ + ": no section to end");
  if (section_left_ != 0) {
    CUZK_THROW(ErrorKind::kInternal, file_name_ + ": section " + std::to_string(section_id_) +
                                         " ended " + std::to_string(section_left_) +
                                         " bytes short of its declared size");
  }
  in_section_ = false;
  --sections_left_;
}

void BinaryWriter::finish() {
  if (in_section_ || sections_left_ != 0) {
    CUZK_THROW(ErrorKind::kInternal, file_name_ + ": " + std::to_string(sections_left_) +
                                         " announced sections were not written");
  }
  out_.flush();
  if (!out_) CUZK_THROW(ErrorKind::kInternal, file_name_ + ": write failed");
}

std::string describe_product(uint64_t count, uint64_t unit, bool count_is_power_of_two) {
  std::string shown = std::to_string(count);
  if (count_is_power_of_two && std::has_single_bit(count)) {
    shown = "2^" + std::to_string(std::countr_zero(count));
  }
  std::optional<uint64_t> total = checked_product(count, unit);
  return shown + " × " + std::to_string(unit) + " = " +
         (total ? std::to_string(*total) : std::string("more than 2^64"));
}

std::optional<uint64_t> checked_product(uint64_t count, uint64_t unit) {
  if (unit != 0 && count > UINT64_MAX / unit) return std::nullopt;
  return count * unit;
}

}  // namespace cuzk::formats
