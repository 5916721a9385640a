// The mapped-file owner and the binary container: section lookup through the table, and every
// malformed header, table or size reported with the file's name.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "formats/binary_container.hpp"
#include "formats/mapped_file.hpp"
#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::formats::test {
namespace {

constexpr ContainerSpec kSpec{"test", 3};

std::filesystem::path temp_path(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("cuzk_formats_" + std::to_string(::getpid()) + "_" + name);
}

std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> out(n);
  for (uint8_t& b : out) b = uint8_t(rng());
  return out;
}

TEST(MappedFile, MapsARegularFile) {
  auto rng = cuzk::test::rng("MappedFile.MapsARegularFile");
  std::vector<uint8_t> bytes = random_bytes(rng, 100000);
  auto path = temp_path("regular");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  {
    MappedFile file = MappedFile::open(path);
    EXPECT_TRUE(file.is_mapped());
    EXPECT_EQ(file.name(), path.string());
    ASSERT_EQ(file.size(), bytes.size());
    file.advise(MappedFile::Access::kSequential);
    file.advise(MappedFile::Access::kWillNeed, 5000, 70000);
    file.advise(MappedFile::Access::kRandom, 99999, 1000000);  // clamped to the file
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), file.bytes().begin()));
    MappedFile moved = std::move(file);
    EXPECT_EQ(moved.size(), bytes.size());
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), moved.bytes().begin()));
  }
  std::filesystem::remove(path);
}

TEST(MappedFile, ReadsAStreamIntoMemoryUpToALimit) {
  auto rng = cuzk::test::rng("MappedFile.ReadsAStreamIntoMemoryUpToALimit");
  std::vector<uint8_t> bytes = random_bytes(rng, 3 * (1 << 20) + 17);  // several read chunks
  std::signal(SIGPIPE, SIG_IGN);  // the writer's end outlives a reader that stopped early
  for (const uint64_t limit : {uint64_t(bytes.size()), uint64_t(bytes.size() - 1)}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::thread writer([&] {
      // The reader may stop early (over its limit): then the write fails with EPIPE, ignored.
      size_t done = 0;
      while (done < bytes.size()) {
        const ssize_t n = ::write(fds[1], bytes.data() + done, bytes.size() - done);
        if (n <= 0) break;
        done += size_t(n);
      }
      ::close(fds[1]);
    });
    if (limit == bytes.size()) {
      MappedFile file = MappedFile::read_stream(fds[0], "pipe", limit);
      EXPECT_FALSE(file.is_mapped());
      file.advise(MappedFile::Access::kDontNeed);  // a no-op for memory, must not fail
      ASSERT_EQ(file.size(), bytes.size());
      EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), file.bytes().begin()));
    } else {
      EXPECT_INVALID_INPUT(MappedFile::read_stream(fds[0], "pipe", limit),
                           "pipe: more than " + std::to_string(limit) + " bytes");
    }
    ::close(fds[0]);
    writer.join();
  }
}

TEST(MappedFile, EmptyFileAndErrors) {
  auto path = temp_path("empty");
  std::ofstream(path).close();
  EXPECT_EQ(MappedFile::open(path).size(), 0u);
  std::filesystem::remove(path);

  try {
    MappedFile::open(temp_path("does_not_exist"));
    ADD_FAILURE() << "opened a missing file";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNotFound);
    EXPECT_NE(std::string(e.what()).find("does_not_exist"), std::string::npos);
    // The place that threw, relative to the source tree (the build's -fmacro-prefix-map): no
    // path of the machine that built the binary.
    EXPECT_NE(std::string(e.what()).find(" [src/formats/"), std::string::npos) << e.what();
  }
  EXPECT_INVALID_INPUT(MappedFile::open(std::filesystem::temp_directory_path()),
                       "not a regular file (a directory)");
}

TEST(BinaryContainer, FindsSectionsThroughTheTable) {
  std::vector<uint8_t> file =
      build_container("test", 3, {{2, {1, 2, 3}}, {7, {}}, {1, {9}}, {5, {4, 4, 4, 4}}});
  BinaryContainer c = BinaryContainer::parse(file, "t.bin", kSpec);
  EXPECT_EQ(c.version(), 3u);
  ASSERT_EQ(c.sections().size(), 4u);
  EXPECT_EQ(c.section(1, "one").size(), 1u);
  EXPECT_EQ(c.section(1, "one")[0], 9);
  EXPECT_EQ(c.section(2, "two")[2], 3);
  EXPECT_TRUE(c.section(7, "seven").empty());
  EXPECT_EQ(c.entry(5, "five").offset, file.size() - 4);
  EXPECT_FALSE(c.optional_section(3, "three").has_value());
  EXPECT_INVALID_INPUT(c.section(3, "three"), "t.bin: section 3 (three) is missing");
}

TEST(BinaryContainer, DuplicateSectionIsReported) {
  std::vector<uint8_t> file = build_container("test", 3, {{1, {1}}, {2, {2}}, {1, {3}}});
  BinaryContainer c = BinaryContainer::parse(file, "dup.bin", kSpec);
  EXPECT_EQ(c.section(2, "two")[0], 2);
  EXPECT_INVALID_INPUT(c.section(1, "one"), "dup.bin: section 1 (one) appears more than once");
  EXPECT_INVALID_INPUT(c.optional_section(1, "one"), "appears more than once");
}

TEST(BinaryContainer, BadHeaders) {
  std::vector<uint8_t> good = build_container("test", 3, {{1, {1, 2}}});
  std::vector<uint8_t> magic = good;
  magic[0] = 'T';
  // The message names the format expected and never repeats the file's bytes.
  const std::string message =
      ::cuzk::test::invalid_input_message([&] { BinaryContainer::parse(magic, "m.bin", kSpec); });
  EXPECT_NE(message.find("m.bin: not a .test file (it does not begin with \"test\")"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("Test"), std::string::npos) << message;
  std::vector<uint8_t> wtns = good;
  std::copy_n("wtns", 4, wtns.begin());
  EXPECT_INVALID_INPUT(BinaryContainer::parse(wtns, "w.bin", kSpec), "w.bin: not a .test file (it does not begin with \"test\"): a .wtns file");

  std::vector<uint8_t> version = good;
  put_u32(version, 4, 4);
  EXPECT_INVALID_INPUT(BinaryContainer::parse(version, "v.bin", kSpec),
                       "v.bin: .test version 4 is not supported (this reader knows version 3)");

  std::vector<uint8_t> too_big = good;
  too_big[16] = 3;  // section 1 declares 3 bytes, 2 follow
  EXPECT_INVALID_INPUT(BinaryContainer::parse(too_big, "s.bin", kSpec),
                       "s.bin: section 1 declares 3 bytes at byte 24, but only 2 bytes remain");
  too_big[23] = 0x80;  // a size near 2^63
  EXPECT_INVALID_INPUT(BinaryContainer::parse(too_big, "s.bin", kSpec), "but only 2 bytes remain");

  std::vector<uint8_t> count = good;
  put_u32(count, 8, 0xffffffff);
  EXPECT_INVALID_INPUT(BinaryContainer::parse(count, "c.bin", kSpec),
                       "the header of section 2 of 4294967295 starts at byte 26");
  put_u32(count, 8, 0);
  EXPECT_INVALID_INPUT(BinaryContainer::parse(count, "c.bin", kSpec),
                       "14 unexpected bytes after the last of 0 sections");

  std::vector<uint8_t> trailing = good;
  trailing.push_back(0);
  EXPECT_INVALID_INPUT(BinaryContainer::parse(trailing, "t.bin", kSpec), "1 unexpected bytes");
}

TEST(BinaryContainer, EveryTruncationIsReported) {
  std::vector<uint8_t> file =
      build_container("test", 3, {{1, {1, 2, 3}}, {2, std::vector<uint8_t>(40, 7)}, {3, {}}});
  for (size_t cut = 0; cut < file.size(); ++cut) {
    std::span<const uint8_t> prefix(file.data(), cut);
    std::string message =
        invalid_input_message([&] { BinaryContainer::parse(prefix, "cut.bin", kSpec); });
    EXPECT_EQ(message.rfind("cut.bin: ", 0), 0u) << "cut at " << cut << ": " << message;
  }
  EXPECT_NO_THROW(BinaryContainer::parse(file, "whole.bin", kSpec));
}

TEST(SectionReader, BoundsAndLeftovers) {
  std::vector<uint8_t> body = {1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9};
  SectionReader reader(body, "f: section 1 (x)");
  EXPECT_EQ(reader.u32("a"), 1u);
  EXPECT_EQ(reader.u64("b"), 2u);
  EXPECT_INVALID_INPUT(reader.expect_end("a and b"),
                       "f: section 1 (x): 1 bytes left over after a and b");
  EXPECT_INVALID_INPUT(reader.u32("c"),
                       "f: section 1 (x): ends while reading c (needs 4 bytes at offset 12, 1 "
                       "left of 13)");
  EXPECT_EQ(reader.bytes(1, "d")[0], 9);
  EXPECT_NO_THROW(reader.expect_end("everything"));
}

TEST(BinaryWriter, WritesWhatTheReaderReads) {
  std::ostringstream out(std::ios::binary);
  BinaryWriter w(out, "w.bin", "test", 3, 2);
  w.begin_section(9, 12);
  w.u32(0xdeadbeef);
  w.u64(0x0123456789abcdefull);
  w.end_section();
  w.begin_section(4, 0);
  w.end_section();
  w.finish();
  std::string s = out.str();
  std::vector<uint8_t> file(s.begin(), s.end());
  EXPECT_EQ(file,
            build_container(
                "test", 3,
                {{9, {0xef, 0xbe, 0xad, 0xde, 0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01}},
                 {4, {}}}));
}

TEST(BinaryWriter, DeclaredSizesAreEnforced) {
  std::ostringstream out(std::ios::binary);
  BinaryWriter w(out, "w.bin", "test", 3, 1);
  w.begin_section(1, 3);
  try {
    w.u32(1);
    ADD_FAILURE() << "wrote past the declared size";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInternal);
  }
  std::ostringstream out2(std::ios::binary);
  BinaryWriter short_section(out2, "w.bin", "test", 3, 1);
  short_section.begin_section(1, 8);
  short_section.u32(1);
  EXPECT_THROW(short_section.end_section(), Error);
  std::ostringstream out3(std::ios::binary);
  BinaryWriter missing(out3, "w.bin", "test", 3, 2);
  EXPECT_THROW(missing.u32(1), Error);  // outside any section
  EXPECT_THROW(missing.end_section(), Error);
  EXPECT_THROW(missing.finish(), Error);
}

TEST(DescribeProduct, ShowsHowASizeWasComputed) {
  EXPECT_EQ(describe_product(1024, 96, true), "2^10 × 96 = 98304");
  EXPECT_EQ(describe_product(1000, 96, true), "1000 × 96 = 96000");
  EXPECT_EQ(describe_product(7, 64), "7 × 64 = 448");
  EXPECT_EQ(describe_product(uint64_t(1) << 62, 8), "4611686018427387904 × 8 = more than 2^64");
}

}  // namespace
}  // namespace cuzk::formats::test
