// Prometheus-style durations.
#include "exporter/duration.h"

#include <cctype>
#include <cstdint>
#include <limits>

namespace scx {

namespace {

struct Unit {
  const char* suffix;
  std::int64_t milliseconds;
};

constexpr std::int64_t kDay = std::int64_t{86400000};

// Largest first: the order Prometheus requires them in, and the order they are
// formatted in. A year is 365 days, as in Prometheus.
constexpr Unit kUnits[] = {{"y", 365 * kDay}, {"w", 7 * kDay}, {"d", kDay}, {"h", 3600000},
                           {"m", 60000},      {"s", 1000},     {"ms", 1}};
constexpr std::size_t kUnitCount = sizeof(kUnits) / sizeof(kUnits[0]);

// The index in kUnits of the unit at `pos` ("ms" before "m"), and its length in
// `length`; kUnitCount when there is none.
std::size_t ReadUnit(const std::string& text, std::size_t pos, std::size_t* length) {
  if (text.compare(pos, 2, "ms") == 0) {
    *length = 2;
    return kUnitCount - 1;
  }
  for (std::size_t i = 0; i + 1 < kUnitCount; ++i) {
    if (pos < text.size() && text[pos] == kUnits[i].suffix[0]) {
      *length = 1;
      return i;
    }
  }
  return kUnitCount;
}

}  // namespace

bool ParseDuration(const std::string& text, std::chrono::milliseconds* duration) {
  // As Prometheus: nothing beyond a time.Duration (int64 nanoseconds, about 292
  // years), which also keeps a steady_clock time point plus the duration in range.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1000000;
  std::int64_t total = 0;
  std::size_t pos = 0;
  std::size_t next_unit = 0;  // units must come largest first, each at most once
  if (text.empty()) return false;
  while (pos < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[pos]))) return false;
    std::int64_t number = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      number = number * 10 + (text[pos] - '0');
      if (number > kMax) return false;
      ++pos;
    }
    std::size_t length = 0;
    const std::size_t unit = ReadUnit(text, pos, &length);
    if (unit == kUnitCount || unit < next_unit) return false;
    next_unit = unit + 1;
    pos += length;
    if (number > (kMax - total) / kUnits[unit].milliseconds) return false;
    total += number * kUnits[unit].milliseconds;
  }
  if (total <= 0) return false;
  *duration = std::chrono::milliseconds(total);
  return true;
}

std::string DurationSyntax() {
  return "a duration like 15s, 1m30s or 1w (whole numbers of y, w, d, h, m, s, ms, the "
         "largest first: 1h30m, not 1.5h)";
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  std::int64_t rest = duration.count();
  if (rest <= 0) return "0s";
  std::string out;
  for (const Unit& unit : kUnits) {
    if (rest >= unit.milliseconds) {
      out += std::to_string(rest / unit.milliseconds) + unit.suffix;
      rest %= unit.milliseconds;
    }
  }
  return out;
}

}  // namespace scx
