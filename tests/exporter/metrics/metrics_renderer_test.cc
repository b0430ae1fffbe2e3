// Tests of the metrics renderer: the per-brain series of docs/metrics.md and the
// process collector's, exact lines for the incident, no series without a verdict, the
// duplicate guard, and promtool's lint. The exporter's own families:
// self_metrics_test.cc.
#include "exporter/metrics/metrics_renderer.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/brain_reports.h"
#include "tests/test_process.h"
#include "tests/text_lines.h"

namespace scx {
namespace {

using testing::HasLine;
using testing::Lines;

BrainReport Report(const std::string& name, BrainState state) {
  BrainReport report;
  Brain* brain = report.mutable_brain();
  brain->name = name;
  brain->project_root = "/home/dev/" + name;
  brain->runtime_dir = "/home/dev/.m1nd/" + name;
  brain->source = BrainSource::kStatic;
  report.state = state;
  return report;
}

// The `reason` values of skeleton_coherence_store_read_errors_total.
std::size_t ReadErrorReasonCount() {
  std::size_t count = 0;
  for (const Term<StoreError>& error : kStoreErrors) count += IsReadError(error.value) ? 1 : 0;
  return count;
}

std::shared_ptr<const Coherence> Verdict(CoherenceStatus status, const std::string& expected,
                                         const std::string& found) {
  Coherence verdict;
  verdict.status = status;
  verdict.expected_slug = expected;
  verdict.found_slug = found;
  return std::make_shared<const Coherence>(verdict);
}

// The incident brain, a healthy one, an empty-store one and a stale one.
ScanResult SampleScan() {
  ScanResult scan;
  BrainReport incident = Report("m1nd", BrainState::kMismatch);
  incident.store = StorePresence::kPresent;
  incident.coherence = Verdict(CoherenceStatus::kMismatch, "m1nd", "keyvault");
  incident.has_store_facts = true;
  incident.store_version = 7;
  incident.block_count = 3;
  incident.mismatch_since = 1767225000.25;
  SkeletonProvenance incident_provenance;
  incident_provenance.owner_brain = "keyvault";
  incident_provenance.shared_with = {"keyvault"};
  incident_provenance.shared_count = 1;
  incident.skeleton_provenance = std::make_shared<const SkeletonProvenance>(incident_provenance);
  scan.brains.push_back(incident);

  BrainReport healthy = Report("keyvault", BrainState::kOk);
  healthy.store = StorePresence::kPresent;
  healthy.coherence = Verdict(CoherenceStatus::kOk, "keyvault", "keyvault");
  healthy.has_store_facts = true;
  healthy.store_version = 2;
  healthy.block_count = 5;
  SkeletonProvenance healthy_provenance;
  healthy_provenance.shared_with = {"m1nd"};
  healthy_provenance.shared_count = 1;
  healthy.skeleton_provenance = std::make_shared<const SkeletonProvenance>(healthy_provenance);
  scan.brains.push_back(healthy);

  scan.brains.push_back(Report("empty", BrainState::kAbsent));

  BrainReport stale = Report("torn", BrainState::kUnreadable);
  stale.store = StorePresence::kUnreadable;
  stale.read_error = StoreError::kParse;
  stale.coherence = Verdict(CoherenceStatus::kOk, "torn", "torn");
  stale.verdict_stale = true;
  stale.has_store_facts = true;
  stale.store_version = 4;
  stale.block_count = 1;
  stale.read_errors_total.Add(StoreError::kParse, 2);
  SkeletonProvenance stale_provenance;
  stale_provenance.prefix_ambiguous = true;
  stale_provenance.ambiguous_slug = "torn_core";
  stale.skeleton_provenance = std::make_shared<const SkeletonProvenance>(stale_provenance);
  scan.brains.push_back(stale);
  return scan;
}

std::string Render(const ScanResult& scan, const BrainMetricsOptions& options = {}) {
  std::vector<std::string> dropped;
  std::string text = RenderMetrics(scan, &dropped, options);
  EXPECT_TRUE(dropped.empty());
  return text;
}

// --metrics.store-details.
BrainMetricsOptions WithStoreDetails() {
  BrainMetricsOptions options;
  options.store_details = true;
  return options;
}

// Sample lines (not comments) whose metric name is exactly `name`.
std::vector<std::string> Samples(const std::string& text, const std::string& name) {
  std::vector<std::string> samples;
  for (const std::string& line : Lines(text)) {
    if (line.rfind(name + "{", 0) == 0 || line.rfind(name + " ", 0) == 0) samples.push_back(line);
  }
  return samples;
}

ProcessStats SampleProcess() {
  ProcessStats process;
  process.cpu_seconds_total = 3.8;
  process.resident_memory_bytes = 8388608;
  process.virtual_memory_bytes = 123456789;
  process.start_time_seconds = 1764460987.65;
  process.open_fds = 9;
  process.max_fds = 1024;
  process.virtual_memory_max_bytes = -1;
  return process;
}

TEST(MetricsRendererTest, IncidentSeriesIsExact) {
  const std::string text = Render(SampleScan());
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"keyvault\"} 0"))
      << text;
  // A verdict of this scan has no stale series.
  EXPECT_EQ(text.find("skeleton_coherence_stale{brain=\"m1nd\"}"), std::string::npos);
  EXPECT_TRUE(HasLine(
      text,
      "skeleton_coherence{brain=\"keyvault\",expected_slug=\"keyvault\",found_slug=\"keyvault\"} "
      "1"));
}

TEST(MetricsRendererTest, MismatchSinceOnlyForBrainsInMismatch) {
  ScanResult scan = SampleScan();
  BrainReport stale_mismatch = Report("stuck", BrainState::kUnreadable);
  stale_mismatch.coherence = Verdict(CoherenceStatus::kMismatch, "stuck", "keyvault");
  stale_mismatch.verdict_stale = true;
  stale_mismatch.mismatch_since = 1600000000;
  scan.brains.push_back(stale_mismatch);
  const std::string text = Render(scan);
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_mismatch_since_seconds{brain=\"m1nd\"} 1767225000.25"))
      << text;
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_mismatch_since_seconds{brain=\"stuck\"} 1600000000"));
  EXPECT_EQ(Samples(text, "skeleton_coherence_mismatch_since_seconds").size(), 2u);
  EXPECT_TRUE(HasLine(text, "# TYPE skeleton_coherence_mismatch_since_seconds gauge"));
}

TEST(MetricsRendererTest, NoVerdictSeriesForBrainWithoutVerdict) {
  const std::string text = Render(SampleScan());
  for (const std::string& line : Samples(text, "skeleton_coherence")) {
    EXPECT_EQ(line.find("brain=\"empty\""), std::string::npos) << line;
  }
  for (const std::string& line : Samples(text, "skeleton_coherence_stale")) {
    EXPECT_EQ(line.find("brain=\"empty\""), std::string::npos) << line;
  }
  EXPECT_EQ(Samples(text, "skeleton_coherence").size(), 3u);
  EXPECT_EQ(Samples(text, "skeleton_coherence_stale").size(), 1u);  // torn's
  // No store facts either, but the brain is still listed.
  EXPECT_EQ(Samples(text, "skeleton_coherence_store_blocks").size(), 3u);
  EXPECT_EQ(
      Samples(Render(SampleScan(), WithStoreDetails()), "skeleton_coherence_store_version").size(),
      3u);
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"empty\",state=\"absent\"} 1"));
}

TEST(MetricsRendererTest, StaleVerdictIsMarked) {
  const std::string text = Render(SampleScan());
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence{brain=\"torn\",expected_slug=\"torn\",found_slug=\"torn\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_stale{brain=\"torn\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_store_blocks{brain=\"torn\"} 1"));
  EXPECT_TRUE(HasLine(Render(SampleScan(), WithStoreDetails()),
                      "skeleton_coherence_store_version{brain=\"torn\"} 4"));
}

TEST(MetricsRendererTest, EveryBrainHasEveryState) {
  const ScanResult scan = SampleScan();
  const std::string text = Render(scan);
  EXPECT_EQ(Samples(text, "skeleton_coherence_brain_state").size(),
            scan.brains.size() * std::size(kBrainStates));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"ok\"} 0"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"mismatch\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"absent\"} 0"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"unreadable\"} 0"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"identity_unknown\"} 0"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"torn\",state=\"unreadable\"} 1"));
}

// docs/metrics.md, "Series per brain": a healthy brain is 8 series by default and 14
// with the store details; a brain without a store 6 and 11.
TEST(MetricsRendererTest, SeriesPerBrainAsDocumented) {
  BrainReport healthy = Report("keyvault", BrainState::kOk);
  healthy.store = StorePresence::kPresent;
  healthy.coherence = Verdict(CoherenceStatus::kOk, "keyvault", "keyvault");
  healthy.has_store_facts = true;
  healthy.store_version = 3;
  healthy.block_count = 5;
  const auto series = [](const BrainReport& report, const BrainMetricsOptions& options) {
    ScanResult scan;
    scan.brains.push_back(report);
    std::size_t samples = 0;
    for (const std::string& line : Lines(Render(scan, options))) samples += line[0] != '#';
    return samples;
  };
  EXPECT_EQ(series(healthy, {}), 8u);
  EXPECT_EQ(series(healthy, WithStoreDetails()), 16u);
  const BrainReport absent = Report("empty", BrainState::kAbsent);
  EXPECT_EQ(series(absent, {}), 6u);
  EXPECT_EQ(series(absent, WithStoreDetails()), 13u);
  BrainReport stale = healthy;
  stale.state = BrainState::kUnreadable;
  stale.verdict_stale = true;
  EXPECT_EQ(series(stale, {}), 9u);
}

// A brain whose identity the exporter cannot decide: its state, no verdict series, and
// an empty project_root; m1nd's own name for it is a label of brain_info.
TEST(MetricsRendererTest, IdentityUnknownBrainHasAStateAndNoVerdict) {
  ScanResult scan;
  BrainReport unknown = Report("medulla", BrainState::kIdentityUnknown);
  Brain* brain = unknown.mutable_brain();
  brain->project_root.clear();
  brain->source = BrainSource::kRegistryOwner;
  brain->identity_source = IdentitySource::kUnknown;
  brain->identity_note = "ingest root /home/dev/m1nd cannot be seen";
  brain->m1nd_name = "medulla";
  unknown.store = StorePresence::kPresent;
  unknown.has_store_facts = true;
  unknown.store_version = 3;
  unknown.block_count = 2;
  scan.brains.push_back(unknown);
  const std::string text = Render(scan);
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence_brain_state{brain=\"medulla\",state=\"identity_unknown\"} 1"))
      << text;
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"medulla\",state=\"mismatch\"} 0"));
  EXPECT_TRUE(HasLine(text,
                      "skeleton_coherence_brain_info{brain=\"medulla\",project_root=\"\","
                      "runtime_dir=\"/home/dev/.m1nd/medulla\",source=\"registry_owner\","
                      "identity_source=\"unknown\",m1nd_name=\"medulla\"} 1"));
  EXPECT_TRUE(Samples(text, "skeleton_coherence").empty());
  EXPECT_TRUE(Samples(text, "skeleton_coherence_stale").empty());
}

TEST(MetricsRendererTest, BrainInfoAndStoreFacts) {
  const std::string text = Render(SampleScan());
  EXPECT_TRUE(
      HasLine(text,
              "skeleton_coherence_brain_info{brain=\"m1nd\",project_root=\"/home/dev/m1nd\","
              "runtime_dir=\"/home/dev/.m1nd/m1nd\",source=\"static\","
              "identity_source=\"project_root\",m1nd_name=\"\"} 1"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_store_blocks{brain=\"keyvault\"} 5"));
  // store_version is a store detail.
  EXPECT_TRUE(Samples(text, "skeleton_coherence_store_version").empty());
  EXPECT_TRUE(HasLine(Render(SampleScan(), WithStoreDetails()),
                      "skeleton_coherence_store_version{brain=\"m1nd\"} 7"));
}

// The per-brain read error counters are store details: none by default, every reason
// of every brain with them.
TEST(MetricsRendererTest, ReadErrorsStartAtZeroForEveryReason) {
  const ScanResult scan = SampleScan();
  EXPECT_EQ(Render(scan).find("skeleton_coherence_store_read_errors_total"), std::string::npos);
  const std::string text = Render(scan, WithStoreDetails());
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence_store_read_errors_total{brain=\"torn\",reason=\"parse\"} 2"));
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_store_read_errors_total{brain=\"torn\",reason=\"io\"} 0"));
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"schema\"} 0"));
  EXPECT_EQ(Samples(text, "skeleton_coherence_store_read_errors_total").size(),
            scan.brains.size() * ReadErrorReasonCount());
  EXPECT_TRUE(HasLine(text, "# TYPE skeleton_coherence_store_read_errors_total counter"));
}

TEST(MetricsRendererTest, WhoseSkeletonSignals) {
  const std::string text = Render(SampleScan());
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_foreign_owner{brain=\"m1nd\",owner_brain=\"keyvault\"} 1"))
      << text;
  EXPECT_EQ(Samples(text, "skeleton_coherence_foreign_owner").size(), 1u);
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_shared_skeleton_brains{brain=\"m1nd\"} 2"));
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_shared_skeleton_brains{brain=\"keyvault\"} 2"));
  EXPECT_EQ(Samples(text, "skeleton_coherence_shared_skeleton_brains").size(), 2u);
  EXPECT_TRUE(HasLine(
      text, "skeleton_coherence_prefix_ambiguous{brain=\"torn\",ambiguous_slug=\"torn_core\"} 1"));
  EXPECT_EQ(Samples(text, "skeleton_coherence_prefix_ambiguous").size(), 1u);
}

TEST(MetricsRendererTest, AnAllowedPrefixAmbiguityIsNotASignal) {
  ScanResult scan = SampleScan();
  for (BrainReport& report : scan.brains) {
    if (!report.provenance().prefix_ambiguous) continue;
    SkeletonProvenance allowed = report.provenance();
    allowed.ambiguity_allowed = true;
    report.skeleton_provenance = std::make_shared<const SkeletonProvenance>(allowed);
  }
  EXPECT_TRUE(Samples(Render(scan), "skeleton_coherence_prefix_ambiguous").empty());
}

TEST(MetricsRendererTest, InPiecesItIsTheSameTextAndDrops) {
  ScanResult scan = SampleScan();
  for (int i = 0; i < 200; ++i) {
    scan.brains.push_back(Report("brain" + std::to_string(1000 + i), BrainState::kAbsent));
  }
  scan.brains.push_back(scan.brains[0]);  // a twin: its duplicate samples are dropped
  std::vector<std::string> whole_dropped;
  const std::string whole = RenderMetrics(scan, &whole_dropped, WithStoreDetails());
  ASSERT_FALSE(whole_dropped.empty());
  for (std::size_t piece_bytes :
       {std::size_t{1}, std::size_t{700}, std::size_t{4096}, std::size_t{1} << 30}) {
    std::string joined;
    std::vector<std::string> dropped;
    std::size_t pieces = 0;
    RenderMetricsTo(scan, WithStoreDetails(), ExpositionFormat::kText, &dropped, piece_bytes,
                    [&](std::string_view piece) {
                      EXPECT_FALSE(piece.empty());
                      // A piece ends after the brain or family that made it reach piece_bytes (a
                      // brain's lines here are well under 2 KB).
                      EXPECT_LT(piece.size(), piece_bytes + 2048) << piece_bytes;
                      joined.append(piece);
                      ++pieces;
                    });
    EXPECT_EQ(joined, whole) << piece_bytes;
    EXPECT_EQ(dropped, whole_dropped) << piece_bytes;
    if (piece_bytes == 700) {
      EXPECT_GT(pieces, whole.size() / 2048);
    }
    if (piece_bytes == std::size_t{1} << 30) {
      EXPECT_EQ(pieces, 1u);
    }
  }
}

TEST(MetricsRendererTest, FamiliesComeInDocumentOrder) {
  const std::vector<std::string> expected = {
      "skeleton_coherence",
      "skeleton_coherence_stale",
      "skeleton_coherence_mismatch_since_seconds",
      "skeleton_coherence_foreign_owner",
      "skeleton_coherence_shared_skeleton_brains",
      "skeleton_coherence_prefix_ambiguous",
      "skeleton_coherence_brain_state",
      "skeleton_coherence_brain_info",
      "skeleton_coherence_store_version",
      "skeleton_coherence_store_blocks",
      "skeleton_coherence_store_read_errors_total",
  };
  std::vector<std::string> names;
  for (const std::string& line : Lines(Render(SampleScan(), WithStoreDetails()))) {
    const std::string prefix = "# TYPE ";
    if (line.rfind(prefix, 0) == 0) {
      names.push_back(line.substr(prefix.size(), line.rfind(' ') - prefix.size()));
    }
  }
  EXPECT_EQ(names, expected);
  // Rendering twice gives the same bytes.
  EXPECT_EQ(Render(SampleScan()), Render(SampleScan()));
}

TEST(MetricsRendererTest, LabelValuesAreEscapedAndValidUtf8) {
  ScanResult scan;
  BrainReport odd = Report("odd", BrainState::kAbsent);
  Brain* brain = odd.mutable_brain();
  brain->project_root = "/tmp/a \"quoted\"\\path\nline";
  brain->runtime_dir = std::string("/tmp/bad\xff") + "byte";
  scan.brains.push_back(odd);
  const std::string text = Render(scan);
  EXPECT_NE(text.find("project_root=\"/tmp/a \\\"quoted\\\"\\\\path\\nline\""), std::string::npos)
      << text;
  EXPECT_NE(text.find("runtime_dir=\"/tmp/bad\xEF\xBF\xBD"
                      "byte\""),
            std::string::npos)
      << text;
}

TEST(MetricsRendererTest, HugeLabelValuesAreCapped) {
  ScanResult scan;
  BrainReport report = Report("m1nd", BrainState::kMismatch);
  const std::string found(10 << 20, 'k');  // from a 10 MB skeleton_id
  report.coherence = Verdict(CoherenceStatus::kMismatch, "m1nd", found);
  scan.brains.push_back(report);
  const std::string text = Render(scan);
  const std::vector<std::string> samples = Samples(text, "skeleton_coherence");
  ASSERT_EQ(samples.size(), 1u) << text.substr(0, 2000);
  EXPECT_LT(samples[0].size(), kMaxLabelValueBytes + 200);
  EXPECT_NE(samples[0].find("found_slug=\"kkkk"), std::string::npos);
  EXPECT_NE(samples[0].find("\xE2\x80\xA6[" + std::to_string(found.size() - kMaxLabelValueBytes) +
                            " bytes cut]\""),
            std::string::npos);
}

TEST(MetricsRendererTest, DuplicateLabelSetsAreDroppedAndReported) {
  ScanResult scan = SampleScan();
  BrainReport twin = scan.brains[0];  // same name as the incident brain
  twin.mutable_brain()->runtime_dir = "/elsewhere";
  twin.coherence = Verdict(CoherenceStatus::kMismatch, "m1nd", "other");
  scan.brains[0].verdict_stale = twin.verdict_stale = true;  // both have a stale series
  scan.brains.push_back(twin);

  std::vector<std::string> dropped;
  const std::string text = RenderMetrics(scan, &dropped, WithStoreDetails());
  // The second m1nd's state, stale, mismatch since, foreign owner, shared skeleton,
  // store facts and read error series collide; its verdict and info series differ in
  // a label and stay.
  EXPECT_EQ(Samples(text, "skeleton_coherence_brain_state").size(),
            (scan.brains.size() - 1) * std::size(kBrainStates));
  EXPECT_EQ(Samples(text, "skeleton_coherence_stale").size(), 2u);
  EXPECT_EQ(Samples(text, "skeleton_coherence_store_version").size(), 3u);
  EXPECT_EQ(dropped.size(),
            std::size(kBrainStates) + 1u + 1u + 1u + 1u + 2u + ReadErrorReasonCount());
  EXPECT_NE(std::find(dropped.begin(), dropped.end(),
                      "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"mismatch\"}"),
            dropped.end());
  // Every remaining sample line is unique.
  std::vector<std::string> lines = Lines(text);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(std::adjacent_find(lines.begin(), lines.end()), lines.end());
  // A null `dropped` is fine.
  EXPECT_FALSE(RenderMetrics(scan, nullptr).empty());
}

// A brain whose name differs from another's only in bytes that are not UTF-8 has
// the same exported label value: its series collide too, even far apart in the list.
TEST(MetricsRendererTest, DuplicateGuardSeesNamesEqualOnlyOnceSanitized) {
  ScanResult scan;
  scan.brains.push_back(Report(std::string("a\xff"), BrainState::kOk));
  scan.brains.push_back(Report("b", BrainState::kOk));
  scan.brains.push_back(Report("a", BrainState::kOk));
  scan.brains.push_back(Report(std::string("a\xfe"), BrainState::kAbsent));
  scan.brains.back().mutable_brain()->project_root = "/elsewhere";
  std::vector<std::string> dropped;
  const std::string text = RenderMetrics(scan, &dropped, WithStoreDetails());
  // The first of the two keeps its series; the second's state and read errors are
  // dropped, its info line differs in project_root and stays.
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"a\xEF\xBF\xBD\",state=\"ok\"} 1"))
      << text;
  EXPECT_TRUE(
      HasLine(text, "skeleton_coherence_brain_state{brain=\"a\xEF\xBF\xBD\",state=\"absent\"} 0"));
  EXPECT_EQ(Samples(text, "skeleton_coherence_brain_state").size(), 3 * std::size(kBrainStates));
  EXPECT_EQ(Samples(text, "skeleton_coherence_brain_info").size(), 4u);
  EXPECT_EQ(dropped.size(), std::size(kBrainStates) + ReadErrorReasonCount());
  EXPECT_NE(std::find(dropped.begin(), dropped.end(),
                      "skeleton_coherence_brain_state{brain=\"a\xEF\xBF\xBD\",state=\"absent\"}"),
            dropped.end());
  // "a" itself is not a twin of either.
  EXPECT_TRUE(HasLine(text, "skeleton_coherence_brain_state{brain=\"a\",state=\"ok\"} 1"));
}

// A family without a sample has no HELP or TYPE line either.
TEST(MetricsRendererTest, FamilyWithoutSamplesIsLeftOut) {
  EXPECT_EQ(Render(ScanResult()), "");

  ScanResult scan;
  scan.brains.push_back(Report("empty", BrainState::kAbsent));
  const std::string text = Render(scan, WithStoreDetails());
  for (const char* family :
       {"skeleton_coherence", "skeleton_coherence_stale", "skeleton_coherence_store_version",
        "skeleton_coherence_foreign_owner", "skeleton_coherence_prefix_ambiguous"}) {
    EXPECT_EQ(text.find(std::string("# HELP ") + family + " "), std::string::npos) << family;
    EXPECT_EQ(text.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
  }
  EXPECT_TRUE(HasLine(text, "# TYPE skeleton_coherence_brain_state gauge"));
}

TEST(MetricsRendererTest, SpecialValuesAreSpelledAsTheFormatSays) {
  ScanResult scan = SampleScan();
  scan.brains[0].mismatch_since = 1796003827.979081;
  EXPECT_TRUE(HasLine(Render(scan),
                      "skeleton_coherence_mismatch_since_seconds{brain=\"m1nd\"} "
                      "1796003827.979081"));
  ProcessStats process = SampleProcess();
  process.cpu_seconds_total = std::numeric_limits<double>::quiet_NaN();
  process.max_fds = std::numeric_limits<double>::infinity();
  process.open_fds = -std::numeric_limits<double>::infinity();
  const std::string text = RenderProcessMetrics(process);
  EXPECT_TRUE(HasLine(text, "process_cpu_seconds_total NaN")) << text;
  EXPECT_TRUE(HasLine(text, "process_max_fds +Inf"));
  EXPECT_TRUE(HasLine(text, "process_open_fds -Inf"));
}

// The whole text of a small scan, byte for byte (as prometheus-cpp 1.0.1 wrote it).
TEST(MetricsRendererTest, SmallScanRendersExactly) {
  ScanResult scan;
  BrainReport report = Report("m1nd", BrainState::kMismatch);
  Brain* brain = report.mutable_brain();
  brain->runtime_dir = "/home/dev/.m1nd";
  brain->source = BrainSource::kRegistryOwner;
  brain->identity_source = IdentitySource::kIngestRoot;
  brain->m1nd_name = "medulla";
  report.store = StorePresence::kPresent;
  report.coherence = Verdict(CoherenceStatus::kMismatch, "m1nd", "keyvault");
  report.verdict_stale = true;
  report.mismatch_since = 1796003827.979081;
  report.has_store_facts = true;
  report.store_version = 140039;
  report.block_count = 3;
  SkeletonProvenance report_provenance;
  report_provenance.owner_brain = "keyvault";
  report.skeleton_provenance = std::make_shared<const SkeletonProvenance>(report_provenance);
  report.read_errors_total.Add(StoreError::kIo, 2);
  scan.brains.push_back(report);
  const std::string expected =
      "# HELP skeleton_coherence 1 when the brain serves its own skeleton, 0 when it serves a "
      "foreign one. No series without a verdict.\n"
      "# TYPE skeleton_coherence gauge\n"
      "skeleton_coherence{brain=\"m1nd\",expected_slug=\"m1nd\",found_slug=\"keyvault\"} 0\n"
      "# HELP skeleton_coherence_stale 1 while the exported verdict is from an earlier read "
      "because the store cannot be read now. No series otherwise.\n"
      "# TYPE skeleton_coherence_stale gauge\n"
      "skeleton_coherence_stale{brain=\"m1nd\"} 1\n"
      "# HELP skeleton_coherence_mismatch_since_seconds While the brain serves a foreign skeleton "
      "(stale verdicts included): the store file's mtime, in Unix seconds, at the first read this "
      "process saw of this foreign verdict. The brain has served it at least since then.\n"
      "# TYPE skeleton_coherence_mismatch_since_seconds gauge\n"
      "skeleton_coherence_mismatch_since_seconds{brain=\"m1nd\"} 1796003827.979081\n"
      "# HELP skeleton_coherence_foreign_owner On mismatch: the other known brain whose slug the "
      "served skeleton carries. Always 1.\n"
      "# TYPE skeleton_coherence_foreign_owner gauge\n"
      "skeleton_coherence_foreign_owner{brain=\"m1nd\",owner_brain=\"keyvault\"} 1\n"
      "# HELP skeleton_coherence_brain_state The brain's state in the last scan: 1 for the current "
      "state, 0 for the others.\n"
      "# TYPE skeleton_coherence_brain_state gauge\n"
      "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"ok\"} 0\n"
      "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"mismatch\"} 1\n"
      "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"absent\"} 0\n"
      "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"unreadable\"} 0\n"
      "skeleton_coherence_brain_state{brain=\"m1nd\",state=\"identity_unknown\"} 0\n"
      "# HELP skeleton_coherence_brain_info Where the brain was found. Always 1.\n"
      "# TYPE skeleton_coherence_brain_info gauge\n"
      "skeleton_coherence_brain_info{brain=\"m1nd\",project_root=\"/home/dev/m1nd\",runtime_dir=\"/"
      "home/dev/"
      ".m1nd\",source=\"registry_owner\",identity_source=\"ingest_root\",m1nd_name=\"medulla\"} "
      "1\n"
      "# HELP skeleton_coherence_store_version store_version of the last good read of the brain's "
      "store.\n"
      "# TYPE skeleton_coherence_store_version gauge\n"
      "skeleton_coherence_store_version{brain=\"m1nd\"} 140039\n"
      "# HELP skeleton_coherence_store_blocks Number of blocks in the last good read of the "
      "brain's store.\n"
      "# TYPE skeleton_coherence_store_blocks gauge\n"
      "skeleton_coherence_store_blocks{brain=\"m1nd\"} 3\n"
      "# HELP skeleton_coherence_store_read_errors_total Scans in which the brain's store could "
      "not be read, by reason, since the exporter first saw the brain.\n"
      "# TYPE skeleton_coherence_store_read_errors_total counter\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"io\"} 2\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"too_large\"} 0\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"not_regular\"} 0\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"parse\"} 0\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"schema\"} 0\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"unseen\"} 0\n"
      "skeleton_coherence_store_read_errors_total{brain=\"m1nd\",reason=\"foreign_link\"} 0\n";
  EXPECT_EQ(Render(scan, WithStoreDetails()), expected);
}

TEST(MetricsRendererTest, ProcessCollectorNamesTypesAndValues) {
  EXPECT_TRUE(Samples(Render(SampleScan()), "process_cpu_seconds_total").empty());
  const std::string text = RenderProcessMetrics(SampleProcess());
  EXPECT_TRUE(HasLine(text, "# TYPE process_cpu_seconds_total counter")) << text;
  EXPECT_TRUE(HasLine(text, "process_cpu_seconds_total 3.8"));
  EXPECT_TRUE(HasLine(text, "# TYPE process_resident_memory_bytes gauge"));
  EXPECT_TRUE(HasLine(text, "process_resident_memory_bytes 8388608"));
  EXPECT_TRUE(HasLine(text, "process_virtual_memory_bytes 123456789"));
  EXPECT_TRUE(HasLine(text, "process_start_time_seconds 1764460987.65"));
  EXPECT_TRUE(HasLine(text, "process_open_fds 9"));
  EXPECT_TRUE(HasLine(text, "process_max_fds 1024"));
  EXPECT_TRUE(HasLine(text, "# TYPE process_virtual_memory_max_bytes gauge"));
  EXPECT_TRUE(HasLine(text, "process_virtual_memory_max_bytes -1"));
  EXPECT_TRUE(HasLine(text,
                      "# HELP process_start_time_seconds Start time of the process since unix "
                      "epoch in seconds."));
}

// In OpenMetrics the process collector's counter is named without _total, and its
// units are declared.
TEST(MetricsRendererTest, ProcessCollectorInOpenMetrics) {
  const std::string text = RenderProcessMetrics(SampleProcess(), ExpositionFormat::kOpenMetrics);
  EXPECT_TRUE(HasLine(text, "# TYPE process_cpu_seconds counter")) << text;
  EXPECT_TRUE(HasLine(text, "# UNIT process_cpu_seconds seconds"));
  EXPECT_TRUE(HasLine(text, "process_cpu_seconds_total 3.8"));
  EXPECT_TRUE(HasLine(text, "# UNIT process_resident_memory_bytes bytes"));
  EXPECT_TRUE(HasLine(text, "process_virtual_memory_max_bytes -1"));
  EXPECT_FALSE(HasLine(text, "# TYPE process_cpu_seconds_total counter"));
  EXPECT_EQ(text.find("# EOF"), std::string::npos);  // the body ends the exposition
}

std::vector<std::string> SampleLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') lines.push_back(line);
  }
  return lines;
}

// The per-brain families in OpenMetrics: the same sample lines in the same order, the
// metadata as OpenMetrics names and types them.
TEST(MetricsRendererTest, OpenMetricsHasTheSameSamplesAndItsOwnMetadata) {
  ScanResult scan = SampleScan();
  scan.brains.push_back(testing::EveryFact(1, BrainState::kMismatch));
  std::vector<std::string> dropped;
  const std::string text = RenderMetrics(scan, &dropped, WithStoreDetails());
  const std::string openmetrics =
      RenderMetrics(scan, &dropped, WithStoreDetails(), ExpositionFormat::kOpenMetrics);
  EXPECT_TRUE(dropped.empty());
  EXPECT_EQ(SampleLines(openmetrics), SampleLines(text));
  EXPECT_TRUE(HasLine(openmetrics, "# TYPE skeleton_coherence_store_read_errors counter"));
  EXPECT_TRUE(HasLine(openmetrics, "# TYPE skeleton_coherence_brain info"));
  EXPECT_TRUE(HasLine(openmetrics, "# TYPE skeleton_coherence_brain_state gauge"));
  EXPECT_TRUE(HasLine(openmetrics, "# UNIT skeleton_coherence_mismatch_since_seconds seconds"));
  EXPECT_TRUE(HasLine(text, "# TYPE skeleton_coherence_brain_info gauge"));
  EXPECT_EQ(openmetrics.find("# TYPE skeleton_coherence_store_read_errors_total"),
            std::string::npos);
  // In pieces, the same text.
  std::string joined;
  RenderMetricsTo(scan, WithStoreDetails(), ExpositionFormat::kOpenMetrics, nullptr, 256,
                  [&](std::string_view piece) { joined.append(piece); });
  EXPECT_EQ(joined, openmetrics);
}

// The reserve is a hint only: the text is the same with or without it.
TEST(MetricsRendererTest, TheReserveChangesNothingButTheCapacity) {
  const ScanResult scan = SampleScan();
  const std::string grown = RenderMetrics(scan, nullptr);
  const std::string reserved =
      RenderMetrics(scan, nullptr, {}, ExpositionFormat::kText, grown.size());
  EXPECT_EQ(reserved, grown);
  EXPECT_GE(reserved.capacity(), grown.size());
}

// `promtool check metrics` prints nothing for a clean exposition.
TEST(MetricsRendererTest, PassesPromtoolCheckMetrics) {
  if (!testing::ToolAvailable("promtool")) GTEST_SKIP() << "promtool not installed";
  int status = -1;
  const std::string output = testing::RunShellCommand(
      "promtool check metrics", Render(SampleScan()) + RenderProcessMetrics(SampleProcess()),
      &status);
  EXPECT_EQ(output, "");
  EXPECT_EQ(status, 0);
}

}  // namespace
}  // namespace scx
