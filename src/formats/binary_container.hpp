#pragma once
// The binary container shared by iden3's formats (.r1cs, .wtns, .zkey, .ptau):
//
//   magic (4 bytes) | u32 version | u32 section count | sections
//   section = u32 id | u64 byte size | body
//
// all integers little-endian (binfileutils in the npm package @iden3/binfileutils is the
// reference). Writers do not keep sections in id order (circom writes an .r1cs as 2, 1, 3 and
// snarkjs a fresh .zkey as 1, 2, 4, 3, 9, 8, 5, 6, 7, 10), so readers find sections through
// the table. Parsing the table checks that every declared size fits in the file before any
// body is touched; a duplicated or missing section is reported when it is asked for.
//
// Every error is a cuzk::Error of kind kInvalidInput whose message starts with the file's
// name and names the section: "circuit.zkey: section 9 (H points) holds 1000 bytes, ...".

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuzk::formats {

struct SectionEntry {
  uint32_t id;
  uint64_t offset;  // of the body, from the start of the file
  uint64_t size;    // of the body
};

// What a format expects of a container: its magic and the one version this reader knows.
struct ContainerSpec {
  std::string_view magic;  // exactly 4 characters
  uint32_t version;
};

// A parsed header and section table over bytes owned elsewhere (usually a MappedFile).
class BinaryContainer {
 public:
  // Checks magic, version and that the table and every section lie inside `bytes`.
  static BinaryContainer parse(std::span<const uint8_t> bytes, std::string_view file_name,
                               ContainerSpec spec);

  const std::string& file_name() const { return file_name_; }
  uint32_t version() const { return version_; }
  std::span<const SectionEntry> sections() const { return sections_; }
  std::span<const uint8_t> bytes() const { return bytes_; }

  // The body of the one section with this id; `title` names it in messages ("H points").
  // Throws if the section is missing or appears more than once.
  std::span<const uint8_t> section(uint32_t id, std::string_view title) const;
  // As section(), but a missing section gives nullopt (a duplicate still throws).
  std::optional<std::span<const uint8_t>> optional_section(uint32_t id,
                                                           std::string_view title) const;
  // The table entry of that section (same checks as section()).
  const SectionEntry& entry(uint32_t id, std::string_view title) const;

  // "circuit.zkey: section 9 (H points)": the prefix of every message about a section.
  std::string where(uint32_t id, std::string_view title) const;

 private:
  const SectionEntry* find_unique(uint32_t id, std::string_view title) const;

  std::span<const uint8_t> bytes_;
  std::string file_name_;
  uint32_t version_ = 0;
  std::vector<SectionEntry> sections_;
};

// The magic of a container ("r1cs", "wtns", "zkey", ...), or nullopt if the bytes are too
// short to hold one. Used to tell which reader a file needs.
std::optional<std::string> container_magic(std::span<const uint8_t> bytes);

// Bounds-checked little-endian reads through one section body. Running past the end throws
// with the section's name and what was being read, never reads outside the body.
class SectionReader {
 public:
  // `where` is the prefix of messages, from BinaryContainer::where().
  SectionReader(std::span<const uint8_t> body, std::string where)
      : body_(body), where_(std::move(where)) {}

  uint32_t u32(std::string_view what);
  uint64_t u64(std::string_view what);
  // The next n bytes, as a view into the body.
  std::span<const uint8_t> bytes(uint64_t n, std::string_view what);
  void skip(uint64_t n, std::string_view what) { bytes(n, what); }

  uint64_t position() const { return position_; }
  uint64_t remaining() const { return body_.size() - position_; }
  const std::string& where() const { return where_; }
  // Throws unless the whole body was consumed (a section longer than its content is as
  // malformed as a shorter one: the two would no longer agree on where values start).
  void expect_end(std::string_view content) const;

 private:
  std::span<const uint8_t> body_;
  std::string where_;
  uint64_t position_ = 0;
};

// Little-endian loads from a buffer the caller has already bounds-checked.
inline uint32_t load_u32_le(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline uint64_t load_u64_le(const uint8_t* p) {
  return uint64_t(load_u32_le(p)) | uint64_t(load_u32_le(p + 4)) << 32;
}

// Writes a container to a stream. Each section's size is declared before its body, so the
// stream is never rewound (pipes work) and a body that does not match its declared size is
// a bug caught at end_section(). Stream failures throw kInternal naming `file_name`.
class BinaryWriter {
 public:
  BinaryWriter(std::ostream& out, std::string file_name, std::string_view magic, uint32_t version,
               uint32_t section_count);

  void begin_section(uint32_t id, uint64_t size);
  void u32(uint32_t v);
  void u64(uint64_t v);
  void bytes(std::span<const uint8_t> data);
  void end_section();
  // Checks that every announced section was written.
  void finish();

 private:
  void put(const void* data, size_t n);  // section content: counted against its size
  void write_raw(const void* data, size_t n);
  void write_le(uint64_t v, int n);

  std::ostream& out_;
  std::string file_name_;
  uint32_t sections_left_;
  bool in_section_ = false;
  uint32_t section_id_ = 0;
  uint64_t section_left_ = 0;
};

// "1024 × 96 = 98304" or, for a power of two, "2^10 × 96 = 98304": how a size was computed,
// for messages that say what a section should have held.
std::string describe_product(uint64_t count, uint64_t unit, bool count_is_power_of_two = false);

// What a file's first four bytes say, without repeating them (messages never carry a file's
// contents: a daemon may be asked to read a file its client must not see): "a .r1cs file",
// "a .wtns file" or "a .zkey file" for those magics, else that it has none of them.
std::string describe_magic(std::span<const uint8_t> bytes);

// count·unit, or nullopt if it does not fit in 64 bits.
std::optional<uint64_t> checked_product(uint64_t count, uint64_t unit);

}  // namespace cuzk::formats
