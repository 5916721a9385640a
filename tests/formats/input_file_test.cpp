// InputFile: a path opened once, refusing what is not a regular file (without blocking on a
// FIFO), files over a byte limit and, when asked, symbolic links; the mapping comes from the
// descriptor it opened, so replacing the path afterwards changes nothing.

#include "formats/input_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "tests/formats/formats_test_support.hpp"

namespace cuzk::formats::test {
namespace {

namespace fs = std::filesystem;

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("cuzk_input_" + std::to_string(::getpid()) + "_" + name);
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(InputFile, MapsTheFileItOpenedNotThePathLater) {
  const auto path = temp_path("swap"), other = temp_path("other");
  write_file(path, "first contents");
  const auto file = InputFile::open(path, {});
  EXPECT_EQ(file->size(), 14u);
  EXPECT_EQ(file->name(), path.string());
  // The path now names another file; the opened one is still the one that is mapped.
  write_file(other, "other");
  fs::rename(other, path);
  const MappedFile mapped = file->map();
  EXPECT_EQ(std::string(mapped.bytes().begin(), mapped.bytes().end()), "first contents");
  fs::remove(path);
}

TEST(InputFile, RefusesDevicesFifosAndDirectories) {
  EXPECT_INVALID_INPUT(InputFile::open("/dev/zero", {}),
                       "/dev/zero: not a regular file (a character device)");
  EXPECT_INVALID_INPUT(InputFile::open(fs::temp_directory_path(), {}),
                       "not a regular file (a directory)");
  const auto fifo = temp_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // No writer: a blocking open would wait forever.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_INVALID_INPUT(InputFile::open(fifo, {}), fifo.string() + ": not a regular file (a FIFO)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_INVALID_INPUT(MappedFile::open(fifo), "not a regular file (a FIFO)");
  fs::remove(fifo);
}

TEST(InputFile, RefusesAFileOverTheLimitWithTheNumbers) {
  const auto path = temp_path("big");
  write_file(path, std::string(1000, 'x'));
  OpenInputOptions options;
  options.max_bytes = 999;
  EXPECT_INVALID_INPUT(InputFile::open(path, options),
                       "1000 bytes, more than the 999 this input may have");
  options.max_bytes = 1000;
  EXPECT_EQ(InputFile::open(path, options)->size(), 1000u);
  fs::remove(path);
}

TEST(InputFile, NoFollowRefusesASymlink) {
  const auto target = temp_path("target"), link = temp_path("link");
  write_file(target, "secret-contents");
  fs::create_symlink(target, link);
  OpenInputOptions options;
  EXPECT_EQ(InputFile::open(link, options)->size(), 15u);
  options.no_follow = true;
  const std::string message =
      cuzk::test::invalid_input_message([&] { InputFile::open(link, options); });
  EXPECT_NE(message.find("symbolic link"), std::string::npos) << message;
  EXPECT_EQ(message.find("secret"), std::string::npos) << message;
  fs::remove(link);
  fs::remove(target);
}

TEST(InputFile, MissingIsNotFoundAndShrinkingIsRefused) {
  try {
    InputFile::open(temp_path("missing"), {});
    ADD_FAILURE() << "opened a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
  }
  const auto path = temp_path("shrink");
  write_file(path, std::string(100, 'y'));
  const auto file = InputFile::open(path, {});
  fs::resize_file(path, 10);
  EXPECT_INVALID_INPUT(file->map(), "shrank from 100 to 10 bytes");
  fs::remove(path);
}

}  // namespace
}  // namespace cuzk::formats::test
