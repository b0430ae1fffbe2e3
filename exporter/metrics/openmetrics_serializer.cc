// prometheus-cpp's families written in OpenMetrics.
#include "exporter/metrics/openmetrics_serializer.h"

#include <string_view>

#include "base/strings.h"
#include "exporter/metrics/prometheus_text.h"

namespace scx {

namespace {

using prometheus::ClientMetric;

// `name{labels,extra="value"} ` of one sample; `extra` left out when its name is empty.
void AppendSampleStart(std::string_view name, const std::vector<ClientMetric::Label>& labels,
                       std::string_view extra_name, std::string_view extra_value,
                       std::string* out) {
  out->append(name);
  if (!labels.empty() || !extra_name.empty()) {
    out->push_back('{');
    bool first = true;
    for (const ClientMetric::Label& label : labels) {
      if (!first) out->push_back(',');
      first = false;
      out->append(label.name);
      out->append("=\"");
      AppendLabelValue(label.value, out);
      out->push_back('"');
    }
    if (!extra_name.empty()) {
      if (!first) out->push_back(',');
      out->append(extra_name);
      out->append("=\"");
      out->append(extra_value);
      out->push_back('"');
    }
    out->push_back('}');
  }
  out->push_back(' ');
}

void AppendSample(std::string_view name, const std::vector<ClientMetric::Label>& labels,
                  double value, std::string* out) {
  AppendSampleStart(name, labels, {}, {}, out);
  AppendValue(value, out);
  out->push_back('\n');
}

void AppendHistogram(const std::string& name, const ClientMetric& metric, std::string* out) {
  std::string bound;
  for (const ClientMetric::Bucket& bucket : metric.histogram.bucket) {
    bound.clear();
    AppendValue(bucket.upper_bound, &bound);
    AppendSampleStart(name + "_bucket", metric.label, "le", bound, out);
    AppendInteger(bucket.cumulative_count, out);
    out->push_back('\n');
  }
  AppendSampleStart(name + "_count", metric.label, {}, {}, out);
  AppendInteger(metric.histogram.sample_count, out);
  out->push_back('\n');
  AppendSample(name + "_sum", metric.label, metric.histogram.sample_sum, out);
}

void AppendSummary(const std::string& name, const ClientMetric& metric, std::string* out) {
  std::string quantile;
  for (const ClientMetric::Quantile& q : metric.summary.quantile) {
    quantile.clear();
    AppendValue(q.quantile, &quantile);
    AppendSampleStart(name, metric.label, "quantile", quantile, out);
    AppendValue(q.value, out);
    out->push_back('\n');
  }
  AppendSampleStart(name + "_count", metric.label, {}, {}, out);
  AppendInteger(metric.summary.sample_count, out);
  out->push_back('\n');
  AppendSample(name + "_sum", metric.label, metric.summary.sample_sum, out);
}

void AppendUnknownMetadata(const prometheus::MetricFamily& family, std::string* out) {
  if (!family.help.empty()) {
    out->append("# HELP " + family.name + " ");
    AppendHelpText(family.help, ExpositionFormat::kOpenMetrics, out);
    out->push_back('\n');
  }
  out->append("# TYPE " + family.name + " ");
  out->append(family.type == prometheus::MetricType::Summary ? "summary\n" : "unknown\n");
}

void AppendFamily(const prometheus::MetricFamily& family, std::string* out) {
  if (family.metric.empty()) return;  // as the text serializer: nothing to say
  switch (family.type) {
    case prometheus::MetricType::Counter:
      AppendOpenMetricsMetadata(family.name, family.help, MetricType::kCounter, out);
      for (const ClientMetric& metric : family.metric) {
        AppendSample(family.name, metric.label, metric.counter.value, out);
      }
      return;
    case prometheus::MetricType::Gauge:
      AppendOpenMetricsMetadata(
          family.name, family.help,
          EndsWith(family.name, "_info") ? MetricType::kInfo : MetricType::kGauge, out);
      for (const ClientMetric& metric : family.metric) {
        AppendSample(family.name, metric.label, metric.gauge.value, out);
      }
      return;
    case prometheus::MetricType::Histogram:
      AppendOpenMetricsMetadata(family.name, family.help, MetricType::kHistogram, out);
      for (const ClientMetric& metric : family.metric) AppendHistogram(family.name, metric, out);
      return;
    case prometheus::MetricType::Summary:
      AppendUnknownMetadata(family, out);
      for (const ClientMetric& metric : family.metric) AppendSummary(family.name, metric, out);
      return;
    case prometheus::MetricType::Untyped:
      AppendUnknownMetadata(family, out);
      for (const ClientMetric& metric : family.metric) {
        AppendSample(family.name, metric.label, metric.untyped.value, out);
      }
      return;
  }
}

}  // namespace

void SerializeOpenMetrics(const std::vector<prometheus::MetricFamily>& families, std::string* out) {
  for (const prometheus::MetricFamily& family : families) AppendFamily(family, out);
}

}  // namespace scx
