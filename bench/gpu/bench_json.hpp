#pragma once
// What every GPU benchmark writes: the provenance of its JSON (commit and date from
// CUZK_BENCH_COMMIT / CUZK_BENCH_DATE, else "unknown" and today's UTC date), the command line,
// the device, in the shape of DESIGN.md §6; and medians and the process's peak RSS.

#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/error.hpp"

namespace cuzk::bench {

inline std::string env_or(const char* name, std::string fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : fallback;
}

inline std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&now));
  return buf;
}

inline std::string bench_commit() { return env_or("CUZK_BENCH_COMMIT", "unknown"); }
inline std::string bench_date() { return env_or("CUZK_BENCH_DATE", today_utc()); }

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

inline size_t peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return size_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// The resident set now (VmRSS of /proc/self/status; pinned host memory counts once touched); 0
// where that file does not exist.
inline size_t current_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return size_t(std::strtoull(line.c_str() + 6, nullptr, 10)) * 1024;
  }
  return 0;
}

// Writes {device, commit, date, command, results} to `path` (the command is argv joined);
// kInvalidInput when the file cannot be written.
inline void write_results(const std::string& path, const std::string& device, int argc, char** argv,
                          const nlohmann::json& results,
                          const std::string& commit = bench_commit()) {
  std::string command = argc > 0 ? argv[0] : "";
  if (const auto slash = command.rfind('/'); slash != std::string::npos) {
    command = command.substr(slash + 1);
  }
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  const nlohmann::json doc = {{"device", device},
                              {"commit", commit},
                              {"date", bench_date()},
                              {"command", command},
                              {"results", results}};
  std::ofstream out(path);
  out << doc.dump(1) << "\n";
  if (!out) CUZK_INVALID_INPUT(command + ": cannot write " + path);
}

}  // namespace cuzk::bench
