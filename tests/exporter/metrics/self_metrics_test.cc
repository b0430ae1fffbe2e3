// Tests of the exporter's own metrics: what a scan, a reload and the watches set, the
// HTTP server's events by handler, code and reason (called directly and through a real
// HttpServer on 127.0.0.1), the scan histogram's buckets, the order of the families,
// the TLS family only with TLS, and nothing written when disabled.
#include "exporter/metrics/self_metrics.h"

#include <crypt.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "exporter/http/http_server.h"
#include "tests/captured_log.h"
#include "tests/http_client.h"
#include "tests/test_process.h"
#include "tests/test_support.h"
#include "tests/text_lines.h"

namespace scx {
namespace {

using testing::HasLine;
using testing::Lines;

using testing::BasicAuthorization;
using testing::HttpGet;

// The names of the TYPE lines, in order.
std::vector<std::string> FamilyNames(const std::string& text) {
  std::vector<std::string> names;
  for (const std::string& line : Lines(text)) {
    const std::string prefix = "# TYPE ";
    if (line.rfind(prefix, 0) == 0) {
      names.push_back(line.substr(prefix.size(), line.rfind(' ') - prefix.size()));
    }
  }
  return names;
}

BrainReport Report(const std::string& name, BrainState state) {
  BrainReport report;
  report.mutable_brain()->name = name;
  report.state = state;
  return report;
}

ScanResult SampleScan() {
  ScanResult scan;
  scan.brains.push_back(Report("m1nd", BrainState::kMismatch));
  scan.brains.push_back(Report("keyvault", BrainState::kOk));
  BrainReport torn = Report("torn", BrainState::kUnreadable);
  torn.read_error = StoreError::kParse;
  scan.brains.push_back(torn);
  BrainReport big = Report("big", BrainState::kUnreadable);
  big.read_error = StoreError::kTooLarge;
  scan.brains.push_back(big);
  scan.brains.push_back(Report("empty", BrainState::kAbsent));
  DiscoveryProblem problem;
  problem.source = DiscoveryProblemSource::kManifest;
  problem.path = "/rt/project-brains/aa/project_brain.json";
  scan.problems = {problem, problem};
  scan.orphans.push_back({"/rt/project-brains/old", "/home/dev/m1nd", "/rt/project-brains/new"});
  scan.stores_parsed = 3;
  scan.stores_unchanged = 40;
  return scan;
}

const BuildInfo kBuild = {"0.1.0",      "abc123",     "main", "u@h", "20261130-00:00:00",
                          "gcc 12.2.0", "linux/amd64"};

class SelfMetricsTest : public ::testing::Test {
 protected:
  testing::CapturedLog log_{LogLevel::kWarn};
  SelfMetrics metrics_{{kBuild, true, /*process=*/false}, log_.logger()};
};

TEST_F(SelfMetricsTest, AScanIsCountedAndDecidesTheLastScanFigures) {
  metrics_.RecordScan(SampleScan(), 0.25, 1767225600.5);
  metrics_.RecordScan(ScanResult(), 0.125, 1767225615.5);
  const std::string text = metrics_.Text();
  EXPECT_TRUE(
      HasLine(text,
              "skeleton_coherence_exporter_build_info{branch=\"main\",compiler=\"gcc 12.2.0\","
              "platform=\"linux/amd64\",revision=\"abc123\",version=\"0.1.0\"} 1"))
      << text;
  EXPECT_TRUE(HasLine(text, "# TYPE skeleton_coherence_exporter_scans_total counter"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_scans_total 2"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_scan_duration_seconds 0.125"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_last_scan_timestamp_seconds 1767225615.5"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_last_scan_success 1"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_discovery_errors_total{source=\"manifest\"} 2"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_discovery_errors_total{source=\"registry\"} 0"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_stores_parsed_total 3"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_stores_unchanged_total 40"));
  // One failed read each; the reasons no brain had stay at 0.
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_store_read_errors_total{reason=\"parse\"} 1"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_store_read_errors_total{reason=\"too_large\"} 1"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_store_read_errors_total{reason=\"io\"} 0"));
  // The last scan found nothing: every state at 0, no orphan.
  for (const Term<BrainState>& state : kBrainStates) {
    EXPECT_TRUE(HasLine(
        text, std::string("skeleton_coherence_exporter_brains{state=\"") + state.name + "\"} 0"))
        << state.name;
  }
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_orphaned_folders 0"));
  // Before any reload, the config loaded at start counts as a success.
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_config_last_reload_successful 1"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 0"));
}

TEST_F(SelfMetricsTest, BrainsByStateAndOrphansAreTheLastScans) {
  metrics_.RecordScan(SampleScan(), 0.25, 1767225600.5);
  const std::string text = metrics_.Text();
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_brains{state=\"ok\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_brains{state=\"unreadable\"} 2"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_brains{state=\"mismatch\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_brains{state=\"absent\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_brains{state=\"identity_unknown\"} 0"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_orphaned_folders 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_last_scan_success 0"));
  EXPECT_TRUE(HasLine(text,
                      "# HELP skeleton_coherence_exporter_orphaned_folders Folders under "
                      "project-brains/ left behind by an older m1nd build (their project root is "
                      "served by another folder) in the last scan."));
}

// A gauge of the last scan's conflicts, so that a rule pages while a record is refused
// and stops when it is gone; every reason from the start, at 0.
TEST_F(SelfMetricsTest, RegistryConflictsAreTheLastScans) {
  ScanResult scan;
  scan.conflicts.push_back(
      RegistryConflict{RegistryConflictReason::kForeignOwner, "/r/instances/a.json", "/rt", ""});
  scan.conflicts.push_back(
      RegistryConflict{RegistryConflictReason::kForeignOwner, "/r/instances/b.json", "/rt", ""});
  metrics_.RecordScan(scan, 0.1, 1767225600);
  std::string text = metrics_.Text();
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_registry_conflicts{reason=\"foreign_owner\"} 2"))
      << text;
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence_exporter_registry_conflicts{reason=\"future_heartbeat\"} 0"));
  metrics_.RecordScan(ScanResult(), 0.1, 1767225601);
  text = metrics_.Text();
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_registry_conflicts{reason=\"foreign_owner\"} 0"));
}

TEST_F(SelfMetricsTest, ReloadsWatchesAndTheInterval) {
  metrics_.SetScanInterval(15);
  metrics_.RecordConfigReload(true);
  metrics_.RecordConfigReload(true);
  metrics_.RecordConfigReload(false);
  metrics_.SetWatches(12, true);
  metrics_.RecordWatchTriggeredScan();
  const std::string text = metrics_.Text();
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_scan_interval_seconds 15")) << text;
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 2"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_config_last_reload_successful 0"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_watched_dirs 12"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_watch_limited 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_watch_triggered_scans_total 1"));
}

// Buckets from 1 ms to 60 s; the gauge of the last scan stays beside the histogram.
TEST_F(SelfMetricsTest, ScanSecondsIsAHistogramFromAMillisecondToAMinute) {
  for (double seconds : {0.0004, 0.001, 0.3, 0.3, 7.0, 100.0}) {
    metrics_.RecordScan(ScanResult(), seconds, 1767225600);
  }
  const std::string text = metrics_.Text();
  const std::string name = "skeleton_coherence_exporter_scan_seconds";
  EXPECT_TRUE(HasLine(text, "# TYPE " + name + " histogram")) << text;
  const std::vector<std::pair<std::string, int>> buckets = {
      {"0.001", 2}, {"0.0025", 2}, {"0.005", 2}, {"0.01", 2}, {"0.025", 2}, {"0.05", 2},
      {"0.1", 2},   {"0.25", 2},   {"0.5", 4},   {"1", 4},    {"2.5", 4},   {"5", 4},
      {"10", 5},    {"30", 5},     {"60", 5},    {"+Inf", 6}};
  ASSERT_EQ(buckets.size(), std::size(kScanSecondsBuckets) + 1);
  for (const auto& [le, count] : buckets) {
    EXPECT_TRUE(HasLine(text, name + "_bucket{le=\"" + le + "\"} " + std::to_string(count))) << le;
  }
  EXPECT_TRUE(HasLine(text, name + "_count 6"));
  const std::size_t sum = text.find("\n" + name + "_sum ");
  ASSERT_NE(sum, std::string::npos);
  EXPECT_NEAR(std::stod(text.substr(sum + name.size() + 6)), 107.6014, 1e-9);
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_scan_duration_seconds 100"));
}

TEST_F(SelfMetricsTest, HttpEventsByHandlerCodeAndReason) {
  HttpEvents* events = &metrics_;
  events->OnRequest("/metrics", 200);
  events->OnRequest("/metrics", 200);
  events->OnRequest("/metrics", 401);
  events->OnRequest("/api/v1/brains/", 404);
  events->OnRequest(kUnmatchedHandler, 404);
  events->OnAuthFailure(AuthFailure::kUnknownUser);
  events->OnAuthFailure(AuthFailure::kRateLimited);
  events->OnAuthFailure(AuthFailure::kRateLimited);
  events->OnTlsHandshakeFailure();
  const std::string text = metrics_.Text();
  const std::string requests = "skeleton_coherence_exporter_http_requests_total";
  EXPECT_TRUE(HasLine(text, "# TYPE " + requests + " counter")) << text;
  EXPECT_TRUE(HasLine(text, requests + "{code=\"200\",handler=\"/metrics\"} 2"));
  EXPECT_TRUE(HasLine(text, requests + "{code=\"401\",handler=\"/metrics\"} 1"));
  EXPECT_TRUE(HasLine(text, requests + "{code=\"404\",handler=\"/api/v1/brains/\"} 1"));
  EXPECT_TRUE(HasLine(text, requests + "{code=\"404\",handler=\"other\"} 1"));
  const std::string auth = "skeleton_coherence_exporter_http_auth_failures_total";
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"unknown_user\"} 1"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"rate_limited\"} 2"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"bad_password\"} 0"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"bad_header\"} 0"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_tls_handshake_failures_total 1"));
}

TEST_F(SelfMetricsTest, TheCertificateFamilyOnlyWithTls) {
  const std::string name = "skeleton_coherence_exporter_tls_certificate_not_after_seconds";
  EXPECT_EQ(metrics_.Text().find(name), std::string::npos);
  metrics_.SetTlsCertificateNotAfter(1767225600);
  std::string text = metrics_.Text();
  EXPECT_TRUE(HasLine(text, "# TYPE " + name + " gauge"));
  EXPECT_TRUE(HasLine(text, name + " 1767225600")) << text;
  metrics_.SetTlsCertificateNotAfter(1798761600);
  EXPECT_TRUE(HasLine(metrics_.Text(), name + " 1798761600"));
  metrics_.SetTlsCertificateNotAfter(std::nullopt);
  EXPECT_EQ(metrics_.Text().find(name), std::string::npos);
}

// The alerts' runbook links are built from this series and the target's instance: one
// series, its scheme the listeners'.
TEST_F(SelfMetricsTest, TheRunbookSchemeIsTheListenersOne) {
  const std::string name = "skeleton_coherence_exporter_runbook_info";
  EXPECT_TRUE(HasLine(metrics_.Text(), name + "{scheme=\"http\"} 1")) << metrics_.Text();
  metrics_.SetRunbookScheme("https");
  const std::string text = metrics_.Text();
  EXPECT_TRUE(HasLine(text, name + "{scheme=\"https\"} 1")) << text;
  EXPECT_EQ(text.find(name + "{scheme=\"http\"}"), std::string::npos) << text;
}

// The order of docs/metrics.md, each family's series sorted by their labels, whatever
// order they were counted in: the text of two registries with the same counts is the same.
TEST_F(SelfMetricsTest, FamiliesComeInDocumentOrder) {
  metrics_.SetTlsCertificateNotAfter(1767225600);
  metrics_.OnRequest("/metrics", 200);
  metrics_.OnRequest("/", 200);
  const std::vector<std::string> expected = {
      "skeleton_coherence_exporter_build_info",
      "skeleton_coherence_exporter_scan_duration_seconds",
      "skeleton_coherence_exporter_scan_seconds",
      "skeleton_coherence_exporter_last_scan_timestamp_seconds",
      "skeleton_coherence_exporter_last_scan_success",
      "skeleton_coherence_exporter_scan_interval_seconds",
      "skeleton_coherence_exporter_scans_total",
      "skeleton_coherence_exporter_discovery_errors_total",
      "skeleton_coherence_exporter_brains",
      "skeleton_coherence_exporter_orphaned_folders",
      "skeleton_coherence_exporter_registry_conflicts",
      "skeleton_coherence_exporter_stores_parsed_total",
      "skeleton_coherence_exporter_stores_unchanged_total",
      "skeleton_coherence_exporter_store_read_errors_total",
      "skeleton_coherence_exporter_config_last_reload_successful",
      "skeleton_coherence_exporter_config_reloads_total",
      "skeleton_coherence_exporter_watched_dirs",
      "skeleton_coherence_exporter_watch_limited",
      "skeleton_coherence_exporter_watch_triggered_scans_total",
      "skeleton_coherence_exporter_state_write_failures_total",
      "skeleton_coherence_exporter_state_restore_failures_total",
      "skeleton_coherence_exporter_tls_certificate_not_after_seconds",
      "skeleton_coherence_exporter_http_requests_total",
      "skeleton_coherence_exporter_scrapes_in_flight",
      "skeleton_coherence_exporter_http_auth_failures_total",
      "skeleton_coherence_exporter_tls_handshake_failures_total",
      "skeleton_coherence_exporter_runbook_info",
  };
  EXPECT_EQ(FamilyNames(metrics_.Text()), expected);

  SelfMetrics other({kBuild, true, false}, log_.logger());
  other.OnRequest("/", 200);
  other.OnRequest("/metrics", 200);
  other.SetTlsCertificateNotAfter(1767225600);
  EXPECT_EQ(other.Text(), metrics_.Text());
}

TEST_F(SelfMetricsTest, DisabledWritesNothingAndStillCounts) {
  SelfMetrics disabled({kBuild, /*enabled=*/false, /*process=*/true}, log_.logger());
  disabled.RecordScan(SampleScan(), 0.25, 1767225600.5);
  disabled.OnRequest("/metrics", 200);
  EXPECT_EQ(disabled.Text(), "");
}

// The process collector's families come last, read from this process.
TEST_F(SelfMetricsTest, ProcessFamiliesComeLastAndAreThisProcesss) {
  SelfMetrics with_process({kBuild, true, /*process=*/true}, log_.logger());
  const std::vector<std::string> names = FamilyNames(with_process.Text());
  ASSERT_GE(names.size(), 7u);
  const std::vector<std::string> last(names.end() - 7, names.end());
  const std::vector<std::string> expected = {"process_cpu_seconds_total",
                                             "process_open_fds",
                                             "process_max_fds",
                                             "process_virtual_memory_bytes",
                                             "process_virtual_memory_max_bytes",
                                             "process_resident_memory_bytes",
                                             "process_start_time_seconds"};
  EXPECT_EQ(last, expected);
  EXPECT_EQ(names[names.size() - 8], "skeleton_coherence_exporter_runbook_info");
  EXPECT_EQ(log_.text(), "");
}

// The value of the sample line `name ` in `text`; -1 when there is none.
double SampleValue(const std::string& text, const std::string& name) {
  for (const std::string& line : Lines(text)) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return -1;
}

// process_* are read at each text, not at each scan: two scrapes with CPU work between
// them and no scan show the CPU time grown.
TEST_F(SelfMetricsTest, ProcessFamiliesAreReadAtEachScrape) {
  SelfMetrics with_process({kBuild, true, /*process=*/true}, log_.logger());
  const double before = SampleValue(with_process.Text(), "process_cpu_seconds_total");
  ASSERT_GE(before, 0);
  // Work until this process has used 50 ms more CPU (5 ticks of /proc's 100 Hz clock).
  const std::clock_t start = std::clock();
  volatile double sink = 0;
  while (std::clock() - start < CLOCKS_PER_SEC / 20) sink = sink + 1;
  const double after = SampleValue(with_process.Text(), "process_cpu_seconds_total");
  EXPECT_GT(after, before);
  const std::string openmetrics = with_process.Text(ExpositionFormat::kOpenMetrics);
  EXPECT_GE(SampleValue(openmetrics, "process_cpu_seconds_total"), after);
}

// The request counts exist from the start for the usual codes of each handler.
TEST_F(SelfMetricsTest, RequestCountsStartAtZeroForTheUsualCodes) {
  const std::string requests = "skeleton_coherence_exporter_http_requests_total";
  EXPECT_FALSE(HasLine(metrics_.Text(), requests + "{code=\"200\",handler=\"/metrics\"} 0"));
  metrics_.InitializeRequestCounts({"/metrics", "/-/ready"});
  std::string text = metrics_.Text();
  for (const std::string handler : {"/metrics", "/-/ready"}) {
    for (const std::string code : {"200", "500", "503"}) {
      std::string line = requests;
      line += "{code=\"" + code + "\",handler=\"";
      line += handler + "\"} 0";
      EXPECT_TRUE(HasLine(text, line)) << text;
    }
  }
  metrics_.OnRequest("/metrics", 200);
  text = metrics_.Text();
  EXPECT_TRUE(HasLine(text, requests + "{code=\"200\",handler=\"/metrics\"} 1"));
  EXPECT_TRUE(HasLine(text, requests + "{code=\"503\",handler=\"/metrics\"} 0"));
}

// Nothing in flight until a scrape starts; each token held counts one.
TEST_F(SelfMetricsTest, ScrapesInFlightWhileTheirTokensLive) {
  const std::string gauge = "skeleton_coherence_exporter_scrapes_in_flight";
  EXPECT_TRUE(HasLine(metrics_.Text(), gauge + " 0"));
  std::shared_ptr<const void> first = metrics_.StartScrape();
  std::shared_ptr<const void> second = metrics_.StartScrape();
  EXPECT_TRUE(HasLine(metrics_.Text(), gauge + " 2"));
  first.reset();
  EXPECT_TRUE(HasLine(metrics_.Text(), gauge + " 1"));
  second.reset();
  EXPECT_TRUE(HasLine(metrics_.Text(), gauge + " 0"));
}

std::vector<std::string> SortedSampleLines(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string& line : Lines(text)) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

// In OpenMetrics: the same samples, the families as OpenMetrics names and types them.
TEST_F(SelfMetricsTest, OpenMetricsHasTheSameSamples) {
  metrics_.RecordScan(SampleScan(), 0.25, 1767225600.5);
  metrics_.OnRequest("/metrics", 200);
  const std::string text = metrics_.Text();
  const std::string openmetrics = metrics_.Text(ExpositionFormat::kOpenMetrics);
  EXPECT_EQ(SortedSampleLines(openmetrics), SortedSampleLines(text));
  EXPECT_TRUE(HasLine(openmetrics, "# TYPE skeleton_coherence_exporter_scans counter"));
  EXPECT_TRUE(HasLine(openmetrics, "skeleton_coherence_exporter_scans_total 1"));
  EXPECT_TRUE(HasLine(openmetrics, "# TYPE skeleton_coherence_exporter_build info"));
  EXPECT_TRUE(HasLine(openmetrics, "# TYPE skeleton_coherence_exporter_scan_seconds histogram"));
  EXPECT_TRUE(HasLine(openmetrics, "# UNIT skeleton_coherence_exporter_scan_seconds seconds"));
  EXPECT_EQ(openmetrics.find("# EOF"), std::string::npos);
}

// A bcrypt hash of `password` (cost 4: fast).
std::string Bcrypt(const std::string& password) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn("$2b$", 4, nullptr, 0, salt, sizeof(salt)) == nullptr) return "";
  auto data = std::make_unique<crypt_data>();
  const char* hash = crypt_rn(password.c_str(), salt, data.get(), sizeof(*data));
  return hash == nullptr ? "" : hash;
}

// Requests through a real HttpServer with basic auth are counted by the route they
// took and the status they got, and each refusal by its reason.
TEST_F(SelfMetricsTest, RequestsThroughARealServerAreCounted) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("web.yml"), "basic_auth_users:\n  alice: " + Bcrypt("pw") + "\n");
  HttpServer server;
  server.Handle("/metrics", [](const HttpRequest&) { return TextResponse(200, "x 1\n"); });
  server.HandlePrefix("/api/v1/brains/", [](const HttpRequest&) { return TextResponse(404, ""); });
  HttpServerOptions options;
  options.listen_addresses = {"127.0.0.1:0"};
  options.num_threads = 4;
  options.web_config_file = dir.Join("web.yml");
  options.events = &metrics_;
  std::string error;
  ASSERT_TRUE(server.Start(options, &error)) << error;
  const int port = server.port();
  const std::map<std::string, std::string> alice = {
      {"Authorization", BasicAuthorization("alice", "pw")}};
  EXPECT_EQ(HttpGet(port, "/metrics", alice).status, 200);
  EXPECT_EQ(HttpGet(port, "/metrics", alice).status, 200);
  EXPECT_EQ(HttpGet(port, "/api/v1/brains/nobody", alice).status, 404);
  EXPECT_EQ(HttpGet(port, "/nope", alice).status, 404);
  EXPECT_EQ(HttpGet(port, "/metrics").status, 401);
  EXPECT_EQ(HttpGet(port, "/metrics", {{"Authorization", "Basic !!"}}).status, 401);
  EXPECT_EQ(
      HttpGet(port, "/metrics", {{"Authorization", BasicAuthorization("alice", "no")}}).status,
      401);
  EXPECT_EQ(HttpGet(port, "/metrics", {{"Authorization", BasicAuthorization("eve", "pw")}}).status,
            401);
  const std::string requests = "skeleton_coherence_exporter_http_requests_total";
  const std::string auth = "skeleton_coherence_exporter_http_auth_failures_total";
  // Reported once the response is sent: the client may see it first.
  ASSERT_TRUE(testing::WaitFor(
      [&] { return HasLine(metrics_.Text(), requests + "{code=\"401\",handler=\"/metrics\"} 4"); },
      std::chrono::seconds(5)))
      << metrics_.Text();
  server.Stop();
  const std::string text = metrics_.Text();
  EXPECT_TRUE(HasLine(text, requests + "{code=\"200\",handler=\"/metrics\"} 2")) << text;
  EXPECT_TRUE(HasLine(text, requests + "{code=\"404\",handler=\"/api/v1/brains/\"} 1"));
  EXPECT_TRUE(HasLine(text, requests + "{code=\"404\",handler=\"other\"} 1"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"bad_header\"} 2"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"bad_password\"} 1"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"unknown_user\"} 1"));
  EXPECT_TRUE(HasLine(text, auth + "{reason=\"rate_limited\"} 0"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_tls_handshake_failures_total 0"));
}

}  // namespace
}  // namespace scx
