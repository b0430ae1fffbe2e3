// Which exposition format a scrape gets, from its Accept header, by the rules of
// promhttp (client_golang's expfmt.NegotiateIncludingOpenMetrics): the header's media
// ranges are taken by falling q-value, and the first that names a format served wins:
// `application/openmetrics-text` with version 1.0.0, 0.0.1 or none is OpenMetrics,
// `text/plain` with version 0.0.4 or none is the text format. Anything else (`*/*`,
// `text/*`, the protobuf format, other versions) is passed over, and with no match,
// or no header, the text format is served. Two differences from promhttp, both from
// RFC 9110: a range with q=0 is refused, never chosen, and types and parameter names
// are compared without regard to case. Pure.
#ifndef SCX_EXPORTER_METRICS_CONTENT_NEGOTIATION_H_
#define SCX_EXPORTER_METRICS_CONTENT_NEGOTIATION_H_

#include <string_view>

#include "exporter/metrics/prometheus_text.h"

namespace scx {

struct NegotiatedFormat {
  ExpositionFormat format = ExpositionFormat::kText;
  // The response's Content-Type: the format's, with the OpenMetrics version asked for
  // (1.0.0, or 0.0.1 for 0.0.1 or none, as promhttp answers).
  std::string_view content_type;
};

inline constexpr std::string_view kTextContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr std::string_view kOpenMetrics100ContentType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
inline constexpr std::string_view kOpenMetrics001ContentType =
    "application/openmetrics-text; version=0.0.1; charset=utf-8";

// `accept`: the request's Accept header, empty when it has none.
NegotiatedFormat NegotiateExposition(std::string_view accept);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_CONTENT_NEGOTIATION_H_
