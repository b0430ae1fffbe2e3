// Tests of the metrics body of a scrape: the snapshot's per-brain families first, then
// the exporter's own as they are at that scrape; one gzip member with gzip, its length
// exact either way; and the whole body through promtool and Python's gzip.
#include "exporter/metrics/metrics_body.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "exporter/metrics/gzip.h"
#include "exporter/metrics/metrics_renderer.h"
#include "tests/brain_reports.h"
#include "tests/captured_log.h"
#include "tests/test_process.h"

namespace scx {
namespace {

using testing::ScanOf;

// Every byte of a response's streamed body.
std::string BodyOf(const HttpResponse& response) {
  std::string body;
  EXPECT_TRUE(response.streamed_body([&body](std::string_view piece) {
    EXPECT_FALSE(piece.empty());
    body.append(piece);
    return true;
  }));
  EXPECT_EQ(body.size(), response.streamed_size);
  return body;
}

class MetricsBodyTest : public ::testing::Test {
 protected:
  // A snapshot of `brains` brains; the responses after it write `own`'s families
  // (null: none) after the snapshot's.
  std::shared_ptr<const Snapshot> Render(const SelfMetrics* own, int brains = 3000) {
    auto scan = ScanOf(brains);
    metrics_.RecordScan(*scan, 0.25, 1767225600.5);
    own_ = own;
    return RenderSnapshot(scan, {}, 1, 1767225600.5, LandingPageInfo(), log_.logger());
  }

  HttpResponse Response(std::shared_ptr<const Snapshot> snapshot, bool gzip,
                        ExpositionFormat format = ExpositionFormat::kText) {
    HttpResponse response;
    SetMetricsBody(std::move(snapshot), own_, format, gzip, &response);
    return response;
  }

  testing::CapturedLog log_{LogLevel::kWarn};
  const SelfMetrics* own_ = nullptr;
  SelfMetrics metrics_{
      {{"0.1.0", "abc123", "main", "u@h", "20261130-00:00:00", "gcc 12.2.0", "linux/amd64"},
       true,
       /*process=*/false},
      log_.logger()};
};

TEST_F(MetricsBodyTest, PlainIsThePerBrainTextThenTheOwnFamilies) {
  auto snapshot = Render(&metrics_);
  const HttpResponse response = Response(snapshot, /*gzip=*/false);
  EXPECT_EQ(response.content_encoding, "");
  EXPECT_EQ(BodyOf(response), snapshot->MetricsText() + metrics_.Text());
  EXPECT_EQ(snapshot->MetricsText().find("skeleton_coherence_exporter_"), std::string::npos);
  EXPECT_EQ(BodyOf(response).find("# HELP skeleton_coherence_exporter_"), snapshot->metrics_size());
}

TEST_F(MetricsBodyTest, GzipIsOneMemberOfTheSameBody) {
  auto snapshot = Render(&metrics_);
  const HttpResponse response = Response(snapshot, /*gzip=*/true);
  EXPECT_EQ(response.content_encoding, "gzip");
  const std::string zipped = BodyOf(response);
  // The snapshot's compressed copy is sent as it is, then the bytes that close it.
  EXPECT_EQ(
      zipped.compare(0, snapshot->metrics_gzip().bytes.size(), snapshot->metrics_gzip().bytes), 0);
  EXPECT_LT(zipped.size() - snapshot->metrics_gzip().bytes.size(), metrics_.Text().size() / 2);
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(zipped, &unzipped));  // exactly one member, trailer checked
  EXPECT_EQ(unzipped, snapshot->MetricsText() + metrics_.Text());
}

// Counters that change per request are current at each scrape of one snapshot.
TEST_F(MetricsBodyTest, TheOwnFamiliesAreReadAtEachScrape) {
  auto snapshot = Render(&metrics_, 10);
  const std::string line =
      "skeleton_coherence_exporter_http_requests_total{code=\"200\",handler=\"/metrics\"} ";
  metrics_.OnRequest("/metrics", 200);
  for (bool gzip : {false, true}) {
    std::string body = BodyOf(Response(snapshot, gzip));
    if (gzip) {
      ASSERT_TRUE(GzipDecompress(std::string(body), &body));
    }
    EXPECT_NE(body.find(line + (gzip ? "2" : "1")), std::string::npos) << body;
    metrics_.OnRequest("/metrics", 200);
  }
}

TEST_F(MetricsBodyTest, WithoutOwnFamiliesItIsThePerBrainText) {
  auto snapshot = Render(nullptr);
  EXPECT_EQ(BodyOf(Response(snapshot, false)), snapshot->MetricsText());
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(BodyOf(Response(snapshot, true)), &unzipped));
  EXPECT_EQ(unzipped, snapshot->MetricsText());

  SelfMetrics disabled(
      {{"0.1.0", "abc123", "main", "u@h", "20261130-00:00:00", "gcc 12.2.0", "linux/amd64"},
       /*enabled=*/false,
       true},
      log_.logger());
  snapshot = Render(&disabled);
  EXPECT_EQ(BodyOf(Response(snapshot, false)), snapshot->MetricsText());
}

// In OpenMetrics: the per-brain families in OpenMetrics, the own ones too, then the
// end of the exposition; gzip or not.
TEST_F(MetricsBodyTest, OpenMetricsIsBothInOpenMetricsThenEof) {
  auto snapshot = Render(&metrics_, 50);
  constexpr ExpositionFormat kOm = ExpositionFormat::kOpenMetrics;
  const std::string expected = snapshot->MetricsText(kOm) + metrics_.Text(kOm) + "# EOF\n";
  EXPECT_NE(snapshot->MetricsText(kOm), snapshot->MetricsText());
  EXPECT_NE(metrics_.Text(kOm), metrics_.Text());
  const std::string plain = BodyOf(Response(snapshot, false, kOm));
  // The request counters and the gauge of scrapes in flight move between two texts;
  // compare without them.
  const auto without_requests = [](const std::string& text) {
    std::string kept;
    std::size_t at = 0;
    while (at < text.size()) {
      const std::size_t end = text.find('\n', at);
      const std::string line = text.substr(at, end - at + 1);
      if (line.find("http_requests_total{") == std::string::npos &&
          line.find("scrapes_in_flight ") == std::string::npos) {
        kept += line;
      }
      at = end + 1;
    }
    return kept;
  };
  EXPECT_EQ(without_requests(plain), without_requests(expected));
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(BodyOf(Response(snapshot, true, kOm)), &unzipped));
  EXPECT_EQ(without_requests(unzipped), without_requests(expected));
  // Without the own families, still ended.
  auto bare = Render(nullptr, 5);
  EXPECT_EQ(BodyOf(Response(bare, false, kOm)), bare->MetricsText(kOm) + "# EOF\n");
}

// A scrape counts as in flight from its handler until its response is gone (sent),
// itself included.
TEST_F(MetricsBodyTest, ScrapesInFlightCountsResponsesNotYetSent) {
  auto snapshot = Render(&metrics_, 5);
  const std::string gauge = "\nskeleton_coherence_exporter_scrapes_in_flight ";
  const std::string first = BodyOf(Response(snapshot, false));
  EXPECT_NE(first.find(gauge + "1\n"), std::string::npos) << first;
  {
    const HttpResponse held = Response(snapshot, false);  // not sent yet
    const std::string second = BodyOf(Response(snapshot, false));
    EXPECT_NE(second.find(gauge + "2\n"), std::string::npos) << second;
  }
  const std::string third = BodyOf(Response(snapshot, false));
  EXPECT_NE(third.find(gauge + "1\n"), std::string::npos) << third;
}

// The whole body, the process families included, as Prometheus would lint it.
TEST_F(MetricsBodyTest, PassesPromtoolCheckMetrics) {
  if (!testing::ToolAvailable("promtool")) GTEST_SKIP() << "promtool not installed";
  SelfMetrics full(
      {{"0.1.0", "abc123", "main", "u@h", "20261130-00:00:00", "gcc 12.2.0", "linux/amd64"},
       true,
       /*process=*/true},
      log_.logger());
  full.SetTlsCertificateNotAfter(1767225600);
  full.OnRequest("/metrics", 200);
  full.OnAuthFailure(AuthFailure::kBadPassword);
  full.RecordScan(*ScanOf(20), 0.003, 1767225600.5);
  auto snapshot = Render(&full, 20);
  int status = -1;
  const std::string output = testing::RunShellCommand("promtool check metrics",
                                                      BodyOf(Response(snapshot, false)), &status);
  EXPECT_EQ(output, "");
  EXPECT_EQ(status, 0);
  // Python's gzip reads the gzip body as one member of the same text.
  if (!testing::ToolAvailable("python3")) return;
  const std::string zipped = BodyOf(Response(snapshot, true));
  const std::string check =
      "import sys, zlib\n"
      "d = zlib.decompressobj(16 + zlib.MAX_WBITS)\n"
      "text = d.decompress(sys.stdin.buffer.read())\n"
      "assert d.eof and not d.unused_data\n"
      "sys.stdout.buffer.write(text)\n";
  const std::string unzipped =
      testing::RunShellCommand("python3 -c '" + check + "'", zipped, &status);
  EXPECT_EQ(status, 0) << unzipped.substr(0, 2000);
  EXPECT_EQ(unzipped.substr(0, snapshot->metrics_size()), snapshot->MetricsText());
  EXPECT_NE(unzipped.find("\nskeleton_coherence_exporter_http_auth_failures_total{reason=\""
                          "bad_password\"} 1\n"),
            std::string::npos);
}

}  // namespace
}  // namespace scx
