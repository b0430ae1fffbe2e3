// Prometheus-style durations: "500ms", "15s", "1m30s", "2h", "1w", "1y".
#ifndef SCX_EXPORTER_DURATION_H_
#define SCX_EXPORTER_DURATION_H_

#include <chrono>
#include <string>

namespace scx {

// Parses a duration as Prometheus' model.ParseDuration does (Prometheus 2.42,
// prometheus/common v0.39): one or more <whole number><unit> parts, units y (365d), w,
// d, h, m, s and ms, each at most once and the largest first ("1h30m", not "30m1h" or
// "1h1h"). No fractions ("1.5h" is refused, as Prometheus refuses it: write 1h30m), no
// sign, no spaces. Returns false for anything else, for an empty string, for zero
// (Prometheus' bare "0" included: no duration here may be zero) and beyond
// Prometheus' range (about 292 years).
bool ParseDuration(const std::string& text, std::chrono::milliseconds* duration);

// What ParseDuration takes, for error messages: "a duration like 15s, 1m30s or 1w
// (whole numbers of y, w, d, h, m, s, ms, the largest first: 1h30m, not 1.5h)".
std::string DurationSyntax();

// The shortest form ParseDuration reads back: "15s", "1m30s", "250ms".
std::string FormatDuration(std::chrono::milliseconds duration);

}  // namespace scx

#endif  // SCX_EXPORTER_DURATION_H_
