// Writing the Prometheus text exposition format 0.0.4, or OpenMetrics 1.0.0, straight
// into one string: escaping, the spelling of values, and one family's metadata (HELP,
// TYPE and, in OpenMetrics, UNIT) and sample lines, with no object per sample. The two
// formats write the same sample lines; they differ in the metadata only. Which
// families and samples there are is exporter/metrics/metrics_renderer's business. Pure.
#ifndef SCX_EXPORTER_METRICS_PROMETHEUS_TEXT_H_
#define SCX_EXPORTER_METRICS_PROMETHEUS_TEXT_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace scx {

// Label values longer than this (a skeleton id or a path read from a file) are cut at
// a character boundary with a marker (base/utf8.h, CapText). Paths up to PATH_MAX fit.
inline constexpr std::size_t kMaxLabelValueBytes = 4096;

// The formats a scrape can be served in (exporter/metrics/content_negotiation.h chooses).
enum class ExpositionFormat { kText, kOpenMetrics };  // text 0.0.4, OpenMetrics 1.0.0
inline constexpr std::size_t kExpositionFormats = 2;

// What ends an OpenMetrics exposition (after the last family).
inline constexpr std::string_view kOpenMetricsEof = "# EOF\n";

// kInfo: a gauge whose name ends in "_info" and whose samples are always 1; a gauge in
// the text format, an info family in OpenMetrics. kHistogram: for the metadata only
// (FamilyWriter writes no histogram samples).
enum class MetricType { kGauge, kCounter, kInfo, kHistogram };

struct MetricFamilySpec {
  std::string_view name;
  std::string_view help;  // plain text; escaped when written
  MetricType type;
};

struct Label {
  std::string_view name;
  std::string_view value;  // any bytes: made valid UTF-8, capped and escaped when written
};

// Whether a label value is exported as it is (before escaping): valid UTF-8 and not
// longer than kMaxLabelValueBytes.
bool IsExportedAsIs(std::string_view value);

// A label value as exported, before escaping: invalid UTF-8 replaced by U+FFFD, then
// capped at kMaxLabelValueBytes (base/utf8.h).
std::string SanitizedLabelValue(std::string_view value);

// Appends a label value between its quotes: sanitized, then `\`, `"` and newline
// escaped. A value already valid and short is written as it is, without allocating.
void AppendLabelValue(std::string_view value, std::string* out);

// Appends HELP text: `\` and newline escaped, and in OpenMetrics `"` too.
void AppendHelpText(std::string_view help, ExpositionFormat format, std::string* out);

// The unit OpenMetrics declares for a family (its UNIT line): "seconds" or "bytes" when
// the family's name, without a counter's "_total", ends in "_seconds" or "_bytes";
// empty otherwise (and for info families, which have no unit).
std::string_view UnitOf(std::string_view sample_name, MetricType type);

// The name of a family in OpenMetrics' HELP, TYPE and UNIT lines: the sample name
// without a counter's "_total" or an info family's "_info".
std::string_view OpenMetricsFamilyName(std::string_view sample_name, MetricType type);

// Appends one family's OpenMetrics metadata: HELP (unless `help` is empty), TYPE and
// UNIT (when UnitOf has one). `sample_name` as the text format spells the family
// (process_cpu_seconds_total).
void AppendOpenMetricsMetadata(std::string_view sample_name, std::string_view help, MetricType type,
                               std::string* out);

// Appends a sample value as prometheus-cpp 1.0.1 (Debian 12) wrote it: printf's "%.16g"
// (1796003827.979081, 0.001490974, 3.8, 140039, 1e+20), and NaN, +Inf, -Inf.
void AppendValue(double value, std::string* out);

// Appends an unsigned integer's decimal digits (a count, a histogram bucket).
void AppendInteger(std::uint64_t value, std::string* out);

// Writes the samples of one family into `out`, in `format`. The metadata lines come
// with the first sample, so a family without samples is left out (and no HELP line
// without a help text, as prometheus-cpp writes it). `family.name` is the samples'
// name (a counter's ends in "_total", an info family's in "_info"). Samples added while
// CheckDuplicates(true) are compared with the family's earlier such samples: one whose
// label set is already there is dropped (it would make the whole scrape invalid) and
// described in `dropped` (may be null). Only those samples are remembered.
class FamilyWriter {
 public:
  FamilyWriter(const MetricFamilySpec& family, std::string* out, std::vector<std::string>* dropped,
               ExpositionFormat format = ExpositionFormat::kText);

  // Whether the samples added next may repeat an earlier label set.
  void CheckDuplicates(bool check) { check_duplicates_ = check; }

  void Add(std::initializer_list<Label> labels, double value);
  // An integer written exactly, all its digits: a double (and so Add above) rounds
  // integers past 2^53, and "%.16g" past 10^16 (a store_version is a u64). Not an
  // overload of Add: Add(labels, 1) would be ambiguous.
  void AddInteger(std::initializer_list<Label> labels, std::uint64_t value);

 private:
  void WriteHeader();
  // Writes the sample's name and labels and the space before its value; false (and
  // nothing written) when it is dropped as a duplicate.
  bool StartSample(std::initializer_list<Label> labels);
  // For the log: `name{label="value",...}` with the sanitized, unescaped values.
  std::string Describe(std::initializer_list<Label> labels) const;

  MetricFamilySpec family_;
  ExpositionFormat format_;
  std::string* out_;
  std::vector<std::string>* dropped_;
  bool started_ = false;
  bool check_duplicates_ = false;
  std::set<std::string> seen_;  // escaped label texts of the checked samples
};

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_PROMETHEUS_TEXT_H_
