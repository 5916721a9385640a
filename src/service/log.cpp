#include "service/log.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <ctime>
#include <mutex>

#include "util/error.hpp"

namespace cuzk::service {
namespace {

std::atomic<int> g_level{int(LogLevel::kInfo)};
std::atomic<std::FILE*> g_sink{nullptr};
std::mutex g_write_mutex;

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = std::time_t(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, int(ms % 1000));
  return text;
}

bool needs_quotes(std::string_view value) {
  if (value.empty()) return true;
  for (char c : value) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void append_value(std::string& line, std::string_view value) {
  if (!needs_quotes(value)) {
    line += value;
    return;
  }
  line += '"';
  for (char c : value) {
    switch (c) {
      case '"':
        line += "\\\"";
        break;
      case '\\':
        line += "\\\\";
        break;
      case '\n':
        line += "\\n";
        break;
      case '\t':
        line += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
          line += hex;
        } else {
          line += c;
        }
    }
  }
  line += '"';
}

}  // namespace

LogLevel parse_log_level(std::string_view name) {
  if (name == "debug") return LogLevel::kDebug;
  if (name == "info") return LogLevel::kInfo;
  if (name == "warn" || name == "warning") return LogLevel::kWarn;
  if (name == "error") return LogLevel::kError;
  CUZK_INVALID_INPUT("log level '" + std::string(name) + "': use debug, info, warn or error");
}

std::string_view log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

void set_log_level(LogLevel level) { g_level = int(level); }
bool log_enabled(LogLevel level) { return int(level) >= g_level.load(); }
void set_log_sink(std::FILE* sink) { g_sink = sink; }

LogLine::LogLine(LogLevel level, std::string_view event) : enabled_(log_enabled(level)) {
  if (!enabled_) return;
  line_ = "ts=" + timestamp() + " level=" + std::string(log_level_name(level)) + " event=";
  append_value(line_, event);
}

LogLine::~LogLine() {
  if (!enabled_) return;
  line_ += '\n';
  std::FILE* sink = g_sink.load();
  if (!sink) sink = stderr;
  std::lock_guard lock(g_write_mutex);
  std::fwrite(line_.data(), 1, line_.size(), sink);
  std::fflush(sink);
}

LogLine& LogLine::kv(std::string_view key, std::string_view value) {
  if (!enabled_) return *this;
  line_ += ' ';
  line_ += key;
  line_ += '=';
  append_value(line_, value);
  return *this;
}

LogLine& LogLine::kv(std::string_view key, double value) {
  if (!enabled_) return *this;
  char text[32];
  // Milliseconds and fractions: three decimals are what a reader compares.
  std::snprintf(text, sizeof text, std::isfinite(value) ? "%.3f" : "%g", value);
  return kv_raw(key, text);
}

LogLine& LogLine::kv_raw(std::string_view key, const std::string& text) {
  if (!enabled_) return *this;
  line_ += ' ';
  line_ += key;
  line_ += '=';
  line_ += text;
  return *this;
}

}  // namespace cuzk::service
