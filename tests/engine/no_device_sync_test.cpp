// DESIGN.md §2.1 rule 2: no device-global synchronization or allocation on the proving path.
// Scans the sources of the proving path (src/engine, src/gpu/ntt, src/gpu/msm, src/gpu/prover;
// folders that do not exist yet are skipped and named in the log) for calls of the functions
// below, outside comments and string literals. Files that run only at start-up (carving the
// VRAM arena, querying the device) are listed in kStartupOnly; a new one needs a line there
// and in src/engine/README.md, with the reason.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kForbidden = {"cudaDeviceSynchronize", "cudaMalloc",
                                             "cudaHostAlloc",         "cudaFree",
                                             "cudaMemPoolTrimTo",     "cudaMemGetInfo"};
// DeviceBuffer's blocking allocation (src/gpu/device_memory.hpp) wraps cudaMalloc. The GPU
// prover uses it for buffers made once per worker or key (start-up), in files that also hold
// proving-path code, so its uses are listed in the log for review rather than failed.
const std::vector<std::string> kBlockingWrappers = {"allocate_blocking"};

const char* const kProvingPath[] = {"src/engine", "src/gpu/ntt", "src/gpu/msm", "src/gpu/prover"};

// Start-up-only files, relative to the source root. The CUDA backend carves its arena and
// reads the device's memory in this file (it may not exist yet).
const std::set<std::string> kStartupOnly = {
    "src/engine/cuda_startup.cpp",
};

// The text with comments and string/character literals replaced by spaces (newlines kept),
// so that a forbidden name in a comment ("never call cudaMalloc here") is not reported.
std::string code_only(const std::string& text) {
  std::string out = text;
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i], next = i + 1 < text.size() ? text[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/') {
          state = kLine;
        } else if (c == '/' && next == '*') {
          state = kBlock;
          out[i] = ' ';
          ++i;  // the '*' is blanked below; "/*/" does not close the comment
        } else if (c == '"') {
          state = kString;
        } else if (c == '\'' && !(i > 0 && std::isdigit(static_cast<unsigned char>(text[i - 1])))) {
          state = kChar;  // (after a digit it is a digit separator: 25'000)
        } else {
          continue;
        }
        out[i] = ' ';
        break;
      case kLine:
        if (c == '\n')
          state = kCode;
        else
          out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && next == '/') {
          state = kCode;
          out[i] = out[i + 1] = ' ';
          ++i;
        } else if (c != '\n') {
          out[i] = ' ';
        }
        break;
      case kString:
      case kChar:
        if (c == '\\') {
          out[i] = ' ';
          if (i + 1 < text.size()) out[++i] = ' ';
          break;
        }
        if ((state == kString && c == '"') || (state == kChar && c == '\'')) state = kCode;
        if (c != '\n') out[i] = ' ';
        break;
    }
  }
  return out;
}

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// "file:line: name" for each whole-identifier occurrence of a forbidden name.
std::vector<std::string> find_names(const std::string& name, const std::string& text,
                                    const std::vector<std::string>& words = kForbidden) {
  std::vector<std::string> hits;
  const std::string code = code_only(text);
  for (const std::string& w : words) {
    for (size_t at = code.find(w); at != std::string::npos; at = code.find(w, at + 1)) {
      const bool starts = at == 0 || !is_ident(code[at - 1]);
      const bool ends = at + w.size() >= code.size() || !is_ident(code[at + w.size()]);
      if (!starts || !ends) continue;
      const size_t line = 1 + size_t(std::count(code.begin(), code.begin() + long(at), '\n'));
      hits.push_back(name + ":" + std::to_string(line) + ": " + w);
    }
  }
  return hits;
}

TEST(NoDeviceSync, ScannerSeesCodeAndIgnoresCommentsAndStrings) {
  EXPECT_EQ(find_names("t", "void f() { cudaMalloc(&p, 4); }").size(), 1u);
  EXPECT_EQ(find_names("t", "x();\n  cudaDeviceSynchronize();").at(0),
            "t:2: cudaDeviceSynchronize");
  EXPECT_TRUE(
      find_names("t", "// never cudaMalloc here\n/* cudaFree */ s = \"cudaFree\";").empty());
  EXPECT_TRUE(find_names("t", "cudaMallocAsync(&p, n, s); cudaFreeAsync(p, s);").empty())
      << "stream-ordered allocation is allowed";
  EXPECT_EQ(find_names("t", "char c = '\"'; cudaFree(p);").size(), 1u)
      << "a quote character must not open a string";
  EXPECT_EQ(find_names("t", "buf.allocate_blocking(n);", kBlockingWrappers).size(), 1u);
  EXPECT_TRUE(find_names("t", "buf.allocate_blocking(n);").empty());
  EXPECT_EQ(find_names("t", "int n = 25'000; cudaMemGetInfo(&f, &t); x = 1'0;").size(), 1u)
      << "digit separators must not open a character literal";
}

TEST(NoDeviceSync, ProvingPathHasNoDeviceGlobalCalls) {
  const fs::path root = CUZK_SOURCE_DIR;
  std::vector<std::string> hits, wrappers;
  size_t scanned = 0;
  for (const char* dir : kProvingPath) {
    const fs::path path = root / dir;
    if (!fs::exists(path)) {
      std::printf("[no-device-sync] %s does not exist yet: skipped\n", dir);
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(path)) {
      const auto ext = entry.path().extension().string();
      if (!entry.is_regular_file() ||
          (ext != ".cpp" && ext != ".hpp" && ext != ".cu" && ext != ".cuh" && ext != ".h")) {
        continue;
      }
      const std::string rel = fs::relative(entry.path(), root).generic_string();
      if (kStartupOnly.count(rel)) {
        std::printf("[no-device-sync] %s: start-up only, not scanned\n", rel.c_str());
        continue;
      }
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      auto found = find_names(rel, text.str());
      hits.insert(hits.end(), found.begin(), found.end());
      auto blocking = find_names(rel, text.str(), kBlockingWrappers);
      wrappers.insert(wrappers.end(), blocking.begin(), blocking.end());
      ++scanned;
    }
  }
  std::printf("[no-device-sync] %zu files scanned\n", scanned);
  for (const auto& w : wrappers) {
    std::printf("[no-device-sync] review: %s (must run at start-up only)\n", w.c_str());
  }
  EXPECT_GT(scanned, 0u) << "nothing scanned: is CUZK_SOURCE_DIR right?";
  for (const auto& h : hits) ADD_FAILURE() << "device-global call on the proving path: " << h;
}

}  // namespace
