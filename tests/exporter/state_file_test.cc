// The exporter's state across restarts: what it keeps, that it reads back what it
// wrote, and that a missing, corrupt or unwritable state is a warning, never a stop.
#include "exporter/state_file.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "engine/m1nd_files.h"
#include "tests/captured_log.h"
#include "tests/test_support.h"
#include "tests/text_lines.h"

namespace scx {
namespace {

using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::TempDir;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class StateFileTest : public ::testing::Test {
 protected:
  // Two static brains: "m1nd" serving keyvault's skeleton, "notes" its own.
  void ScanTwoBrains() {
    for (const char* name : {"m1nd", "notes"}) {
      const std::string runtime = brains_.Join(std::string("rt-") + name);
      testing::MakeDirs(runtime);
      config_.static_brains.push_back(StaticBrain{"", std::string("/home/u/") + name, "", runtime});
    }
    ReplaceFileAtomically(brains_.Join("rt-m1nd/system_blocks.json"),
                          StoreJson("sk_keyvault_candidate", {"sb_keyvault_core_1a2b3c4d"}));
    ReplaceFileAtomically(brains_.Join("rt-notes/system_blocks.json"),
                          StoreJson("sk_notes_candidate", {"sb_notes_core_1a2b3c4d"}));
    scanner_.Scan(config_);
  }

  TempDir brains_;
  TempDir state_dir_;
  DiscoveryConfig config_;
  Scanner scanner_;
  testing::CapturedLog log_{LogLevel::kInfo};
};

TEST_F(StateFileTest, KeepsLabelsAndTheMismatchesWithTheirIdentity) {
  ScanTwoBrains();
  std::vector<RememberedBrain> brains;
  int skipped = -1;
  std::string error;
  ASSERT_EQ(StateDecode::kDecoded, DecodeState(EncodeState(scanner_), &brains, &skipped, &error))
      << error;
  EXPECT_EQ(0, skipped);
  ASSERT_EQ(2u, brains.size());
  const RememberedBrain& m1nd = brains[0];
  EXPECT_EQ("m1nd", m1nd.brain.name);
  EXPECT_EQ(BrainState::kMismatch, m1nd.state);
  ASSERT_NE(nullptr, m1nd.mismatch);
  EXPECT_EQ("keyvault", m1nd.mismatch->found_slug);
  EXPECT_EQ("m1nd", m1nd.mismatch->expected_slug);
  EXPECT_FALSE(m1nd.mismatch->reason.empty());
  EXPECT_EQ("/home/u/m1nd", m1nd.brain.project_root);
  EXPECT_EQ(IdentitySource::kConfigProjectRoot, m1nd.brain.identity_source);
  EXPECT_GT(m1nd.mismatch_since_ns, 0);
  const RememberedBrain& notes = brains[1];
  EXPECT_EQ("notes", notes.brain.name);
  EXPECT_EQ(BrainState::kOk, notes.state);
  EXPECT_EQ(nullptr, notes.mismatch);
  EXPECT_TRUE(notes.brain.project_root.empty()) << "an ok brain keeps only its label";
}

TEST_F(StateFileTest, SavedStateIsLoadedBackWithNothingLeftBeside) {
  ScanTwoBrains();
  StateFile state(state_dir_.path(), log_.logger());
  ASSERT_TRUE(state.Save(scanner_));
  EXPECT_FALSE(testing::ReadFile(state.path()).empty());
  EXPECT_TRUE(testing::ReadFile(state.path() + ".tmp").empty()) << "renamed into place";
  const std::vector<RememberedBrain> loaded = state.Load();
  ASSERT_EQ(2u, loaded.size());
  EXPECT_TRUE(Contains(log_.text(), "msg=\"state restored\"")) << log_.text();
  EXPECT_TRUE(Contains(log_.text(), "mismatches=1")) << log_.text();
}

TEST_F(StateFileTest, MissingStateIsAFreshStart) {
  StateFile state(state_dir_.path(), log_.logger());
  EXPECT_TRUE(state.Load().empty());
  EXPECT_TRUE(Contains(log_.text(), "level=info")) << log_.text();
  EXPECT_FALSE(Contains(log_.text(), "level=warn")) << log_.text();
}

TEST_F(StateFileTest, CorruptOrForeignStateIsAWarningAndIgnored) {
  StateFile state(state_dir_.path(), log_.logger());
  for (const std::string& text :
       {std::string("{\"schema\": \"skeleton-coherence-exporter-state-v1\", \"brains\": [{\"na"),
        std::string("{\"schema\": \"something-else\", \"brains\": []}"), std::string("[]"),
        std::string("")}) {
    testing::WriteFile(state.path(), text);
    EXPECT_TRUE(state.Load().empty()) << text;
  }
  EXPECT_EQ(4u, testing::CountOf(log_.text(), "level=warn")) << log_.text();
  EXPECT_EQ(4u, testing::CountOf(log_.text(), "the state is corrupt")) << log_.text();
}

// Nesting past the registry parser's limit is refused as corrupt, the deep part never
// built (a million levels would otherwise be a million JSON values), whether or not
// the brackets are closed; 127 levels, the limit's honest side, parse.
TEST(DecodeStateTest, NestingPastTheLimitIsCorrupt) {
  const std::size_t levels = 1000000;
  for (const std::string& text :
       {std::string(levels, '[') + std::string(levels, ']'),
        "{\"schema\": \"skeleton-coherence-exporter-state-v1\", \"brains\": " +
            std::string(levels, '[') + std::string(levels, ']') + "}"}) {
    std::vector<RememberedBrain> brains;
    int skipped = 0;
    std::string error;
    EXPECT_EQ(StateDecode::kNotAState, DecodeState(text, &brains, &skipped, &error));
    EXPECT_TRUE(Contains(error, "nested")) << error;
  }
  std::vector<RememberedBrain> brains;
  int skipped = 0;
  std::string error;
  const std::string unclosed(levels, '[');
  EXPECT_EQ(StateDecode::kNotAState, DecodeState(unclosed, &brains, &skipped, &error));
  const std::string allowed =
      "{\"schema\": \"skeleton-coherence-exporter-state-v1\", "
      "\"x\": " +
      std::string(kSerdeRecursionLimit - 2, '[') + std::string(kSerdeRecursionLimit - 2, ']') +
      ", \"brains\": []}";
  EXPECT_EQ(StateDecode::kDecoded, DecodeState(allowed, &brains, &skipped, &error)) << error;
}

// A downgrade is not a torn file: the line says a newer release wrote the state and
// names both schemas (it once said "corrupt").
TEST_F(StateFileTest, StateOfANewerSchemaIsNamedAsSuch) {
  StateFile state(state_dir_.path(), log_.logger());
  testing::WriteFile(state.path(),
                     "{\"schema\": \"skeleton-coherence-exporter-state-v2\", \"brains\": []}");
  EXPECT_TRUE(state.Load().empty());
  const std::string text = log_.text();
  EXPECT_EQ(1u, testing::CountOf(text, "level=warn")) << text;
  EXPECT_TRUE(Contains(text,
                       "msg=\"the state was written by a newer release: starting without "
                       "it\""))
      << text;
  EXPECT_TRUE(Contains(text, "schema=skeleton-coherence-exporter-state-v2")) << text;
  EXPECT_TRUE(Contains(text, "supported_schema=skeleton-coherence-exporter-state-v1")) << text;
  EXPECT_FALSE(Contains(text, "corrupt")) << text;
}

TEST(StateSchemaVersionTest, ReadsTheVersionOfThisExportersSchemasOnly) {
  EXPECT_EQ(kStateSchemaVersion, StateSchemaVersion(kStateSchema));
  EXPECT_EQ(12, StateSchemaVersion("skeleton-coherence-exporter-state-v12"));
  EXPECT_EQ(0, StateSchemaVersion("skeleton-coherence-exporter-state-v"));
  EXPECT_EQ(0, StateSchemaVersion("skeleton-coherence-exporter-state-v2x"));
  EXPECT_EQ(0, StateSchemaVersion("skeleton-coherence-exporter-state-v02"));
  EXPECT_EQ(0, StateSchemaVersion("something-else-v3"));
}

TEST_F(StateFileTest, EntriesThatAreNotWholeAreSkipped) {
  std::vector<RememberedBrain> brains;
  int skipped = 0;
  std::string error;
  const std::string text =
      "{\"schema\":\"skeleton-coherence-exporter-state-v1\",\"brains\":[\n"
      "{\"name\":\"a\",\"runtime_dir\":\"/rt/a\",\"source\":\"static\",\"state\":\"ok\"},\n"
      "{\"name\":\"b\",\"runtime_dir\":\"/rt/b\",\"source\":\"nowhere\",\"state\":\"ok\"},\n"
      "{\"name\":\"c\",\"runtime_dir\":\"/rt/c\",\"source\":\"static\",\"state\":\"mismatch\","
      "\"expected_slug\":\"c\"},\n"
      "{\"name\":\"\",\"runtime_dir\":\"/rt/d\",\"source\":\"static\",\"state\":\"ok\"},\n"
      "17]}";
  ASSERT_EQ(StateDecode::kDecoded, DecodeState(text, &brains, &skipped, &error)) << error;
  ASSERT_EQ(1u, brains.size());
  EXPECT_EQ("a", brains[0].brain.name);
  EXPECT_EQ(4, skipped);
}

// A state folder deleted while the exporter runs is made again by the next write.
TEST_F(StateFileTest, AFolderGoneIsMadeAgain) {
  ScanTwoBrains();
  const std::string folder = state_dir_.Join("state");
  testing::MakeDirs(folder);
  StateFile state(folder, log_.logger());
  ASSERT_TRUE(state.Save(scanner_));
  ASSERT_EQ(0, std::remove(state.path().c_str()));
  ASSERT_EQ(0, rmdir(folder.c_str()));
  EXPECT_TRUE(state.Save(scanner_));
  EXPECT_EQ(2u, state.Load().size());
  EXPECT_EQ(0u, state.write_failures());
  EXPECT_EQ(1u, testing::CountOf(log_.text(), "the state folder was gone")) << log_.text();
}

TEST_F(StateFileTest, FailedWritesWarnOnceAndAreCounted) {
  ScanTwoBrains();
  StateFile state(state_dir_.Join("no/such/folder"), log_.logger());
  EXPECT_FALSE(state.Save(scanner_));
  EXPECT_FALSE(state.Save(scanner_));
  EXPECT_EQ(2u, state.write_failures());
  EXPECT_EQ(1u, testing::CountOf(log_.text(), "cannot write the state")) << log_.text();
}

}  // namespace
}  // namespace scx
