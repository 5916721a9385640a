#include "formats/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace cuzk::formats {
namespace {

// What a file that is not regular is, for the error message.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

}  // namespace

std::shared_ptr<const InputFile> InputFile::open(const std::filesystem::path& path,
                                                 const OpenInputOptions& options) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It does not
  // change reads of a regular file, and the descriptor is only ever mapped.
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
  if (options.no_follow) flags |= O_NOFOLLOW;
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) {
      CUZK_THROW(ErrorKind::kNotFound, name + ": cannot open: " + std::strerror(error));
    }
    if (error == ELOOP && options.no_follow) {
      CUZK_INVALID_INPUT(name + ": is a symbolic link, and links are not followed here");
    }
    CUZK_INVALID_INPUT(name + ": cannot open: " + std::strerror(error));
  }
  // Closed on every error below; owned by the InputFile once the checks pass.
  struct CloseOnError {
    int fd;
    ~CloseOnError() {
      if (fd >= 0) ::close(fd);
    }
  } guard{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    CUZK_INVALID_INPUT(name + ": cannot stat: " + std::strerror(errno));
  }
  if (!S_ISREG(info.st_mode)) {
    CUZK_INVALID_INPUT(name + ": not a regular file (" + kind_of(info.st_mode) + ")");
  }
  const uint64_t size = uint64_t(info.st_size);
  if (size > options.max_bytes) {
    CUZK_INVALID_INPUT(name + ": " + std::to_string(size) + " bytes, more than the " +
                       std::to_string(options.max_bytes) + " this input may have");
  }
  guard.fd = -1;
  return std::shared_ptr<const InputFile>(new InputFile(fd, size, name));
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

MappedFile InputFile::map() const { return MappedFile::map_descriptor(fd_, size_, name_); }

}  // namespace cuzk::formats
