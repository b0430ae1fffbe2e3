// The Prometheus text format 0.0.4 and OpenMetrics 1.0.0, written straight into a string.
#include "exporter/metrics/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <utility>

#include "base/strings.h"
#include "base/utf8.h"

namespace scx {

namespace {

// Significant digits of a value: prometheus-cpp 1.0.1 as built by Debian 12 writes
// "%.16g", and the text stays byte for byte what it was. A value that needs a 17th
// digit to read back exactly loses it, as it always has.
constexpr int kValueDigits = 16;

bool IsValidUtf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const std::size_t length = Utf8SequenceLength(text, pos);
    if (length == 0) return false;
    pos += length;
  }
  return true;
}

// Appends `text` with `\` and newline escaped, and `"` too when `quote`.
void AppendEscaped(std::string_view text, bool quote, std::string* out) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const char* escape = nullptr;
    if (c == '\\') {
      escape = "\\\\";
    } else if (c == '\n') {
      escape = "\\n";
    } else if (c == '"' && quote) {
      escape = "\\\"";
    } else {
      continue;
    }
    out->append(text.data() + start, i - start);
    out->append(escape);
    start = i + 1;
  }
  out->append(text.data() + start, text.size() - start);
}

// `name="value",...` of one sample.
void AppendLabels(std::initializer_list<Label> labels, std::string* out) {
  bool first = true;
  for (const Label& label : labels) {
    if (!first) out->push_back(',');
    first = false;
    out->append(label.name);
    out->append("=\"");
    AppendLabelValue(label.value, out);
    out->push_back('"');
  }
}

}  // namespace

bool IsExportedAsIs(std::string_view value) {
  return value.size() <= kMaxLabelValueBytes && IsValidUtf8(value);
}

std::string SanitizedLabelValue(std::string_view value) {
  return CapText(ToValidUtf8(value), kMaxLabelValueBytes);
}

void AppendLabelValue(std::string_view value, std::string* out) {
  if (IsExportedAsIs(value)) {
    AppendEscaped(value, true, out);
  } else {
    AppendEscaped(SanitizedLabelValue(value), true, out);
  }
}

void AppendHelpText(std::string_view help, ExpositionFormat format, std::string* out) {
  AppendEscaped(help, format == ExpositionFormat::kOpenMetrics, out);
}

std::string_view UnitOf(std::string_view sample_name, MetricType type) {
  if (type == MetricType::kInfo) return {};
  const std::string_view name = OpenMetricsFamilyName(sample_name, type);
  for (const std::string_view unit : {"seconds", "bytes"}) {
    if (name.size() > unit.size() && EndsWith(name, unit) &&
        name[name.size() - unit.size() - 1] == '_') {
      return unit;
    }
  }
  return {};
}

std::string_view OpenMetricsFamilyName(std::string_view sample_name, MetricType type) {
  std::string_view suffix;
  if (type == MetricType::kCounter) suffix = "_total";
  if (type == MetricType::kInfo) suffix = "_info";
  if (suffix.empty() || !EndsWith(sample_name, suffix)) return sample_name;
  return sample_name.substr(0, sample_name.size() - suffix.size());
}

void AppendOpenMetricsMetadata(std::string_view sample_name, std::string_view help, MetricType type,
                               std::string* out) {
  static constexpr std::string_view kTypeNames[] = {"gauge", "counter", "info", "histogram"};
  const std::string_view name = OpenMetricsFamilyName(sample_name, type);
  if (!help.empty()) {
    out->append("# HELP ");
    out->append(name);
    out->push_back(' ');
    AppendHelpText(help, ExpositionFormat::kOpenMetrics, out);
    out->push_back('\n');
  }
  out->append("# TYPE ");
  out->append(name);
  out->push_back(' ');
  out->append(kTypeNames[static_cast<int>(type)]);
  out->push_back('\n');
  const std::string_view unit = UnitOf(sample_name, type);
  if (!unit.empty()) {
    out->append("# UNIT ");
    out->append(name);
    out->push_back(' ');
    out->append(unit);
    out->push_back('\n');
  }
}

void AppendValue(double value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out->append(value < 0 ? "-Inf" : "+Inf");
    return;
  }
  char buffer[64];
  std::to_chars_result result;
  if (value >= 0 && value < 1e15 && value == std::floor(value) && !std::signbit(value)) {
    // Most values (0, 1, counts): the same digits, faster.
    result = std::to_chars(buffer, buffer + sizeof(buffer), static_cast<std::int64_t>(value));
  } else {
    result = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general,
                           kValueDigits);
  }
  out->append(buffer, result.ptr);
}

void AppendInteger(std::uint64_t value, std::string* out) {
  char buffer[24];  // 2^64 - 1 has 20 digits
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out->append(buffer, result.ptr);
}

FamilyWriter::FamilyWriter(const MetricFamilySpec& family, std::string* out,
                           std::vector<std::string>* dropped, ExpositionFormat format)
    : family_(family), format_(format), out_(out), dropped_(dropped) {}

void FamilyWriter::Add(std::initializer_list<Label> labels, double value) {
  if (!StartSample(labels)) return;
  AppendValue(value, out_);
  out_->push_back('\n');
}

void FamilyWriter::AddInteger(std::initializer_list<Label> labels, std::uint64_t value) {
  if (!StartSample(labels)) return;
  AppendInteger(value, out_);
  out_->push_back('\n');
}

bool FamilyWriter::StartSample(std::initializer_list<Label> labels) {
  if (check_duplicates_) {
    std::string label_text;
    AppendLabels(labels, &label_text);
    if (!seen_.insert(std::move(label_text)).second) {
      if (dropped_ != nullptr) dropped_->push_back(Describe(labels));
      return false;
    }
  }
  if (!started_) WriteHeader();
  out_->append(family_.name);
  if (labels.size() > 0) {
    out_->push_back('{');
    AppendLabels(labels, out_);
    out_->push_back('}');
  }
  out_->push_back(' ');
  return true;
}

void FamilyWriter::WriteHeader() {
  started_ = true;
  if (format_ == ExpositionFormat::kOpenMetrics) {
    AppendOpenMetricsMetadata(family_.name, family_.help, family_.type, out_);
    return;
  }
  if (!family_.help.empty()) {  // as prometheus-cpp: no HELP line without a text
    out_->append("# HELP ");
    out_->append(family_.name);
    out_->push_back(' ');
    AppendHelpText(family_.help, ExpositionFormat::kText, out_);
    out_->push_back('\n');
  }
  out_->append("# TYPE ");
  out_->append(family_.name);
  switch (family_.type) {
    case MetricType::kCounter:
      out_->append(" counter\n");
      break;
    case MetricType::kHistogram:
      out_->append(" histogram\n");
      break;
    case MetricType::kGauge:
    case MetricType::kInfo:
      out_->append(" gauge\n");
      break;
  }
}

std::string FamilyWriter::Describe(std::initializer_list<Label> labels) const {
  std::string text(family_.name);
  text += "{";
  bool first = true;
  for (const Label& label : labels) {
    text += first ? "" : ",";
    first = false;
    text += std::string(label.name) + "=\"" + SanitizedLabelValue(label.value) + "\"";
  }
  return text + "}";
}

}  // namespace scx
