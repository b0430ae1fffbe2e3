// The HTTP endpoints (exporter/handlers.h) in-process, over a fake snapshot source and
// a fake reloader: each handler called directly, then the routes Register sets up
// through a real HttpServer on 127.0.0.1. Before the first scan every endpoint that
// serves a scan gives the one JSON 503; after it, what each serves and every error.
// The runbook served needs no scan, and has every section the alerts, the dashboards
// and the landing page link to.
#include "exporter/handlers.h"
#include "exporter/http/inline_source_hash.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exporter/http/http_error.h"
#include "exporter/metrics/gzip.h"
#include "exporter/metrics/prometheus_text.h"
#include "exporter/render/json_view.h"
#include "exporter/render/landing_page.h"
#include "exporter/runbook_document.h"
#include "exporter/snapshot.h"
#include "tests/brain_reports.h"
#include "tests/http_client.h"
#include "tests/test_support.h"
#include "tools/markdown_fragment.h"

namespace scx {
namespace {

using testing::HttpGet;
using testing::HttpResult;

constexpr char kPendingBody[] =
    "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"the first scan has not "
    "completed yet\"}\n";

// The snapshot the handlers are given; changed by the test while a server may read it.
class FakeSnapshots : public SnapshotSource {
 public:
  explicit FakeSnapshots(std::shared_ptr<const Snapshot> snapshot)
      : snapshot_(std::move(snapshot)) {}

  std::shared_ptr<const Snapshot> snapshot() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return snapshot_;
  }

  void Publish(std::shared_ptr<const Snapshot> snapshot) {
    std::lock_guard<std::mutex> lock(mutex_);
    snapshot_ = std::move(snapshot);
  }

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const Snapshot> snapshot_;
};

// Answers every request with `ticket` and every wait with `outcome`, and remembers
// what it was asked.
class FakeReloads : public ReloadRequester {
 public:
  ReloadTicket Request(const std::string& trigger) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ++requests;
    last_trigger = trigger;
    return ticket;
  }

  std::optional<ReloadOutcome> WaitFor(std::uint64_t load,
                                       std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> lock(mutex_);
    waited_for = load;
    wait = timeout;
    return outcome;
  }

  ReloadTicket ticket{7, true};
  std::optional<ReloadOutcome> outcome = ReloadOutcome{true, ""};
  int requests = 0;
  std::string last_trigger;
  std::uint64_t waited_for = 0;
  std::chrono::milliseconds wait{0};

 private:
  std::mutex mutex_;
};

BrainReport WithVerdict(const std::string& name, const std::string& found_slug) {
  const bool ok = found_slug == name;
  BrainReport report = testing::Report(name, ok ? BrainState::kOk : BrainState::kMismatch);
  report.store = StorePresence::kPresent;
  Coherence verdict;
  verdict.expected_slug = name;
  verdict.found_slug = found_slug;
  verdict.status = ok ? CoherenceStatus::kOk : CoherenceStatus::kMismatch;
  report.coherence = std::make_shared<const Coherence>(verdict);
  return report;
}

// keyvault (ok), m1nd (serving keyvault's skeleton), a brain without a store, and a
// brain literally named "keyvault/north".
std::shared_ptr<const ScanResult> Scan() {
  auto scan = std::make_shared<ScanResult>();
  scan->brains.push_back(testing::Report("empty", BrainState::kAbsent));
  scan->brains.push_back(WithVerdict("keyvault", "keyvault"));
  scan->brains.push_back(WithVerdict("keyvault/north", "keyvault/north"));
  scan->brains.push_back(WithVerdict("m1nd", "keyvault"));
  return scan;
}

HttpRequest Get(const std::string& path) {
  HttpRequest request;
  request.method = "GET";
  request.path = path;
  return request;
}

// `text` without the in-flight gauge's sample: over HTTP the server may still hold the
// response it sent when the test reads the gauge again.
std::string WithoutInFlight(const std::string& text) {
  std::string kept;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size() - 1;
    const std::string line = text.substr(at, end - at + 1);
    if (line.rfind("skeleton_coherence_exporter_scrapes_in_flight ", 0) != 0) kept += line;
    at = end + 1;
  }
  return kept;
}

HttpRequest Post(const std::string& path) {
  HttpRequest request = Get(path);
  request.method = "POST";
  return request;
}

// The whole body of `response`, however it is held (streamed ones written out).
std::string BodyOf(const HttpResponse& response) {
  if (!response.streamed_body) return std::string(response.Body());
  std::string body;
  response.streamed_body([&body](std::string_view piece) {
    body.append(piece);
    return true;
  });
  return body;
}

// `response` is the JSON error of `status` with `message`.
void ExpectError(const HttpResponse& response, int status, const std::string& message,
                 const std::string& what = "") {
  EXPECT_EQ(response.status, status) << what;
  EXPECT_EQ(response.content_type, "application/json") << what;
  EXPECT_TRUE(response.content_encoding.empty()) << what;
  EXPECT_EQ(BodyOf(response), ErrorBody(status, message)) << what;
}

void ExpectFirstScanPending(const HttpResponse& response, const std::string& what) {
  ExpectError(response, 503, kFirstScanPending, what);
  EXPECT_EQ(BodyOf(response), kPendingBody) << what;
}

// Every first group of `pattern` in `text`.
std::set<std::string> Matches(const std::string& text, const std::string& pattern) {
  std::set<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    found.insert((*it)[1]);
  }
  return found;
}

// The files of folder `relative` (under the source tree) whose names end in `suffix`.
std::vector<std::string> FilesOf(const std::string& relative, const std::string& suffix) {
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(SCX_SOURCE_DIR) + "/" + relative)) {
    const std::string path = entry.path().string();
    if (path.size() > suffix.size() &&
        path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(path);
    }
  }
  return files;
}

class HandlersTest : public ::testing::Test {
 protected:
  HandlersTest()
      : null_(std::fopen("/dev/null", "w")),
        logger_(LogLevel::kError, LogFormat::kLogfmt, null_),
        snapshots_(InitialSnapshot(LandingPageInfo(), &logger_)),
        handlers_(&snapshots_, &own_, &reloads_, /*enable_lifecycle=*/true) {}
  ~HandlersTest() override {
    server_.Stop();
    std::fclose(null_);
  }

  // Publishes a completed scan (scan number 3) and returns its snapshot. The
  // exporter's own families (without the process's) are `own_`.
  std::shared_ptr<const Snapshot> CompleteScan(std::shared_ptr<const ScanResult> scan = Scan()) {
    std::shared_ptr<const Snapshot> snapshot =
        RenderSnapshot(std::move(scan), {}, 3, 1767225600.5, LandingPageInfo(), &logger_);
    snapshots_.Publish(snapshot);
    return snapshot;
  }

  // Serves the handlers, metrics at `telemetry_path`, on 127.0.0.1.
  int Serve(const std::string& telemetry_path = "/metrics") {
    handlers_.Register(telemetry_path, &server_);
    HttpServerOptions options;
    options.listen_addresses = {"127.0.0.1:0"};
    options.num_threads = 4;
    std::string error;
    EXPECT_TRUE(server_.Start(options, &error)) << error;
    return server_.port();
  }

  std::FILE* null_;
  Logger logger_;
  SelfMetrics own_{
      {{"0.1.0", "abc123", "main", "u@h", "20261130-00:00:00", "gcc 12.2.0", "linux/amd64"},
       true,
       /*process=*/false},
      &logger_};
  FakeSnapshots snapshots_;
  FakeReloads reloads_;
  Handlers handlers_;
  HttpServer server_;  // last: stopped before the handlers go
};

TEST_F(HandlersTest, BeforeTheFirstScanEveryScanEndpointGivesTheOneJson503) {
  ExpectFirstScanPending(handlers_.Metrics(Get("/metrics")), "metrics");
  HttpRequest gzip = Get("/metrics");
  gzip.accepts_gzip = true;
  ExpectFirstScanPending(handlers_.Metrics(gzip), "metrics, gzip");
  ExpectFirstScanPending(handlers_.Brains(Get("/api/v1/brains")), "brains");
  ExpectFirstScanPending(handlers_.OneBrain(Get("/api/v1/brains/m1nd")), "one brain");
  ExpectFirstScanPending(handlers_.OneBrain(Get("/api/v1/brains/m1nd/north")), "north");
  ExpectFirstScanPending(handlers_.Ready(), "ready");
}

TEST_F(HandlersTest, BeforeTheFirstScanTheLandingPageWaitsAndHealthIsFine) {
  const HttpResponse page = handlers_.LandingPage(Get("/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(BodyOf(page).find("first scan has not completed"), std::string::npos);
  const HttpResponse healthy = handlers_.Healthy();
  EXPECT_EQ(healthy.status, 200);
  EXPECT_EQ(healthy.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(BodyOf(healthy), "Healthy");
}

// The snapshot's per-brain text, then the exporter's own families; the gzip body
// starts with the snapshot's compressed copy (exporter/metrics/metrics_body.h).
TEST_F(HandlersTest, MetricsAreStreamedPlainOrFromTheSharedGzipCopy) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const HttpResponse plain = handlers_.Metrics(Get("/metrics"));
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(plain.headers.at("Vary"), "Accept, Accept-Encoding");
  EXPECT_TRUE(plain.content_encoding.empty());
  EXPECT_EQ(plain.streamed_size, snapshot->metrics_size() + own_.Text().size());
  EXPECT_EQ(BodyOf(plain), snapshot->MetricsText() + own_.Text());
  EXPECT_NE(BodyOf(plain).find("skeleton_coherence{brain=\"m1nd\""), std::string::npos);

  HttpRequest request = Get("/metrics");
  request.accepts_gzip = true;
  const HttpResponse zipped = handlers_.Metrics(request);
  EXPECT_EQ(zipped.status, 200);
  EXPECT_EQ(zipped.content_encoding, "gzip");
  EXPECT_EQ(zipped.headers.at("Vary"), "Accept, Accept-Encoding");
  const std::string body = BodyOf(zipped);
  EXPECT_EQ(body.rfind(snapshot->metrics_gzip().bytes, 0), 0u);
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(body, &unzipped));
  EXPECT_EQ(unzipped, snapshot->MetricsText() + own_.Text());
}

// An Accept header that prefers OpenMetrics gets it, gzip or not, ended by "# EOF".
TEST_F(HandlersTest, MetricsInOpenMetricsWhenTheAcceptHeaderPrefersIt) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  constexpr ExpositionFormat kOm = ExpositionFormat::kOpenMetrics;
  HttpRequest request = Get("/metrics");
  request.accept = "application/openmetrics-text; version=1.0.0, text/plain; q=0.5";
  const HttpResponse plain = handlers_.Metrics(request);
  EXPECT_EQ(plain.content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(BodyOf(plain), snapshot->MetricsText(kOm) + own_.Text(kOm) + "# EOF\n");
  request.accepts_gzip = true;
  const HttpResponse zipped = handlers_.Metrics(request);
  EXPECT_EQ(zipped.content_encoding, "gzip");
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(BodyOf(zipped), &unzipped));
  EXPECT_EQ(unzipped.substr(0, snapshot->metrics_size(kOm)), snapshot->MetricsText(kOm));
  EXPECT_EQ(unzipped.substr(unzipped.size() - 6), "# EOF\n");
  // Text when it prefers text.
  request.accept = "application/openmetrics-text;q=0.4,text/plain;version=0.0.4";
  EXPECT_EQ(handlers_.Metrics(request).content_type, "text/plain; version=0.0.4; charset=utf-8");
}

TEST_F(HandlersTest, BrainsAndLandingPageAreTheSnapshotsOwnCopies) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const HttpResponse brains = handlers_.Brains(Get("/api/v1/brains"));
  EXPECT_EQ(brains.status, 200);
  EXPECT_EQ(brains.content_type, "application/json");
  EXPECT_EQ(brains.shared_body.get(), &snapshot->brains_json());
  EXPECT_EQ(BodyOf(brains), BrainsView(snapshot->brains()));

  const HttpResponse page = handlers_.LandingPage(Get("/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.shared_body.get(), &snapshot->landing_page());
  EXPECT_EQ(BodyOf(page).find("first scan has not completed"), std::string::npos);
}

HttpRequest GzipGet(const std::string& path) {
  HttpRequest request = Get(path);
  request.accepts_gzip = true;
  return request;
}

std::string Gunzip(const HttpResponse& response) {
  std::string text;
  EXPECT_TRUE(GzipDecompress(BodyOf(response), &text));
  return text;
}

// `/` and `/api/v1/brains` in gzip: the snapshot's one compressed copy, made at the
// first gzip request and shared by the later ones; plain for a client that does not
// ask; Vary: Accept-Encoding either way.
TEST_F(HandlersTest, LandingPageAndBrainsAreGzippedOncePerSnapshot) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const HttpResponse plain = handlers_.Brains(Get("/api/v1/brains"));
  EXPECT_TRUE(plain.content_encoding.empty());
  EXPECT_EQ(plain.headers.at("Vary"), "Accept-Encoding");
  const HttpResponse zipped = handlers_.Brains(GzipGet("/api/v1/brains"));
  EXPECT_EQ(zipped.content_encoding, "gzip");
  EXPECT_EQ(zipped.headers.at("Vary"), "Accept-Encoding");
  EXPECT_EQ(zipped.content_type, "application/json");
  EXPECT_EQ(zipped.shared_body.get(), &snapshot->brains_json_gzip());
  EXPECT_EQ(handlers_.Brains(GzipGet("/api/v1/brains")).shared_body.get(),
            zipped.shared_body.get());
  EXPECT_LT(BodyOf(zipped).size(), BodyOf(plain).size());
  EXPECT_EQ(Gunzip(zipped), snapshot->brains_json());

  const HttpResponse page = handlers_.LandingPage(Get("/"));
  EXPECT_TRUE(page.content_encoding.empty());
  EXPECT_EQ(page.headers.at("Vary"), "Accept-Encoding");
  const HttpResponse zipped_page = handlers_.LandingPage(GzipGet("/"));
  EXPECT_EQ(zipped_page.content_encoding, "gzip");
  EXPECT_EQ(zipped_page.headers.at("Vary"), "Accept-Encoding");
  EXPECT_EQ(zipped_page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(zipped_page.shared_body.get(), &snapshot->landing_page_gzip());
  EXPECT_EQ(Gunzip(zipped_page), snapshot->landing_page());
}

TEST_F(HandlersTest, OneBrainAndItsNorthViewAreGzippedWhenAsked) {
  CompleteScan();
  for (const char* path : {"/api/v1/brains/m1nd", "/api/v1/brains/m1nd/north"}) {
    const HttpResponse plain = handlers_.OneBrain(Get(path));
    EXPECT_TRUE(plain.content_encoding.empty()) << path;
    EXPECT_EQ(plain.headers.at("Vary"), "Accept-Encoding") << path;
    const HttpResponse zipped = handlers_.OneBrain(GzipGet(path));
    EXPECT_EQ(zipped.status, 200) << path;
    EXPECT_EQ(zipped.content_encoding, "gzip") << path;
    EXPECT_EQ(zipped.headers.at("Vary"), "Accept-Encoding") << path;
    EXPECT_EQ(Gunzip(zipped), BodyOf(plain)) << path;
  }
}

HttpRequest WithParams(HttpRequest request, QueryParams params) {
  request.params = std::move(params);
  return request;
}

constexpr char kValidStates[] =
    "want ok, mismatch, absent, unreadable or identity_unknown (several separated by commas)";

// ?state= and ?limit= on the list: the matching brains, at most limit, and "omitted";
// rendered for the request (gzip when asked); a malformed one is the JSON 400.
TEST_F(HandlersTest, BrainsTakeAStateFilterAndALimit) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const HttpRequest some = WithParams(Get("/api/v1/brains"), {{"state", "ok"}, {"limit", "1"}});
  const HttpResponse response = handlers_.Brains(some);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.content_type, "application/json");
  EXPECT_EQ(response.headers.at("Vary"), "Accept-Encoding");
  const nlohmann::json parsed = nlohmann::json::parse(BodyOf(response));
  ASSERT_EQ(parsed["brains"].size(), 1u);
  EXPECT_EQ(parsed["brains"][0]["brain"], "keyvault");
  EXPECT_EQ(parsed["omitted"], 1);  // keyvault/north
  HttpRequest zipped = some;
  zipped.accepts_gzip = true;
  const HttpResponse zipped_response = handlers_.Brains(zipped);
  EXPECT_EQ(zipped_response.content_encoding, "gzip");
  EXPECT_EQ(zipped_response.headers.at("Vary"), "Accept-Encoding");
  EXPECT_EQ(Gunzip(zipped_response), BodyOf(response));

  const HttpResponse two =
      handlers_.Brains(WithParams(Get("/api/v1/brains"), {{"state", "mismatch,absent"}}));
  const nlohmann::json both = nlohmann::json::parse(BodyOf(two));
  ASSERT_EQ(both["brains"].size(), 2u);
  EXPECT_EQ(both["brains"][0]["brain"], "empty");
  EXPECT_EQ(both["brains"][1]["brain"], "m1nd");
  EXPECT_FALSE(both.contains("omitted"));

  ExpectError(handlers_.Brains(WithParams(Get("/api/v1/brains"), {{"state", "stale"}})), 400,
              std::string("unknown state \"stale\": ") + kValidStates);
  ExpectError(handlers_.Brains(WithParams(Get("/api/v1/brains"), {{"limit", "-1"}})), 400,
              "bad limit \"-1\": want an integer, 0 or more (0: no limit)");
  // Other parameters change nothing: the snapshot's own copy.
  EXPECT_EQ(
      handlers_.Brains(WithParams(Get("/api/v1/brains"), {{"pretty", "1"}})).shared_body.get(),
      &snapshot->brains_json());
}

// A filtered view's body holds one of kMaxFilteredViews slots until its response is
// done with it; one more filtered view is 503 with Retry-After, rendered never; the
// whole views need no slot; a slot given back serves the next.
TEST_F(HandlersTest, FilteredViewsHeldAtOnceAreBounded) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const HttpRequest page = WithParams(Get("/"), {{"state", "mismatch"}});
  const HttpRequest list = WithParams(Get("/api/v1/brains"), {{"state", "ok"}});
  std::vector<HttpResponse> held;
  for (int i = 0; i < kMaxFilteredViews; ++i) {
    held.push_back(i % 2 == 0 ? handlers_.LandingPage(page) : handlers_.Brains(list));
    ASSERT_EQ(held.back().status, 200) << i;
  }
  for (const HttpResponse& refused : {handlers_.LandingPage(page), handlers_.Brains(list)}) {
    EXPECT_EQ(refused.status, 503);
    EXPECT_EQ(refused.headers.at("Retry-After"), "1");
    EXPECT_NE(std::string(refused.Body()).find("too many filtered views at once"),
              std::string::npos);
  }
  EXPECT_EQ(handlers_.LandingPage(Get("/")).shared_body.get(), &snapshot->landing_page());
  EXPECT_EQ(handlers_.Brains(Get("/api/v1/brains")).status, 200);
  const std::string body(held.front().Body());
  held.erase(held.begin());  // its response sent: the slot comes back
  const HttpResponse again = handlers_.LandingPage(page);
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(std::string(again.Body()), body);
  EXPECT_EQ(handlers_.LandingPage(page).status, 503);
}

TEST_F(HandlersTest, LandingPageTakesAStateFilter) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const HttpRequest mismatches = WithParams(Get("/"), {{"state", "mismatch"}});
  const HttpResponse page = handlers_.LandingPage(mismatches);
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(page.headers.at("Vary"), "Accept-Encoding");
  const std::string html = BodyOf(page);
  EXPECT_NE(html.find("data-brain=\"m1nd\""), std::string::npos);
  EXPECT_EQ(html.find("data-brain=\"keyvault\""), std::string::npos);
  EXPECT_NE(html.find("id=\"filter\""), std::string::npos);
  HttpRequest zipped = mismatches;
  zipped.accepts_gzip = true;
  const HttpResponse zipped_page = handlers_.LandingPage(zipped);
  EXPECT_EQ(zipped_page.content_encoding, "gzip");
  EXPECT_EQ(Gunzip(zipped_page), html);
  ExpectError(handlers_.LandingPage(WithParams(Get("/"), {{"state", "OK"}})), 400,
              std::string("unknown state \"OK\": ") + kValidStates);
  ExpectError(handlers_.LandingPage(WithParams(Get("/"), {{"limit", "x"}})), 400,
              "bad limit \"x\": want an integer, 0 or more (0: no limit)");
  EXPECT_EQ(handlers_.LandingPage(Get("/")).shared_body.get(), &snapshot->landing_page());
}

TEST_F(HandlersTest, OneBrainServesItsViewsAndA404JsonForNoBrain) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const std::vector<BrainReport>& brains = snapshot->brains();
  const auto brain = [&brains](const std::string& name) -> const BrainReport& {
    for (const BrainReport& report : brains) {
      if (report.brain().name == name) return report;
    }
    ADD_FAILURE() << "no " << name;
    return brains.front();
  };

  const HttpResponse m1nd = handlers_.OneBrain(Get("/api/v1/brains/m1nd"));
  EXPECT_EQ(m1nd.status, 200);
  EXPECT_EQ(m1nd.content_type, "application/json");
  EXPECT_EQ(BodyOf(m1nd), BrainDetailView(brain("m1nd"), snapshot->scanned_at()));

  const HttpResponse north = handlers_.OneBrain(Get("/api/v1/brains/m1nd/north"));
  EXPECT_EQ(north.status, 200);
  EXPECT_EQ(BodyOf(north), BrainNorthView(brain("m1nd")));

  // A brain named "keyvault/north" is served as itself, not as keyvault's north view.
  const HttpResponse literal = handlers_.OneBrain(Get("/api/v1/brains/keyvault/north"));
  EXPECT_EQ(BodyOf(literal), BrainDetailView(brain("keyvault/north"), snapshot->scanned_at()));

  for (const char* name : {"nope", "nope/north", "/north", "M1ND", "m1nd/", ""}) {
    ExpectError(handlers_.OneBrain(Get(std::string("/api/v1/brains/") + name)), 404,
                std::string("no brain named \"") + name + "\"", name);
  }
  EXPECT_EQ(BodyOf(handlers_.OneBrain(Get("/api/v1/brains/a\"b"))),
            "{\"status\":\"error\",\"errorType\":\"not_found\",\"error\":\"no brain named "
            "\\\"a\\\"b\\\"\"}\n");
}

// A name too long for a label is shown cut (kMaxLabelValueBytes, then a marker), in
// /metrics and in the JSON views alike: the brain is found by that label too.
TEST_F(HandlersTest, ABrainWhoseNameIsCutIsFoundByTheLabelShown) {
  auto scan = std::make_shared<ScanResult>(*Scan());
  const std::string name(kMaxLabelValueBytes + 100, 'n');
  scan->brains.push_back(WithVerdict(name, name));
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan(scan);
  const BrainReport* report = nullptr;
  for (const BrainReport& brain : snapshot->brains()) {
    if (brain.brain().name == name) report = &brain;
  }
  ASSERT_NE(report, nullptr);
  const std::string label = SanitizedLabelValue(name);
  ASSERT_NE(label, name);
  EXPECT_NE(BodyOf(handlers_.Metrics(Get("/metrics"))).find("brain=\"" + label + "\""),
            std::string::npos);
  EXPECT_NE(BodyOf(handlers_.Brains(Get("/api/v1/brains"))).find("\"" + label + "\""),
            std::string::npos);
  for (const std::string& asked : {name, label}) {
    const HttpResponse found = handlers_.OneBrain(Get("/api/v1/brains/" + asked));
    EXPECT_EQ(found.status, 200) << asked.size();
    EXPECT_TRUE(BodyOf(found) == BrainDetailView(*report, snapshot->scanned_at()));
    const HttpResponse north = handlers_.OneBrain(Get("/api/v1/brains/" + asked + "/north"));
    EXPECT_EQ(north.status, 200) << asked.size();
    EXPECT_TRUE(BodyOf(north) == BrainNorthView(*report));
  }
  EXPECT_EQ(handlers_.OneBrain(Get("/api/v1/brains/" + label.substr(1))).status, 404);
}

TEST_F(HandlersTest, ReadyOnceTheFirstScanHasCompleted) {
  CompleteScan();
  const HttpResponse ready = handlers_.Ready();
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(BodyOf(ready), "Ready");
}

TEST_F(HandlersTest, ReloadAnswersWithTheResultOfTheLoadItStarted) {
  const HttpResponse done = handlers_.Reload(Post("/-/reload"));
  EXPECT_EQ(done.status, 200);
  EXPECT_EQ(BodyOf(done), "Config reloaded.\n");
  EXPECT_EQ(reloads_.last_trigger, "http");
  EXPECT_EQ(reloads_.waited_for, 7u);
  EXPECT_EQ(reloads_.wait, Handlers::kReloadAnswerWait);

  reloads_.outcome = ReloadOutcome{false, "/etc/scx/config.yml: line 3: bad \"key\""};
  ExpectError(handlers_.Reload(Post("/-/reload")), 500,
              "reload failed: /etc/scx/config.yml: line 3: bad \"key\"");
}

TEST_F(HandlersTest, ReloadIs202WhenItJoinsAQueuedLoadOrTheLoadIsSlow) {
  const std::string queued =
      "Reload queued; its result shows in "
      "skeleton_coherence_exporter_config_last_reload_successful and the log.\n";
  reloads_.ticket = ReloadTicket{8, /*immediate=*/false};
  const HttpResponse joined = handlers_.Reload(Post("/-/reload"));
  EXPECT_EQ(joined.status, 202);
  EXPECT_EQ(BodyOf(joined), queued);
  EXPECT_EQ(reloads_.waited_for, 0u);  // nothing of its own to wait for

  reloads_.ticket = ReloadTicket{9, /*immediate=*/true};
  reloads_.outcome.reset();  // not finished in time
  const HttpResponse slow = handlers_.Reload(Post("/-/reload"));
  EXPECT_EQ(slow.status, 202);
  EXPECT_EQ(BodyOf(slow), queued);
  EXPECT_EQ(reloads_.waited_for, 9u);
}

TEST_F(HandlersTest, ReloadRefusals) {
  const HttpResponse get = handlers_.Reload(Get("/-/reload"));
  ExpectError(get, 405, "only POST reloads the config");
  EXPECT_EQ(get.headers.at("Allow"), "POST");
  EXPECT_EQ(reloads_.requests, 0);

  reloads_.ticket = ReloadTicket{0, false};  // the reloader has stopped
  ExpectError(handlers_.Reload(Post("/-/reload")), 503, "shutting down");

  Handlers without_lifecycle(&snapshots_, &own_, &reloads_, /*enable_lifecycle=*/false);
  ExpectError(without_lifecycle.Reload(Post("/-/reload")), 403, "lifecycle API is not enabled");
  EXPECT_EQ(reloads_.requests, 1);  // only the one that reached the reloader
}

TEST_F(HandlersTest, OverHttpEveryPendingAnswerIsTheSameBytes) {
  const int port = Serve();
  for (const char* path : {"/metrics", "/api/v1/brains", "/api/v1/brains/m1nd", "/-/ready"}) {
    const HttpResult result = HttpGet(port, path, {{"Accept-Encoding", "gzip"}});
    ASSERT_TRUE(result.ok) << path << ": " << result.error;
    EXPECT_EQ(result.status, 503) << path;
    EXPECT_EQ(result.Header("Content-Type"), "application/json") << path;
    EXPECT_EQ(result.Header("Content-Encoding"), "") << path;
    EXPECT_EQ(result.body, kPendingBody) << path;
  }
  const HttpResult head = HttpGet(port, "/metrics", {}, "HEAD");
  EXPECT_EQ(head.status, 503);
  EXPECT_EQ(head.Header("Content-Length"), std::to_string(std::string(kPendingBody).size()));
  EXPECT_EQ(head.body, "");
  EXPECT_EQ(HttpGet(port, "/-/healthy").body, "Healthy");
  EXPECT_EQ(HttpGet(port, "/").status, 200);
  EXPECT_EQ(HttpGet(port, "/runbook").status, 200);  // no scan needed
}

TEST_F(HandlersTest, OverHttpRoutesAndErrorsAfterTheFirstScan) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const int port = Serve("/custom/metrics");

  const HttpResult plain = HttpGet(port, "/custom/metrics");
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(WithoutInFlight(plain.body), WithoutInFlight(snapshot->MetricsText() + own_.Text()));
  EXPECT_EQ(plain.Header("Vary"), "Accept, Accept-Encoding");
  const HttpResult zipped = HttpGet(port, "/custom/metrics", {{"Accept-Encoding", "gzip"}});
  EXPECT_EQ(zipped.Header("Content-Encoding"), "gzip");
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(zipped.body, &unzipped));
  EXPECT_EQ(WithoutInFlight(unzipped), WithoutInFlight(snapshot->MetricsText() + own_.Text()));
  // The Accept header reaches the handler: Prometheus' asks for OpenMetrics.
  const HttpResult openmetrics = HttpGet(
      port, "/custom/metrics",
      {{"Accept",
        "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
        "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"}});
  EXPECT_EQ(openmetrics.Header("Content-Type"),
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(WithoutInFlight(openmetrics.body),
            WithoutInFlight(snapshot->MetricsText(ExpositionFormat::kOpenMetrics) +
                            own_.Text(ExpositionFormat::kOpenMetrics) + "# EOF\n"));
  EXPECT_EQ(HttpGet(port, "/metrics").status, 404);  // only the telemetry path given

  EXPECT_EQ(HttpGet(port, "/api/v1/brains").body, snapshot->brains_json());
  EXPECT_EQ(HttpGet(port, "/api/v1/brains/m1nd/north").status, 200);
  const HttpResult missing = HttpGet(port, "/api/v1/brains/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.Header("Content-Type"), "application/json");
  EXPECT_EQ(missing.body, ErrorBody(404, "no brain named \"nope\""));
  EXPECT_EQ(HttpGet(port, "/-/ready").body, "Ready");
  EXPECT_EQ(HttpGet(port, "/").body, snapshot->landing_page());

  // /-/reload: GET reaches the handler (405, Allow: POST), PUT is refused by the server.
  const HttpResult get = HttpGet(port, "/-/reload");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.Header("Allow"), "POST");
  EXPECT_EQ(get.body, ErrorBody(405, "only POST reloads the config"));
  const HttpResult put = HttpGet(port, "/-/reload", {}, "PUT");
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.Header("Allow"), "GET, HEAD, POST");
  EXPECT_EQ(put.body, ErrorBody(405, "method not allowed"));
  const HttpResult post = HttpGet(port, "/-/reload", {}, "POST");
  EXPECT_EQ(post.status, 200);
  EXPECT_EQ(post.body, "Config reloaded.\n");

  // The server's own refusals have the handlers' shape.
  const HttpResult unknown = HttpGet(port, "/nope");
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.Header("Content-Type"), "application/json");
  EXPECT_EQ(unknown.body, ErrorBody(404, "not found"));
}

// Rendered at build time from the runbook of the tree, not from an older copy.
TEST(RunbookTest, TheBinaryHoldsTheTreesRunbook) {
  EXPECT_EQ(RunbookHtml(),
            MarkdownFragment(testing::ReadFile(std::string(SCX_SOURCE_DIR) + "/docs/runbook.md")));
}

TEST(RunbookTest, IsOneSharedHtmlPage) {
  const HttpResponse first = Handlers::Runbook();
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(first.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(first.Body().rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_NE(first.Body().find("<h1 id=\"runbook\">Runbook</h1>"), std::string::npos);
  EXPECT_EQ(Handlers::Runbook().shared_body, first.shared_body);  // rendered once
}

// Every section linked to, from the alerts (their runbook_url), the dashboards, the
// landing page and the runbook itself, is an id of the page served at /runbook.
TEST(RunbookTest, EverySectionLinkedToIsAnIdOfThePage) {
  const std::string page(Handlers::Runbook().Body());
  const std::set<std::string> ids = Matches(page, " id=\"([^\"]+)\"");
  std::set<std::string> linked;
  for (const std::string& folder :
       std::vector<std::string>{"alerts", "alerts/optional", "dashboards"}) {
    for (const std::string& file : FilesOf(folder, folder == "dashboards" ? ".json" : ".yml")) {
      const std::set<std::string> anchors =
          Matches(testing::ReadFile(file), "/runbook#([A-Za-z0-9_-]+)");
      linked.insert(anchors.begin(), anchors.end());
    }
  }
  EXPECT_GE(linked.size(), 14u);  // one section per alert at least
  for (const char* anchor : {kRunbookMismatch, kRunbookStaleVerdicts, kRunbookUnreadable,
                             kRunbookNoBrains, kRunbookIdentityUnknown}) {
    linked.insert(anchor);
  }
  const std::set<std::string> own = Matches(page, "href=\"#([^\"]+)\"");
  EXPECT_FALSE(own.empty());
  linked.insert(own.begin(), own.end());
  for (const std::string& anchor : linked) EXPECT_EQ(ids.count(anchor), 1u) << anchor;
}

// The HTML pages are never sniffed and allow no code but their own: the policy names
// the hashes of exactly the inline style and script the page serves (a page changed
// without its policy would fail here, and in Chromium: landing_page_browser). JSON is
// never sniffed either.
TEST_F(HandlersTest, HtmlPagesAllowOnlyTheirOwnInlineStyleAndScript) {
  CompleteScan();
  // The text between `open` and `close` in `html`.
  const auto inner = [](const std::string& html, const std::string& open,
                        const std::string& close) {
    const std::size_t start = html.find(open);
    if (start == std::string::npos) return std::string("(no " + open + ")");
    const std::size_t end = html.find(close, start);
    return html.substr(start + open.size(), end - start - open.size());
  };
  for (const HttpRequest& request : {Get("/"), WithParams(Get("/"), {{"state", "mismatch"}})}) {
    const HttpResponse page = handlers_.LandingPage(request);
    const std::string html = BodyOf(page);
    EXPECT_EQ(page.headers.at("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(page.headers.at("Content-Security-Policy"),
              "default-src 'none'; style-src " +
                  InlineSourceHash(inner(html, "<style>", "</style>")) + "; script-src " +
                  InlineSourceHash(inner(html, "<script>", "</script>")) +
                  "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  }
  const HttpResponse runbook = Handlers::Runbook();
  EXPECT_EQ(runbook.headers.at("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(runbook.headers.at("Content-Security-Policy"),
            "default-src 'none'; style-src " +
                InlineSourceHash(inner(std::string(runbook.Body()), "<style>", "</style>")) +
                "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
  EXPECT_EQ(std::string(runbook.Body()).find("<script"), std::string::npos);
  EXPECT_EQ(handlers_.Brains(Get("/api/v1/brains")).headers.at("X-Content-Type-Options"),
            "nosniff");
}

TEST_F(HandlersTest, OverHttpTheRunbookIsGetAndHeadOnly) {
  const int port = Serve();
  const std::string page(Handlers::Runbook().Body());
  const HttpResult get = HttpGet(port, "/runbook");
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.Header("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(get.body, page);
  const HttpResult head = HttpGet(port, "/runbook", {}, "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.Header("Content-Length"), std::to_string(page.size()));
  EXPECT_EQ(head.body, "");
  const HttpResult post = HttpGet(port, "/runbook", {}, "POST");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(post.Header("Allow"), "GET, HEAD");
  EXPECT_EQ(post.body, ErrorBody(405, "method not allowed"));
  EXPECT_EQ(HttpGet(port, "/runbook/").status, 404);
}

// A --web.telemetry-path of /runbook, allowed before /runbook existed, keeps the metrics.
TEST_F(HandlersTest, ATelemetryPathOfRunbookStillServesTheMetrics) {
  const std::shared_ptr<const Snapshot> snapshot = CompleteScan();
  const int port = Serve("/runbook");
  EXPECT_EQ(WithoutInFlight(HttpGet(port, "/runbook").body),
            WithoutInFlight(snapshot->MetricsText() + own_.Text()));
}

}  // namespace
}  // namespace scx
