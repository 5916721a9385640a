#pragma once
// Read-only bytes of a whole file, owned for as long as the object lives.
//
// Regular files are memory-mapped (keys reach tens of GiB; the page cache holds them once,
// and the key store later decides what to copy into pinned memory or VRAM). Nothing else is
// opened by path: a FIFO could block the reader forever and a device such as /dev/zero never
// ends, so open() refuses them ("not a regular file", input_file.hpp). A stream the caller
// chose on purpose (standard input) is read with read_stream(), which stops at a byte limit.
// Buffers built in memory (tests, fuzzers) can be wrapped too, so every parser has one input
// type; callers see the same std::span either way.
//
// A mapping shows the file as it is on disk: a file truncated by another process while mapped
// faults (SIGBUS) on access, as with any mmap. Keys and circuits are written once and replaced
// by rename, never rewritten in place.
//
// Thread-safety: the bytes are immutable; concurrent readers need no locking. Not copyable
// (it owns a mapping); movable.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace cuzk::formats {

class MappedFile {
 public:
  // How the caller is about to read a range, passed to madvise(2). Hints only: a kernel that
  // ignores them changes speed, never results.
  enum class Access {
    kSequential,  // one pass front to back (parsing a section): read ahead aggressively
    kRandom,      // scattered reads: no read-ahead
    kWillNeed,    // start paging in now (a section about to be copied to the device)
    kDontNeed,    // done with it: the pages may be dropped
    kPopulate,    // about to read all of it: map every page now, in one call instead of a
                  // fault per page (Linux 5.14 on; older kernels take it as kWillNeed)
  };

  // Maps a regular file. Throws cuzk::Error (kNotFound when the file does not exist,
  // kInvalidInput when it is not a regular file or cannot be read); InputFile::open with
  // default options, then map().
  static MappedFile open(const std::filesystem::path& path);
  // Maps `size` bytes of the open regular file `fd` (not taken over: the caller closes it).
  // kInvalidInput when the file is now shorter than `size` or cannot be mapped.
  static MappedFile map_descriptor(int fd, uint64_t size, std::string name);
  // Reads the stream `fd` (standard input, a pipe) to its end into memory; kInvalidInput,
  // naming `name` and the limit, as soon as it has more than `max_bytes`.
  static MappedFile read_stream(int fd, std::string name, uint64_t max_bytes);
  // Takes ownership of bytes already in memory; `name` is used in error messages.
  static MappedFile from_bytes(std::vector<uint8_t> bytes, std::string name);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }
  // The path as given (or the name of an in-memory buffer), for error messages.
  const std::string& name() const { return name_; }
  // True when the bytes are a mapping of the file rather than a copy in memory.
  bool is_mapped() const { return mapping_ != nullptr; }

  // Tells the kernel how [offset, offset + length) will be read; a no-op for in-memory
  // buffers. The range is clamped to the file.
  void advise(Access access, size_t offset, size_t length) const;
  void advise(Access access) const { advise(access, 0, size_); }

 private:
  MappedFile() = default;
  void release() noexcept;

  void* mapping_ = nullptr;  // the mmap'ed region, or null when the bytes live in `buffer_`
  std::vector<uint8_t> buffer_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string name_;
};

}  // namespace cuzk::formats
