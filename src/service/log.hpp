#pragma once
// Structured logs of the daemon: one line per event on stderr, in logfmt (key=value):
//
//   ts=2026-01-02T03:04:05.678Z level=info event=job_submitted job=7 key=porep partitions=10
//
// Values with spaces, quotes or '=' are quoted with backslash escapes, so every line splits
// into fields with a logfmt parser (or `grep event=...`). A line is written with one fwrite
// under a mutex, so lines of concurrent threads never interleave.
//
// Thread-safety: everything may be called from any thread; set_log_level and set_log_sink are
// meant for start-up.

#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace cuzk::service {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

// "debug", "info", "warn" or "error"; anything else is kInvalidInput.
LogLevel parse_log_level(std::string_view name);
std::string_view log_level_name(LogLevel level);
void set_log_level(LogLevel level);
bool log_enabled(LogLevel level);
// Where lines go (stderr by default); the stream must outlive the logging.
void set_log_sink(std::FILE* sink);

// One event, written when the object dies: LogLine(LogLevel::kInfo, "job_submitted")
// .kv("job", id).kv("key", key);
class LogLine {
 public:
  LogLine(LogLevel level, std::string_view event);
  ~LogLine();
  LogLine(const LogLine&) = delete;
  LogLine& operator=(const LogLine&) = delete;

  LogLine& kv(std::string_view key, std::string_view value);
  LogLine& kv(std::string_view key, const std::string& value) {
    return kv(key, std::string_view(value));
  }
  LogLine& kv(std::string_view key, const char* value) { return kv(key, std::string_view(value)); }
  LogLine& kv(std::string_view key, double value);
  LogLine& kv(std::string_view key, bool value) { return kv(key, value ? "true" : "false"); }
  template <class Int>
  requires std::is_integral_v<Int> LogLine& kv(std::string_view key, Int value) {
    return kv_raw(key, std::to_string(value));
  }

 private:
  LogLine& kv_raw(std::string_view key, const std::string& text);
  bool enabled_;
  std::string line_;
};

inline LogLine log_debug(std::string_view event) { return LogLine(LogLevel::kDebug, event); }
inline LogLine log_info(std::string_view event) { return LogLine(LogLevel::kInfo, event); }
inline LogLine log_warn(std::string_view event) { return LogLine(LogLevel::kWarn, event); }
inline LogLine log_error(std::string_view event) { return LogLine(LogLevel::kError, event); }

}  // namespace cuzk::service
