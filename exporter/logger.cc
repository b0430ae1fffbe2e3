// Structured logging to stderr in logfmt or JSON.
#include "exporter/logger.h"

#include <time.h>

#include <cstdio>

#include "base/json_string.h"
#include "base/utf8.h"

namespace scx {

namespace {

bool NeedsLogfmtQuoting(std::string_view value) {
  if (value.empty()) return true;
  for (unsigned char c : value) {
    if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f) return true;
  }
  return false;
}

// A field's value in a JSON line: a number or a boolean as it is, text as a string.
std::string JsonValue(const LogValue& value) {
  if (value.kind() != LogValue::Kind::kText) return value.text();
  return "\"" + EscapeJsonString(CapText(value.text(), kMaxLogValueBytes)) + "\"";
}

}  // namespace

const char* LogLevelName(LogLevel level) {
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

std::string FormatLogTimestamp(std::chrono::system_clock::time_point time) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const auto since_epoch = duration_cast<milliseconds>(time.time_since_epoch()).count();
  auto seconds = static_cast<time_t>(since_epoch / 1000);
  auto millis = static_cast<long>(since_epoch % 1000);
  if (millis < 0) {  // before 1970: keep the fraction positive
    millis += 1000;
    seconds -= 1;
  }
  struct tm utc;
  gmtime_r(&seconds, &utc);
  char buffer[96];  // generous: the compiler assumes every field may be INT_MAX wide
  std::snprintf(buffer, sizeof(buffer), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
  return buffer;
}

std::string QuoteLogfmtValue(std::string_view value) {
  std::string valid = ToValidUtf8(value);
  if (!NeedsLogfmtQuoting(valid)) return valid;
  std::string out = "\"";
  for (unsigned char c : valid) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < ' ' || c == 0x7f) {
      AppendControlEscape(c, &out);
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  return out;
}

std::string FormatLogLine(LogFormat format, std::string_view timestamp, LogLevel level,
                          std::string_view message, const LogFields& fields) {
  std::string line;
  if (format == LogFormat::kJson) {
    line += "{\"ts\":\"" + EscapeJsonString(timestamp) + "\",\"level\":\"" + LogLevelName(level) +
            "\",\"msg\":\"" + EscapeJsonString(message) + "\"";
    for (const auto& [key, value] : fields) {
      line += ",\"" + EscapeJsonString(key) + "\":" + JsonValue(value);
    }
    line += "}\n";
    return line;
  }
  line += "ts=" + QuoteLogfmtValue(timestamp) + " level=" + LogLevelName(level) +
          " msg=" + QuoteLogfmtValue(message);
  for (const auto& [key, value] : fields) {
    line += " " + key + "=" + QuoteLogfmtValue(CapText(value.text(), kMaxLogValueBytes));
  }
  line += '\n';
  return line;
}

Logger::Logger(LogLevel level, LogFormat format, std::FILE* out)
    : level_(level), format_(format), out_(out) {}

void Logger::Log(LogLevel level, std::string_view message, const LogFields& fields) {
  if (!Enabled(level)) return;
  const std::string line = FormatLogLine(
      format_, FormatLogTimestamp(std::chrono::system_clock::now()), level, message, fields);
  MutexLock lock(&mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);
}

}  // namespace scx
