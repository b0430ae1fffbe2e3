// Durations as Go's time.ParseDuration reads them, which is how exporter-toolkit
// reads the web config's `rate_limit.interval`: decimal numbers, each with a unit
// (ns, us or µs, ms, s, m, h), maybe with a fraction, several in a row ("1h30m",
// "1.5s", "300ms"); "0" alone needs no unit. Unlike Go, no sign: a duration here is
// never negative.
#ifndef SCX_EXPORTER_HTTP_GO_DURATION_H_
#define SCX_EXPORTER_HTTP_GO_DURATION_H_

#include <chrono>
#include <string_view>

namespace scx {

// False for anything Go refuses, a sign, or more than Go's largest duration (about
// 292 years).
bool ParseGoDuration(std::string_view text, std::chrono::nanoseconds* out);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_GO_DURATION_H_
