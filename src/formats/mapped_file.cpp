#include "formats/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "util/error.hpp"

namespace cuzk::formats {

namespace {

// Closes the descriptor on every exit path of open().
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string system_error(const std::string& name, const char* what, int error) {
  return name + ": " + what + ": " + std::strerror(error);
}

}  // namespace

MappedFile MappedFile::open(const std::filesystem::path& path) {
  MappedFile file;
  file.name_ = path.string();
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    int error = errno;
    if (error == ENOENT) {
      CUZK_THROW(ErrorKind::kNotFound, system_error(file.name_, "cannot open", error));
    }
    CUZK_INVALID_INPUT(system_error(file.name_, "cannot open", error));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    CUZK_INVALID_INPUT(system_error(file.name_, "cannot stat", errno));
  }
  if (S_ISDIR(info.st_mode)) CUZK_INVALID_INPUT(file.name_ + ": is a directory, not a file");

  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    size_t size = size_t(info.st_size);
    void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (mapping == MAP_FAILED) CUZK_INVALID_INPUT(system_error(file.name_, "cannot map", errno));
    file.mapping_ = mapping;
    file.data_ = static_cast<const uint8_t*>(mapping);
    file.size_ = size;
    return file;
  }

  // Pipes, FIFOs and character devices have no size to map: read until end of file.
  std::vector<uint8_t> bytes;
  constexpr size_t kChunk = size_t(1) << 20;
  for (;;) {
    size_t used = bytes.size();
    bytes.resize(used + kChunk);
    ssize_t got = ::read(fd.get(), bytes.data() + used, kChunk);
    if (got < 0) {
      if (errno == EINTR) {
        bytes.resize(used);
        continue;
      }
      CUZK_INVALID_INPUT(system_error(file.name_, "cannot read", errno));
    }
    bytes.resize(used + size_t(got));
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
