// Tests for ParseStore's kParse: duplicate keys, torn or garbled text, bad UTF-8, deep nesting.
#include "engine/store_reader.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tests/engine/store_reader_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Digest;
using testing::Parse;
using testing::RichStore;
using testing::StoreJson;

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
                      "skeleton":{"skeleton_id":"sk_a_candidate","state":"candidate","state":"ratified"},
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
  EXPECT_NE(message.find("unknown field \"skeleton_idx\" in \"skeleton\""), std::string::npos)
      << message;
  // A bad escape in a key is a parse error.
  EXPECT_EQ(StoreError::kParse,
            Parse(R"({"schema":"m1nd-system-block-store-v0","sk\uZZZZ":1})", nullptr, &message));
  // In a block every key is decoded (m1nd's types deny the ones they do not know);
  // there a bad escape is a parse error too.
  const std::string head =
      R"({"schema":"m1nd-system-block-store-v0","skeleton":{"skeleton_id":"sk_a"},)";
  EXPECT_EQ(StoreError::kParse, Parse(head + R"("blocks":[{"b\q":1}]})", nullptr, &message));
  EXPECT_EQ(StoreError::kParse, Parse(head + R"("blocks":[{"\uZZZZ":1}]})", nullptr, &message));
  EXPECT_EQ(StoreError::kParse, Parse(head + R"("blocks":[{"n\q":1}]})", nullptr, &message));
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
  pthread_attr_setstacksize(&attr, std::size_t{512} * 1024);
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

}  // namespace
}  // namespace scx
