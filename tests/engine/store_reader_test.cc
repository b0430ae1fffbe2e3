// Tests for the store reader: parsing rules, every error kind with a real file of that
// kind on disk, bounded waits for everything that could block, stamps, and hygiene
// (no descriptor left open, mtime untouched).
#include "engine/store_reader.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace scx {
namespace {

namespace fs = std::filesystem;
using testing::ReplaceFileAtomically;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

// ReadStore, failing fast on a hang (two seconds).
StoreReadResult ReadBounded(const std::string& path, const StoreReaderOptions& options = {}) {
  return testing::CallWithin(std::chrono::seconds(2), "ReadStore(" + path + ")",
                             [&] { return ReadStore(path, options); });
}

// ParseStore; when `block_ids` is given, also checks that the digest and the block
// count are those of the block ids it returns.
StoreError Parse(const std::string& json, StoreContents* contents = nullptr,
                 std::string* message = nullptr, std::vector<std::string>* block_ids = nullptr) {
  StoreContents local_contents;
  std::string local_message;
  if (contents == nullptr) contents = &local_contents;
  const StoreError error =
      ParseStore(json, contents, message ? message : &local_message, block_ids);
  if (error == StoreError::kNone && block_ids != nullptr) {
    EXPECT_EQ(static_cast<std::int64_t>(block_ids->size()), contents->block_count);
    EXPECT_EQ(DigestOf(ServedSkeleton{contents->digest.skeleton_id, *block_ids}), contents->digest);
  }
  return error;
}

// The digest of a store serving `skeleton_id` and `block_ids`.
SkeletonDigest Digest(const std::string& skeleton_id, const std::vector<std::string>& block_ids) {
  return DigestOf(ServedSkeleton{skeleton_id, block_ids});
}

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

// A store in m1nd's shape with a little of everything: the optional top-level fields
// of m1nd's newest store, and inside the skeleton and the blocks fields m1nd may add.
std::string RichStore() {
  return R"({
  "schema": "m1nd-system-block-store-v0",
  "store_version": 42,
  "candidate_revision": {"tool": "m1nd", "version": "0.9.1", "flags": [true, false, null]},
  "skeleton": {
    "skeleton_id": "sk_keyvault_candidate",
    "version": 1,
    "state": "candidate",
    "ratification": {"method": "", "ratifier": null, "ratified_at": "", "commit": ""},
    "future_field": [1, -2.5e3, {"nested": ["\u00e9\n\"\\", "caf\u00e9 \ud83d\ude00"]}]
  },
  "blocks": [
    {
      "name": "Core",
      "purpose": "the \"core\" of it",
      "block_id": "sb_keyvault_core_1a2b3c4d",
      "membership": [{"path": "src/core.rs", "role": "primary", "weight": 0.75}],
      "sockets": {"inputs": [], "outputs": [{"name": "put", "schema": {}}], "external": []},
      "receipt_contract": {"required": ["a", "b"], "optional": null},
      "layout": {"x": 10, "y": -20, "w": 1e2, "h": 0}
    },
    {"block_id": "sb_keyvault_api_5e6f7a8b", "unknown": {"deep": [[[[[]]]]]}},
    {"block_id": "sb_keyvault_store_9c0d1e2f"}
  ],
  "unmapped_policy": {"mode": "report"},
  "unmapped_files": ["README.md", "LICENSE", "docs/ünïcödé.md"],
  "unmapped_total": 3,
  "curating_by": "agent-7",
  "curating_until": "2026-11-30T12:00:00Z"
}
)";
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

TEST(ParseStoreTest, IgnoresUnknownFieldsBelowTheTopLevel) {
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

TEST(ParseStoreTest, UnmappedPolicyIsCheckedByTypeOnly) {
  for (const char* policy : {kPolicy, "{}", R"({"mode": "report", "x": [[{}]]})"}) {
    std::string message;
    EXPECT_EQ(StoreError::kNone, Parse(MinimalStore("1", policy), nullptr, &message))
        << policy << ": " << message;
  }
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

// --- kParse --------------------------------------------------------------------------

TEST(ParseStoreTest, DuplicateKeysThatTheVerdictReadsAreParseErrors) {
  const std::string schema = R"("schema":"m1nd-system-block-store-v0")";
  const std::string skeleton = R"("skeleton":{"skeleton_id":"sk_a_candidate"})";
  const std::string blocks = R"("blocks":[{"block_id":"sb_a_x"}])";
  struct Case {
    std::string json;
    std::string key;
  };
  const Case cases[] = {
      {"{" + schema + "," + schema + "," + skeleton + "}", "schema"},
      {"{" + schema + R"(,"store_version":1,"store_version":2})", "store_version"},
      {"{" + schema + "," + skeleton + "," + skeleton + "}", "skeleton"},
      {"{" + schema + "," + blocks + "," + blocks + "}", "blocks"},
      {"{" + schema + R"(,"unmapped_policy":{},"unmapped_policy":{}})", "unmapped_policy"},
      {"{" + schema + R"(,"skeleton":{"skeleton_id":"sk_a","state":"x","skeleton_id":"sk_b"}})",
       "skeleton_id"},
      {"{" + schema +
           R"(,"blocks":[{"block_id":"sb_a_1"},{"block_id":"sb_a_2","block_id":"sb_b"}]})",
       "block_id"},
      // Equal once decoded.
      {"{" + schema + R"(,"skeleton":{"skeleton_id":"sk_a","skeleton\u005fid":"sk_b"}})",
       "skeleton_id"},
      {"{" + schema + R"(,"sch\u0065ma":"m1nd-system-block-store-v0"})", "schema"},
      // The optional fields too: serde reports any field of its struct twice.
      {"{" + schema + R"(,"curating_by":"a","curating_by":"b"})", "curating_by"},
      {"{" + schema + R"(,"unmapped_total":1,"store_version":1,"unmapped_total":1})",
       "unmapped_total"},
      {"{" + schema + R"(,"candidate_revision":{},"candidate\u005frevision":null})",
       "candidate_revision"},
  };
  for (const Case& c : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kParse, Parse(c.json, nullptr, &message)) << c.json;
    EXPECT_NE(message.find("duplicate field \"" + c.key + "\""), std::string::npos)
        << c.json << ": " << message;
  }
}

TEST(ParseStoreTest, DuplicateKeysTheVerdictDoesNotReadAreSkipped) {
  StoreContents contents;
  std::string message;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone, Parse(R"({"schema":"m1nd-system-block-store-v0",
                      "store_version":1,"unmapped_policy":{"visible":true,"visible":false},
                      "skeleton":{"skeleton_id":"sk_a_candidate","state":"a","state":"b"},
                      "blocks":[{"block_id":"sb_a_1","name":"n","name":"m"}],
                      "candidate_revision":{"x":1,"x":2}})",
                                     &contents, &message, &ids))
      << message;
  EXPECT_EQ(contents.digest.skeleton_id, "sk_a_candidate");
  EXPECT_EQ(ids, std::vector<std::string>{"sb_a_1"});
}

TEST(ParseStoreTest, EscapedKeysAreDecodedBeforeMatching) {
  StoreContents contents;
  std::string message;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone,
            Parse(R"({"sch\u0065ma":"m1nd-system-block-store-v0","store\u005fversion":4,
                      "sk\u0065leton":{"skeleton\u005fid":"sk_keyvault_candidate"},
                      "bl\u006fcks":[{"block\u005fid":"sb_keyvault_core"},
                                     {"\u0062lock_id":"sb_keyvault_cli"}],
                      "unmapped\u005fpolicy":{}})",
                  &contents, &message, &ids))
      << message;
  EXPECT_EQ(contents.store_version, 4u);
  EXPECT_EQ(contents.digest.skeleton_id, "sk_keyvault_candidate");
  EXPECT_EQ(ids, (std::vector<std::string>{"sb_keyvault_core", "sb_keyvault_cli"}));

  // An escape that decodes to another name is that other name.
  ASSERT_EQ(StoreError::kSchema, Parse(R"({"schema":"m1nd-system-block-store-v0",
                      "skeleton":{"skeleton\u005Fidx":"sk_a"}})",
                                       &contents, &message));
  EXPECT_NE(message.find("skeleton_id\" is missing"), std::string::npos) << message;
  // A bad escape in a key is a parse error.
  EXPECT_EQ(StoreError::kParse,
            Parse(R"({"schema":"m1nd-system-block-store-v0","sk\uZZZZ":1})", nullptr, &message));
  // In a block, a key is decoded when it may be "block_id" (it starts with a "b" or an
  // escape); there a bad escape is a parse error too. Other keys are skipped unread,
  // as values are.
  const std::string head =
      R"({"schema":"m1nd-system-block-store-v0","skeleton":{"skeleton_id":"sk_a"},)";
  EXPECT_EQ(StoreError::kParse, Parse(head + R"("blocks":[{"b\q":1}]})", nullptr, &message));
  EXPECT_EQ(StoreError::kParse, Parse(head + R"("blocks":[{"\uZZZZ":1}]})", nullptr, &message));
  EXPECT_EQ(StoreError::kSchema, Parse(head + R"("blocks":[{"n\q":1}]})", nullptr, &message));
  EXPECT_NE(message.find("has no string \"block_id\""), std::string::npos) << message;
}

// m1nd writes the skeleton first, but JSON objects have no order: the digest must not
// depend on it, and escaped block ids count as what they decode to.
TEST(ParseStoreTest, BlocksBeforeTheSkeletonGiveTheSameDigest) {
  const std::string blocks =
      R"("blocks":[{"block_id":"sb_m1nd_core"},{"block_id":"sb_m\u0031nd_cli"},)"
      R"({"block_id":"sb_keyvault_x"},{"block_id":"sb_other_y"}])";
  const std::string skeleton = R"("skeleton":{"skeleton_id":"sk_m1nd_candidate"})";
  const std::string schema =
      R"("schema":"m1nd-system-block-store-v0","store_version":1,"unmapped_policy":{})";
  const std::vector<std::string> expected_ids = {"sb_m1nd_core", "sb_m1nd_cli", "sb_keyvault_x",
                                                 "sb_other_y"};
  StoreContents first;
  StoreContents last;
  std::vector<std::string> ids;
  std::string message;
  ASSERT_EQ(StoreError::kNone,
            Parse("{" + blocks + "," + schema + "," + skeleton + "}", &first, &message, &ids))
      << message;
  EXPECT_EQ(expected_ids, ids);
  ASSERT_EQ(StoreError::kNone,
            Parse("{" + schema + "," + skeleton + "," + blocks + "}", &last, &message, &ids))
      << message;
  EXPECT_EQ(expected_ids, ids);
  EXPECT_EQ(Digest("sk_m1nd_candidate", expected_ids), first.digest);
  EXPECT_EQ(first.digest, last.digest);
  EXPECT_EQ(4, first.block_count);

  const std::optional<Coherence> verdict = CheckCoherence("/home/u/m1nd", "", &first.digest);
  ASSERT_TRUE(verdict.has_value());
  EXPECT_EQ(CoherenceStatus::kMismatch, verdict->status);
  EXPECT_NE(verdict->reason.find("\"sb_keyvault_x\""), std::string::npos) << verdict->reason;
}

TEST(ParseStoreTest, EveryTruncationIsAParseError) {
  // A torn write: the file cut at any byte before the closing brace.
  for (const std::string& full : {StoreJson("sk_torn", {"sb_a", "sb_b", "sb_c"}, 4), RichStore()}) {
    ASSERT_EQ(StoreError::kNone, Parse(full));
    const std::size_t last_brace = full.rfind('}');
    for (std::size_t cut = 0; cut < last_brace; ++cut) {
      std::string message;
      ASSERT_EQ(StoreError::kParse, Parse(full.substr(0, cut), nullptr, &message))
          << "cut at " << cut << " of " << full.size() << ": \"" << full.substr(0, cut) << "\"";
      ASSERT_FALSE(message.empty());
    }
  }
}

TEST(ParseStoreTest, ATornStoreIsAParseErrorEvenWhenItsShapeIsWrongToo) {
  const std::string wrong = R"({"schema": "other", "blocks": [{"name": "no id"}, {"x": [1, 2)";
  EXPECT_EQ(StoreError::kParse, Parse(wrong));
}

TEST(ParseStoreTest, SyntaxErrorsOnTheReadPathAreParseErrors) {
  const std::string schema = R"("schema": "m1nd-system-block-store-v0")";
  const std::string cases[] = {
      "{" + schema + R"( "blocks": []})",                          // missing comma at the root
      R"({"schema" "m1nd-system-block-store-v0"})",                // missing colon at the root
      "{" + schema + ",}",                                         // trailing comma at the root
      "{" + schema + ", 1: 2}",                                    // non-string key at the root
      "{" + schema + ", x: 2}",                                    // bare key at the root
      R"({"schema": "m1nd-\q"})",                                  // bad escape in the schema
      "{" + schema + R"(, "store_version": 1.})",                  // bad number
      "{" + schema + R"(, "store_version": 12abc})",               // bad number
      "{" + schema + R"(, "store_version": -})",                   // bad number
      "{" + schema + R"(, "store_version": 01})",                  // bad number
      "{" + schema + R"(, "store_version": -01})",                 // bad number
      "{" + schema + R"(, "store_version": 1e})",                  // bad number
      "{" + schema + R"(, "store_version": 1e400})",               // out of a double's range
      "{" + schema + R"(, "store_version": nul})",                 // bad literal
      "{" + schema + R"(, "unmapped_policy": nul})",               // bad literal
      "{" + schema + R"(, "skeleton": nul})",                      // bad literal
      "{" + schema + R"(, "skeleton": {"skeleton_id" "x"}})",      // missing colon
      "{" + schema + R"(, "skeleton": {"skeleton_id": "sk\q"}})",  // bad escape
      "{" + schema + R"(, "blocks": [{"block_id": "a"} {"block_id": "b"}]})",  // missing comma
      "{" + schema + R"(, "blocks": [{"block_id": "a"},]})",                   // trailing comma
      "{" + schema + R"(, "blocks": [{"block_id": "\ud800"}]})",               // lone surrogate
      "{" + schema + R"(, "blocks": [{"name" "x", "block_id": "a"}]})",        // missing colon
      "{" + schema + R"(, "blocks": nul})",                                    // bad literal
      "{" + schema + R"(, "blocks": [)" + "\"tab\tinside\"]}",  // raw control character
  };
  for (const std::string& json : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kParse, Parse(json, nullptr, &message)) << json;
    EXPECT_NE(std::string::npos, message.find("invalid JSON")) << json << ": " << message;
  }
}

TEST(ParseStoreTest, SkippedValuesMustStillBalanceAndHoldCleanStrings) {
  // Values the reader does not need are skipped, but the first stage still checks
  // their strings and the skip still needs their brackets to close.
  const std::string head = R"({"schema": "m1nd-system-block-store-v0", "blocks": [)";
  const std::string cases[] = {
      head + R"({"block_id": "a", "membership": [{"path": "x"}]})",   // block not closed
      head + R"({"block_id": "a", "membership": [{"path": "x"]}]})",  // brace missing
      head + R"({"block_id": "a", "x": "unclosed}]})",                // string not closed
      head + "{\"block_id\": \"a\", \"x\": \"new\nline\"}]}",         // raw control character
      head + R"({"block_id": "a"}], "x": {"y": [1, 2})",              // unknown not closed
  };
  for (const std::string& json : cases) {
    EXPECT_EQ(StoreError::kParse, Parse(json)) << json;
  }
}

TEST(ParseStoreTest, GarbageAndTrailingContentAreParseErrors) {
  const std::string good = StoreJson("sk_g", {"sb_a"}, 1);
  const std::string cases[] = {
      "",
      "   \n",
      "garbage",
      std::string("\x00\x01\x02\x03", 4),
      "\x89PNG\r\n\x1a\n",
      good + "x",
      good + "}",
      good + "{}",
      good + "\"tail\"",
      good + good,
      "{} 1",
  };
  for (const std::string& json : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kParse, Parse(json, nullptr, &message))
        << "\"" << json.substr(json.size() > 40 ? json.size() - 40 : 0) << "\"";
    EXPECT_FALSE(message.empty());
  }
  // Trailing whitespace is fine.
  EXPECT_EQ(StoreError::kNone, Parse(good + "\n\n  \t\n"));
}

TEST(ParseStoreTest, InvalidUtf8IsAParseError) {
  const std::string head = R"({"schema": "m1nd-system-block-store-v0", )";
  const std::string cases[] = {
      head + "\"x\": \"\xff\"}",                                // invalid byte in unknown value
      head + "\"x\": \"\xc0\xaf\"}",                            // overlong encoding
      head + "\"x\": \"\xed\xa0\x80\"}",                        // encoded surrogate
      head + "\"x\": \"caf\xc3\"}",                             // truncated sequence
      head + "\"\xfe\": 1}",                                    // in a key
      head + "\"blocks\": [{\"block_id\": \"sb_\xe2\x82\"}]}",  // in a block id
  };
  for (const std::string& json : cases) {
    std::string message;
    EXPECT_EQ(StoreError::kParse, Parse(json, nullptr, &message)) << json;
    EXPECT_FALSE(message.empty());
  }
}

// Runs ParseStore on a thread with a small stack, so that any recursion proportional
// to the nesting depth would crash the test.
StoreError ParseOnSmallStack(const std::string& json, std::string* message) {
  struct Call {
    const std::string* json;
    std::string* message;
    StoreError error;
  } call{&json, message, StoreError::kNone};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 512 * 1024);
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* arg) -> void* {
        auto* c = static_cast<Call*>(arg);
        StoreContents contents;
        c->error = ParseStore(*c->json, &contents, c->message);
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(0, rc);
  if (rc == 0) pthread_join(thread, nullptr);
  return call.error;
}

TEST(ParseStoreTest, DeepNestingNeverOverflowsTheStack) {
  const std::string head =
      R"({"schema": "m1nd-system-block-store-v0", "store_version": 1,)"
      R"( "skeleton": {"skeleton_id": "sk_x"}, "blocks": [], "unmapped_policy": {},)"
      R"( "candidate_revision": )";
  constexpr std::size_t kDepth = 1000000;
  std::string objects;  // {"a":{"a":...
  for (std::size_t i = 0; i < kDepth; ++i) objects += "{\"a\":";
  std::string message;

  // Unclosed: a torn store, whatever the depth.
  EXPECT_EQ(StoreError::kParse, ParseOnSmallStack(head + std::string(kDepth, '['), &message));
  EXPECT_FALSE(message.empty());
  EXPECT_EQ(StoreError::kParse, ParseOnSmallStack(head + objects, &message));
  EXPECT_EQ(StoreError::kParse, ParseOnSmallStack(std::string(kDepth, '['), &message));
  EXPECT_EQ(StoreError::kParse,
            ParseOnSmallStack(head + std::string(kDepth, '[') + std::string(kDepth - 1, ']') + "}",
                              &message));

  // Balanced: skipped in a loop. simdjson's on-demand skip has no depth limit, so an
  // optional field nested this deep is simply ignored.
  const std::string balanced = std::string(kDepth, '[') + std::string(kDepth, ']');
  StoreContents contents;
  EXPECT_EQ(StoreError::kNone, ParseOnSmallStack(head + balanced + "}", &message)) << message;
  EXPECT_EQ(StoreError::kNone,
            ParseOnSmallStack(head + objects + "1" + std::string(kDepth, '}') + "}", &message))
      << message;
  // Where the reader expects something else, it is a schema error, still without recursion.
  EXPECT_EQ(
      StoreError::kSchema,
      ParseOnSmallStack(R"({"schema": "m1nd-system-block-store-v0", "blocks": )" + balanced + "}",
                        &message));
  EXPECT_EQ(StoreError::kSchema, ParseOnSmallStack(balanced, &message));
}

// --- ReadStore: real files of every kind ----------------------------------------------

class ReadStoreTest : public ::testing::Test {
 protected:
  std::string StorePath() const { return dir_.Join(kStoreFileName); }
  TempDir dir_;
};

TEST_F(ReadStoreTest, ReadsAGoodStore) {
  WriteFile(StorePath(), StoreJson("sk_file", {"sb_1", "sb_2"}, 5));
  const StoreReadResult result = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, result.error) << result.message;
  EXPECT_TRUE(result.message.empty());
  EXPECT_EQ(5u, result.contents.store_version);
  EXPECT_EQ(2, result.contents.block_count);
  EXPECT_EQ(Digest("sk_file", {"sb_1", "sb_2"}), result.contents.digest);
  struct stat st;
  ASSERT_EQ(0, stat(StorePath().c_str(), &st));
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_ino), result.stamp.inode);
  EXPECT_EQ(static_cast<std::uint64_t>(st.st_dev), result.stamp.device);
  EXPECT_EQ(static_cast<std::int64_t>(st.st_size), result.stamp.size);
  EXPECT_EQ(static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
            result.stamp.mtime_ns);
}

TEST_F(ReadStoreTest, ReadsLargeAndSmallStoresInTurn) {
  // The thread's buffer and parser grow for a store past 1 MiB and stay grown until
  // ReleaseStoreReaderMemory gives them back: reads must work before and after both.
  std::vector<std::string> many;
  for (int i = 0; i < 5000; ++i) many.push_back("sb_block_" + std::to_string(i));
  const std::string big = StoreJson("sk_big", many, 3);
  ASSERT_GT(big.size(), std::size_t{1} << 20);
  WriteFile(dir_.Join("big.json"), big);
  WriteFile(StorePath(), StoreJson("sk_small", {"sb_1"}, 4));
  for (int round = 0; round < 2; ++round) {
    StoreReadResult result = ReadBounded(StorePath());
    ASSERT_EQ(StoreError::kNone, result.error) << result.message;
    EXPECT_EQ(Digest("sk_small", {"sb_1"}), result.contents.digest);
    EXPECT_EQ(1, result.contents.block_count);
    result = ReadBounded(dir_.Join("big.json"));
    ASSERT_EQ(StoreError::kNone, result.error) << result.message;
    EXPECT_EQ(Digest("sk_big", many), result.contents.digest);
    EXPECT_EQ(5000, result.contents.block_count);
    result = ReadBounded(StorePath());
    ASSERT_EQ(StoreError::kNone, result.error) << result.message;
    EXPECT_EQ(Digest("sk_small", {"sb_1"}), result.contents.digest);
    if (round == 0) ReleaseStoreReaderMemory();
  }
  ReleaseStoreReaderMemory();
  ReleaseStoreReaderMemory();  // nothing left to give back
  StoreContents contents;
  std::vector<std::string> ids;
  ASSERT_EQ(StoreError::kNone, Parse(big, &contents, nullptr, &ids));
  EXPECT_EQ(many, ids);
}

TEST_F(ReadStoreTest, FollowsASymlinkToARegularFile) {
  WriteFile(dir_.Join("real.json"), StoreJson("sk_link", {"sb_1"}, 1));
  ASSERT_EQ(0, symlink(dir_.Join("real.json").c_str(), StorePath().c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, result.error) << result.message;
  EXPECT_EQ("sk_link", result.contents.digest.skeleton_id);
}

TEST_F(ReadStoreTest, MissingFileIsAbsent) {
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kAbsent, result.error);
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kAbsent, StatStore(StorePath(), &stamp, &message));
}

TEST_F(ReadStoreTest, FifoIsNotRegularAndDoesNotBlock) {
  ASSERT_EQ(0, mkfifo(StorePath().c_str(), 0600)) << std::strerror(errno);
  const auto start = std::chrono::steady_clock::now();
  const StoreReadResult result = ReadBounded(StorePath());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
  EXPECT_LT(elapsed, std::chrono::seconds(1));
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kNotRegular, StatStore(StorePath(), &stamp, &message));
}

TEST_F(ReadStoreTest, DirectoryIsNotRegular) {
  testing::MakeDirs(StorePath());
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
  EXPECT_NE(0u, result.stamp.inode);  // stat'ed, so stamped
}

TEST_F(ReadStoreTest, DeviceIsNotRegular) {
  ASSERT_EQ(0, symlink("/dev/null", StorePath().c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
}

TEST_F(ReadStoreTest, SocketIsNotRegular) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = StorePath();
  if (path.size() >= sizeof(address.sun_path)) {
    close(fd);
    GTEST_SKIP() << "temporary path too long for a unix socket: " << path;
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(0, bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)))
      << std::strerror(errno);
  const StoreReadResult result = ReadBounded(path);
  close(fd);
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
}

TEST_F(ReadStoreTest, DanglingSymlinkIsNotRegular) {
  ASSERT_EQ(0, symlink(dir_.Join("nowhere.json").c_str(), StorePath().c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kNotRegular, StatStore(StorePath(), &stamp, &message));
}

TEST_F(ReadStoreTest, SymlinkLoopIsNotRegular) {
  ASSERT_EQ(0, symlink(dir_.Join("loop_b").c_str(), StorePath().c_str()));
  ASSERT_EQ(0, symlink(StorePath().c_str(), dir_.Join("loop_b").c_str()));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kNotRegular, result.error) << result.message;
}

TEST_F(ReadStoreTest, LargerThanTheCapIsTooLarge) {
  const std::string json = StoreJson("sk_big", {"sb_1", "sb_2", "sb_3"}, 1);
  WriteFile(StorePath(), json);
  StoreReaderOptions options;
  options.max_bytes = static_cast<std::int64_t>(json.size()) - 1;
  StoreReadResult result = ReadBounded(StorePath(), options);
  EXPECT_EQ(StoreError::kTooLarge, result.error) << result.message;
  EXPECT_EQ(static_cast<std::int64_t>(json.size()), result.stamp.size);
  options.max_bytes = static_cast<std::int64_t>(json.size());  // exactly at the cap
  result = ReadBounded(StorePath(), options);
  EXPECT_EQ(StoreError::kNone, result.error) << result.message;
}

TEST_F(ReadStoreTest, GrowingPastTheCapWhileReadingIsTooLarge) {
  // Files in /proc are regular with st_size 0 but have content: the read sees growth.
  const std::string path = "/proc/self/status";
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size != 0) {
    GTEST_SKIP() << path << " is not a zero-sized regular file here";
  }
  StoreReaderOptions options;
  options.max_bytes = 16;
  EXPECT_EQ(StoreError::kTooLarge, ReadBounded(path, options).error);
  options.max_bytes = 1 << 20;
  EXPECT_EQ(StoreError::kParse, ReadBounded(path, options).error);  // read whole, not JSON
}

TEST_F(ReadStoreTest, TornAndGarbledFilesAreParseErrors) {
  const std::string full = StoreJson("sk_torn", {"sb_1", "sb_2", "sb_3"}, 2);
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, full.size() / 3, full.size() / 2,
                          full.size() - 3, full.size() - 2}) {
    ReplaceFileAtomically(StorePath(), full.substr(0, cut));
    const StoreReadResult result = ReadBounded(StorePath());
    EXPECT_EQ(StoreError::kParse, result.error) << "cut at " << cut;
    EXPECT_NE(std::string::npos, result.message.find(StorePath())) << result.message;
  }
  ReplaceFileAtomically(StorePath(),
                        "\x7f"
                        "ELF\x02\x01\x01 not json at all");
  EXPECT_EQ(StoreError::kParse, ReadBounded(StorePath()).error);
}

TEST_F(ReadStoreTest, WrongShapeIsASchemaError) {
  WriteFile(StorePath(), R"({"schema": "something-else", "blocks": []})");
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kSchema, result.error);
  EXPECT_NE(std::string::npos, result.message.find("something-else")) << result.message;
}

TEST_F(ReadStoreTest, UnreadableFileIsAnIoError) {
  if (geteuid() == 0) {
    GTEST_SKIP() << "running as root: mode 000 does not prevent reading";
  }
  WriteFile(StorePath(), StoreJson("sk_io", {"sb_1"}, 1));
  ASSERT_EQ(0, chmod(StorePath().c_str(), 0));
  const StoreReadResult result = ReadBounded(StorePath());
  EXPECT_EQ(StoreError::kIo, result.error);
  EXPECT_NE(std::string::npos, result.message.find(StorePath())) << result.message;
  EXPECT_NE(std::string::npos, result.message.find(std::strerror(EACCES))) << result.message;
  chmod(StorePath().c_str(), 0600);
}

TEST_F(ReadStoreTest, ReadsFilesOfOtherOwnersWithoutNoatime) {
  // O_NOATIME is refused (EPERM) on files of other users; the read must retry without.
  const std::string path = "/etc/passwd";
  struct stat st;
  if (geteuid() == 0 || stat(path.c_str(), &st) != 0 || st.st_uid == geteuid() ||
      access(path.c_str(), R_OK) != 0) {
    GTEST_SKIP() << "needs a non-root user and a readable file owned by someone else";
  }
  const StoreReadResult result = ReadBounded(path);
  EXPECT_EQ(StoreError::kParse, result.error) << result.message;  // read, then not JSON
}

TEST_F(ReadStoreTest, OverlongPathIsAnIoError) {
  // Fails for root too, unlike the mode-000 case above.
  const std::string path = dir_.Join(std::string(5000, 'a'));
  const StoreReadResult result = ReadBounded(path);
  EXPECT_EQ(StoreError::kIo, result.error);
  EXPECT_NE(std::string::npos, result.message.find(std::strerror(ENAMETOOLONG))) << result.message;
  FileStamp stamp;
  std::string message;
  EXPECT_EQ(StoreError::kIo, StatStore(path, &stamp, &message));
}

// --- stamps and hygiene ----------------------------------------------------------------

TEST_F(ReadStoreTest, StampChangesWithEveryRenameAndOnlyThen) {
  WriteFile(StorePath(), StoreJson("sk_stamp", {"sb_1"}, 1));
  const StoreReadResult first = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, first.error);
  const StoreReadResult again = ReadBounded(StorePath());
  EXPECT_EQ(first.stamp, again.stamp);

  FileStamp stat_stamp;
  std::string message;
  ASSERT_EQ(StoreError::kNone, StatStore(StorePath(), &stat_stamp, &message)) << message;
  EXPECT_EQ(first.stamp, stat_stamp);

  // Same content, same size: only the inode tells the replacement apart.
  ReplaceFileAtomically(StorePath(), StoreJson("sk_stamp", {"sb_1"}, 1));
  const StoreReadResult replaced = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, replaced.error);
  EXPECT_NE(first.stamp.inode, replaced.stamp.inode);
  EXPECT_NE(first.stamp, replaced.stamp);
}

TEST_F(ReadStoreTest, StampSeesARewriteInPlaceWithItsMtimeSetBack) {
  WriteFile(StorePath(), StoreJson("sk_stamp", {"sb_1"}, 1));
  const StoreReadResult first = ReadBounded(StorePath());
  ASSERT_EQ(StoreError::kNone, first.error);
  struct stat before;
  ASSERT_EQ(0, stat(StorePath().c_str(), &before));
  // Same inode, same size, mtime restored: only ctime moved.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  WriteFile(StorePath(), StoreJson("sk_other", {"sb_1"}, 1));
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(0, utimensat(AT_FDCWD, StorePath().c_str(), times, 0));
  FileStamp now;
  std::string message;
  ASSERT_EQ(StoreError::kNone, StatStore(StorePath(), &now, &message)) << message;
  EXPECT_EQ(first.stamp.inode, now.inode);
  EXPECT_EQ(first.stamp.size, now.size);
  EXPECT_EQ(first.stamp.mtime_ns, now.mtime_ns);
  EXPECT_NE(first.stamp, now);
}

TEST_F(ReadStoreTest, DoesNotTouchTheFilesMtime) {
  WriteFile(StorePath(), StoreJson("sk_mtime", {"sb_1"}, 1));
  struct stat before;
  ASSERT_EQ(0, stat(StorePath().c_str(), &before));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(StoreError::kNone, ReadBounded(StorePath()).error);
  struct stat after;
  ASSERT_EQ(0, stat(StorePath().c_str(), &after));
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
  EXPECT_EQ(before.st_ctim.tv_sec, after.st_ctim.tv_sec);
  EXPECT_EQ(before.st_ctim.tv_nsec, after.st_ctim.tv_nsec);
  EXPECT_EQ(before.st_size, after.st_size);
}

TEST_F(ReadStoreTest, LeavesNoDescriptorOpen) {
  const std::string good = dir_.Join("good/system_blocks.json");
  const std::string torn = dir_.Join("torn/system_blocks.json");
  const std::string big = dir_.Join("big/system_blocks.json");
  const std::string fifo = dir_.Join("fifo.json");
  WriteFile(good, StoreJson("sk_fd", {"sb_1"}, 1));
  WriteFile(torn, "{\"schema\": ");
  WriteFile(big, StoreJson("sk_fd", {"sb_1", "sb_2"}, 1));
  ASSERT_EQ(0, mkfifo(fifo.c_str(), 0600));
  StoreReaderOptions small;
  small.max_bytes = 10;

  const std::size_t before = testing::OpenDescriptorCount();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(StoreError::kNone, ReadStore(good, {}).error);
    EXPECT_EQ(StoreError::kParse, ReadStore(torn, {}).error);
    EXPECT_EQ(StoreError::kTooLarge, ReadStore(big, small).error);
    EXPECT_EQ(StoreError::kNotRegular, ReadBounded(fifo).error);
    EXPECT_EQ(StoreError::kNotRegular, ReadStore(dir_.path(), {}).error);
    EXPECT_EQ(StoreError::kAbsent, ReadStore(dir_.Join("none.json"), {}).error);
  }
  EXPECT_EQ(before, testing::OpenDescriptorCount());
}

}  // namespace
}  // namespace scx
