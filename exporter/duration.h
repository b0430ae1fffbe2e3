// Prometheus-style durations: "500ms", "15s", "1m30s", "2h".
#ifndef SCX_EXPORTER_DURATION_H_
#define SCX_EXPORTER_DURATION_H_

#include <chrono>
#include <string>

namespace scx {

// Parses a duration of one or more <number><unit> parts, units ms, s, m, h, d, w.
// Returns false for anything else, including an empty string and zero.
bool ParseDuration(const std::string& text, std::chrono::milliseconds* duration);

// The shortest form ParseDuration reads back: "15s", "1m30s", "250ms".
std::string FormatDuration(std::chrono::milliseconds duration);

}  // namespace scx

#endif  // SCX_EXPORTER_DURATION_H_
