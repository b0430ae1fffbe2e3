// JSON views: the --once report and Surface A / Surface B of the HTTP view.
#include "exporter/render/json_view.h"

#include <gtest/gtest.h>

#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/brain_reports.h"

namespace scx {
namespace {

using Json = nlohmann::json;

BrainReport Report(const std::string& name, BrainState state) {
  BrainReport report;
  Brain* brain = report.mutable_brain();
  brain->name = name;
  brain->project_root = "/home/u/" + name;
  brain->runtime_dir = "/rt/" + name;
  brain->source = BrainSource::kRegistryOwner;
  report.state = state;
  report.store = state == BrainState::kAbsent ? StorePresence::kAbsent : StorePresence::kPresent;
  if (state == BrainState::kOk || state == BrainState::kMismatch) {
    Coherence verdict;
    verdict.status = state == BrainState::kOk ? CoherenceStatus::kOk : CoherenceStatus::kMismatch;
    verdict.expected_slug = name;
    verdict.found_slug = state == BrainState::kOk ? name : "keyvault";
    if (state == BrainState::kMismatch) verdict.reason = "skeleton_id does not match";
    report.coherence = std::make_shared<const Coherence>(verdict);
    report.has_store_facts = true;
    report.store_version = 7;
    report.block_count = 3;
  }
  return report;
}

TEST(OnceReportTest, IncidentOkAndSilentBrains) {
  Json report = Json::parse(
      OnceReport({Report("m1nd", BrainState::kMismatch), Report("my_repo", BrainState::kOk),
                  Report("notes", BrainState::kAbsent)}));
  ASSERT_EQ(report["brains"].size(), 3u);
  const Json& incident = report["brains"][0];
  EXPECT_EQ(incident["brain"], "m1nd");
  EXPECT_EQ(incident["project_root"], "/home/u/m1nd");
  EXPECT_EQ(incident["runtime_dir"], "/rt/m1nd");
  EXPECT_EQ(incident["store"], "present");
  EXPECT_EQ(incident["skeleton_coherence"],
            Json::parse(R"({"status":"mismatch","expected_slug":"m1nd","found_slug":"keyvault",
                            "reason":"skeleton_id does not match"})"));
  EXPECT_EQ(report["brains"][1]["skeleton_coherence"]["status"], "ok");
  EXPECT_EQ(report["brains"][2]["store"], "absent");
  EXPECT_TRUE(report["brains"][2]["skeleton_coherence"].is_null());
}

TEST(OnceReportTest, UnreadableStoreNamesTheReason) {
  BrainReport brain = Report("m1nd", BrainState::kUnreadable);
  brain.store = StorePresence::kUnreadable;
  brain.read_error = StoreError::kNotRegular;
  brain.read_error_message = "not a regular file (FIFO)";
  Json report = Json::parse(OnceReport({brain}));
  EXPECT_EQ(report["brains"][0]["store"], "unreadable");
  EXPECT_EQ(report["brains"][0]["store_error"]["reason"], "not_regular");
  EXPECT_TRUE(report["brains"][0]["skeleton_coherence"].is_null());
}

// --once dumps a long list in pieces of 512 brains on several threads: the joined text
// must be exactly the pretty dump of the whole list, in order.
TEST(OnceReportTest, LongListsAreDumpedInPiecesWithTheSameBytes) {
  const BrainState states[] = {BrainState::kOk, BrainState::kMismatch, BrainState::kAbsent};
  std::vector<BrainReport> brains;
  for (int i = 0; i < 1300; ++i) {
    brains.push_back(Report("brain" + std::to_string(10000 + i), states[i % 3]));
    if (i % 97 == 0) brains.back().mutable_brain()->display_name = "two\nlines \"q\"";
  }
  const std::string report = OnceReport(brains);
  const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(report);
  EXPECT_EQ(report, parsed.dump(2) + "\n");
  ASSERT_EQ(parsed["brains"].size(), brains.size());
  for (std::size_t i = 0; i < brains.size(); ++i) {
    ASSERT_EQ(parsed["brains"][i]["brain"], brains[i].brain().name) << i;
  }
}

TEST(OnceReportTest, EmptyListIsStillAnObject) {
  EXPECT_EQ(Json::parse(OnceReport({})), Json::parse(R"({"brains": [], "orphaned_folders": []})"));
}

// A brain whose identity cannot be decided: its state, why, no verdict, and m1nd's
// own name for it, in both views.
BrainReport IdentityUnknown() {
  BrainReport brain = Report("medulla", BrainState::kIdentityUnknown);
  Brain* identity = brain.mutable_brain();
  identity->project_root.clear();
  identity->identity_source = IdentitySource::kUnknown;
  identity->identity_note = "ingest root /home/dev/m1nd cannot be seen (its parent is hidden)";
  identity->m1nd_name = "medulla";
  brain.store = StorePresence::kPresent;
  return brain;
}

TEST(JsonViewTest, IdentityUnknownHasTheNoteAndNoVerdict) {
  const BrainReport brain = IdentityUnknown();
  for (const Json& view :
       {Json::parse(BrainView(brain)), Json::parse(OnceReport({brain}))["brains"][0],
        Json::parse(BrainsView({brain}))["brains"][0]}) {
    EXPECT_EQ(view["state"], "identity_unknown") << view;
    EXPECT_EQ(view["identity_source"], "unknown");
    EXPECT_EQ(view["identity_note"],
              "ingest root /home/dev/m1nd cannot be seen (its parent is hidden)");
    EXPECT_EQ(view["project_root"], "");
    EXPECT_EQ(view["m1nd_name"], "medulla");
    EXPECT_TRUE(view["skeleton_coherence"].is_null());
    EXPECT_FALSE(view.contains("north"));
    EXPECT_FALSE(view.contains("mismatch_since"));
    EXPECT_EQ(view["carried_over"], false);
  }
  const Json north = Json::parse(BrainNorthView(brain));
  EXPECT_TRUE(north["map"]["coherence"].is_null());
  EXPECT_TRUE(north["honest_gaps"].empty());
}

TEST(JsonViewTest, M1ndNameAndCarriedOverAreAlwaysThereAndTheNoteOnlyWhenUnknown) {
  BrainReport ok = Report("m1nd", BrainState::kOk);
  BrainReport carried = Report("keyvault", BrainState::kOk);
  carried.mutable_brain()->carried_over = true;
  carried.mutable_brain()->m1nd_name = "keyvault";
  carried.verdict_stale = true;
  for (const Json& view :
       {Json::parse(BrainView(ok)), Json::parse(OnceReport({ok}))["brains"][0]}) {
    EXPECT_EQ(view["m1nd_name"], "") << view;
    EXPECT_EQ(view["carried_over"], false);
    EXPECT_FALSE(view.contains("identity_note"));
  }
  for (const Json& view :
       {Json::parse(BrainView(carried)), Json::parse(OnceReport({carried}))["brains"][0]}) {
    EXPECT_EQ(view["m1nd_name"], "keyvault") << view;
    EXPECT_EQ(view["carried_over"], true);
  }
  EXPECT_EQ(Json::parse(BrainView(carried))["stale"], true);
}

TEST(OnceReportTest, EveryBrainHasItsState) {
  for (const Term<BrainState>& state : kBrainStates) {
    EXPECT_EQ(Json::parse(OnceReport({Report("a", state.value)}))["brains"][0]["state"],
              state.name);
  }
}

TEST(JsonViewTest, OrphanedFoldersAreListedAtTheTopLevel) {
  const std::vector<OrphanedFolder> orphans = {
      {"/rt/project-brains/old", "/home/dev/m1nd", "/rt/project-brains/new"}};
  const Json expected = Json::parse(R"([{"runtime_dir": "/rt/project-brains/old",
                                         "project_root": "/home/dev/m1nd",
                                         "served_runtime_dir": "/rt/project-brains/new"}])");
  for (const std::string& text :
       {OnceReport({Report("a", BrainState::kOk)}, orphans), OnceReport({}, orphans),
        BrainsView({Report("a", BrainState::kOk)}, orphans), BrainsView({}, orphans)}) {
    const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text);
    EXPECT_EQ(text, parsed.dump(2) + "\n");  // written as a whole dump would be
    EXPECT_EQ(Json::parse(text)["orphaned_folders"], expected) << text;
  }
  EXPECT_EQ(Json::parse(BrainsView({Report("a", BrainState::kOk)}))["orphaned_folders"],
            Json::array());
}

TEST(BrainViewTest, MismatchHasSurfaceAAndTheSickLine) {
  Json view = Json::parse(BrainView(Report("m1nd", BrainState::kMismatch)));
  EXPECT_EQ(view["store"], "present");
  EXPECT_EQ(view["store_version"], 7);
  EXPECT_EQ(view["block_count"], 3);
  EXPECT_EQ(view["skeleton_coherence"]["status"], "mismatch");
  EXPECT_EQ(view["state"], "mismatch");
  const Json& sick = view["north"]["skeleton_coherence"];
  EXPECT_EQ(sick["status"], "sick");
  EXPECT_EQ(sick["expected_slug"], "m1nd");
  EXPECT_EQ(sick["found_slug"], "keyvault");
  EXPECT_EQ(sick["advice"],
            "this brain is serving a foreign skeleton; rebind or re-ingest before trusting "
            "block scope");
}

TEST(BrainViewTest, OkAndAbsentHaveNoSickLine) {
  Json ok = Json::parse(BrainView(Report("m1nd", BrainState::kOk)));
  EXPECT_FALSE(ok.contains("north"));
  EXPECT_EQ(ok["skeleton_coherence"]["status"], "ok");
  Json absent = Json::parse(BrainView(Report("notes", BrainState::kAbsent)));
  EXPECT_FALSE(absent.contains("north"));
  EXPECT_EQ(absent["store"], "absent");
  EXPECT_FALSE(absent["present"].get<bool>());
  EXPECT_TRUE(absent["skeleton_coherence"].is_null());
  EXPECT_FALSE(absent.contains("store_version"));
}

TEST(BrainViewTest, StaleVerdictIsMarked) {
  BrainReport brain = Report("m1nd", BrainState::kMismatch);
  brain.state = BrainState::kUnreadable;
  brain.store = StorePresence::kUnreadable;
  brain.verdict_stale = true;
  brain.read_error = StoreError::kParse;
  Json view = Json::parse(BrainView(brain));
  EXPECT_EQ(view["stale"], true);
  EXPECT_EQ(view["state"], "unreadable");
  EXPECT_EQ(view["store_error"]["reason"], "parse");
  EXPECT_EQ(view["north"]["skeleton_coherence"]["status"], "sick");
}

TEST(JsonViewTest, MismatchSinceOnlyWhileInMismatch) {
  BrainReport incident = Report("m1nd", BrainState::kMismatch);
  incident.mismatch_since = 1700000000.5;
  EXPECT_EQ(Json::parse(BrainView(incident))["mismatch_since"], 1700000000.5);
  EXPECT_EQ(Json::parse(OnceReport({incident}))["brains"][0]["mismatch_since"], 1700000000.5);
  for (BrainState state : {BrainState::kOk, BrainState::kAbsent}) {
    EXPECT_FALSE(Json::parse(BrainView(Report("a", state))).contains("mismatch_since"));
    EXPECT_FALSE(
        Json::parse(OnceReport({Report("a", state)}))["brains"][0].contains("mismatch_since"));
  }
}

TEST(JsonViewTest, WhoseSkeletonOnlyWhatIsKnown) {
  BrainReport incident = Report("m1nd", BrainState::kMismatch);
  SkeletonProvenance incident_provenance;
  incident_provenance.owner_brain = "keyvault";
  incident_provenance.shared_with = {"keyvault"};
  incident_provenance.shared_count = 1;
  incident.skeleton_provenance = std::make_shared<const SkeletonProvenance>(incident_provenance);
  BrainReport lib = Report("lib", BrainState::kOk);
  SkeletonProvenance lib_provenance;
  lib_provenance.prefix_ambiguous = true;
  lib_provenance.ambiguous_slug = "lib_core";
  lib_provenance.ambiguous_with = "lib_core";
  lib.skeleton_provenance = std::make_shared<const SkeletonProvenance>(lib_provenance);
  for (const Json& view :
       {Json::parse(BrainView(incident)), Json::parse(OnceReport({incident}))["brains"][0]}) {
    EXPECT_EQ(view["skeleton_owner"], "keyvault");
    EXPECT_EQ(view["shared_with"], Json::array({"keyvault"}));
    EXPECT_FALSE(view.contains("prefix_ambiguous"));
    EXPECT_EQ(view["skeleton_coherence"]["found_slug"], "keyvault");  // unchanged
  }
  const Json view = Json::parse(BrainView(lib));
  EXPECT_EQ(view["prefix_ambiguous"], (Json{{"slug", "lib_core"}, {"brain", "lib_core"}}));
  EXPECT_EQ(view["skeleton_coherence"]["status"], "ok");
  EXPECT_FALSE(view.contains("skeleton_owner"));
  EXPECT_FALSE(view.contains("shared_with"));
}

TEST(BrainsViewTest, ListsEveryBrain) {
  Json view =
      Json::parse(BrainsView({Report("a", BrainState::kOk), Report("b", BrainState::kAbsent)}));
  ASSERT_EQ(view["brains"].size(), 2u);
  EXPECT_EQ(view["brains"][1]["brain"], "b");
}

TEST(JsonViewTest, HugeStringsAreCappedInEveryView) {
  BrainReport brain = Report("m1nd", BrainState::kMismatch);
  const std::string skeleton_id = "sk_" + std::string(10 << 20, 'k') + "_candidate";
  Coherence verdict = *brain.coherence;
  verdict.found_slug = std::string(10 << 20, 'k');
  verdict.reason = "skeleton_id \"" + skeleton_id + "\" is not this brain's";
  brain.coherence = std::make_shared<const Coherence>(verdict);
  for (const std::string& text : {OnceReport({brain}), BrainView(brain), BrainsView({brain})}) {
    EXPECT_LT(text.size(), 4 * kMaxJsonStringBytes + 4096);
    const Json json = Json::parse(text);
    const std::string dumped = json.dump();
    EXPECT_NE(dumped.find("kkkk\xE2\x80\xA6["), std::string::npos);
    EXPECT_NE(dumped.find(" bytes cut]"), std::string::npos);
  }
}

TEST(JsonViewTest, InvalidUtf8DoesNotThrow) {
  BrainReport brain = Report("m1nd", BrainState::kAbsent);
  brain.mutable_brain()->project_root = "/home/u/\xFF\xFE";
  std::string report;
  EXPECT_NO_THROW(report = OnceReport({brain}));
  EXPECT_TRUE(Json::accept(report));
}

// The list view is written one brain at a time: the same bytes as dumping the whole
// list at once, with its indentation, separators and escapes.
TEST(BrainsViewTest, ExactBytes) {
  BrainReport incident = Report("m1nd", BrainState::kMismatch);
  Brain* incident_brain = incident.mutable_brain();
  incident_brain->project_root = "/home/dev/m1nd";
  incident_brain->display_name = "line\none \"q\" \\ \xff";
  incident_brain->source = BrainSource::kStatic;
  Coherence verdict = *incident.coherence;
  verdict.reason = "r";
  incident.coherence = std::make_shared<const Coherence>(verdict);
  SkeletonProvenance incident_provenance;
  incident_provenance.shared_with = {"keyvault"};
  incident_provenance.shared_count = 1;
  incident.skeleton_provenance = std::make_shared<const SkeletonProvenance>(incident_provenance);
  BrainReport notes = Report("notes", BrainState::kAbsent);
  Brain* notes_brain = notes.mutable_brain();
  notes_brain->project_root = "/home/dev/notes";
  notes_brain->source = BrainSource::kStatic;
  const std::string expected =
      "{\n"
      "  \"brains\": [\n"
      "    {\n"
      "      \"brain\": \"m1nd\",\n"
      "      \"project_root\": \"/home/dev/m1nd\",\n"
      "      \"display_name\": \"line\\none \\\"q\\\" \\\\ \xEF\xBF\xBD\",\n"
      "      \"runtime_dir\": \"/rt/m1nd\",\n"
      "      \"source\": \"static\",\n"
      "      \"identity_source\": \"project_root\",\n"
      "      \"m1nd_name\": \"\",\n"
      "      \"carried_over\": false,\n"
      "      \"state\": \"mismatch\",\n"
      "      \"present\": true,\n"
      "      \"store\": \"present\",\n"
      "      \"store_version\": 7,\n"
      "      \"block_count\": 3,\n"
      "      \"skeleton_coherence\": {\n"
      "        \"status\": \"mismatch\",\n"
      "        \"expected_slug\": \"m1nd\",\n"
      "        \"found_slug\": \"keyvault\",\n"
      "        \"reason\": \"r\"\n"
      "      },\n"
      "      \"stale\": false,\n"
      "      \"shared_with\": [\n"
      "        \"keyvault\"\n"
      "      ],\n"
      "      \"north\": {\n"
      "        \"skeleton_coherence\": {\n"
      "          \"status\": \"sick\",\n"
      "          \"expected_slug\": \"m1nd\",\n"
      "          \"found_slug\": \"keyvault\",\n"
      "          \"advice\": \"this brain is serving a foreign skeleton; rebind or re-ingest "
      "before trusting block scope\"\n"
      "        }\n"
      "      }\n"
      "    },\n"
      "    {\n"
      "      \"brain\": \"notes\",\n"
      "      \"project_root\": \"/home/dev/notes\",\n"
      "      \"runtime_dir\": \"/rt/notes\",\n"
      "      \"source\": \"static\",\n"
      "      \"identity_source\": \"project_root\",\n"
      "      \"m1nd_name\": \"\",\n"
      "      \"carried_over\": false,\n"
      "      \"state\": \"absent\",\n"
      "      \"present\": false,\n"
      "      \"store\": \"absent\",\n"
      "      \"skeleton_coherence\": null,\n"
      "      \"stale\": false\n"
      "    }\n"
      "  ],\n"
      "  \"orphaned_folders\": []\n"
      "}\n";
  EXPECT_EQ(BrainsView({incident, notes}), expected);
  EXPECT_EQ(BrainsView({}), "{\n  \"brains\": [],\n  \"orphaned_folders\": []\n}\n");
  // The --once report is written the same way.
  EXPECT_EQ(OnceReport({incident, notes}), expected);
  EXPECT_EQ(OnceReport({}), "{\n  \"brains\": [],\n  \"orphaned_folders\": []\n}\n");
  // Orphaned folders, strings escaped as everywhere.
  EXPECT_EQ(BrainsView({}, {{"/rt/a \"q\"", "/home/dev/m1nd", "/rt/b"}}),
            "{\n"
            "  \"brains\": [],\n"
            "  \"orphaned_folders\": [\n"
            "    {\n"
            "      \"runtime_dir\": \"/rt/a \\\"q\\\"\",\n"
            "      \"project_root\": \"/home/dev/m1nd\",\n"
            "      \"served_runtime_dir\": \"/rt/b\"\n"
            "    }\n"
            "  ]\n"
            "}\n");
}

// The room the list is given to begin with (ScanLoop passes the previous render's
// size; bench/render_bench.cc's BM_BrainsViewGrowing shows what it saves) changes no
// byte of it, whether too small, exact or too large.
TEST(BrainsViewTest, TheRoomItIsGivenChangesNoByte) {
  std::vector<BrainReport> brains;
  brains.reserve(200);
  for (int i = 0; i < 200; ++i) brains.push_back(testing::EveryFact(i, BrainState::kMismatch));
  const std::string first = BrainsView(brains);
  for (const std::size_t room :
       {std::size_t{1}, first.size() / 2, first.size(), 3 * first.size()}) {
    EXPECT_EQ(BrainsView(brains, {}, room), first) << room;
  }
}

// A state filter and a limit: the matching brains by name, at most `limit`, then
// "omitted" (the matching ones left out) only when a limit is given; every orphaned
// folder whatever the filter. Written as a whole dump would be.
TEST(BrainsViewTest, FilteredListCountsWhatItLeftOut) {
  std::vector<BrainReport> brains;
  brains.reserve(10);
  for (int i = 0; i < 10; ++i) {
    brains.push_back(
        Report("b" + std::to_string(i), i % 3 == 0 ? BrainState::kMismatch : BrainState::kOk));
  }
  const std::vector<OrphanedFolder> orphans = {{"/rt/old", "/home/dev/m1nd", "/rt/new"}};
  BrainFilter filter;
  filter.states = {BrainState::kMismatch};
  filter.has_limit = true;
  filter.limit = 3;
  std::string text = FilteredBrainsView(brains, orphans, filter);
  nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(text, parsed.dump(2) + "\n");
  ASSERT_EQ(parsed["brains"].size(), 3u);
  EXPECT_EQ(parsed["brains"][0], nlohmann::ordered_json::parse(BrainView(brains[0])));
  EXPECT_EQ(parsed["brains"][2]["brain"], "b6");
  EXPECT_EQ(parsed["omitted"], 1);  // b9
  EXPECT_EQ(parsed["orphaned_folders"].size(), 1u);
  std::vector<std::string> keys;
  for (const auto& item : parsed.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"brains", "omitted", "orphaned_folders"}));

  filter.limit = 0;  // no limit: every match, and "omitted": 0
  parsed = nlohmann::ordered_json::parse(FilteredBrainsView(brains, orphans, filter));
  EXPECT_EQ(parsed["brains"].size(), 4u);
  EXPECT_EQ(parsed["omitted"], 0);

  filter.has_limit = false;  // no "omitted" without a limit
  parsed = nlohmann::ordered_json::parse(FilteredBrainsView(brains, orphans, filter));
  EXPECT_EQ(parsed["brains"].size(), 4u);
  EXPECT_FALSE(parsed.contains("omitted"));

  filter.states = {BrainState::kAbsent};
  text = FilteredBrainsView(brains, {}, filter);
  EXPECT_EQ(text, "{\n  \"brains\": [],\n  \"orphaned_folders\": []\n}\n");
  // Unfiltered, the whole list.
  EXPECT_EQ(FilteredBrainsView(brains, orphans, BrainFilter()), BrainsView(brains, orphans));
}

// One schema: --once prints, and GET /api/v1/brains serves, the same brain objects, each
// the one BrainView shows, for brains with every fact in every state (a list of more
// than 512 brains, which --once dumps in pieces on several threads).
TEST(JsonViewTest, OnceAndTheApiShowTheSameBrainObjects) {
  std::vector<BrainReport> brains;
  for (int i = 0; i < 600; ++i) {
    const BrainState state = kBrainStates[i % std::size(kBrainStates)].value;
    brains.push_back(testing::EveryFact(i, state));
  }
  const std::vector<OrphanedFolder> orphans = {{"/rt/old", "/home/dev/m1nd", "/rt/new"}};
  const std::string once = OnceReport(brains, orphans);
  EXPECT_EQ(once, BrainsView(brains, orphans));
  const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(once);
  ASSERT_EQ(parsed["brains"].size(), brains.size());
  for (std::size_t i = 0; i < brains.size(); ++i) {
    const nlohmann::ordered_json& object = parsed["brains"][i];
    ASSERT_EQ(object, nlohmann::ordered_json::parse(BrainView(brains[i]))) << i;
    EXPECT_EQ(object["store"], StorePresenceName(brains[i].store)) << i;
    // Surface A's "present" says the same as "store", for m1nd's readers.
    EXPECT_EQ(object["present"], brains[i].store != StorePresence::kAbsent) << i;
  }
}

}  // namespace
}  // namespace scx
