// prometheus-cpp's metric families in OpenMetrics 1.0.0, which prometheus-cpp cannot
// write (its TextSerializer writes the text format 0.0.4 only): the same samples as
// that serializer, with OpenMetrics' metadata (exporter/metrics/prometheus_text.h): a
// counter's family named without "_total", a gauge named "..._info" as an info family,
// a UNIT line for "_seconds" and "_bytes", an untyped family as "unknown". No "# EOF":
// the caller ends the exposition. Pure.
#ifndef SCX_EXPORTER_METRICS_OPENMETRICS_SERIALIZER_H_
#define SCX_EXPORTER_METRICS_OPENMETRICS_SERIALIZER_H_

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace scx {

// Appends `families`, in their order, to `out`.
void SerializeOpenMetrics(const std::vector<prometheus::MetricFamily>& families, std::string* out);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_OPENMETRICS_SERIALIZER_H_
