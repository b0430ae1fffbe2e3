// Tests of the --once table: order, alignment, bounded and printable cells, colour.
#include "exporter/render/table_view.h"

#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tests/text_lines.h"

namespace scx {
namespace {

using testing::Lines;

BrainReport Report(const std::string& name, BrainState state) {
  BrainReport report;
  report.mutable_brain()->name = name;
  report.state = state;
  if (state == BrainState::kOk || state == BrainState::kMismatch) {
    Coherence verdict;
    verdict.status = state == BrainState::kOk ? CoherenceStatus::kOk : CoherenceStatus::kMismatch;
    verdict.expected_slug = name;
    verdict.found_slug = state == BrainState::kOk ? name : "keyvault";
    if (state == BrainState::kMismatch) verdict.reason = "skeleton_id is foreign";
    report.coherence = std::make_shared<const Coherence>(verdict);
  }
  return report;
}

TEST(OnceTableTest, WorstFirstThenByNameWithAlignedColumns) {
  BrainReport incident = Report("m1nd", BrainState::kMismatch);
  SkeletonProvenance incident_provenance;
  incident_provenance.owner_brain = "keyvault";
  incident.skeleton_provenance = std::make_shared<const SkeletonProvenance>(incident_provenance);
  BrainReport torn = Report("torn", BrainState::kUnreadable);
  torn.read_error = StoreError::kParse;
  torn.read_error_message = "unexpected end";
  const std::string text = OnceTable(
      {Report("alpha", BrainState::kOk), Report("notes", BrainState::kAbsent), torn, incident},
      /*color=*/false);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(5u, lines.size()) << text;
  EXPECT_EQ(0u, lines[0].find("BRAIN"));
  EXPECT_EQ(0u, lines[1].find("m1nd "));
  EXPECT_EQ(0u, lines[2].find("torn "));
  EXPECT_EQ(0u, lines[3].find("notes "));
  EXPECT_EQ(0u, lines[4].find("alpha "));
  // Every column starts at the same offset on every line.
  const std::size_t state_at = lines[0].find("STATE");
  const std::size_t owner_at = lines[0].find("OWNER");
  EXPECT_EQ(state_at, lines[1].find("mismatch"));
  EXPECT_EQ(state_at, lines[2].find("unreadable"));
  EXPECT_EQ(owner_at, lines[1].find("keyvault  skeleton_id is foreign"));
  EXPECT_NE(std::string::npos, lines[2].find("parse: unexpected end"));
  EXPECT_NE(std::string::npos, lines[3].find("no store yet"));
  EXPECT_EQ(std::string::npos, text.find('\x1b'));
}

// A brain whose identity cannot be decided: after unreadable and before absent, amber
// (never the red of a mismatch), with the note as its reason.
TEST(OnceTableTest, IdentityUnknownComesBeforeAbsentWithTheNote) {
  BrainReport unknown = Report("medulla", BrainState::kIdentityUnknown);
  unknown.mutable_brain()->identity_note = "ingest root /home/dev/m1nd cannot be seen";
  BrainReport torn = Report("torn", BrainState::kUnreadable);
  torn.read_error = StoreError::kIo;
  const std::vector<BrainReport> brains = {Report("alpha", BrainState::kOk),
                                           Report("notes", BrainState::kAbsent), unknown, torn};
  const std::vector<std::string> lines = Lines(OnceTable(brains, /*color=*/false));
  ASSERT_EQ(5u, lines.size());
  EXPECT_EQ(0u, lines[1].find("torn "));
  EXPECT_EQ(0u, lines[2].find("medulla "));
  EXPECT_EQ(0u, lines[3].find("notes "));
  EXPECT_EQ(lines[0].find("STATE"), lines[2].find("identity_unknown"));
  EXPECT_EQ(lines[0].find("REASON"), lines[2].find("ingest root /home/dev/m1nd cannot be seen"));
  const std::string coloured = OnceTable({unknown}, /*color=*/true);
  EXPECT_NE(std::string::npos, coloured.find("\x1b[38;5;136midentity_unknown")) << coloured;
  EXPECT_EQ(std::string::npos, coloured.find("\x1b[1;31m"));
}

TEST(OnceTableTest, OrphanedFoldersFollowTheTable) {
  EXPECT_EQ(std::string::npos, OnceTable({Report("a", BrainState::kOk)}, false).find("Orphaned"));
  const std::string text =
      OnceTable({Report("a", BrainState::kOk)}, false,
                {{"/rt/project-brains/old\n", "/home/dev/m1nd", "/rt/project-brains/new"}});
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(5u, lines.size()) << text;
  EXPECT_EQ("", lines[2]);
  EXPECT_EQ("Orphaned brain folders (not served by m1nd):", lines[3]);
  EXPECT_EQ(
      "  /rt/project-brains/old   (project root /home/dev/m1nd, served by "
      "/rt/project-brains/new)",
      lines[4]);
}

TEST(OnceTableTest, ValuesFromDiskArePrintableAndBounded) {
  BrainReport hostile = Report("m1nd", BrainState::kMismatch);
  Coherence verdict = *hostile.coherence;
  verdict.found_slug = std::string(10000, 'k') + "\n\x1b[2J";
  verdict.reason = "line one\nline two\r\x07";
  hostile.coherence = std::make_shared<const Coherence>(verdict);
  const std::string text = OnceTable({hostile}, /*color=*/false);
  const std::vector<std::string> lines = Lines(text);
  ASSERT_EQ(2u, lines.size()) << text;
  EXPECT_EQ(std::string::npos, text.find('\x1b'));
  EXPECT_EQ(std::string::npos, text.find('\x07'));
  EXPECT_NE(std::string::npos, lines[1].find(std::string(kTableCellMaxChars - 3, 'k') + "..."));
  EXPECT_EQ(std::string::npos, lines[1].find(std::string(kTableCellMaxChars, 'k')));
  EXPECT_NE(std::string::npos, lines[1].find("line one line two"));
}

// A stale mismatch: the reason of the last good verdict, then why it is not fresh.
TEST(OnceTableTest, StaleMismatchGivesTheVerdictReasonAndTheReadError) {
  BrainReport stale = Report("m1nd", BrainState::kMismatch);
  stale.state = BrainState::kUnreadable;
  stale.verdict_stale = true;
  stale.read_error = StoreError::kParse;
  stale.read_error_message = "unexpected end";
  const std::vector<std::string> lines = Lines(OnceTable({stale}, /*color=*/false));
  ASSERT_EQ(2u, lines.size());
  EXPECT_NE(std::string::npos,
            lines[1].find("skeleton_id is foreign (last good read; the store cannot be read now: "
                          "parse: unexpected end)"))
      << lines[1];
}

TEST(OnceTableTest, ColourOnlyWhenAsked) {
  const std::string text = OnceTable({Report("m1nd", BrainState::kMismatch)}, /*color=*/true);
  EXPECT_NE(std::string::npos, text.find("\x1b[1;31mmismatch")) << text;
  EXPECT_NE(std::string::npos, text.find("\x1b[0m"));
}

}  // namespace
}  // namespace scx
