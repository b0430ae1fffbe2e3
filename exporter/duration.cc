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

// Longest suffix first so that "ms" is not read as "m" + "s".
constexpr Unit kUnits[] = {{"ms", 1},      {"s", 1000},     {"m", std::int64_t{60} * 1000},
                           {"h", 3600000}, {"d", 86400000}, {"w", std::int64_t{7} * 86400000}};

// Reads the unit at `pos`; returns its length, or 0.
std::size_t ReadUnit(const std::string& text, std::size_t pos, std::int64_t* milliseconds) {
  for (const Unit& unit : kUnits) {
    std::string suffix = unit.suffix;
    if (text.compare(pos, suffix.size(), suffix) != 0) continue;
    // "m" must not be the start of "ms".
    if (suffix == "m" && pos + 1 < text.size() && text[pos + 1] == 's') continue;
    *milliseconds = unit.milliseconds;
    return suffix.size();
  }
  return 0;
}

}  // namespace

bool ParseDuration(const std::string& text, std::chrono::milliseconds* duration) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max() / 1000;
  std::int64_t total = 0;
  std::size_t pos = 0;
  if (text.empty()) return false;
  while (pos < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[pos]))) return false;
    std::int64_t number = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      number = number * 10 + (text[pos] - '0');
      if (number > kMax) return false;
      ++pos;
    }
    std::int64_t unit = 0;
    std::size_t unit_length = ReadUnit(text, pos, &unit);
    if (unit_length == 0) return false;
    pos += unit_length;
    if (number > (kMax - total) / unit) return false;
    total += number * unit;
  }
  if (total <= 0) return false;
  *duration = std::chrono::milliseconds(total);
  return true;
}

std::string FormatDuration(std::chrono::milliseconds duration) {
  std::int64_t rest = duration.count();
  if (rest <= 0) return "0s";
  std::string out;
  for (const Unit& unit : {kUnits[5], kUnits[4], kUnits[3], kUnits[2], kUnits[1], kUnits[0]}) {
    if (rest >= unit.milliseconds) {
      out += std::to_string(rest / unit.milliseconds) + unit.suffix;
      rest %= unit.milliseconds;
    }
  }
  return out;
}

}  // namespace scx
