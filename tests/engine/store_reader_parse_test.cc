// Tests for ParseStore on good stores and on stores of the wrong shape (kSchema).
#include "engine/store_reader.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "tests/engine/store_reader_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Parse;
using testing::RichStore;
using testing::StoreJson;

// The unmapped_policy m1nd writes.
constexpr char kPolicy[] =
    R"({"visible": true, "default_action": "leave_unmapped_until_ratified"})";

// A store m1nd can load with nothing but its required fields, `store_version` and
// `unmapped_policy` spelled as given (left out when empty).
std::string MinimalStore(const std::string& store_version = "1",
                         const std::string& unmapped_policy = kPolicy) {
  std::string json = R"({"schema": "m1nd-system-block-store-v0", )";
  if (!store_version.empty()) json += R"("store_version": )" + store_version + ", ";
  json += R"("skeleton": {"skeleton_id": "sk_m1nd_candidate"}, )";
  json += R"("blocks": [{"block_id": "sb_m1nd_core"}])";
  if (!unmapped_policy.empty()) json += R"(, "unmapped_policy": )" + unmapped_policy;
  return json + "}";
}

// --- names -------------------------------------------------------------------------

TEST(StoreErrorNameTest, NamesEveryKind) {
  EXPECT_STREQ("none", StoreErrorName(StoreError::kNone));
  EXPECT_STREQ("absent", StoreErrorName(StoreError::kAbsent));
  EXPECT_STREQ("io", StoreErrorName(StoreError::kIo));
  EXPECT_STREQ("too_large", StoreErrorName(StoreError::kTooLarge));
  EXPECT_STREQ("not_regular", StoreErrorName(StoreError::kNotRegular));
  EXPECT_STREQ("parse", StoreErrorName(StoreError::kParse));
  EXPECT_STREQ("schema", StoreErrorName(StoreError::kSchema));
}

// --- good stores -------------------------------------------------------------------

TEST(ParseStoreTest, ReadsTheFieldsOfAGoodStore) {
  StoreContents contents;
  std::string message = "stale";
  std::vector<std::string> ids = {"stale"};
  ASSERT_EQ(StoreError::kNone,
            Parse(StoreJson("sk_keyvault_candidate", {"sb_c", "sb_a", "sb_b"}, 7), &contents,
                  &message, &ids))
      << message;
  EXPECT_TRUE(message.empty());
  EXPECT_EQ(7u, contents.store_version);
  EXPECT_EQ(3, contents.block_count);
  EXPECT_EQ("sk_keyvault_candidate", contents.digest.skeleton_id);
  EXPECT_EQ((std::vector<std::string>{"sb_c", "sb_a", "sb_b"}), ids);
  // No candidate slug of "sk_keyvault_candidate" accepts "sb_c": it offends them all,
  // from the shortest, "keyvault", on.
  ASSERT_EQ(1u, contents.digest.offenders.size());
  EXPECT_EQ(std::string("keyvault").size(), contents.digest.offenders[0].from_length);
  EXPECT_EQ("sb_c", contents.digest.offenders[0].block_id);
}

// Every field m1nd's types know, at every level, filled in: m1nd loads it, so do we.
TEST(ParseStoreTest, ReadsAStoreWithEveryFieldM1ndKnows) {
  StoreContents contents;
  std::string message;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone, Parse(RichStore(), &contents, &message, &ids)) << message;
  EXPECT_EQ(42u, contents.store_version);
  EXPECT_EQ("sk_keyvault_candidate", contents.digest.skeleton_id);
  EXPECT_EQ((std::vector<std::string>{"sb_keyvault_core_1a2b3c4d", "sb_keyvault_api_5e6f7a8b",
                                      "sb_keyvault_store_9c0d1e2f"}),
            ids);
}

// RichStore() with `text` put before the first `anchor` in it.
std::string RichStoreWith(const std::string& anchor, const std::string& text) {
  std::string json = RichStore();
  const std::size_t at = json.find(anchor);
  EXPECT_NE(std::string::npos, at) << anchor;
  return at == std::string::npos ? json : json.insert(at, text);
}

// RichStore() with the first `from` replaced by `to`.
std::string RichStoreReplacing(const std::string& from, const std::string& to) {
  std::string json = RichStore();
  const std::size_t at = json.find(from);
  EXPECT_NE(std::string::npos, at) << from;
  return at == std::string::npos ? json : json.replace(at, from.size(), to);
}

// The same store with a foreign block: m1nd loads it and reports a mismatch, and the
// digest still names the offender (strictness changes nothing for a store m1nd loads).
TEST(ParseStoreTest, AStoreWithEveryFieldM1ndKnowsStillShowsItsOffender) {
  StoreContents contents;
  std::string message;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone,
            Parse(RichStoreReplacing("sb_keyvault_store_9c0d1e2f", "sb_other_9c0d1e2f"), &contents,
                  &message, &ids))
      << message;
  // For the expected slug "keyvault" the foreign block is the first offender.
  std::string first;
  for (const auto& offender : contents.digest.offenders) {
    if (offender.from_length <= std::string("keyvault").size()) {
      first = offender.block_id;
      break;
    }
  }
  EXPECT_EQ("sb_other_9c0d1e2f", first);
}

// Every struct of m1nd's store denies unknown fields: a key it does not know at the top
// level, in the skeleton, its ratification, a block or unmapped_policy fails m1nd's
// load, so the store is unreadable (schema).
TEST(ParseStoreTest, UnknownFieldInTheStoreSkeletonOrABlockIsASchemaError) {
  const struct {
    const char* anchor;  // the key the unknown one goes before
    const char* where;   // what the message says
  } cases[] = {
      {"\"schema\"", "at the top level"},
      {"\"skeleton_id\"", "in \"skeleton\""},
      {"\"method\"", "in \"skeleton.ratification\""},
      {"\"name\": \"Core\"", "in a block"},
      {"\"block_id\": \"sb_keyvault_store", "in a block"},
      {"\"candidate_meta\": null", "in a block"},
      {"\"visible\"", "in \"unmapped_policy\""},
  };
  for (const auto& c : cases) {
    for (const char* key : {"zz_unknown", "block\\u005fids"}) {
      const std::string json = RichStoreWith(c.anchor, std::string("\"") + key + "\": 1, ");
      std::string message;
      EXPECT_EQ(StoreError::kSchema, Parse(json, nullptr, &message)) << c.anchor;
      const std::string decoded = key[0] == 'z' ? key : "block_ids";
      EXPECT_NE(message.find("unknown field \"" + decoded + "\" " + c.where), std::string::npos)
          << c.anchor << ": " << message;
    }
  }
  // A known key spelled with an escape is that key, as serde reads it.
  EXPECT_EQ(StoreError::kNone, Parse(RichStoreReplacing("\"membership_fingerprint\"",
                                                        "\"membership\\u005ffingerprint\"")));
}

// The objects nested in a block are skipped unread, their keys unchecked (the cost of
// checking them: store_reader.cc): a store whose only unknown key is there gets a
// verdict, as before. docs/verdict.md says so.
TEST(ParseStoreTest, KeysInsideABlocksNestedObjectsAreNotChecked) {
  for (const char* anchor :
       {"\"path\": \"src/core.rs\"", "\"inputs\"", "\"declared_by\"", "\"emitter\"",
        "\"artifact_hash\"", "\"locked\": false", "\"named_by\""}) {
    std::string message;
    EXPECT_EQ(StoreError::kNone,
              Parse(RichStoreWith(anchor, "\"zz_unknown\": 1, "), nullptr, &message))
        << anchor << ": " << message;
  }
}

// m1nd's skeleton state is candidate or ratified, a block's one of eight; its skeleton
// version is a u32. Anything else fails its load.
TEST(ParseStoreTest, StatesAndSkeletonVersionM1ndCannotLoadAreSchemaErrors) {
  const struct {
    const char* from;
    const char* to;
    const char* message;
  } cases[] = {
      {"\"state\": \"candidate\"", "\"state\": \"drafted\"", "\"skeleton.state\" \"drafted\""},
      {"\"state\": \"candidate\"", "\"state\": \"Candidate\"", "\"skeleton.state\""},
      {"\"state\": \"candidate\"", "\"state\": \"archived\"", "\"skeleton.state\""},
      {"\"state\": \"candidate\"", "\"state\": null", "\"skeleton.state\" is not a string"},
      {"\"state\": \"candidate\"", "\"state\": 1", "\"skeleton.state\" is not a string"},
      {"\"state\": \"ratified\"", "\"state\": \"frozen\"", "a block's \"state\" \"frozen\""},
      {"\"state\": \"ratified\"", "\"state\": \"\"", "a block's \"state\""},
      {"\"state\": \"archived\"", "\"state\": [\"archived\"]", "a block's \"state\" is not"},
      {"4294967295", "4294967296", "\"skeleton.version\" is not an unsigned 32-bit integer"},
      {"4294967295", "18446744073709551616", "\"skeleton.version\""},
      {"4294967295", "-1", "\"skeleton.version\""},
      {"4294967295", "1.5", "\"skeleton.version\""},
      {"4294967295", "\"1\"", "\"skeleton.version\""},
      {"4294967295", "null", "\"skeleton.version\""},
  };
  for (const auto& c : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kSchema, Parse(RichStoreReplacing(c.from, c.to), nullptr, &message))
        << c.to;
    EXPECT_NE(message.find(c.message), std::string::npos) << c.to << ": " << message;
  }
  // Every state m1nd knows loads.
  for (const char* state : {"candidate", "ratified"}) {
    EXPECT_EQ(StoreError::kNone,
              Parse(RichStoreReplacing("\"state\": \"candidate\"",
                                       std::string("\"state\": \"") + state + "\"")))
        << state;
  }
  for (const char* state : {"candidate", "planned", "building", "scanned", "ratified", "drifted",
                            "archived", "restored"}) {
    EXPECT_EQ(StoreError::kNone,
              Parse(RichStoreReplacing("\"state\": \"ratified\"",
                                       std::string("\"state\": \"") + state + "\"")))
        << state;
  }
  EXPECT_EQ(StoreError::kNone, Parse(RichStoreReplacing("4294967295", "0")));
  // A broken number is still a syntax error.
  EXPECT_EQ(StoreError::kParse, Parse(RichStoreReplacing("4294967295", "1.")));
}

// A schema problem in a block does not hide a syntax error after it.
TEST(ParseStoreTest, AnUnknownBlockFieldInATornStoreIsStillAParseError) {
  const std::string json = RichStoreWith("\"membership_fingerprint\"", "\"zz\": 1, ");
  for (std::size_t cut = json.find("\"zz\""); cut < json.size() - 2; cut += 7) {
    EXPECT_EQ(StoreError::kParse, Parse(json.substr(0, cut))) << cut;
  }
}

// m1nd's store struct requires `skeleton` and `blocks`: it cannot load a store
// without them, so such a file is broken (kSchema), never an empty store.
TEST(ParseStoreTest, NullOrMissingSkeletonOrBlocksIsASchemaError) {
  const struct {
    const char* name;
    const char* json;
    const char* message;
  } cases[] = {
      {"null skeleton",
       R"({"schema": "m1nd-system-block-store-v0", "store_version": 3, "skeleton": null,
           "blocks": [{"block_id": "sb_x"}], "unmapped_policy": {}})",
       "\"skeleton\" is null"},
      {"missing skeleton",
       R"({"schema": "m1nd-system-block-store-v0", "store_version": 3, "blocks": [],
           "unmapped_policy": {}})",
       "\"skeleton\" is missing"},
      {"null blocks",
       R"({"schema": "m1nd-system-block-store-v0", "store_version": 3,
           "skeleton": {"skeleton_id": "sk_x"}, "blocks": null, "unmapped_policy": {}})",
       "\"blocks\" is null"},
      {"missing blocks",
       R"({"schema": "m1nd-system-block-store-v0", "store_version": 3,
           "skeleton": {"skeleton_id": "sk_x"}, "unmapped_policy": {}})",
       "\"blocks\" is missing"},
      // The first missing field in m1nd's order, as serde reports it.
      {"schema alone", R"({"schema": "m1nd-system-block-store-v0"})",
       "\"store_version\" is missing"},
  };
  for (const auto& c : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kSchema, Parse(c.json, nullptr, &message)) << c.name;
    EXPECT_NE(message.find(c.message), std::string::npos) << c.name << ": " << message;
  }
}

// Newer m1nd versions add optional fields, one of them a whole nested seed with its
// own skeleton and blocks: only the top-level ones count.
TEST(ParseStoreTest, NestedCandidateRevisionDoesNotCount) {
  StoreContents contents;
  std::string message;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone, Parse(R"({"schema": "m1nd-system-block-store-v0", "store_version": 2,
                "candidate_revision": {"skeleton": {"skeleton_id": "sk_other_candidate"},
                                       "blocks": [{"block_id": "sb_other_a"}]},
                "skeleton": {"skeleton_id": "sk_m1nd_candidate"},
                "blocks": [{"block_id": "sb_m1nd_a", "membership_fingerprint": "f",
                            "resolved_members": [], "pre_archive_state": null}],
                "unmapped_policy": {"visible": true, "default_action": "x"},
                "curating_by": "agent", "curating_until": 1, "unmapped_total": 0})",
                                     &contents, &message, &ids))
      << message;
  EXPECT_EQ("sk_m1nd_candidate", contents.digest.skeleton_id);
  EXPECT_EQ(std::vector<std::string>{"sb_m1nd_a"}, ids);
}

TEST(ParseStoreTest, ZeroBlocks) {
  StoreContents contents;
  std::vector<std::string> ids = {"stale"};
  ASSERT_EQ(StoreError::kNone, Parse(StoreJson("sk_empty", {}, 1), &contents, nullptr, &ids));
  EXPECT_EQ("sk_empty", contents.digest.skeleton_id);
  EXPECT_TRUE(ids.empty());
  EXPECT_EQ(0, contents.block_count);
  EXPECT_TRUE(contents.digest.offenders.empty());
}

// m1nd's store_version is a u64: every value up to 2^64 - 1 is kept exactly.
TEST(ParseStoreTest, StoreVersionIsAnyUnsignedSixtyFourBitInteger) {
  const struct {
    const char* json;
    std::uint64_t value;
  } cases[] = {
      {"0", 0},
      {"7", 7},
      {"9007199254740993", std::uint64_t{9007199254740993u}},  // 2^53 + 1: not a double
      {"9223372036854775807", std::uint64_t{9223372036854775807u}},
      {"9223372036854775808", std::uint64_t{9223372036854775808u}},
      {"18446744073709551615", std::numeric_limits<std::uint64_t>::max()},
  };
  for (const auto& c : cases) {
    StoreContents contents;
    std::string message;
    ASSERT_EQ(StoreError::kNone, Parse(MinimalStore(c.json), &contents, &message))
        << c.json << ": " << message;
    EXPECT_EQ(c.value, contents.store_version) << c.json;
  }
}

// serde refuses these for a u64 as the wrong type: the store is broken, not torn.
TEST(ParseStoreTest, StoreVersionThatIsNotAnUnsignedSixtyFourBitIntegerIsASchemaError) {
  const char* const cases[] = {
      "18446744073709551616",   // 2^64
      "99999999999999999999",   // 20 digits, above 2^64 - 1
      "100000000000000000000",  // 21 digits
      "-1",
      "-9223372036854775808",
      "-9223372036854775809",
      "1e19",
      "-0",
      "7.5",
      "7.0",
      "1e3",
      "\"7\"",
      "true",
      "[7]",
      "{}",
  };
  for (const char* version : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kSchema, Parse(MinimalStore(version), nullptr, &message)) << version;
    EXPECT_NE(message.find("\"store_version\" is not an unsigned 64-bit integer"),
              std::string::npos)
        << version << ": " << message;
  }
  std::string message;
  EXPECT_EQ(StoreError::kSchema, Parse(MinimalStore("null"), nullptr, &message));
  EXPECT_NE(message.find("\"store_version\" is null"), std::string::npos) << message;
}

TEST(ParseStoreTest, MissingStoreVersionIsASchemaError) {
  std::string message;
  EXPECT_EQ(StoreError::kSchema, Parse(MinimalStore(""), nullptr, &message));
  EXPECT_NE(message.find("\"store_version\" is missing (m1nd cannot load a store without it)"),
            std::string::npos)
      << message;
}

// m1nd's store requires an unmapped_policy object; the exporter reads nothing in it.
TEST(ParseStoreTest, MissingOrNonObjectUnmappedPolicyIsASchemaError) {
  const struct {
    const char* policy;
    const char* message;
  } cases[] = {
      {"", "\"unmapped_policy\" is missing (m1nd cannot load a store without it)"},
      {"null", "\"unmapped_policy\" is null"},
      {"[]", "\"unmapped_policy\" is not an object"},
      {R"([true, "leave_unmapped_until_ratified"])", "\"unmapped_policy\" is not an object"},
      {R"("visible")", "\"unmapped_policy\" is not an object"},
      {"0", "\"unmapped_policy\" is not an object"},
      {"false", "\"unmapped_policy\" is not an object"},
  };
  for (const auto& c : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kSchema, Parse(MinimalStore("1", c.policy), nullptr, &message))
        << c.policy;
    EXPECT_NE(message.find(c.message), std::string::npos) << c.policy << ": " << message;
  }
}

// m1nd's UnmappedPolicy denies unknown fields too; the values are not checked.
TEST(ParseStoreTest, UnmappedPolicyIsCheckedByItsKeys) {
  for (const char* policy : {kPolicy, "{}", R"({"visible": [[{}]], "default_action": 1})"}) {
    std::string message;
    EXPECT_EQ(StoreError::kNone, Parse(MinimalStore("1", policy), nullptr, &message))
        << policy << ": " << message;
  }
  std::string message;
  EXPECT_EQ(StoreError::kSchema,
            Parse(MinimalStore("1", R"({"mode": "report", "x": [[{}]]})"), nullptr, &message));
  EXPECT_NE(message.find("unknown field \"mode\" in \"unmapped_policy\""), std::string::npos)
      << message;
}

// MinimalStore() with `fields` ("\"key\": value, ...") added at the end of the root.
std::string MinimalStoreWith(const std::string& fields) {
  std::string json = MinimalStore();
  json.pop_back();  // the closing brace
  return json + ", " + fields + "}";
}

// The optional top-level fields of m1nd's newest SystemBlockStore are skipped unread,
// whatever their values, and wherever they stand.
TEST(ParseStoreTest, OptionalTopLevelFieldsOfTheNewestStoreAreAccepted) {
  const std::string optional =
      R"("unmapped_files": ["README.md"], "unmapped_total": 1,
         "candidate_revision": {"schema": "x", "store_version": -1, "unmapped_policy": null,
                                "blocks": [{"block_id": "sb_other_a"}], "later": [[]]},
         "curating_by": null, "curating_until": "2026-11-30T12:00:00Z")";
  for (const std::string& json :
       {MinimalStoreWith(optional),
        "{" + optional + ", " + MinimalStore().substr(1),  // before the required ones
        MinimalStoreWith(R"("unmapped_total": "not checked", "curating_by": 7)"),
        MinimalStoreWith(R"("unm\u0061pped_files": [])")}) {
    StoreContents contents;
    std::string message;
    std::vector<std::string> ids;
    ASSERT_EQ(StoreError::kNone, Parse(json, &contents, &message, &ids)) << json << ": " << message;
    EXPECT_EQ(1u, contents.store_version);
    EXPECT_EQ("sk_m1nd_candidate", contents.digest.skeleton_id);
    EXPECT_EQ(std::vector<std::string>{"sb_m1nd_core"}, ids);
  }
}

// m1nd's SystemBlockStore denies unknown fields: m1nd cannot load a store with a
// top-level field its newest struct does not know, and serves no skeleton from it.
// Such a store is broken (schema), never read as if m1nd served it.
TEST(ParseStoreTest, UnknownTopLevelFieldIsASchemaError) {
  const struct {
    std::string json;
    std::string key;
  } cases[] = {
      {MinimalStoreWith(R"("future": null)"), "future"},
      {MinimalStoreWith(R"("generated_by": {"tool": "m1nd", "flags": [true, false]})"),
       "generated_by"},
      {MinimalStoreWith(R"("later": {"store_version": -1, "unmapped_policy": null})"), "later"},
      {MinimalStoreWith(R"("": 1)"), ""},
      // Names are matched exactly, after decoding escapes.
      {MinimalStoreWith(R"("Blocks": [])"), "Blocks"},
      {MinimalStoreWith(R"("unmapped_policy_v2": {})"), "unmapped_policy_v2"},
      {MinimalStoreWith(R"("curating": "agent")"), "curating"},
      {MinimalStoreWith(R"("skeleton_id": "sk_m1nd_candidate")"), "skeleton_id"},
      {MinimalStoreWith(R"("block\u005fid": "sb_x")"), "block_id"},
      // First, before the fields m1nd requires: the whole document is still walked.
      {R"({"x": 1, )" + MinimalStore().substr(1), "x"},
  };
  for (const auto& c : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kSchema, Parse(c.json, nullptr, &message)) << c.json;
    EXPECT_NE(message.find("unknown field \"" + c.key + "\" at the top level"), std::string::npos)
        << c.json << ": " << message;
  }
  // A long key is quoted in part.
  std::string message;
  EXPECT_EQ(StoreError::kSchema,
            Parse(MinimalStoreWith("\"" + std::string(10000, 'k') + "\": 1"), nullptr, &message));
  EXPECT_NE(message.find("unknown field \"" + std::string(64, 'k')), std::string::npos) << message;
  EXPECT_LT(message.size(), 300u) << message;
}

// The schema problem of an unknown field does not hide a syntax error after it.
TEST(ParseStoreTest, AnUnknownTopLevelFieldInATornStoreIsStillAParseError) {
  const std::string json = MinimalStoreWith(R"("future": 1)");
  for (std::size_t cut = json.find("future"); cut < json.size() - 1; ++cut) {
    EXPECT_EQ(StoreError::kParse, Parse(json.substr(0, cut))) << json.substr(0, cut);
  }
  EXPECT_EQ(StoreError::kParse,
            Parse(MinimalStoreWith(R"("future": 1, "blocks": [{"block_id": "a"},])")));
}

TEST(ParseStoreTest, NestedUnknownValuesAreFine) {
  const std::string deep = std::string(1000, '[') + std::string(1000, ']');
  std::string message;
  EXPECT_EQ(StoreError::kNone,
            Parse(R"({"schema":"m1nd-system-block-store-v0","store_version":1,)"
                  R"("skeleton":{"skeleton_id":"sk_x"},"blocks":[],"unmapped_policy":{},)"
                  R"("candidate_revision":)" +
                      deep + "}",
                  nullptr, &message))
      << message;
}

TEST(ParseStoreTest, OneParserPerThreadIsSafeAcrossThreads) {
  const std::string json = StoreJson("sk_threads", {"sb_1", "sb_2"}, 9);
  std::vector<std::thread> threads;
  threads.reserve(4);
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        StoreContents contents;
        std::string message;
        if (ParseStore(json, &contents, &message) != StoreError::kNone ||
            contents.block_count != 2 || contents.store_version != 9) {
          ++failures[t];
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(0, failures[t]) << "thread " << t;
}

// --- kSchema -------------------------------------------------------------------------

struct SchemaCase {
  const char* name;
  const char* json;
  const char* message_part;
};

TEST(ParseStoreTest, WrongShapesAreSchemaErrors) {
  const SchemaCase cases[] = {
      {"wrong schema", R"({"schema": "m1nd-system-block-store-v1", "blocks": []})",
       "m1nd-system-block-store-v1"},
      {"missing schema", R"({"store_version": 1, "blocks": []})", "schema"},
      {"schema not a string", R"({"schema": 0})", "schema"},
      {"root is an array", R"([{"schema": "m1nd-system-block-store-v0"}])", "not an object"},
      {"root is a string", R"("m1nd-system-block-store-v0")", "not an object"},
      {"root is null", "null", "not an object"},
      {"version is a float", R"({"schema": "m1nd-system-block-store-v0", "store_version": 1.5})",
       "store_version"},
      {"version is a string", R"({"schema": "m1nd-system-block-store-v0", "store_version": "7"})",
       "store_version"},
      {"version out of range",
       R"({"schema": "m1nd-system-block-store-v0", "store_version": 18446744073709551616})",
       "store_version"},
      {"skeleton_id not a string",
       R"({"schema": "m1nd-system-block-store-v0", "skeleton": {"skeleton_id": 12}})",
       "skeleton_id"},
      {"skeleton_id missing",
       R"({"schema": "m1nd-system-block-store-v0", "skeleton": {"version": 1}})", "skeleton_id"},
      {"skeleton an array", R"({"schema": "m1nd-system-block-store-v0", "skeleton": []})",
       "skeleton"},
      {"block without block_id",
       R"({"schema": "m1nd-system-block-store-v0", "blocks": [{"block_id": "a"}, {"name": "b"}]})",
       "blocks[1]"},
      {"block_id not a string",
       R"({"schema": "m1nd-system-block-store-v0", "blocks": [{"block_id": null}]})", "blocks[0]"},
      {"block not an object",
       R"({"schema": "m1nd-system-block-store-v0", "blocks": [{"block_id": "a"}, {"block_id": "b"}, "c"]})",
       "blocks[2]"},
      {"blocks not an array",
       R"({"schema": "m1nd-system-block-store-v0", "blocks": {"block_id": "a"}})", "blocks"},
  };
  for (const SchemaCase& c : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kSchema, Parse(c.json, nullptr, &message)) << c.name;
    EXPECT_NE(std::string::npos, message.find(c.message_part))
        << c.name << ": message \"" << message << "\"";
  }
}

}  // namespace
}  // namespace scx
