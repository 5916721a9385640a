#pragma once
// An input file opened once and kept open: what a reader holds between checking a path and
// reading it, so that the file it checked is the file it reads. A path swapped afterwards (for
// a symlink to /dev/zero, a FIFO, another file) changes nothing: map() maps the descriptor
// opened here, never the path again.
//
// open() refuses, with kInvalidInput naming the file:
//   - anything but a regular file (a FIFO, a socket, a device such as /dev/zero, a directory):
//     "not a regular file". The open itself uses O_NONBLOCK, so a FIFO with no writer cannot
//     block the caller;
//   - a symlink in the last component when `no_follow` is set (O_NOFOLLOW);
//   - a file larger than `max_bytes` (the message gives both numbers).
// A missing file is kNotFound. Error messages carry the path and sizes, never file contents.
//
// Thread-safety: immutable after open(); map() may be called from any thread, any number of
// times (each call is its own mapping). Shared by shared_ptr: the descriptor closes with the
// last owner.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "formats/mapped_file.hpp"

namespace cuzk::formats {

struct OpenInputOptions {
  bool no_follow = false;           // refuse a symlink as the last path component
  uint64_t max_bytes = UINT64_MAX;  // refuse a larger file
};

class InputFile {
 public:
  static std::shared_ptr<const InputFile> open(const std::filesystem::path& path,
                                               const OpenInputOptions& options);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }            // as fstat saw it at open
  const std::string& name() const { return name_; }  // the path as given
  // The file's bytes, mapped from the descriptor opened by open() (an empty file maps to no
  // bytes). kInvalidInput when the file shrank below its size at open (it would fault on
  // access) or cannot be mapped.
  MappedFile map() const;

 private:
  InputFile(int fd, uint64_t size, std::string name)
      : fd_(fd), size_(size), name_(std::move(name)) {}
  int fd_;
  uint64_t size_;
  std::string name_;
};

}  // namespace cuzk::formats
