// Tests of the metrics endpoint's content negotiation: the Accept headers Prometheus
// and other scrapers send, q-values either way, wildcards, versions, none at all.
#include "exporter/metrics/content_negotiation.h"

#include <string>

#include <gtest/gtest.h>

namespace scx {
namespace {

constexpr ExpositionFormat kText = ExpositionFormat::kText;
constexpr ExpositionFormat kOpenMetrics = ExpositionFormat::kOpenMetrics;

ExpositionFormat FormatFor(const std::string& accept) { return NegotiateExposition(accept).format; }

std::string ContentTypeFor(const std::string& accept) {
  return std::string(NegotiateExposition(accept).content_type);
}

// What Prometheus 2.42 to 2.55 send by default (scrape.go's scrapeAcceptHeader), and
// what Prometheus 3 sends (OpenMetrics first, then text 1.0.0 and 0.0.4).
TEST(ContentNegotiationTest, PrometheusGetsOpenMetrics100) {
  const std::string prometheus2 =
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
      "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
  EXPECT_EQ(FormatFor(prometheus2), kOpenMetrics);
  EXPECT_EQ(ContentTypeFor(prometheus2),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  const std::string prometheus3 =
      "application/openmetrics-text;version=1.0.0;escaping=allow-utf-8,"
      "application/openmetrics-text;version=0.0.1;q=0.9,"
      "text/plain;version=1.0.0;escaping=allow-utf-8;q=0.8,text/plain;version=0.0.4;q=0.7,"
      "*/*;q=0.6";
  EXPECT_EQ(ContentTypeFor(prometheus3),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

TEST(ContentNegotiationTest, NoHeaderOrAnythingElseIsText) {
  for (const std::string accept :
       {"", "*/*", "text/*", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
        "application/json", "garbage", ",,;", "application/openmetrics-text;version=2.0.0",
        "text/plain;version=0.0.5"}) {
    SCOPED_TRACE(accept);
    EXPECT_EQ(FormatFor(accept), kText);
    EXPECT_EQ(ContentTypeFor(accept), "text/plain; version=0.0.4; charset=utf-8");
  }
}

// promhttp answers 0.0.1 to a request for 0.0.1 or for no version.
TEST(ContentNegotiationTest, OpenMetricsVersions) {
  EXPECT_EQ(ContentTypeFor("application/openmetrics-text"),
            "application/openmetrics-text; version=0.0.1; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("application/openmetrics-text; version=0.0.1"),
            "application/openmetrics-text; version=0.0.1; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("application/openmetrics-text; version=1.0.0; charset=utf-8"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(ContentTypeFor("application/openmetrics-text;version=\"1.0.0\""),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  // A version not served is passed over for the next range.
  EXPECT_EQ(FormatFor("application/openmetrics-text;version=9,application/openmetrics-text;"
                      "version=1.0.0;q=0.2"),
            kOpenMetrics);
}

TEST(ContentNegotiationTest, QValuesDecideWhicheverComesFirst) {
  EXPECT_EQ(FormatFor("text/plain;version=0.0.4;q=0.9,application/openmetrics-text;q=0.5"), kText);
  EXPECT_EQ(FormatFor("text/plain;q=0.5,application/openmetrics-text;version=1.0.0;q=0.9"),
            kOpenMetrics);
  EXPECT_EQ(FormatFor("text/plain;q=0.5, application/openmetrics-text ; q=1"), kOpenMetrics);
  // Equal q: the header's order.
  EXPECT_EQ(FormatFor("text/plain;q=0.5,application/openmetrics-text;q=0.5"), kText);
  EXPECT_EQ(FormatFor("application/openmetrics-text;q=0.5,text/plain;q=0.5"), kOpenMetrics);
  // A wildcard preferred over both chooses neither: the first named one wins.
  EXPECT_EQ(FormatFor("*/*,application/openmetrics-text;q=0.1"), kOpenMetrics);
}

// q=0 is "not acceptable" (RFC 9110): never chosen, unlike promhttp.
TEST(ContentNegotiationTest, QZeroIsRefused) {
  EXPECT_EQ(FormatFor("application/openmetrics-text;version=1.0.0;q=0"), kText);
  EXPECT_EQ(FormatFor("application/openmetrics-text;q=0.0,text/plain;q=0.1"), kText);
  EXPECT_EQ(FormatFor("text/plain;q=0,application/openmetrics-text;q=0.01"), kOpenMetrics);
  EXPECT_EQ(FormatFor("application/openmetrics-text;q=bad"), kText);
}

// Media types and parameter names are case-insensitive (RFC 9110).
TEST(ContentNegotiationTest, CaseDoesNotMatterInTypesAndParameterNames) {
  EXPECT_EQ(FormatFor("Application/OpenMetrics-Text; Version=1.0.0"), kOpenMetrics);
  EXPECT_EQ(FormatFor("TEXT/PLAIN;Q=0.9,application/openmetrics-text;q=0.5"), kText);
}

}  // namespace
}  // namespace scx
