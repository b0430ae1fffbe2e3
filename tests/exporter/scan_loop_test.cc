// Tests of the scan loop over a temporary brain layout: readiness, snapshot
// contents, fast stop, reloads, interval, and what gets logged.
#include "exporter/scan_loop.h"

#include <errno.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "exporter/metrics/gzip.h"
#include "tests/captured_log.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using testing::StoreJson;
using testing::TempDir;
using testing::WaitFor;
using testing::WriteFile;

constexpr char kIncidentLine[] =
    "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"keyvault\"} 0";
constexpr milliseconds kLongWait{10000};
constexpr milliseconds kHour{3600 * 1000};

using testing::CapturedLog;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

size_t CountOf(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// The incident brain (bound to m1nd, serving keyvault's skeleton) and a healthy one.
class ScanLoopTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.Join("m1nd/system_blocks.json"),
              StoreJson("sk_keyvault_candidate", {"sb_keyvault_core"}));
    WriteFile(dir_.Join("keyvault/system_blocks.json"),
              StoreJson("sk_keyvault_candidate", {"sb_keyvault_core"}));
  }

  StaticBrain Brain(const std::string& name) {
    return StaticBrain{name, "/home/dev/" + name, "", dir_.Join(name)};
  }

  ScanSettings Settings(milliseconds interval, std::vector<std::string> names = {"m1nd"}) {
    ScanSettings settings;
    for (const std::string& name : names) settings.discovery.static_brains.push_back(Brain(name));
    settings.interval = interval;
    return settings;
  }

  LandingPageInfo Info() { return {"9.9.9", "deadbeef", "/metrics"}; }

  TempDir dir_;
  CapturedLog log_{LogLevel::kDebug};
  // Where the loops count; the process families are this test's, not the loop's.
  SelfMetrics metrics_{
      {{"9.9.9", "deadbeef", "main", "u@h", "20261130-00:00:00", "gcc 12.2.0", "linux/amd64"},
       true,
       /*process=*/false},
      log_.logger()};
};

TEST_F(ScanLoopTest, NothingBeforeTheFirstScan) {
  ScanLoop loop(Settings(kHour), Info(), log_.logger(), &metrics_);
  EXPECT_FALSE(loop.ready());
  auto snapshot = loop.snapshot();
  ASSERT_NE(snapshot, nullptr);
  EXPECT_EQ(snapshot->scan_number(), 0u);
  EXPECT_TRUE(snapshot->MetricsText().empty());
  EXPECT_TRUE(Contains(snapshot->landing_page(), "first scan has not completed"));
}

TEST_F(ScanLoopTest, ReadyAfterTheFirstScanWithEverythingRendered) {
  ScanLoop loop(Settings(kHour, {"m1nd", "keyvault"}), Info(), log_.logger(), &metrics_);
  loop.Start();
  auto snapshot = loop.WaitForSnapshotAfter(0, kLongWait);
  ASSERT_EQ(snapshot->scan_number(), 1u);
  EXPECT_TRUE(loop.ready());
  EXPECT_TRUE(Contains(snapshot->MetricsText(), kIncidentLine)) << snapshot->MetricsText();
  // The exporter's own families are not the snapshot's: they are written at each scrape.
  EXPECT_FALSE(Contains(snapshot->MetricsText(), "skeleton_coherence_exporter_"));
  // Counted right after the snapshot is published.
  std::string own;
  EXPECT_TRUE(WaitFor(
      [&] {
        own = metrics_.Text();
        return Contains(own, "skeleton_coherence_exporter_scans_total 1\n");
      },
      kLongWait))
      << own;
  EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_scan_seconds_count 1\n"));
  EXPECT_TRUE(
      Contains(own,
               "skeleton_coherence_exporter_build_info{branch=\"main\",compiler=\"gcc "
               "12.2.0\",platform=\"linux/amd64\",revision=\"deadbeef\",version=\"9.9.9\"} 1"));
  EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_scan_interval_seconds 3600"));
  EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_brains{state=\"mismatch\"} 1\n"));
  std::string closing;
  ASSERT_TRUE(GzipCloseMember(snapshot->metrics_gzip(), "", &closing));
  std::string unzipped;
  ASSERT_TRUE(GzipDecompress(snapshot->metrics_gzip().bytes + closing, &unzipped));
  EXPECT_EQ(unzipped, snapshot->MetricsText());
  ASSERT_EQ(snapshot->brains().size(), 2u);
  EXPECT_EQ(snapshot->brains()[0].brain().name, "keyvault");
  EXPECT_TRUE(Contains(snapshot->brains_json(), "\"m1nd\""));
  EXPECT_TRUE(Contains(snapshot->landing_page(),
                       "1 brain serves a foreign skeleton: <span class=\"name\">m1nd</span>"))
      << snapshot->landing_page();
  EXPECT_TRUE(Contains(snapshot->landing_page(), "<p id=\"last-scan\">Last scan: <time>"));
}

TEST_F(ScanLoopTest, StopIsFastEvenWithALongInterval) {
  ScanLoop loop(Settings(kHour), Info(), log_.logger(), &metrics_);
  loop.Start();
  ASSERT_EQ(loop.WaitForSnapshotAfter(0, kLongWait)->scan_number(), 1u);
  const auto started = std::chrono::steady_clock::now();
  loop.Stop();
  // Far below the hour it would wait if it waited for the interval, whatever the load.
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(10000));
  loop.Stop();  // idempotent
}

TEST_F(ScanLoopTest, AStoppedLoopNeverScans) {
  ScanLoop loop(Settings(kHour), Info(), log_.logger(), &metrics_);
  loop.Stop();  // before Start: returns at once
  loop.Start();
  loop.Stop();
  EXPECT_EQ(loop.WaitForSnapshotAfter(0, milliseconds(200))->scan_number(), 0u);
  EXPECT_FALSE(loop.ready());
  EXPECT_EQ(log_.text(), "");
}

TEST_F(ScanLoopTest, ReloadAppliesAndScansAtOnce) {
  ScanLoop loop(Settings(kHour), Info(), log_.logger(), &metrics_);
  loop.Start();
  ASSERT_EQ(loop.WaitForSnapshotAfter(0, kLongWait)->scan_number(), 1u);
  loop.RequestReload(Settings(milliseconds(1800000), {"m1nd", "keyvault"}));
  auto snapshot = loop.WaitForSnapshotAfter(1, kLongWait);
  ASSERT_EQ(snapshot->scan_number(), 2u);
  EXPECT_EQ(snapshot->brains().size(), 2u);
  EXPECT_TRUE(Contains(snapshot->MetricsText(),
                       "skeleton_coherence{brain=\"keyvault\",expected_slug=\"keyvault\","
                       "found_slug=\"keyvault\"} 1"));
  EXPECT_TRUE(Contains(metrics_.Text(), "skeleton_coherence_exporter_scan_interval_seconds 1800"));
}

TEST_F(ScanLoopTest, ReloadWithOtherStoreOptionsRereadsAndKeepsTheLastVerdict) {
  ScanLoop loop(Settings(kHour), Info(), log_.logger(), &metrics_);
  loop.Start();
  ASSERT_EQ(loop.WaitForSnapshotAfter(0, kLongWait)->scan_number(), 1u);
  ScanSettings tiny = Settings(kHour);
  tiny.store_options.max_bytes = 10;
  loop.RequestReload(tiny);
  auto snapshot = loop.WaitForSnapshotAfter(1, kLongWait);
  ASSERT_EQ(snapshot->scan_number(), 2u);
  EXPECT_TRUE(Contains(snapshot->MetricsText(),
                       "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"unreadable\"} 1"))
      << snapshot->MetricsText();
  EXPECT_TRUE(Contains(snapshot->MetricsText(), "skeleton_coherence_stale{brain=\"m1nd\"} 1"))
      << snapshot->MetricsText();
}

TEST_F(ScanLoopTest, IntervalIsHonoredLoosely) {
  ScanLoop loop(Settings(milliseconds(100)), Info(), log_.logger(), &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 3; }, kLongWait));
  const std::uint64_t before = loop.snapshot()->scan_number();
  std::this_thread::sleep_for(milliseconds(500));
  const std::uint64_t scanned = loop.snapshot()->scan_number() - before;
  EXPECT_GE(scanned, 1u);
  EXPECT_LE(scanned, 8u);  // about 5; never back to back

  ScanLoop slow(Settings(kHour), Info(), log_.logger(), &metrics_);
  slow.Start();
  ASSERT_EQ(slow.WaitForSnapshotAfter(0, kLongWait)->scan_number(), 1u);
  std::this_thread::sleep_for(milliseconds(300));
  EXPECT_EQ(slow.snapshot()->scan_number(), 1u);
}

TEST_F(ScanLoopTest, StateChangesAreLoggedOnce) {
  ScanLoop loop(Settings(milliseconds(50), {"m1nd", "keyvault"}), Info(), log_.logger(), &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 3; }, kLongWait));
  std::string text = log_.text();
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain discovered\" brain=m1nd to=mismatch "
                    "expected_slug=m1nd found_slug=keyvault"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "level=info msg=\"brain discovered\" brain=keyvault to=ok"), 1u) << text;
  EXPECT_GE(CountOf(text, "level=debug msg=\"scan completed\" brains=2 ok=1 mismatch=1"), 3u);

  // The incident is fixed by an atomic replace: one warn line (leaving mismatch pages
  // too: the alert resolves).
  testing::ReplaceFileAtomically(dir_.Join("m1nd/system_blocks.json"),
                                 StoreJson("sk_m1nd_candidate", {"sb_m1nd_core"}));
  ASSERT_TRUE(WaitFor([&] { return Contains(log_.text(), "from=mismatch to=ok"); }, kLongWait));
  const std::uint64_t after = loop.snapshot()->scan_number();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= after + 2; }, kLongWait));
  text = log_.text();
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain state changed\" brain=m1nd from=mismatch to=ok "
                    "expected_slug=m1nd\n"),
            1u)
      << text;

  // A torn store: warn with the reason; the verdict stays (stale).
  WriteFile(dir_.Join("m1nd/system_blocks.json"), "{\"schema\": \"m1nd-sys");
  ASSERT_TRUE(WaitFor([&] { return Contains(log_.text(), "to=unreadable"); }, kLongWait));
  text = log_.text();
  EXPECT_TRUE(Contains(text,
                       "level=warn msg=\"brain state changed\" brain=m1nd from=ok to=unreadable "
                       "expected_slug=m1nd reason=parse err="))
      << text;
  EXPECT_TRUE(WaitFor(
      [&] {
        return Contains(loop.snapshot()->MetricsText(),
                        "skeleton_coherence_stale{brain=\"m1nd\"} 1");
      },
      kLongWait));

  // A brain that goes away.
  loop.RequestReload(Settings(milliseconds(50), {"keyvault"}));
  ASSERT_TRUE(WaitFor([&] { return Contains(log_.text(), "msg=\"brain gone\""); }, kLongWait));
  EXPECT_TRUE(Contains(log_.text(), "level=info msg=\"brain gone\" brain=m1nd from=unreadable\n"));
}

TEST_F(ScanLoopTest, InfoLevelIsQuietWhileNothingChanges) {
  CapturedLog info_log(LogLevel::kInfo);
  ScanLoop loop(Settings(milliseconds(30), {"m1nd", "keyvault"}), Info(), info_log.logger(),
                &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 10; }, kLongWait));
  const std::string text = info_log.text();
  EXPECT_EQ(CountOf(text, "\n"), 2u) << text;  // the two "brain discovered" lines
}

TEST_F(ScanLoopTest, DiscoveryProblemsWarnOnceAndTransientOnesOnlyWhenTheyPersist) {
  // An instance file that cannot be read (a FIFO: never a hang), and an owner whose
  // project brain's manifest is caught half written.
  testing::MakeDirs(dir_.Join("registry/instances"));
  ASSERT_EQ(0, mkfifo(dir_.Join("registry/instances/bad.json").c_str(), 0600));
  WriteFile(dir_.Join("registry/instances/owner.json"),
            testing::InstanceJson("owner", "/home/dev/owner", dir_.Join("owner-rt"), "null"));
  WriteFile(dir_.Join("owner-rt/project-brains/aa/project_brain.json"), "{\"schema\": \"m1nd");
  ScanSettings settings = Settings(milliseconds(40));
  settings.discovery.registries.push_back(dir_.Join("registry"));
  CapturedLog warn_log(LogLevel::kWarn);
  ScanLoop loop(settings, Info(), warn_log.logger(), &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 5; }, kLongWait));
  const std::string text = warn_log.text();
  EXPECT_EQ(CountOf(text, "msg=\"discovery problem\" source=instance path=" +
                              dir_.Join("registry/instances/bad.json")),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "msg=\"discovery problem\" source=manifest path=" +
                              dir_.Join("owner-rt/project-brains/aa/project_brain.json")),
            1u)
      << text;
  EXPECT_TRUE(Contains(text, "transient=true"));
  const std::string metrics = metrics_.Text();
  EXPECT_TRUE(Contains(metrics, "skeleton_coherence_exporter_last_scan_success 0\n"));
  EXPECT_FALSE(Contains(
      metrics, "skeleton_coherence_exporter_discovery_errors_total{source=\"instance\"} 0"));
}

// An instance of a brain_kind m1nd does not write is watched as an owner: one warn
// line while it persists, and the scan still counts as a success.
TEST_F(ScanLoopTest, UnknownBrainKindWarnsOnceAndIsNoScanFailure) {
  WriteFile(dir_.Join("registry/instances/odd.json"),
            testing::InstanceJson("odd", "/home/dev/odd", dir_.Join("odd"), "\"satellite\""));
  testing::MakeDirs(dir_.Join("odd"));  // its runtime root, in view
  ScanSettings settings = Settings(milliseconds(40));
  settings.discovery.registries.push_back(dir_.Join("registry"));
  CapturedLog warn_log(LogLevel::kWarn);
  ScanLoop loop(settings, Info(), warn_log.logger(), &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 5; }, kLongWait));
  const std::string text = warn_log.text();
  EXPECT_EQ(
      CountOf(text, "msg=\"discovery notice\" path=" + dir_.Join("registry/instances/odd.json")),
      1u)
      << text;
  EXPECT_TRUE(Contains(text, "unknown brain_kind \\\"satellite\\\"")) << text;
  EXPECT_TRUE(Contains(metrics_.Text(), "skeleton_coherence_exporter_last_scan_success 1\n"))
      << metrics_.Text();
  const std::string metrics = loop.snapshot()->MetricsText();
  EXPECT_TRUE(Contains(metrics, "skeleton_coherence_brain_state{brain=\"odd\",state=\"absent\"} 1"))
      << metrics;
}

// With every inotify instance taken the watcher cannot start: the loop reports it
// limited (watch_limited 1, one warn line) and the timer alone scans.
TEST_F(ScanLoopTest, AWatcherWithoutAnInotifyInstanceIsReportedLimited) {
  ChangeWatcher::Options options;
  options.inotify_init = [](int /*flags*/) {
    errno = EMFILE;
    return -1;
  };
  ChangeWatcher watcher(options, [] {});  // outlives the loop's thread
  std::string error;
  ASSERT_FALSE(watcher.Start(&error));
  CapturedLog warn_log(LogLevel::kWarn);
  ScanLoop loop(Settings(milliseconds(40)), Info(), warn_log.logger(), &metrics_);
  loop.SetChangeWatcher(&watcher);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 3; }, kLongWait));
  loop.Stop();
  const std::string metrics = metrics_.Text();
  EXPECT_TRUE(Contains(metrics, "skeleton_coherence_exporter_watch_limited 1\n")) << metrics;
  EXPECT_TRUE(Contains(metrics, "skeleton_coherence_exporter_watched_dirs 0\n")) << metrics;
  const std::string text = warn_log.text();
  EXPECT_EQ(CountOf(text, "not every brain folder can be watched"), 1u) << text;
}

// Watching nothing must not look healthy: a warn line on every scan.
TEST_F(ScanLoopTest, ScanThatFindsNoBrainWarnsEveryTime) {
  ScanSettings settings = Settings(milliseconds(40), {});
  CapturedLog warn_log(LogLevel::kWarn);
  ScanLoop loop(settings, Info(), warn_log.logger(), &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 3; }, kLongWait));
  loop.Stop();
  const std::string text = warn_log.text();
  EXPECT_EQ(CountOf(text, "no brains found"), loop.snapshot()->scan_number()) << text;
}

// A flood of one kind (20 glob matches without a manifest) is a few warn lines and
// one summary, not one warn line each.
TEST_F(ScanLoopTest, AFloodOfOneKindOfProblemIsSummarised) {
  for (int i = 0; i < 20; ++i) testing::MakeDirs(dir_.Join("rts/dir" + std::to_string(i)));
  ScanSettings settings = Settings(milliseconds(40));
  settings.discovery.runtime_globs.push_back(dir_.Join("rts/*"));
  CapturedLog warn_log(LogLevel::kWarn);
  ScanLoop loop(settings, Info(), warn_log.logger(), &metrics_);
  loop.Start();
  ASSERT_TRUE(WaitFor([&] { return loop.snapshot()->scan_number() >= 3; }, kLongWait));
  loop.Stop();
  const std::string text = warn_log.text();
  EXPECT_EQ(CountOf(text, "msg=\"discovery problem\""), kWarnedProblemsPerSource) << text;
  EXPECT_EQ(CountOf(text, "msg=\"more discovery problems of one kind\" source=manifest more=15"),
            1u)
      << text;
}

}  // namespace
}  // namespace scx
