// Structured logging to stderr: one line per event, logfmt (default) or JSON, with
// a UTC timestamp, a level, a message and key/value fields (in JSON, a count a
// number and a flag true or false: exporter/log_value.h). Lines below the configured
// level are dropped.
//
// Thread-safety: the functions are pure; a Logger may be used from several threads
// at once (each line is written and flushed whole under its mutex).
#ifndef SCX_EXPORTER_LOGGER_H_
#define SCX_EXPORTER_LOGGER_H_

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "exporter/log_options.h"
#include "exporter/log_value.h"

namespace scx {

// Key/value pairs in the order they are written: {"brain", name}, {"brains", count}.
using LogFields = std::vector<std::pair<std::string, LogValue>>;

// "debug", "info", "warn", "error".
const char* LogLevelName(LogLevel level);

// RFC 3339 in UTC with milliseconds: "2025-01-31T12:00:00.123Z".
std::string FormatLogTimestamp(std::chrono::system_clock::time_point time);

// A logfmt value: bare when it is non-empty and has no space, '"', '=', '\' or
// control character; otherwise double-quoted with '"', '\' and control characters
// escaped. Invalid UTF-8 becomes U+FFFD (here and in JSON).
std::string QuoteLogfmtValue(std::string_view value);

// Field values longer than this are cut (base/utf8.h, CapText): a value read from a
// file (a skeleton id, a path) never turns into a megabyte log line.
inline constexpr std::size_t kMaxLogValueBytes = 4096;

// One complete line, ending in '\n'; text values capped at kMaxLogValueBytes. In
// JSON, numbers are JSON numbers and booleans true or false; all else is a string.
// Pure.
std::string FormatLogLine(LogFormat format, std::string_view timestamp, LogLevel level,
                          std::string_view message, const LogFields& fields);

class Logger {
 public:
  // Writes to `out` (stderr by default); not owned.
  explicit Logger(LogLevel level = LogLevel::kInfo, LogFormat format = LogFormat::kLogfmt,
                  std::FILE* out = stderr);
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  bool Enabled(LogLevel level) const { return level >= level_; }

  void Log(LogLevel level, std::string_view message, const LogFields& fields = {});
  void Debug(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kDebug, message, fields);
  }
  void Info(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kInfo, message, fields);
  }
  void Warn(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kWarn, message, fields);
  }
  void Error(std::string_view message, const LogFields& fields = {}) {
    Log(LogLevel::kError, message, fields);
  }

 private:
  const LogLevel level_;
  const LogFormat format_;
  Mutex mutex_;  // keeps lines whole when threads log at once
  std::FILE* const out_ SCX_PT_GUARDED_BY(mutex_);
};

}  // namespace scx

#endif  // SCX_EXPORTER_LOGGER_H_
