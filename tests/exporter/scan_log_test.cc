// Tests of ScanLog over hand-made scan results: a brain whose identity is unknown
// warns once on the change, debug notes and orphaned folders are logged once while they
// persist, and --once's mode logs only what a person must act on.
#include "exporter/scan_log.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/brain_reports.h"
#include "tests/captured_log.h"
#include "tests/test_support.h"
#include "tests/text_lines.h"

namespace scx {
namespace {

using testing::CapturedLog;

size_t CountOf(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

using testing::IdentityUnknown;
using testing::Report;

StateChange Change(const std::string& brain, std::optional<BrainState> from,
                   std::optional<BrainState> to) {
  StateChange change;
  change.brain = brain;
  change.from = from;
  change.to = to;
  return change;
}

constexpr char kUnknownLine[] =
    "level=warn msg=\"brain state changed\" brain=medulla from=ok to=identity_unknown "
    "runtime_dir=/rt/medulla note=\"ingest root /home/dev/m1nd cannot be seen\"\n";

TEST(ScanLogTest, EnteringIdentityUnknownWarnsOnceWithRuntimeDirAndNote) {
  CapturedLog log(LogLevel::kInfo);
  ScanLog scan_log(log.logger());
  ScanResult ok;
  ok.brains = {Report("a", BrainState::kOk), Report("medulla", BrainState::kOk)};
  scan_log.LogScan(ok, 0.1);
  ScanResult unknown;
  unknown.brains = {Report("a", BrainState::kOk), IdentityUnknown("medulla")};
  unknown.changes = {Change("medulla", BrainState::kOk, BrainState::kIdentityUnknown)};
  unknown.changes[0].runtime_dir = unknown.brains[1].brain().runtime_dir;
  unknown.changes[0].identity_note = unknown.brains[1].brain().identity_note;
  scan_log.LogScan(unknown, 0.1);
  unknown.changes.clear();  // the next scans: no change, nothing logged
  scan_log.LogScan(unknown, 0.1);
  scan_log.LogScan(unknown, 0.1);
  const std::string text = log.text();
  EXPECT_EQ(CountOf(text, kUnknownLine), 1u) << text;
  EXPECT_EQ(CountOf(text, "identity_unknown"), 1u) << text;

  // Leaving it is an info line.
  ScanResult back;
  back.brains = {Report("a", BrainState::kOk), Report("medulla", BrainState::kOk)};
  back.changes = {Change("medulla", BrainState::kIdentityUnknown, BrainState::kOk)};
  scan_log.LogScan(back, 0.1);
  EXPECT_EQ(CountOf(log.text(),
                    "level=info msg=\"brain state changed\" brain=medulla "
                    "from=identity_unknown to=ok\n"),
            1u)
      << log.text();
}

// The first scan after a restored state compares with that state, not with a
// verdict of this process: no "brain state changed from=..." line (a foreign or
// shared state file once logged "from=mismatch to=ok" for brains never judged here).
// The scans after it log changes as before.
TEST(ScanLogTest, ChangesAgainstARestoredStateAreNotLoggedAsChanges) {
  CapturedLog log(LogLevel::kInfo);
  ScanLog scan_log(log.logger());
  scan_log.ExpectRestoredState();
  ScanResult first;
  first.brains = {Report("fixed", BrainState::kOk), Report("new", BrainState::kOk),
                  Report("torn", BrainState::kUnreadable)};
  first.changes = {Change("fixed", BrainState::kMismatch, BrainState::kOk),
                   Change("new", std::nullopt, BrainState::kOk),
                   Change("torn", BrainState::kOk, BrainState::kUnreadable),
                   Change("left", BrainState::kOk, std::nullopt)};
  scan_log.LogScan(first, 0.1);
  std::string text = log.text();
  EXPECT_EQ(CountOf(text, "brain state changed"), 0u) << text;
  EXPECT_EQ(CountOf(text, "from="), 0u) << text;
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain discovered\" brain=fixed restored=mismatch "
                    "to=ok\n"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "level=info msg=\"brain discovered\" brain=new to=ok\n"), 1u) << text;
  EXPECT_EQ(CountOf(text, "msg=\"brain discovered\" brain=torn restored=ok to=unreadable"), 1u)
      << text;
  EXPECT_EQ(CountOf(text,
                    "level=info msg=\"restored brain not found\" brain=left "
                    "restored=ok\n"),
            1u)
      << text;

  ScanResult second;
  second.brains = {Report("fixed", BrainState::kMismatch)};
  second.changes = {Change("fixed", BrainState::kOk, BrainState::kMismatch)};
  scan_log.LogScan(second, 0.1);
  text = log.text();
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain state changed\" brain=fixed from=ok "
                    "to=mismatch\n"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "restored="), 3u) << text;
}

// Churn of watched folders: every scan discovers and loses thousands of brains. At
// most kBrainLinesPerSecond lines about brains a second, then one line per scan with
// how many were dropped; without the budget this wrote one line per brain per scan.
TEST(ScanLogTest, BrainLinesAreRateLimitedPerSecondWithASummary) {
  CapturedLog log(LogLevel::kInfo);
  auto now = std::chrono::steady_clock::time_point() + std::chrono::hours(1);
  ScanLog scan_log(log.logger(), ScanLog::Mode::kService, [&now] { return now; });
  ScanResult churn;
  churn.brains = {Report("kept", BrainState::kOk)};
  for (int i = 0; i < 1000; ++i) {
    churn.changes.push_back(Change("b" + std::to_string(i), std::nullopt, BrainState::kOk));
  }
  scan_log.LogScan(churn, 0.1);
  std::string text = log.text();
  EXPECT_EQ(CountOf(text, "msg=\"brain discovered\""), 100u);
  EXPECT_EQ(CountOf(text, "level=warn msg=\"brain log lines suppressed\" suppressed=900 "), 1u)
      << text;

  // Later in the same second: nothing more about brains, one summary.
  now += std::chrono::milliseconds(500);
  scan_log.LogScan(churn, 0.1);
  text = log.text();
  EXPECT_EQ(CountOf(text, "msg=\"brain discovered\""), 100u);
  EXPECT_EQ(CountOf(text, "suppressed=1000 "), 1u) << text;

  // A second later the budget is back.
  now += std::chrono::milliseconds(500);
  churn.changes.resize(10);
  scan_log.LogScan(churn, 0.1);
  text = log.text();
  EXPECT_EQ(CountOf(text, "msg=\"brain discovered\""), 110u);
  EXPECT_EQ(CountOf(text, "brain log lines suppressed"), 2u) << text;
}

// Over 1,001 brains the budget once went on info lines first and 77 of 90 "turned
// mismatch" lines were dropped. A brain entering or leaving mismatch (or changing
// from one mismatch to another) is what pages: always written at warn, and not
// counted against the budget, which still bounds the other lines.
TEST(ScanLogTest, MismatchTransitionsAreAlwaysLoggedAtWarn) {
  CapturedLog log(LogLevel::kInfo);
  auto now = std::chrono::steady_clock::time_point() + std::chrono::hours(1);
  ScanLog scan_log(log.logger(), ScanLog::Mode::kService, [&now] { return now; });
  ScanResult scan;
  scan.brains = {Report("kept", BrainState::kOk)};
  constexpr int kInfoLines = 3 * kBrainLinesPerSecond;
  for (int i = 0; i < kInfoLines; ++i) {
    scan.changes.push_back(Change("a" + std::to_string(i), std::nullopt, BrainState::kOk));
  }
  constexpr int kTransitions = 90;
  for (int i = 0; i < kTransitions; ++i) {
    scan.changes.push_back(Change("m" + std::to_string(i), BrainState::kOk, BrainState::kMismatch));
  }
  scan.changes.push_back(Change("fixed", BrainState::kMismatch, BrainState::kOk));
  scan.changes.push_back(Change("other", BrainState::kMismatch, BrainState::kMismatch));
  scan.changes.push_back(Change("torn", BrainState::kMismatch, BrainState::kUnreadable));
  scan.changes.push_back(Change("new", std::nullopt, BrainState::kMismatch));
  scan.changes.push_back(Change("removed", BrainState::kMismatch, std::nullopt));
  scan_log.LogScan(scan, 0.1);
  const std::string text = log.text();
  EXPECT_EQ(CountOf(text, "level=warn msg=\"brain state changed\" brain=m"), 90u) << text;
  EXPECT_EQ(CountOf(text, "from=ok to=mismatch"), 90u);
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain state changed\" brain=fixed from=mismatch "
                    "to=ok\n"),
            1u);
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain state changed\" brain=other from=mismatch "
                    "to=mismatch\n"),
            1u);
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain state changed\" brain=torn from=mismatch "
                    "to=unreadable "),
            1u);
  EXPECT_EQ(CountOf(text, "level=warn msg=\"brain discovered\" brain=new to=mismatch\n"), 1u);
  EXPECT_EQ(CountOf(text, "level=warn msg=\"brain gone\" brain=removed from=mismatch\n"), 1u);
  // The budget still applies to the rest, and only to them.
  EXPECT_EQ(CountOf(text, "level=info msg=\"brain discovered\""),
            static_cast<std::size_t>(kBrainLinesPerSecond));
  EXPECT_EQ(CountOf(text, "msg=\"brain log lines suppressed\" suppressed=" +
                              std::to_string(kInfoLines - kBrainLinesPerSecond) + " "),
            1u)
      << text;
}

TEST(ScanLogTest, DebugNotesAreLoggedOnceWhileTheyPersist) {
  CapturedLog log(LogLevel::kDebug);
  ScanLog scan_log(log.logger());
  ScanResult scan;
  scan.brains = {Report("a", BrainState::kOk)};
  scan.debug_notes = {{"/reg/instances/half.json", "not a whole instance record: skipped"},
                      {"/rt/ingest_roots.json", "not a list of strings: read as empty"}};
  scan_log.LogScan(scan, 0.1);
  scan_log.LogScan(scan, 0.1);
  std::string text = log.text();
  EXPECT_EQ(CountOf(text,
                    "level=debug msg=\"discovery note\" path=/reg/instances/half.json "
                    "detail=\"not a whole instance record: skipped\"\n"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "msg=\"discovery note\" path=/rt/ingest_roots.json"), 1u) << text;

  // Gone for a scan, then back: logged again.
  scan.debug_notes.pop_back();
  scan_log.LogScan(scan, 0.1);
  scan.debug_notes.push_back({"/rt/ingest_roots.json", "not a list of strings: read as empty"});
  scan_log.LogScan(scan, 0.1);
  text = log.text();
  EXPECT_EQ(CountOf(text, "msg=\"discovery note\" path=/reg/instances/half.json"), 1u) << text;
  EXPECT_EQ(CountOf(text, "msg=\"discovery note\" path=/rt/ingest_roots.json"), 2u) << text;

  // Never above debug.
  CapturedLog info_log(LogLevel::kInfo);
  ScanLog info_scan_log(info_log.logger());
  info_scan_log.LogScan(scan, 0.1);
  EXPECT_EQ(info_log.text(), "");
}

TEST(ScanLogTest, OrphanedFoldersAreOneInfoLineWhenFirstSeen) {
  CapturedLog log(LogLevel::kInfo);
  ScanLog scan_log(log.logger());
  ScanResult scan;
  scan.brains = {Report("a", BrainState::kOk)};
  scan.orphans = {{"/rt/project-brains/old", "/home/dev/m1nd", "/rt/project-brains/new"}};
  scan_log.LogScan(scan, 0.1);
  scan_log.LogScan(scan, 0.1);
  scan_log.LogScan(scan, 0.1);
  const std::string text = log.text();
  EXPECT_EQ(CountOf(text,
                    "level=info msg=\"orphaned brain folder\" "
                    "runtime_dir=/rt/project-brains/old project_root=/home/dev/m1nd "
                    "served_runtime_dir=/rt/project-brains/new detail="),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "\n"), 1u) << text;
}

// A registry record refused or demoted: one warn line when first seen, none while it
// persists, one again when it comes back after it was gone.
TEST(ScanLogTest, RegistryConflictsAreOneWarnLineWhenFirstSeen) {
  CapturedLog log(LogLevel::kInfo);
  ScanLog scan_log(log.logger());
  ScanResult scan;
  scan.brains = {Report("a", BrainState::kOk)};
  scan.conflicts = {
      {RegistryConflictReason::kForeignOwner, "/r2/instances/evil.json", "/rt", "not m1nd's word"}};
  scan_log.LogScan(scan, 0.1);
  scan_log.LogScan(scan, 0.1);
  const std::string line =
      "level=warn msg=\"registry conflict\" reason=foreign_owner "
      "record=/r2/instances/evil.json runtime_dir=/rt detail=\"not m1nd's word\"";
  EXPECT_EQ(CountOf(log.text(), line), 1u) << log.text();
  EXPECT_EQ(CountOf(log.text(), "\n"), 1u) << log.text();
  ScanResult gone = scan;
  gone.conflicts.clear();
  scan_log.LogScan(gone, 0.1);
  scan_log.LogScan(scan, 0.1);
  EXPECT_EQ(CountOf(log.text(), line), 2u) << log.text();
}

// With --log.format=json, counts and durations are JSON numbers and flags booleans;
// a brain's name stays a string even when it reads as a number.
TEST(ScanLogTest, JsonLinesGiveCountsAsNumbers) {
  testing::TempDir dir;
  std::FILE* file = std::fopen(dir.Join("log").c_str(), "w");
  ASSERT_NE(file, nullptr);
  {
    Logger logger(LogLevel::kDebug, LogFormat::kJson, file);
    ScanLog scan_log(&logger);
    ScanResult scan;
    scan.brains = {Report("42", BrainState::kMismatch), Report("a", BrainState::kOk)};
    scan.changes = {Change("42", std::nullopt, BrainState::kMismatch)};
    DiscoveryProblem problem;
    problem.source = DiscoveryProblemSource::kManifest;
    problem.path = "/rt/project-brains/x/project_brain.json";
    problem.message = "unexpected end of input";
    scan.problems = {problem};
    scan_log.LogScan(scan, 0.0001234);
  }
  std::fclose(file);
  bool saw_change = false;
  bool saw_problem = false;
  bool saw_summary = false;
  for (const std::string& line : testing::Lines(testing::ReadFile(dir.Join("log")))) {
    const nlohmann::json parsed = nlohmann::json::parse(line);
    if (parsed["msg"] == "brain discovered") {
      saw_change = true;
      EXPECT_EQ(parsed["brain"], "42") << line;
    } else if (parsed["msg"] == "discovery problem") {
      saw_problem = true;
      EXPECT_EQ(parsed["transient"], false) << line;
    } else if (parsed["msg"] == "scan completed") {
      saw_summary = true;
      EXPECT_EQ(parsed["brains"], 2) << line;
      EXPECT_EQ(parsed["mismatch"], 1) << line;
      EXPECT_EQ(parsed["problems"], 1) << line;
      EXPECT_EQ(parsed["duration_seconds"], 0.000123) << line;
    }
  }
  EXPECT_TRUE(saw_change && saw_problem && saw_summary);
}

// --once: no line per brain but an unreadable store and an unknown identity; a
// transient problem warns at once (there is no next scan).
TEST(ScanLogTest, OnceModeLogsWhatAPersonMustActOn) {
  CapturedLog log(LogLevel::kInfo);
  ScanLog scan_log(log.logger(), ScanLog::Mode::kOnce);
  ScanResult scan;
  BrainReport torn = Report("torn", BrainState::kUnreadable);
  torn.read_error = StoreError::kParse;
  torn.read_error_message = "unexpected end";
  BrainReport incident = Report("m1nd", BrainState::kMismatch);
  scan.brains = {Report("a", BrainState::kOk), incident, IdentityUnknown("medulla"), torn};
  for (const BrainReport& brain : scan.brains) {
    scan.changes.push_back(Change(brain.brain().name, std::nullopt, brain.state));
  }
  DiscoveryProblem problem;
  problem.source = DiscoveryProblemSource::kManifest;
  problem.path = "/rt/project-brains/x/project_brain.json";
  problem.message = "unexpected end of input";
  problem.transient = true;
  scan.problems = {problem};
  scan.orphans = {{"/rt/project-brains/old", "/home/dev/m1nd", "/rt/project-brains/new"}};
  scan_log.LogScan(scan, 0.1);
  const std::string text = log.text();
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"store unreadable\" brain=torn reason=parse "
                    "err=\"unexpected end\"\n"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"brain discovered\" brain=medulla to=identity_unknown "
                    "runtime_dir=/rt/medulla note=\"ingest root /home/dev/m1nd cannot be "
                    "seen\"\n"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text,
                    "level=warn msg=\"discovery problem\" source=manifest "
                    "path=/rt/project-brains/x/project_brain.json"),
            1u)
      << text;
  EXPECT_EQ(CountOf(text, "level=info msg=\"orphaned brain folder\""), 1u) << text;
  EXPECT_EQ(CountOf(text, "brain=m1nd"), 0u) << text;  // the report says it
  EXPECT_EQ(CountOf(text, "brain=a"), 0u) << text;
  EXPECT_EQ(CountOf(text, "\n"), 4u) << text;
}

}  // namespace
}  // namespace scx
