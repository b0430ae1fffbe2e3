// Log field values: text, numbers and booleans.
#include "exporter/log_value.h"

#include <charconv>
#include <cmath>
#include <utility>

namespace scx {

LogValue::LogValue(std::string text) : kind_(Kind::kText), text_(std::move(text)) {}
LogValue::LogValue(const char* text) : kind_(Kind::kText), text_(text) {}
LogValue::LogValue(std::string_view text) : kind_(Kind::kText), text_(text) {}

LogValue LogValue::FromDouble(double number) {
  if (std::isnan(number)) return {Kind::kText, "NaN"};
  if (std::isinf(number)) return {Kind::kText, number > 0 ? "+Inf" : "-Inf"};
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), number);
  return {Kind::kNumber, std::string(buffer, result.ptr)};
}

}  // namespace scx
