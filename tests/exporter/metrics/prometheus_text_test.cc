// Tests of the text format writer: escaping of label values and HELP, the spelling of
// values (as printf's "%.16g", and NaN/+Inf/-Inf), lazy HELP/TYPE lines, and the
// duplicate check of flagged samples only.
#include "exporter/metrics/prometheus_text.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace scx {
namespace {

std::string Value(double value) {
  std::string out;
  AppendValue(value, &out);
  return out;
}

std::string LabelValue(const std::string& value) {
  std::string out;
  AppendLabelValue(value, &out);
  return out;
}

std::string Printf16g(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.16g", value);
  return buffer;
}

TEST(PrometheusTextTest, ValuesAreWrittenAsBefore) {
  EXPECT_EQ(Value(0), "0");
  EXPECT_EQ(Value(1), "1");
  EXPECT_EQ(Value(140039), "140039");
  EXPECT_EQ(Value(1796003827.979081), "1796003827.979081");
  EXPECT_EQ(Value(0.001490974), "0.001490974");
  EXPECT_EQ(Value(3.8), "3.8");
  EXPECT_EQ(Value(-0.0), "-0");
  EXPECT_EQ(Value(-2), "-2");
  EXPECT_EQ(Value(1e15), "1000000000000000");
  EXPECT_EQ(Value(1e16), "1e+16");
  EXPECT_EQ(Value(13874630024467740672.0), "1.387463002446774e+19");
  EXPECT_EQ(Value(1e-7), "1e-07");
}

TEST(PrometheusTextTest, SpecialValuesAsTheFormatSpellsThem) {
  EXPECT_EQ(Value(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(Value(-std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(Value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(Value(-std::numeric_limits<double>::infinity()), "-Inf");
}

// Any finite double, integral or not, of any magnitude: the digits of "%.16g".
TEST(PrometheusTextTest, FiniteValuesMatchPrintf) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    double value;
    if (i % 2 == 0) {
      const std::uint64_t bits = rng();
      std::memcpy(&value, &bits, sizeof(value));
      if (!std::isfinite(value)) continue;
    } else {
      value = std::ldexp(static_cast<double>(rng() >> (rng() % 64)), static_cast<int>(rng() % 40));
    }
    ASSERT_EQ(Value(value), Printf16g(value)) << i;
  }
}

TEST(PrometheusTextTest, LabelValuesAreEscaped) {
  EXPECT_EQ(LabelValue("plain /path"), "plain /path");
  EXPECT_EQ(LabelValue("a\\b\"c\"\nd"), "a\\\\b\\\"c\\\"\\nd");
  EXPECT_EQ(LabelValue("tab\tand\rcr"), "tab\tand\rcr");
  EXPECT_EQ(LabelValue("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(PrometheusTextTest, LabelValuesAreMadeValidAndCapped) {
  EXPECT_EQ(LabelValue("bad\xFF\"byte"), "bad\xEF\xBF\xBD\\\"byte");
  EXPECT_EQ(LabelValue(std::string(kMaxLabelValueBytes, 'k')),
            std::string(kMaxLabelValueBytes, 'k'));
  const std::string capped = LabelValue(std::string(kMaxLabelValueBytes + 10, 'k'));
  EXPECT_EQ(capped.substr(0, 10), "kkkkkkkkkk");
  EXPECT_NE(capped.find("\xE2\x80\xA6[10 bytes cut]"), std::string::npos) << capped;
  EXPECT_FALSE(IsExportedAsIs(std::string(kMaxLabelValueBytes + 1, 'k')));
  EXPECT_FALSE(IsExportedAsIs("\xC3("));
  EXPECT_TRUE(IsExportedAsIs("\xF0\x9F\x98\x80 ok"));
}

TEST(PrometheusTextTest, FamilyLinesAndHelpEscaping) {
  std::string out;
  FamilyWriter family({"x_total", "Odd \\ help\nwith \"quotes\".", MetricType::kCounter}, &out,
                      nullptr);
  family.Add({}, 2);
  family.Add({{"a", "1"}, {"b", "two"}}, 0.5);
  EXPECT_EQ(out,
            "# HELP x_total Odd \\\\ help\\nwith \"quotes\".\n"
            "# TYPE x_total counter\n"
            "x_total 2\n"
            "x_total{a=\"1\",b=\"two\"} 0.5\n");
}

// OpenMetrics: the same samples; the family named without a counter's "_total" or an
// info family's "_info" in its metadata, `"` escaped in HELP, a UNIT line for seconds
// and bytes.
TEST(PrometheusTextTest, OpenMetricsMetadata) {
  constexpr ExpositionFormat kOm = ExpositionFormat::kOpenMetrics;
  std::string out;
  {
    FamilyWriter counter({"x_total", "Odd \\ help\nwith \"quotes\".", MetricType::kCounter}, &out,
                         nullptr, kOm);
    counter.Add({{"a", "1"}}, 2);
    FamilyWriter info({"x_build_info", "Always 1.", MetricType::kInfo}, &out, nullptr, kOm);
    info.Add({{"version", "1"}}, 1);
    FamilyWriter seconds({"x_cpu_seconds_total", "", MetricType::kCounter}, &out, nullptr, kOm);
    seconds.Add({}, 3.5);
    FamilyWriter bytes({"x_memory_bytes", "Bytes.", MetricType::kGauge}, &out, nullptr, kOm);
    bytes.Add({}, 4096);
  }
  EXPECT_EQ(out,
            "# HELP x Odd \\\\ help\\nwith \\\"quotes\\\".\n"
            "# TYPE x counter\n"
            "x_total{a=\"1\"} 2\n"
            "# HELP x_build Always 1.\n"
            "# TYPE x_build info\n"
            "x_build_info{version=\"1\"} 1\n"
            "# TYPE x_cpu_seconds counter\n"
            "# UNIT x_cpu_seconds seconds\n"
            "x_cpu_seconds_total 3.5\n"
            "# HELP x_memory_bytes Bytes.\n"
            "# TYPE x_memory_bytes gauge\n"
            "# UNIT x_memory_bytes bytes\n"
            "x_memory_bytes 4096\n");
}

// In the text format an info family is a gauge, as before.
TEST(PrometheusTextTest, InfoIsAGaugeInTheTextFormat) {
  std::string out;
  FamilyWriter({"x_info", "Always 1.", MetricType::kInfo}, &out, nullptr).Add({}, 1);
  EXPECT_EQ(out, "# HELP x_info Always 1.\n# TYPE x_info gauge\nx_info 1\n");
}

TEST(PrometheusTextTest, UnitsFromTheNameOnly) {
  EXPECT_EQ(UnitOf("a_seconds", MetricType::kGauge), "seconds");
  EXPECT_EQ(UnitOf("a_seconds_total", MetricType::kCounter), "seconds");
  EXPECT_EQ(UnitOf("a_bytes_total", MetricType::kCounter), "bytes");
  EXPECT_EQ(UnitOf("a_seconds_total", MetricType::kGauge), "");  // a gauge keeps _total
  EXPECT_EQ(UnitOf("a_xseconds", MetricType::kGauge), "");
  EXPECT_EQ(UnitOf("seconds", MetricType::kGauge), "");
  EXPECT_EQ(UnitOf("a_fds", MetricType::kGauge), "");
  EXPECT_EQ(UnitOf("a_seconds_info", MetricType::kInfo), "");
  EXPECT_EQ(OpenMetricsFamilyName("a_total", MetricType::kCounter), "a");
  EXPECT_EQ(OpenMetricsFamilyName("a_total", MetricType::kGauge), "a_total");
  EXPECT_EQ(OpenMetricsFamilyName("a_info", MetricType::kInfo), "a");
  EXPECT_EQ(OpenMetricsFamilyName("a", MetricType::kCounter), "a");
}

TEST(PrometheusTextTest, FamilyWithoutSamplesWritesNothing) {
  std::string out = "before\n";
  { FamilyWriter family({"x", "Help.", MetricType::kGauge}, &out, nullptr); }
  EXPECT_EQ(out, "before\n");
}

TEST(PrometheusTextTest, OnlyFlaggedSamplesAreCheckedForDuplicates) {
  std::string out;
  std::vector<std::string> dropped;
  FamilyWriter family({"x", "Help.", MetricType::kGauge}, &out, &dropped);
  family.Add({{"brain", "a"}}, 1);  // not flagged: not remembered
  family.CheckDuplicates(true);
  family.Add({{"brain", "a"}}, 2);
  family.Add({{"brain", "a\n"}}, 3);
  family.Add({{"brain", "a"}}, 4);
  family.Add({{"brain", "a\n"}}, 5);
  EXPECT_EQ(out,
            "# HELP x Help.\n# TYPE x gauge\n"
            "x{brain=\"a\"} 1\nx{brain=\"a\"} 2\nx{brain=\"a\\n\"} 3\n");
  EXPECT_EQ(dropped, (std::vector<std::string>{"x{brain=\"a\"}", "x{brain=\"a\n\"}"}));
}

}  // namespace
}  // namespace scx
