// Content negotiation for the metrics endpoint, as promhttp does it.
#include "exporter/metrics/content_negotiation.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace scx {

namespace {

// One media range of an Accept header, as far as negotiation needs it.
struct MediaRange {
  std::string type;  // "text/plain", lowercased
  std::string version;
  double q = 1;
};

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) break;
    parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::string_view Trim(std::string_view text) {
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  const std::size_t end = text.find_last_not_of(" \t");
  return text.substr(start, end - start + 1);
}

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// A parameter's value without the quotes of a quoted string.
std::string_view Unquote(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

// "type/subtype;param=value;q=0.5"; false for a range with no '/'.
bool ParseMediaRange(std::string_view text, MediaRange* range) {
  const std::vector<std::string_view> parts = Split(text, ';');
  const std::string_view type = Trim(parts.front());
  if (type.find('/') == std::string_view::npos) return false;
  range->type = Lowercase(type);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::size_t equals = parts[i].find('=');
    if (equals == std::string_view::npos) continue;
    const std::string name = Lowercase(Trim(parts[i].substr(0, equals)));
    const std::string_view value = Unquote(Trim(parts[i].substr(equals + 1)));
    if (name == "q") {
      range->q = std::strtod(std::string(value).c_str(), nullptr);  // garbage: 0, refused
    } else if (name == "version") {
      range->version = std::string(value);
    }
  }
  return true;
}

}  // namespace

NegotiatedFormat NegotiateExposition(std::string_view accept) {
  std::vector<MediaRange> ranges;
  for (const std::string_view text : Split(accept, ',')) {
    MediaRange range;
    if (ParseMediaRange(text, &range) && range.q > 0) ranges.push_back(std::move(range));
  }
  std::stable_sort(ranges.begin(), ranges.end(),
                   [](const MediaRange& a, const MediaRange& b) { return a.q > b.q; });
  for (const MediaRange& range : ranges) {
    if (range.type == "application/openmetrics-text") {
      if (range.version == "1.0.0") {
        return {ExpositionFormat::kOpenMetrics, kOpenMetrics100ContentType};
      }
      if (range.version == "0.0.1" || range.version.empty()) {
        return {ExpositionFormat::kOpenMetrics, kOpenMetrics001ContentType};
      }
    }
    if (range.type == "text/plain" && (range.version == "0.0.4" || range.version.empty())) {
      return {ExpositionFormat::kText, kTextContentType};
    }
  }
  return {ExpositionFormat::kText, kTextContentType};
}

}  // namespace scx
