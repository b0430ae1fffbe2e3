// Tests of the OpenMetrics writer of prometheus-cpp's families: exact output for each
// type, and the same samples as prometheus-cpp's own text serializer writes.
#include "exporter/metrics/openmetrics_serializer.h"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace scx {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily Family(const std::string& name, const std::string& help, MetricType type) {
  MetricFamily family;
  family.name = name;
  family.help = help;
  family.type = type;
  return family;
}

ClientMetric Metric(std::vector<ClientMetric::Label> labels) {
  ClientMetric metric;
  metric.label = std::move(labels);
  return metric;
}

std::vector<MetricFamily> EveryType() {
  std::vector<MetricFamily> families;
  MetricFamily counter = Family("x_scans_total", "Scans \"done\".", MetricType::Counter);
  ClientMetric scans = Metric({{"result", "ok"}});
  scans.counter.value = 3;
  counter.metric.push_back(scans);
  families.push_back(counter);

  MetricFamily info = Family("x_build_info", "Version.", MetricType::Gauge);
  ClientMetric build = Metric({{"revision", "abc"}, {"version", "0.1.0"}});
  build.gauge.value = 1;
  info.metric.push_back(build);
  families.push_back(info);

  MetricFamily gauge = Family("x_last_seconds", "", MetricType::Gauge);
  ClientMetric last;
  last.gauge.value = 1767225600.5;
  gauge.metric.push_back(last);
  families.push_back(gauge);

  MetricFamily histogram = Family("x_scan_seconds", "Scan time.", MetricType::Histogram);
  ClientMetric observed;
  observed.histogram.sample_count = 3;
  observed.histogram.sample_sum = 0.75;
  observed.histogram.bucket = {{1, 0.001}, {2, 0.5}, {3, std::numeric_limits<double>::infinity()}};
  histogram.metric.push_back(observed);
  families.push_back(histogram);

  families.push_back(Family("x_nothing", "No series.", MetricType::Gauge));
  return families;
}

TEST(OpenMetricsSerializerTest, EachTypeAsOpenMetricsSpellsIt) {
  std::string out;
  SerializeOpenMetrics(EveryType(), &out);
  EXPECT_EQ(out,
            "# HELP x_scans Scans \\\"done\\\".\n"
            "# TYPE x_scans counter\n"
            "x_scans_total{result=\"ok\"} 3\n"
            "# HELP x_build Version.\n"
            "# TYPE x_build info\n"
            "x_build_info{revision=\"abc\",version=\"0.1.0\"} 1\n"
            "# TYPE x_last_seconds gauge\n"
            "# UNIT x_last_seconds seconds\n"
            "x_last_seconds 1767225600.5\n"
            "# HELP x_scan_seconds Scan time.\n"
            "# TYPE x_scan_seconds histogram\n"
            "# UNIT x_scan_seconds seconds\n"
            "x_scan_seconds_bucket{le=\"0.001\"} 1\n"
            "x_scan_seconds_bucket{le=\"0.5\"} 2\n"
            "x_scan_seconds_bucket{le=\"+Inf\"} 3\n"
            "x_scan_seconds_count 3\n"
            "x_scan_seconds_sum 0.75\n");
}

TEST(OpenMetricsSerializerTest, UntypedIsUnknown) {
  MetricFamily untyped = Family("x_odd", "Odd.", MetricType::Untyped);
  ClientMetric odd;
  odd.untyped.value = 2;
  untyped.metric.push_back(odd);
  std::string out;
  SerializeOpenMetrics({untyped}, &out);
  EXPECT_EQ(out, "# HELP x_odd Odd.\n# TYPE x_odd unknown\nx_odd 2\n");
}

std::vector<std::string> SampleLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// The formats differ in their metadata only: the same sample lines as prometheus-cpp's
// text serializer (histogram lines in another order).
TEST(OpenMetricsSerializerTest, TheSamplesOfTheTextSerializer) {
  const std::vector<MetricFamily> families = EveryType();
  std::ostringstream text;
  prometheus::TextSerializer().Serialize(text, families);
  std::string openmetrics;
  SerializeOpenMetrics(families, &openmetrics);
  EXPECT_EQ(SampleLines(openmetrics), SampleLines(text.str()));
}

}  // namespace
}  // namespace scx
