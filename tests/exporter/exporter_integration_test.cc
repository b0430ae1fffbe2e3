// The real exporter binary over a temporary m1nd layout, scraped over HTTP: the
// incident series, a fix by atomic rename, a torn store, reloads (SIGHUP and
// POST /-/reload, bad and good, opt-in, coalesced, never blocking), gzip, 404,
// promtool on a live scrape, socket activation, and a clean exit on SIGTERM.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "exporter/metrics/gzip.h"
#include "tests/http_client.h"
#include "tests/test_process.h"
#include "tests/test_support.h"
#include "tests/text_lines.h"

namespace scx {
namespace {

using Json = nlohmann::json;
using std::chrono::milliseconds;
using testing::HasLine;
using testing::HttpFetch;
using testing::HttpGet;
using testing::HttpResult;
using testing::ReadFile;
using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::TempDir;
using testing::TestProcess;
using testing::WaitFor;
using testing::WriteFile;

constexpr char kIncidentLine[] =
    "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"keyvault\"} 0";
constexpr char kFixedLine[] =
    "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"m1nd\"} 1";
constexpr char kHealthyLine[] =
    "skeleton_coherence{brain=\"keyvault\",expected_slug=\"keyvault\",found_slug=\"keyvault\"} 1";
constexpr milliseconds kScanInterval{200};
// Generous bounds: every wait ends long before the test timeout, even under ASan.
constexpr milliseconds kStartupTimeout{10000};
constexpr milliseconds kChangeTimeout{5000};
// Reloads start at least this far apart (ConfigReloader::kDefaultMinSpacing); a
// test that wants the answer of its own reload waits this long after the last one.
constexpr milliseconds kReloadSpacing{1100};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string BrainYaml(const std::string& name, const std::string& runtime_dir) {
  return "  - name: " + name + "\n    project_root: /home/dev/" + name +
         "\n    runtime_dir: " + runtime_dir + "\n";
}

class ExporterIntegrationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.Join("brains/m1nd/system_blocks.json"),
              StoreJson("sk_keyvault_candidate", {"sb_keyvault_core", "sb_keyvault_vault"}));
    WriteFile(dir_.Join("brains/keyvault/system_blocks.json"),
              StoreJson("sk_keyvault_candidate", {"sb_keyvault_core"}, 3));
    testing::MakeDirs(dir_.Join("brains/empty"));
    WriteFile(ConfigPath(), ConfigYaml({"m1nd", "keyvault", "empty"}));
    port_ = testing::FindFreePort();
    ASSERT_GT(port_, 0);
    StartExporter();
  }

  void TearDown() override {
    exporter_.Stop();
    const std::string log = ReadFile(LogPath());
    // In a sanitizer build, a report from the exporter process fails the test too.
    EXPECT_FALSE(Contains(log, "Sanitizer")) << log;
    EXPECT_FALSE(Contains(log, "runtime error:")) << log;
    if (HasFailure()) std::cerr << "exporter log:\n" << log;
  }

  std::string ConfigPath() const { return dir_.Join("config.yml"); }
  std::string LogPath() const { return dir_.Join("exporter.log"); }

  std::string ConfigYaml(const std::vector<std::string>& names) const {
    std::string yaml = "scan_interval: 200ms\nm1nd_registries: []\nbrains:\n";
    for (const std::string& name : names) yaml += BrainYaml(name, dir_.Join("brains/" + name));
    return yaml;
  }

  void StartExporter() {
    std::string error;
    ASSERT_TRUE(exporter_.Start(SCX_EXPORTER_BINARY, Args(), LogPath(), &error)) << error;
    ASSERT_TRUE(WaitFor([&] { return HttpGet(port_, "/-/ready").status == 200; }, kStartupTimeout))
        << ReadFile(LogPath());
  }

  std::vector<std::string> Args() const {
    std::vector<std::string> args = {"--config.file=" + ConfigPath(),
                                     "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                     "--log.level=debug"};
    args.insert(args.end(), extra_args_.begin(), extra_args_.end());
    return args;
  }

  // Stops the exporter and starts it again with `extra` flags.
  void RestartWith(const std::vector<std::string>& extra) {
    exporter_.Stop();
    extra_args_ = extra;
    StartExporter();
  }

  std::string Scrape() {
    HttpResult result = HttpGet(port_, "/metrics");
    EXPECT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.status, 200);
    return result.body;
  }

  // Scrapes until `predicate(text)` holds or the bound passes; returns the last text.
  template <typename Predicate>
  std::string ScrapeUntil(Predicate predicate) {
    std::string text;
    WaitFor(
        [&] {
          text = Scrape();
          return predicate(text);
        },
        kChangeTimeout);
    return text;
  }

  HttpResult PostReload() {
    testing::HttpClientRequest request;
    request.method = "POST";
    request.path = "/-/reload";
    return HttpFetch(port_, request);
  }

  // Loads so far, by the reload counters (success + failure).
  int ReloadCount() {
    const std::string text = Scrape();
    int total = 0;
    for (const char* result : {"success", "failure"}) {
      const std::string prefix =
          std::string("skeleton_coherence_exporter_config_reloads_total{result=\"") + result +
          "\"} ";
      const std::size_t at = ("\n" + text).find("\n" + prefix);
      EXPECT_NE(at, std::string::npos) << text;
      if (at != std::string::npos) total += std::stoi(text.substr(at + prefix.size()));
    }
    return total;
  }

  TempDir dir_;
  int port_ = 0;
  std::vector<std::string> extra_args_ = {"--web.enable-lifecycle"};
  TestProcess exporter_;
};

TEST_F(ExporterIntegrationTest, ServesTheIncident) {
  HttpResult result = HttpGet(port_, "/metrics");
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.status, 200);
  EXPECT_EQ(result.Header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  const std::string& text = result.body;
  EXPECT_TRUE(HasLine(text, kIncidentLine)) << text;
  EXPECT_TRUE(HasLine(text, kHealthyLine)) << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"empty\",state=\"absent\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_store_blocks{brain=\"m1nd\"} 2"));
  // Fresh verdicts have no stale series; the store details are off by default.
  EXPECT_FALSE(Contains(text, "skeleton_coherence_stale{"));
  EXPECT_FALSE(Contains(text, "skeleton_coherence_store_version{"));
  EXPECT_FALSE(Contains(text, "skeleton_coherence_store_read_errors_total{"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_store_read_errors_total{reason=\"parse\"} 0"));
  // The empty store is silent: no verdict series at all.
  EXPECT_FALSE(Contains(text, "skeleton_coherence{brain=\"empty\""));
  EXPECT_FALSE(Contains(text, "skeleton_coherence_stale{brain=\"empty\""));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_scan_interval_seconds 0.2"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_config_last_reload_successful 1"));
  // The incident is logged once, at warn.
  EXPECT_TRUE(Contains(ReadFile(LogPath()),
                       "level=warn msg=\"brain discovered\" brain=m1nd to=mismatch "
                       "expected_slug=m1nd found_slug=keyvault"));
}

TEST_F(ExporterIntegrationTest, LiveScrapePassesPromtool) {
  if (!testing::ToolAvailable("promtool")) GTEST_SKIP() << "promtool not installed";
  int status = -1;
  const std::string output = testing::RunShellCommand("promtool check metrics", Scrape(), &status);
  EXPECT_EQ(output, "");
  EXPECT_EQ(status, 0);
}

TEST_F(ExporterIntegrationTest, ProcessMetricsAreThisProcesssOwn) {
  const std::string text = Scrape();
  for (const char* name : {"process_cpu_seconds_total", "process_resident_memory_bytes",
                           "process_virtual_memory_bytes", "process_start_time_seconds",
                           "process_open_fds", "process_max_fds"}) {
    EXPECT_TRUE(Contains(text, std::string("\n") + name + " ")) << name;
  }
  // The exporter was started within the last minute.
  const size_t at = text.find("\nprocess_start_time_seconds ");
  ASSERT_NE(at, std::string::npos);
  const double start = std::stod(text.substr(at + 28));
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_GT(start, now - 60);
  EXPECT_LE(start, now + 1);
}

TEST_F(ExporterIntegrationTest, DisableExporterMetricsKeepsOnlyTheBrainSeries) {
  RestartWith({"--web.disable-exporter-metrics"});
  const std::string text = Scrape();
  EXPECT_TRUE(HasLine(text, kIncidentLine)) << text;
  EXPECT_TRUE(Contains(text, "\nskeleton_coherence_brain_state{"));
  EXPECT_FALSE(Contains(text, "skeleton_coherence_exporter_")) << text;
  EXPECT_FALSE(Contains(text, "process_")) << text;
}

TEST_F(ExporterIntegrationTest, EveryListenAddressServesTheSameMetrics) {
  const int second = testing::FindFreePort();
  ASSERT_GT(second, 0);
  RestartWith({"--web.listen-address=127.0.0.1:" + std::to_string(second), "--web.max-requests=1"});
  const std::string first_text = Scrape();
  EXPECT_TRUE(HasLine(first_text, kIncidentLine)) << first_text;
  // The first scrape's slot is freed just after its response is sent: under load the
  // next request can still find it taken (503), so it may try again for a while.
  HttpResult other = HttpGet(second, "/metrics");
  for (int attempt = 0; other.status == 503 && attempt < 40; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    other = HttpGet(second, "/metrics");
  }
  EXPECT_EQ(other.status, 200) << other.error;
  EXPECT_TRUE(HasLine(other.body, kIncidentLine)) << other.body;
  EXPECT_EQ(HttpGet(second, "/-/ready").status, 200);
  const std::string log = ReadFile(LogPath());
  EXPECT_TRUE(Contains(log, "msg=listening address=127.0.0.1:" + std::to_string(port_))) << log;
  EXPECT_TRUE(Contains(log, "msg=listening address=127.0.0.1:" + std::to_string(second))) << log;
}

TEST_F(ExporterIntegrationTest, FixingTheStoreFlipsToOkWithinAScan) {
  ReplaceFileAtomically(dir_.Join("brains/m1nd/system_blocks.json"),
                        StoreJson("sk_m1nd_candidate", {"sb_m1nd_core"}, 2));
  const auto fixed_at = std::chrono::steady_clock::now();
  const std::string text = ScrapeUntil([](const std::string& t) { return HasLine(t, kFixedLine); });
  EXPECT_TRUE(HasLine(text, kFixedLine)) << text;
  EXPECT_FALSE(HasLine(text, kIncidentLine)) << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"ok\"} 1"));
  // Within one interval (plus slack for a loaded machine).
  EXPECT_LT(std::chrono::steady_clock::now() - fixed_at, kScanInterval * 10);
}

// Instant detection: with a one-minute timer, a store renamed into place still shows
// within a second or so, because inotify starts a scan at once.
TEST_F(ExporterIntegrationTest, AChangeShowsAtOnceWithALongInterval) {
  RestartWith({"--scan.interval=60s"});
  EXPECT_TRUE(HasLine(Scrape(), "skeleton_coherence_exporter_watch_limited 0"));
  ReplaceFileAtomically(dir_.Join("brains/m1nd/system_blocks.json"),
                        StoreJson("sk_m1nd_candidate", {"sb_m1nd_core"}, 2));
  const auto fixed_at = std::chrono::steady_clock::now();
  const std::string text = ScrapeUntil([](const std::string& t) { return HasLine(t, kFixedLine); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - fixed_at).count();
  std::cout << "write-to-metric with a 60 s scan interval: " << seconds << " s\n";
  EXPECT_TRUE(HasLine(text, kFixedLine)) << text;
  EXPECT_LT(seconds, 10.0);  // the timer alone would take up to 60 s
  EXPECT_FALSE(HasLine(text, "skeleton_coherence_exporter_watched_dirs 0")) << text;
  EXPECT_FALSE(HasLine(text, "skeleton_coherence_exporter_watch_triggered_scans_total 0"));
}

// Without the watches only the timer sees it: the check above can fail.
TEST_F(ExporterIntegrationTest, WithoutWatchesOnlyTheTimerSeesAChange) {
  RestartWith({"--scan.interval=60s", "--scan.watch=false"});
  ReplaceFileAtomically(dir_.Join("brains/m1nd/system_blocks.json"),
                        StoreJson("sk_m1nd_candidate", {"sb_m1nd_core"}, 2));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::string text = Scrape();
  EXPECT_TRUE(HasLine(text, kIncidentLine)) << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_watched_dirs 0")) << text;
}

TEST_F(ExporterIntegrationTest, TornStoreKeepsTheLastVerdictAsStale) {
  RestartWith({"--metrics.store-details"});
  EXPECT_TRUE(
      HasLine(Scrape(),
              "skeleton_coherence_store_read_errors_total{brain=\"keyvault\",reason=\"parse\"} 0"));
  WriteFile(dir_.Join("brains/keyvault/system_blocks.json"), "{\"schema\": \"m1nd-system-blo");
  const std::string text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_stale{brain=\"keyvault\"} 1");
  });
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_stale{brain=\"keyvault\"} 1")) << text;
  EXPECT_TRUE(HasLine(text, kHealthyLine)) << text;
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"keyvault\",state=\"unreadable\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_store_version{brain=\"keyvault\"} 3"));
  const std::string prefix =
      "skeleton_coherence_store_read_errors_total{brain=\"keyvault\",reason=\"parse\"} ";
  const std::size_t at = ("\n" + text).find("\n" + prefix);
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_GE(std::stod(text.substr(at + prefix.size())), 1.0);
  // The exporter's own count by reason has them too.
  const std::string own = "skeleton_coherence_exporter_store_read_errors_total{reason=\"parse\"} ";
  const std::size_t own_at = ("\n" + text).find("\n" + own);
  ASSERT_NE(own_at, std::string::npos) << text;
  EXPECT_GE(std::stod(text.substr(own_at + own.size())), 1.0);
}

TEST_F(ExporterIntegrationTest, BadReloadsKeepServingAndAGoodOneApplies) {
  WriteFile(ConfigPath(), "scan_interval: [not a duration\n");
  exporter_.Signal(SIGHUP);
  std::string text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 1");
  });
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 1"))
      << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_config_last_reload_successful 0"));
  EXPECT_TRUE(HasLine(text, kIncidentLine));  // the old config still runs
  EXPECT_TRUE(Contains(ReadFile(LogPath()), "level=error msg=\"config reload failed\""));

  std::this_thread::sleep_for(kReloadSpacing);  // else the POST joins a queued reload: 202
  HttpResult reload = PostReload();
  EXPECT_EQ(reload.status, 500);
  EXPECT_TRUE(Contains(reload.body, "config.yml")) << reload.body;
  text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 2");
  });
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 2"));
  EXPECT_TRUE(HasLine(text, kHealthyLine));

  // A good config: "empty" is dropped.
  WriteFile(ConfigPath(), ConfigYaml({"m1nd", "keyvault"}));
  std::this_thread::sleep_for(kReloadSpacing);
  reload = PostReload();
  EXPECT_EQ(reload.status, 200) << reload.body;
  text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 1") &&
           !Contains(t, "brain=\"empty\"");
  });
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 1"))
      << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_config_last_reload_successful 1"));
  EXPECT_FALSE(Contains(text, "brain=\"empty\""));
  EXPECT_TRUE(HasLine(text, kIncidentLine));

  // And by SIGHUP too.
  WriteFile(ConfigPath(), ConfigYaml({"keyvault"}));
  exporter_.Signal(SIGHUP);
  text = ScrapeUntil([](const std::string& t) { return !Contains(t, "brain=\"m1nd\""); });
  EXPECT_FALSE(Contains(text, "brain=\"m1nd\"")) << text;
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 2"));
}

// A config path that became a directory fails the reload; the static brains stay.
TEST_F(ExporterIntegrationTest, ReloadOfADirectoryFailsAndKeepsTheBrains) {
  ASSERT_EQ(std::rename(ConfigPath().c_str(), dir_.Join("config.yml.saved").c_str()), 0);
  testing::MakeDirs(ConfigPath());
  HttpResult reload = PostReload();
  EXPECT_EQ(reload.status, 500);
  EXPECT_TRUE(Contains(reload.body, ConfigPath() + ": cannot read: is a directory")) << reload.body;
  exporter_.Signal(SIGHUP);
  const std::string text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 2");
  });
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 2"))
      << text;
  EXPECT_TRUE(HasLine(text, kIncidentLine));
  EXPECT_TRUE(HasLine(text, kHealthyLine));
}

// A FIFO in place of the config is refused at once: the reload never waits for a
// writer, and the next scrape is served.
TEST_F(ExporterIntegrationTest, ReloadOfAFifoFailsAtOnce) {
  ASSERT_EQ(std::rename(ConfigPath().c_str(), dir_.Join("config.yml.saved").c_str()), 0);
  ASSERT_EQ(mkfifo(ConfigPath().c_str(), 0600), 0);
  const HttpResult reload = testing::CallWithin(milliseconds(3000), "POST /-/reload of a FIFO",
                                                [&] { return PostReload(); });
  EXPECT_EQ(reload.status, 500);
  EXPECT_TRUE(Contains(reload.body, ConfigPath() + ": cannot read: is a FIFO")) << reload.body;
  EXPECT_TRUE(HasLine(Scrape(), kIncidentLine));
}

// Config management that empties the file before writing it again: a reload then
// must not read it as the defaults, or the brains it names vanish and their alerts
// resolve.
TEST_F(ExporterIntegrationTest, ReloadOfAnEmptiedConfigFailsAndKeepsTheBrains) {
  WriteFile(ConfigPath(), "");
  exporter_.Signal(SIGHUP);
  const std::string text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 1");
  });
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"failure\"} 1"))
      << text;
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_exporter_config_last_reload_successful 0"));
  EXPECT_TRUE(HasLine(text, kIncidentLine));
  EXPECT_TRUE(HasLine(text, kHealthyLine));
  const std::string log = ReadFile(LogPath());
  EXPECT_TRUE(Contains(log, "level=error msg=\"config reload failed\" trigger=SIGHUP")) << log;
  EXPECT_TRUE(Contains(log, ConfigPath() + ": config file is empty")) << log;

  // Comments and blanks only are empty too.
  WriteFile(ConfigPath(), "# brains:\n\n   \n");
  std::this_thread::sleep_for(kReloadSpacing);
  const HttpResult reload = PostReload();
  EXPECT_EQ(reload.status, 500);
  EXPECT_TRUE(Contains(reload.body, ConfigPath() + ": config file is empty")) << reload.body;
  EXPECT_TRUE(HasLine(Scrape(), kIncidentLine));
}

TEST_F(ExporterIntegrationTest, ReloadOverHttpIsRefusedWithoutEnableLifecycle) {
  RestartWith({});
  const HttpResult reload = PostReload();
  EXPECT_EQ(reload.status, 403);
  EXPECT_EQ(reload.body,
            "{\"status\":\"error\",\"errorType\":\"forbidden\",\"error\":\"lifecycle API is "
            "not enabled\"}\n");
  exporter_.Signal(SIGHUP);  // SIGHUP reloads either way
  const std::string text = ScrapeUntil([](const std::string& t) {
    return HasLine(t, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 1");
  });
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 1"))
      << text;
}

// 100 POSTs from 4 clients at once: each answered at once (200 for the one that
// started a load, 202 for those that joined the queued one), and the loads are
// bounded by the spacing: at most two, plus one per second the burst lasted.
TEST_F(ExporterIntegrationTest, ABurstOfReloadsIsCoalesced) {
  const int before = ReloadCount();
  std::atomic<int> answered{0};
  std::atomic<int> other{0};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c) {
    clients.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        const int status = PostReload().status;
        (status == 200 || status == 202 ? answered : other)++;
      }
    });
  }
  for (std::thread& client : clients) client.join();
  const auto burst_ms =
      std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(answered, 100);
  EXPECT_EQ(other, 0);
  std::this_thread::sleep_for(kReloadSpacing);  // the queued load runs
  const int loads = ReloadCount() - before;
  std::cout << "100 POST /-/reload in " << burst_ms << " ms caused " << loads << " loads\n";
  RecordProperty("burst_loads", loads);
  EXPECT_GE(loads, 1);
  EXPECT_LE(loads, 2 + static_cast<int>(burst_ms / 1000));
}

// A stop while reloads keep arriving (one running, one queued) still exits within a
// second.
TEST_F(ExporterIntegrationTest, SigtermDuringReloadsExitsWithinASecond) {
  std::atomic<bool> stop_posting{false};
  std::thread client([&] {
    while (!stop_posting) PostReload();
  });
  exporter_.Signal(SIGHUP);
  ASSERT_TRUE(WaitFor([&] { return Contains(ReadFile(LogPath()), "msg=\"config reloaded\""); },
                      kChangeTimeout));
  const auto signalled_at = std::chrono::steady_clock::now();
  exporter_.Signal(SIGTERM);
  const std::optional<int> status = exporter_.WaitForExit(testing::kStopBound * 3);
  stop_posting = true;
  client.join();
  ASSERT_TRUE(status.has_value()) << "still running long after SIGTERM";
  EXPECT_LT(std::chrono::steady_clock::now() - signalled_at, testing::kStopBound);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

// Per-brain surfaces: Surface A at /api/v1/brains/{brain}, Surface B at .../north, a
// JSON 404 for a name that is no brain (names are matched, never used as paths).
TEST_F(ExporterIntegrationTest, EachBrainHasItsOwnSurfaces) {
  HttpResult one = HttpGet(port_, "/api/v1/brains/m1nd");
  ASSERT_EQ(one.status, 200) << one.error << one.body;
  EXPECT_EQ(one.Header("Content-Type"), "application/json");
  const Json brain = Json::parse(one.body);
  EXPECT_EQ(brain["skeleton_coherence"]["status"], "mismatch");
  EXPECT_EQ(brain["skeleton_coherence"]["found_slug"], "keyvault");
  EXPECT_EQ(brain["skeleton_owner"], "keyvault");
  EXPECT_GT(brain["scanned_at"].get<double>(), 1.7e9);

  const Json north = Json::parse(HttpGet(port_, "/api/v1/brains/m1nd/north").body);
  EXPECT_EQ(north["map"]["coherence"], "mismatch");
  EXPECT_EQ(north["north"]["skeleton_coherence"]["status"], "sick");
  ASSERT_EQ(north["honest_gaps"].size(), 1u);
  EXPECT_NE(north["honest_gaps"][0].get<std::string>().find(
                "serving brain expects slug `m1nd`, but the SystemBlock store carries `keyvault`"),
            std::string::npos);

  const Json healthy = Json::parse(HttpGet(port_, "/api/v1/brains/keyvault/north").body);
  EXPECT_EQ(healthy["map"]["coherence"], "ok");
  EXPECT_TRUE(healthy["honest_gaps"].empty());
  EXPECT_FALSE(healthy.contains("north"));

  const Json empty = Json::parse(HttpGet(port_, "/api/v1/brains/empty").body);
  EXPECT_TRUE(empty["skeleton_coherence"].is_null());
  EXPECT_EQ(empty["honest"], "no skeleton yet \u2014 import a seed or run a scan");

  for (const char* path : {"/api/v1/brains/nope", "/api/v1/brains/m1nd/south", "/api/v1/brains/"}) {
    HttpResult missing = HttpGet(port_, path);
    EXPECT_EQ(missing.status, 404) << path;
    EXPECT_TRUE(Json::parse(missing.body).contains("error")) << path << ": " << missing.body;
  }
  // civetweb decodes and normalises the path first: this one leaves /api/v1/brains/.
  EXPECT_EQ(HttpGet(port_, "/api/v1/brains/%2e%2e%2fm1nd").status, 404);
}

TEST_F(ExporterIntegrationTest, ReloadNeedsPost) {
  HttpResult result = HttpGet(port_, "/-/reload");
  EXPECT_EQ(result.status, 405);
  EXPECT_EQ(result.Header("Allow"), "POST");
  EXPECT_TRUE(
      HasLine(Scrape(), "skeleton_coherence_exporter_config_reloads_total{result=\"success\"} 0"));
}

// The per-brain families of one scan, the text before the exporter's own (which change
// at every scrape: the requests are counted).
std::string PerBrainPart(const std::string& text) {
  return text.substr(0, text.find("# HELP skeleton_coherence_exporter_"));
}

TEST_F(ExporterIntegrationTest, GzipScrapeDecodesToTheSameText) {
  // A scan may land between the two requests (its timestamp changes): retry a few times.
  bool same = false;
  for (int attempt = 0; attempt < 10 && !same; ++attempt) {
    HttpResult zipped = HttpGet(port_, "/metrics", {{"Accept-Encoding", "gzip"}});
    const std::string plain = Scrape();
    ASSERT_TRUE(zipped.ok) << zipped.error;
    EXPECT_EQ(zipped.Header("Content-Encoding"), "gzip");
    EXPECT_TRUE(Contains(zipped.Header("Vary"), "Accept-Encoding"));
    std::string unzipped;
    ASSERT_TRUE(GzipDecompress(zipped.body, &unzipped));  // one member, trailer checked
    EXPECT_TRUE(Contains(unzipped, "\nprocess_start_time_seconds ")) << unzipped;
    same = PerBrainPart(unzipped) == PerBrainPart(plain) && Contains(plain, "\nprocess_max_fds ");
  }
  EXPECT_TRUE(same);
}

// The exporter's own families follow the per-brain ones, and count the scrapes
// themselves; curl --compressed, which reads only the first gzip member of a body,
// gets all of it.
TEST_F(ExporterIntegrationTest, OwnFamiliesFollowAndCountTheScrapes) {
  const std::string requests =
      "skeleton_coherence_exporter_http_requests_total{code=\"200\",handler=\"/metrics\"} ";
  // A request is counted before its response is sent: a scrape shows every one before it.
  // The series exists from the start, at 0, as do the 500 and 503 ones.
  const std::string zeroth = Scrape();
  EXPECT_TRUE(Contains(zeroth, "\n" + requests + "0\n")) << "the first scrape counts itself";
  EXPECT_TRUE(Contains(zeroth,
                       "\nskeleton_coherence_exporter_http_requests_total{code=\"503\","
                       "handler=\"/metrics\"} 0\n"));
  EXPECT_TRUE(Contains(zeroth,
                       "\nskeleton_coherence_exporter_http_requests_total{code=\"200\","
                       "handler=\"/-/healthy\"} 0\n"));
  const std::string first = Scrape();
  const std::size_t own = first.find("# HELP skeleton_coherence_exporter_");
  ASSERT_NE(own, std::string::npos) << first;
  EXPECT_LT(first.rfind("\nskeleton_coherence_brain_state{"), own);
  EXPECT_LT(own, first.find("\nprocess_cpu_seconds_total "));
  EXPECT_TRUE(Contains(first, "\nskeleton_coherence_exporter_scan_seconds_bucket{le=\"+Inf\"} "));
  EXPECT_TRUE(Contains(first, "\nskeleton_coherence_exporter_tls_handshake_failures_total 0\n"));
  EXPECT_EQ(HttpGet(port_, "/nope").status, 404);
  const std::size_t at = first.find("\n" + requests);
  ASSERT_NE(at, std::string::npos) << first;
  const int before = std::stoi(first.substr(at + 1 + requests.size()));
  const std::string second = Scrape();
  EXPECT_TRUE(Contains(second, "\n" + requests + std::to_string(before + 1) + "\n")) << second;
  EXPECT_TRUE(Contains(second,
                       "\nskeleton_coherence_exporter_http_requests_total{code=\"404\","
                       "handler=\"other\"} 1\n"));
  if (!testing::ToolAvailable("curl")) return;
  const std::string curl = testing::RunShellCommand(
      "curl -s --compressed --max-time 5 http://127.0.0.1:" + std::to_string(port_) + "/metrics",
      "", nullptr);
  EXPECT_TRUE(Contains(curl, kIncidentLine));
  EXPECT_TRUE(Contains(curl, "\nskeleton_coherence_exporter_http_requests_total{")) << curl;
  EXPECT_TRUE(Contains(curl, "\nprocess_max_fds "));
}

TEST_F(ExporterIntegrationTest, OtherEndpoints) {
  EXPECT_EQ(HttpGet(port_, "/nope").status, 404);
  HttpResult healthy = HttpGet(port_, "/-/healthy");
  EXPECT_EQ(healthy.status, 200);
  EXPECT_EQ(healthy.body, "Healthy");
  EXPECT_EQ(HttpGet(port_, "/-/ready").body, "Ready");
  HttpResult page = HttpGet(port_, "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(Contains(page.Header("Content-Type"), "text/html"));
  EXPECT_TRUE(
      Contains(page.body, "1 brain serves a foreign skeleton: <span class=\"name\">m1nd</span>"));
  EXPECT_TRUE(Contains(page.body, "<td class=\"brain\">m1nd</td>"));
  EXPECT_TRUE(Contains(
      page.body,
      "<td class=\"slug\">keyvault <span class=\"owner\">(keyvault's skeleton)</span></td>"));
  HttpResult brains = HttpGet(port_, "/api/v1/brains");
  EXPECT_EQ(brains.status, 200);
  EXPECT_TRUE(Contains(brains.Header("Content-Type"), "application/json"));
  EXPECT_TRUE(Contains(brains.body, "\"keyvault\""));
}

// `/` and the JSON API in gzip for a client that asks, with Vary: Accept-Encoding:
// the same bytes, compressed. A scan may land between two requests (the page shows
// its time), so the gzip body is compared with plain ones fetched before and after
// it that agree.
TEST_F(ExporterIntegrationTest, LandingPageAndApiAreGzippedWhenAsked) {
  for (const char* path :
       {"/", "/api/v1/brains", "/api/v1/brains/m1nd", "/api/v1/brains/m1nd/north",
        "/?state=mismatch", "/api/v1/brains?state=ok&limit=1"}) {
    SCOPED_TRACE(path);
    bool compared = false;
    for (int attempt = 0; attempt < 20 && !compared; ++attempt) {
      const HttpResult before = HttpGet(port_, path);
      const HttpResult zipped = HttpGet(port_, path, {{"Accept-Encoding", "gzip"}});
      const HttpResult after = HttpGet(port_, path);
      ASSERT_EQ(zipped.status, 200);
      EXPECT_EQ(zipped.Header("Content-Encoding"), "gzip");
      EXPECT_EQ(zipped.Header("Vary"), "Accept-Encoding");
      EXPECT_EQ(before.Header("Content-Encoding"), "");
      EXPECT_EQ(before.Header("Vary"), "Accept-Encoding");
      std::string unzipped;
      ASSERT_TRUE(GzipDecompress(zipped.body, &unzipped));
      if (before.body != after.body) continue;
      EXPECT_EQ(unzipped, before.body);
      compared = true;
    }
    EXPECT_TRUE(compared);
  }
}

// The query as civetweb passes it: decoded, a state filter and a limit on the list,
// a malformed one refused with the JSON 400.
TEST_F(ExporterIntegrationTest, BrainsTakeAStateFilterAndALimitOverHttp) {
  const HttpResult some = HttpGet(port_, "/api/v1/brains?state=ok%2Cabsent&limit=1");
  ASSERT_EQ(some.status, 200) << some.body;
  const Json parsed = Json::parse(some.body);
  ASSERT_EQ(parsed["brains"].size(), 1u);
  EXPECT_EQ(parsed["brains"][0]["brain"], "empty");
  EXPECT_EQ(parsed["omitted"], 1);  // keyvault
  const HttpResult bad = HttpGet(port_, "/api/v1/brains?state=nope");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Json::parse(bad.body)["errorType"], "bad_data");
  EXPECT_EQ(HttpGet(port_, "/?limit=ten").status, 400);
  const HttpResult page = HttpGet(port_, "/?state=mismatch&limit=0");
  EXPECT_EQ(page.status, 200);
  EXPECT_TRUE(Contains(page.body, "data-brain=\"m1nd\""));
  EXPECT_FALSE(Contains(page.body, "data-brain=\"keyvault\""));
}

TEST_F(ExporterIntegrationTest, SigtermExitsZeroWithinASecond) {
  const auto signalled_at = std::chrono::steady_clock::now();
  exporter_.Signal(SIGTERM);
  const std::optional<int> status = exporter_.WaitForExit(testing::kStopBound);
  ASSERT_TRUE(status.has_value()) << "still running 1 s after SIGTERM";
  EXPECT_LT(std::chrono::steady_clock::now() - signalled_at, testing::kStopBound);
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
  EXPECT_TRUE(Contains(ReadFile(LogPath()), "msg=stopped"));
}

// Prometheus keeps its scrape connection open between scrapes; a client may also
// connect and send nothing. Neither may hold up the exit (civetweb alone would wait
// up to 2 s for each with its default poll slice; see scripts/install-deps.sh).
TEST_F(ExporterIntegrationTest, SigtermExitsWithinASecondWithOpenConnections) {
  const int silent = testing::ConnectLocal(port_);
  ASSERT_GE(silent, 0);
  const int kept_alive = testing::ConnectLocal(port_);
  ASSERT_GE(kept_alive, 0);
  const std::string request = "GET /-/healthy HTTP/1.1\r\nHost: localhost\r\n\r\n";
  ASSERT_EQ(send(kept_alive, request.data(), request.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(request.size()));
  char response[256];
  ASSERT_GT(recv(kept_alive, response, sizeof(response), 0), 0);  // served, still open
  std::this_thread::sleep_for(milliseconds(300));  // a worker has picked up the silent one
  const auto signalled_at = std::chrono::steady_clock::now();
  exporter_.Signal(SIGTERM);
  const std::optional<int> status = exporter_.WaitForExit(testing::kStopBound * 3);
  close(silent);
  close(kept_alive);
  ASSERT_TRUE(status.has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - signalled_at, testing::kStopBound);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
  EXPECT_TRUE(Contains(ReadFile(LogPath()), "msg=stopped"));
}

TEST_F(ExporterIntegrationTest, SigintExitsZero) {
  exporter_.Signal(SIGINT);
  const std::optional<int> status = exporter_.WaitForExit(testing::kStopBound * 3);
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

TEST_F(ExporterIntegrationTest, BusyPortFailsWithExitCodeOne) {
  TestProcess second;
  std::string error;
  ASSERT_TRUE(second.Start(
      SCX_EXPORTER_BINARY,
      {"--config.file=" + ConfigPath(), "--web.listen-address=127.0.0.1:" + std::to_string(port_)},
      dir_.Join("second.log"), &error))
      << error;
  const std::optional<int> status = second.WaitForExit(milliseconds(5000));
  ASSERT_TRUE(status.has_value());
  ASSERT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 1);
  EXPECT_TRUE(Contains(ReadFile(dir_.Join("second.log")), "level=error"));
  EXPECT_EQ(HttpGet(port_, "/-/healthy").status, 200);  // the first one is unharmed
}

// A server certificate valid for one more day: a warn line at start and at each
// reload, and its notAfter as a gauge.
TEST(ExporterTlsTest, ACertificateExpiringWithin14DaysIsAWarnLineAndAGauge) {
  if (!testing::ToolAvailable("openssl") || !testing::ToolAvailable("curl")) {
    GTEST_SKIP() << "needs the openssl and curl commands";
  }
  TempDir dir;
  int status = -1;
  const std::string made = testing::RunShellCommand(
      "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 "
      "-subj /CN=localhost -keyout '" +
          dir.Join("server.key") + "' -out '" + dir.Join("server.crt") + "' 2>&1",
      "", &status);
  ASSERT_EQ(status, 0) << made;
  WriteFile(dir.Join("web.yml"),
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
  WriteFile(dir.Join("config.yml"), "scan_interval: 200ms\nm1nd_registries: []\n");
  TestProcess exporter;
  int port = 0;
  std::string error;
  ASSERT_TRUE(exporter.StartOnFreePort(
      SCX_EXPORTER_BINARY,
      {"--config.file=" + dir.Join("config.yml"), "--web.config.file=" + dir.Join("web.yml")},
      dir.Join("exporter.log"), &port, &error))
      << error;
  const std::string curl =
      "curl -sk --max-time 5 https://127.0.0.1:" + std::to_string(port) + "/metrics";
  std::string metrics;
  const std::string gauge = "skeleton_coherence_exporter_tls_certificate_not_after_seconds ";
  ASSERT_TRUE(WaitFor(
      [&] {
        metrics = testing::RunShellCommand(curl, "", nullptr);
        return Contains(metrics, "\n" + gauge);
      },
      kStartupTimeout))
      << metrics << ReadFile(dir.Join("exporter.log"));
  const std::size_t at = metrics.find("\n" + gauge) + 1 + gauge.size();
  const double not_after = std::stod(metrics.substr(at, metrics.find('\n', at) - at));
  const double now = static_cast<double>(std::time(nullptr));
  EXPECT_GT(not_after, now + 23 * 3600);
  EXPECT_LT(not_after, now + 25 * 3600);
  // A plain-HTTP request to the TLS port is a failed handshake.
  EXPECT_FALSE(HttpGet(port, "/metrics").status == 200);
  EXPECT_TRUE(WaitFor(
      [&] {
        metrics = testing::RunShellCommand(curl, "", nullptr);
        return Contains(metrics, "\nskeleton_coherence_exporter_tls_handshake_failures_total ") &&
               !Contains(metrics, "\nskeleton_coherence_exporter_tls_handshake_failures_total 0\n");
      },
      kChangeTimeout))
      << metrics;
  const std::string warning = "the TLS certificate served expires within 14 days";
  std::string log = ReadFile(dir.Join("exporter.log"));
  EXPECT_TRUE(Contains(log, warning)) << log;
  EXPECT_TRUE(Contains(log, "when=start")) << log;
  exporter.Signal(SIGHUP);
  EXPECT_TRUE(WaitFor(
      [&] {
        log = ReadFile(dir.Join("exporter.log"));
        return Contains(log, "when=SIGHUP");
      },
      kChangeTimeout))
      << log;
  EXPECT_NE(log.find(warning), log.rfind(warning)) << "one warn line at start, one at reload\n"
                                                   << log;
}

// Users hashed with different bcrypt costs: a user of the lower cost answers faster
// than an unknown name, which is checked at the highest cost. A warn line at start
// says so; one cost for every user says nothing.
TEST(ExporterBasicAuthTest, UsersOfDifferentBcryptCostsAreAWarnLineAtStart) {
  const std::string warning = "basic_auth_users have different bcrypt costs";
  for (const bool differ : {true, false}) {
    TempDir dir;
    WriteFile(
        dir.Join("web.yml"),
        std::string("basic_auth_users:\n"
                    "  fast: $2b$04$jl6B1t0gP9SAAPyP07rdYefGYNsq5W.PyM7OXi4Q8YzK9S.s6DNzy\n") +
            (differ ? "  slow: $2b$05$uqkzN9AtmVPtcl/G7MaqE.KMZKRqq1NK0zjWDRAwtd3CXx/MEHOKO\n"
                    : ""));
    WriteFile(dir.Join("config.yml"), "m1nd_registries: []\n");
    TestProcess exporter;
    int port = 0;
    std::string error;
    ASSERT_TRUE(exporter.StartOnFreePort(
        SCX_EXPORTER_BINARY,
        {"--config.file=" + dir.Join("config.yml"), "--web.config.file=" + dir.Join("web.yml")},
        dir.Join("exporter.log"), &port, &error))
        << error;
    ASSERT_TRUE(WaitFor([&] { return Contains(ReadFile(dir.Join("exporter.log")), "listening"); },
                        kStartupTimeout))
        << ReadFile(dir.Join("exporter.log"));
    const std::string log = ReadFile(dir.Join("exporter.log"));
    EXPECT_EQ(Contains(log, warning), differ) << log;
    if (differ) {
      EXPECT_TRUE(Contains(log, "costs=4,5")) << log;
    }
  }
}

// Socket activation as systemd does it: the listening socket as descriptor 3,
// LISTEN_PID the exporter's own pid, LISTEN_FDS=1. The exporter serves that socket
// and logs its address; --web.systemd-socket without them is exit 2 and a line that
// says how to start it.
TEST(ExporterSystemdSocketTest, ServesTheSocketSystemdPasses) {
  TempDir dir;
  WriteFile(dir.Join("config.yml"), "scan_interval: 200ms\nm1nd_registries: []\n");
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  ASSERT_EQ(0, bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof(address)));
  ASSERT_EQ(0, listen(listener, 16));
  ASSERT_EQ(0, getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size));
  const int port = ntohs(address.sin_port);
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  const std::string log = dir.Join("exporter.log");
  const std::string config = "--config.file=" + dir.Join("config.yml");
  const char* argv[] = {SCX_EXPORTER_BINARY, "--web.systemd-socket", config.c_str(), nullptr};
  char listen_pid[32] = "LISTEN_PID=";
  char listen_fds[] = "LISTEN_FDS=1";
  char* envp[] = {listen_pid, listen_fds, nullptr};
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(listener, 3) < 0) _exit(127);
    char digits[16];
    int count = 0;
    for (pid_t self = getpid(); self > 0; self /= 10) digits[count++] = '0' + self % 10;
    char* end = listen_pid + sizeof("LISTEN_PID=") - 1;
    while (count > 0) *end++ = digits[--count];
    *end = '\0';
    execve(argv[0], const_cast<char* const*>(argv), envp);
    _exit(127);
  }
  close(listener);
  EXPECT_TRUE(WaitFor([&] { return HttpGet(port, "/-/ready").status == 200; }, milliseconds(15000)))
      << ReadFile(log);
  EXPECT_EQ(HttpGet(port, "/metrics").status, 200);
  kill(pid, SIGTERM);
  int status = -1;
  EXPECT_TRUE(WaitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; }, milliseconds(15000)));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const std::string text = ReadFile(log);
  EXPECT_NE(std::string::npos, text.find("msg=listening address=127.0.0.1:" + std::to_string(port) +
                                         " systemd_socket=3"))
      << text;
  EXPECT_NE(std::string::npos, text.find("listen_address=systemd")) << text;

  TestProcess unactivated;
  int unused_port = 0;
  std::string error;
  ASSERT_TRUE(unactivated.StartOnFreePort(SCX_EXPORTER_BINARY, {config, "--web.systemd-socket"},
                                          dir.Join("unactivated.log"), &unused_port, &error))
      << error;
  const std::optional<int> exit = unactivated.WaitForExit(milliseconds(15000));
  ASSERT_TRUE(exit.has_value());
  EXPECT_TRUE(WIFEXITED(*exit) && WEXITSTATUS(*exit) == 2);
  EXPECT_NE(std::string::npos,
            ReadFile(dir.Join("unactivated.log")).find("systemd passed no socket"));
}

}  // namespace
}  // namespace scx
