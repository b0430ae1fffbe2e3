// Go's duration syntax.
#include "exporter/http/go_duration.h"

#include <cstdint>
#include <limits>

namespace scx {

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The unit at the front of `text` (taken off it), in nanoseconds; 0 for none Go knows.
std::int64_t TakeUnit(std::string_view* text) {
  static constexpr struct {
    std::string_view name;
    std::int64_t nanoseconds;
  } kUnits[] = {{"ns", 1},
                {"us", 1000},
                {"\xC2\xB5s", 1000},  // U+00B5 micro sign
                {"\xCE\xBCs", 1000},  // U+03BC Greek mu
                {"ms", std::int64_t{1000} * 1000},
                {"s", std::int64_t{1000} * 1000 * 1000},
                {"m", std::int64_t{60} * 1000 * 1000 * 1000},
                {"h", std::int64_t{3600} * 1000 * 1000 * 1000}};
  std::size_t end = 0;
  while (end < text->size() && (*text)[end] != '.' && !IsDigit((*text)[end])) ++end;
  const std::string_view name = text->substr(0, end);
  for (const auto& unit : kUnits) {
    if (name == unit.name) {
      text->remove_prefix(end);
      return unit.nanoseconds;
    }
  }
  return 0;
}

// Digits at the front of `text` (taken off it) into `*value`, with `*scale` the power
// of ten they make; digits past what an int64 holds are dropped (as Go drops a
// fraction's) and set `*overflow`. Returns how many digits were read.
std::size_t TakeDigits(std::string_view* text, std::int64_t* value, std::int64_t* scale,
                       bool* overflow) {
  std::size_t taken = 0;
  while (taken < text->size() && IsDigit((*text)[taken])) {
    const int digit = (*text)[taken] - '0';
    if (*value > (kMax - digit) / 10) {
      *overflow = true;
    } else {
      *value = *value * 10 + digit;
      *scale *= 10;
    }
    ++taken;
  }
  text->remove_prefix(taken);
  return taken;
}

}  // namespace

bool ParseGoDuration(std::string_view text, std::chrono::nanoseconds* out) {
  if (text == "0") {
    *out = std::chrono::nanoseconds(0);
    return true;
  }
  if (text.empty()) return false;
  std::int64_t total = 0;
  while (!text.empty()) {
    std::int64_t whole = 0;
    std::int64_t ignored_scale = 1;
    bool overflow = false;
    std::size_t digits = TakeDigits(&text, &whole, &ignored_scale, &overflow);
    if (overflow) return false;
    std::int64_t fraction = 0;
    std::int64_t scale = 1;
    if (!text.empty() && text.front() == '.') {
      text.remove_prefix(1);
      bool fraction_overflow = false;  // further digits of a fraction are dropped
      digits += TakeDigits(&text, &fraction, &scale, &fraction_overflow);
    }
    if (digits == 0) return false;  // "." alone, or a unit without a number
    const std::int64_t unit = TakeUnit(&text);
    if (unit == 0 || whole > kMax / unit) return false;
    std::int64_t value = whole * unit;
    value += static_cast<std::int64_t>(static_cast<long double>(fraction) *
                                       (static_cast<long double>(unit) / scale));
    if (value < 0 || total > kMax - value) return false;
    total += value;
  }
  *out = std::chrono::nanoseconds(total);
  return true;
}

}  // namespace scx
