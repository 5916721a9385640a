#include "formats/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "formats/input_file.hpp"
#include "util/error.hpp"

namespace cuzk::formats {

namespace {

std::string system_error(const std::string& name, const char* what, int error) {
  return name + ": " + what + ": " + std::strerror(error);
}

}  // namespace

MappedFile MappedFile::open(const std::filesystem::path& path) {
  return InputFile::open(path, {})->map();
}

MappedFile MappedFile::map_descriptor(int fd, uint64_t size, std::string name) {
  MappedFile file;
  file.name_ = std::move(name);
  if (size == 0) return file;
  // A file truncated since its size was taken would fault (SIGBUS) on the missing pages.
  struct stat info {};
  if (::fstat(fd, &info) != 0) CUZK_INVALID_INPUT(system_error(file.name_, "cannot stat", errno));
  if (uint64_t(info.st_size) < size) {
    CUZK_INVALID_INPUT(file.name_ + ": the file shrank from " + std::to_string(size) + " to " +
                       std::to_string(info.st_size) + " bytes since it was opened");
  }
  void* mapping = ::mmap(nullptr, size_t(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (mapping == MAP_FAILED) CUZK_INVALID_INPUT(system_error(file.name_, "cannot map", errno));
  file.mapping_ = mapping;
  file.data_ = static_cast<const uint8_t*>(mapping);
  file.size_ = size_t(size);
  return file;
}

MappedFile MappedFile::read_stream(int fd, std::string name, uint64_t max_bytes) {
  MappedFile file;
  file.name_ = std::move(name);
  std::vector<uint8_t> bytes;
  constexpr size_t kChunk = size_t(1) << 20;
  for (;;) {
    const size_t used = bytes.size();
    bytes.resize(used + kChunk);
    const ssize_t got = ::read(fd, bytes.data() + used, kChunk);
    if (got < 0) {
      bytes.resize(used);
      if (errno == EINTR) continue;
      CUZK_INVALID_INPUT(system_error(file.name_, "cannot read", errno));
    }
    bytes.resize(used + size_t(got));
    if (bytes.size() > max_bytes) {
      CUZK_INVALID_INPUT(file.name_ + ": more than " + std::to_string(max_bytes) +
                         " bytes, the most this input may have");
    }
    if (got == 0) break;
  }
  bytes.shrink_to_fit();
  file.buffer_ = std::move(bytes);
  file.data_ = file.buffer_.data();
  file.size_ = file.buffer_.size();
  return file;
}

MappedFile MappedFile::from_bytes(std::vector<uint8_t> bytes, std::string name) {
  MappedFile file;
  file.name_ = std::move(name);
  file.buffer_ = std::move(bytes);
  file.data_ = file.buffer_.data();
  file.size_ = file.buffer_.size();
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept { *this = std::move(other); }

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this == &other) return *this;
  release();
  // A moved std::vector keeps its heap block, so data_ stays valid after the move.
  mapping_ = std::exchange(other.mapping_, nullptr);
  buffer_ = std::move(other.buffer_);
  data_ = std::exchange(other.data_, nullptr);
  size_ = std::exchange(other.size_, 0);
  name_ = std::move(other.name_);
  return *this;
}

MappedFile::~MappedFile() { release(); }

void MappedFile::release() noexcept {
  if (mapping_ != nullptr) ::munmap(mapping_, size_);
  mapping_ = nullptr;
  buffer_.clear();
  data_ = nullptr;
  size_ = 0;
}

void MappedFile::advise(Access access, size_t offset, size_t length) const {
  if (mapping_ == nullptr || offset >= size_) return;
  if (length > size_ - offset) length = size_ - offset;
  // madvise needs a page-aligned start: widen the range down to the page boundary.
  static const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  size_t aligned = offset - offset % page;
  int advice = MADV_NORMAL;
  switch (access) {
    case Access::kSequential:
      advice = MADV_SEQUENTIAL;
      break;
    case Access::kRandom:
      advice = MADV_RANDOM;
      break;
    case Access::kWillNeed:
      advice = MADV_WILLNEED;
      break;
    case Access::kDontNeed:
      advice = MADV_DONTNEED;
      break;
    case Access::kPopulate:
#if defined(MADV_POPULATE_READ)
      advice = MADV_POPULATE_READ;
#else
      advice = MADV_WILLNEED;
#endif
      break;
  }
  // A failed hint costs nothing but speed, so its result is deliberately ignored.
  (void)::madvise(static_cast<uint8_t*>(mapping_) + aligned, length + (offset - aligned), advice);
}

}  // namespace cuzk::formats
