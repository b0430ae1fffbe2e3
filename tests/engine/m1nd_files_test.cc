// Tests for the parsers of m1nd's small files: each accepts exactly what m1nd's own
// serde structs accept (no disk).
#include "engine/m1nd_files.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scx {
namespace {

// A whole instance record as m1nd writes it, with `replace` spliced in place of the
// field named `field` ("" keeps them all; a `replace` of "" drops the field).
std::string Record(const std::string& field = "", const std::string& replace = "") {
  const std::vector<std::pair<std::string, std::string>> fields = {
      {"instance_id", "\"inst_1\""},
      {"workspace_root", "\"/home/u/m1nd\""},
      {"runtime_root", "\"/home/u/.m1nd-rt\""},
      {"graph_source", "\"/home/u/.m1nd-rt/graph_snapshot.json\""},
      {"plasticity_state", "\"/home/u/.m1nd-rt/plasticity_state.json\""},
      {"pid", "4242"},
      {"bind", "\"127.0.0.1\""},
      {"port", "1337"},
      {"started_at_ms", "1767225600000"},
      {"last_heartbeat_ms", "1767225660000"},
      {"mode", "\"read_write\""},
      {"status", "\"running\""},
      {"owner_live", "true"},
      {"stale", "false"},
      {"conflicts", "[]"},
      {"brain_kind", "null"},
  };
  std::string text = "{";
  for (const auto& [name, value] : fields) {
    std::string shown = name == field ? replace : value;
    if (shown.empty()) continue;
    if (text.size() > 1) text += ", ";
    text += "\"" + name + "\": " + shown;
  }
  return text + "}";
}

TEST(ParseInstanceRecordTest, AWholeRecordAsM1ndWritesIt) {
  const InstanceRecordParse parse = ParseInstanceRecord(Record());
  ASSERT_TRUE(parse.ok) << parse.error;
  EXPECT_EQ("inst_1", parse.record.instance_id);
  EXPECT_EQ("/home/u/m1nd", parse.record.workspace_root);
  EXPECT_EQ("/home/u/.m1nd-rt", parse.record.runtime_root);
  EXPECT_EQ("/home/u/.m1nd-rt/graph_snapshot.json", parse.record.graph_source);
  EXPECT_EQ("read_write", parse.record.mode);
  EXPECT_FALSE(parse.record.has_brain_kind);
  EXPECT_EQ(1767225660000u, parse.record.last_heartbeat_ms);
}

TEST(ParseInstanceRecordTest, OptionalAndDefaultedFieldsMayBeLeftOut) {
  for (const char* field : {"bind", "port", "owner_live", "stale", "conflicts", "brain_kind"}) {
    EXPECT_TRUE(ParseInstanceRecord(Record(field, "")).ok) << field;
  }
  for (const char* field : {"bind", "port", "owner_live", "brain_kind"}) {
    EXPECT_TRUE(ParseInstanceRecord(Record(field, "null")).ok) << field;
  }
  const InstanceRecordParse medulla = ParseInstanceRecord(Record("brain_kind", "\"medulla\""));
  ASSERT_TRUE(medulla.ok);
  EXPECT_TRUE(medulla.record.has_brain_kind);
  EXPECT_EQ("medulla", medulla.record.brain_kind);
  // Unknown keys are ignored, as serde does without deny_unknown_fields.
  EXPECT_TRUE(ParseInstanceRecord("{\"future\": {\"x\": 1}, " + Record().substr(1)).ok);
}

TEST(ParseInstanceRecordTest, EveryRequiredFieldIsRequired) {
  for (const char* field :
       {"instance_id", "workspace_root", "runtime_root", "graph_source", "plasticity_state", "pid",
        "started_at_ms", "last_heartbeat_ms", "mode", "status"}) {
    const InstanceRecordParse parse = ParseInstanceRecord(Record(field, ""));
    EXPECT_FALSE(parse.ok) << field;
    EXPECT_NE(std::string::npos, parse.error.find(field)) << parse.error;
  }
}

// A hand-written entry with only the two roots is no record: m1nd skips it.
TEST(ParseInstanceRecordTest, APartialEntryIsNotARecord) {
  EXPECT_FALSE(
      ParseInstanceRecord(R"({"workspace_root": "/home/u/m1nd", "runtime_root": "/rt"})").ok);
}

TEST(ParseInstanceRecordTest, FieldsOfTheWrongTypeAreRefused) {
  const std::vector<std::pair<const char*, const char*>> wrong = {
      {"instance_id", "7"},
      {"workspace_root", "null"},
      {"pid", "-1"},
      {"pid", "4242.0"},
      {"pid", "4294967296"},
      {"pid", "\"4242\""},
      {"port", "65536"},
      {"port", "-1"},
      {"bind", "7"},
      {"started_at_ms", "1.5e12"},
      {"last_heartbeat_ms", "-5"},
      {"last_heartbeat_ms", "18446744073709551616"},
      {"owner_live", "\"yes\""},
      {"stale", "null"},
      {"stale", "0"},
      {"conflicts", "null"},
      {"conflicts", "[1]"},
      {"conflicts", "\"a\""},
      {"brain_kind", "5"},
      {"brain_kind", "{\"kind\": \"project\"}"},
      {"mode", "null"},
      {"status", "[]"},
  };
  for (const auto& [field, value] : wrong) {
    EXPECT_FALSE(ParseInstanceRecord(Record(field, value)).ok) << field << " = " << value;
  }
  // The widest values each type allows.
  EXPECT_TRUE(ParseInstanceRecord(Record("pid", "4294967295")).ok);
  EXPECT_TRUE(ParseInstanceRecord(Record("port", "65535")).ok);
  EXPECT_TRUE(ParseInstanceRecord(Record("last_heartbeat_ms", "18446744073709551615")).ok);
}

TEST(ParseInstanceRecordTest, WhatSerdeRefusesBesidesTypes) {
  // Not an object, torn, a duplicate key, a byte-order mark, too deep.
  EXPECT_FALSE(ParseInstanceRecord("[]").ok);
  EXPECT_FALSE(ParseInstanceRecord(Record().substr(0, 40)).ok);
  EXPECT_FALSE(ParseInstanceRecord("{\"pid\": 1, " + Record().substr(1)).ok);
  EXPECT_FALSE(ParseInstanceRecord("\xEF\xBB\xBF" + Record()).ok);
  // serde_json allows 127 arrays and objects open at once, not 128 (the record's own
  // object counts).
  auto nested = [](int arrays) {
    return "{\"x\": " + std::string(arrays, '[') + std::string(arrays, ']') + ", " +
           Record().substr(1);
  };
  EXPECT_TRUE(ParseInstanceRecord(nested(126)).ok);
  EXPECT_FALSE(ParseInstanceRecord(nested(127)).ok);
  EXPECT_FALSE(ParseInstanceRecord(Record() + " trailing").ok);
}

TEST(IsInstanceFileNameTest, OnlyNamesWithAJsonExtension) {
  EXPECT_TRUE(IsInstanceFileName("inst_1.json"));
  EXPECT_TRUE(IsInstanceFileName("a.b.json"));
  EXPECT_FALSE(IsInstanceFileName("inst_1.tmp"));
  EXPECT_FALSE(IsInstanceFileName("inst_1.json.tmp"));
  EXPECT_FALSE(IsInstanceFileName(".json"));
  EXPECT_FALSE(IsInstanceFileName("json"));
}

TEST(ParseProjectBrainManifestTest, AnyObjectWithAStringProjectRoot) {
  ManifestParse parse = ParseProjectBrainManifest(
      R"({"schema": "m1nd-project-brain-v0", "project_root": "/home/u/kv", "brain_kind": "project"})");
  ASSERT_TRUE(parse.ok);
  EXPECT_EQ("/home/u/kv", parse.project_root);
  // m1nd does not check the schema: a newer one, or none, is still a project brain.
  EXPECT_TRUE(
      ParseProjectBrainManifest(R"({"schema": "m1nd-project-brain-v9", "project_root": "/a"})").ok);
  EXPECT_TRUE(ParseProjectBrainManifest(R"({"project_root": "/a"})").ok);
}

TEST(ParseProjectBrainManifestTest, TornTextIsToldFromAnotherDocument) {
  ManifestParse torn = ParseProjectBrainManifest(R"({"schema": "m1nd-pro)");
  EXPECT_FALSE(torn.ok);
  EXPECT_TRUE(torn.torn);
  for (const char* text : {R"({"schema": "m1nd-project-brain-v0"})", R"({"project_root": 7})",
                           R"({"project_root": null})", "[]", "\"/a\""}) {
    ManifestParse parse = ParseProjectBrainManifest(text);
    EXPECT_FALSE(parse.ok) << text;
    EXPECT_FALSE(parse.torn) << text;
    EXPECT_FALSE(parse.error.empty()) << text;
  }
}

TEST(ParseIngestRootsAsM1ndTest, AJsonArrayOfStrings) {
  IngestRootsParse parse = ParseIngestRootsAsM1nd(R"(["/home/u/m1nd", "/home/u/x.light.md"])");
  EXPECT_EQ((std::vector<std::string>{"/home/u/m1nd", "/home/u/x.light.md"}), parse.roots);
  EXPECT_TRUE(parse.ignored_because.empty());
  EXPECT_TRUE(ParseIngestRootsAsM1nd("[]").roots.empty());
}

// m1nd: from_str::<Vec<String>>().ok().unwrap_or_default().
TEST(ParseIngestRootsAsM1ndTest, AnythingElseIsAnEmptyList) {
  for (const char* text : {"", "[\"/a\"", "{\"roots\": []}", "[\"/a\", 3]", "[\"/a\", null]",
                           "null", "\"/a\"", "[\"/a\"] x", "\xEF\xBB\xBF[\"/a\"]"}) {
    const IngestRootsParse parse = ParseIngestRootsAsM1nd(text);
    EXPECT_TRUE(parse.roots.empty()) << text;
    EXPECT_FALSE(parse.ignored_because.empty()) << text;
  }
}

TEST(FileNameOfTest, AsRustsPathFileName) {
  EXPECT_EQ("m1nd", FileNameOf("/home/u/m1nd"));
  EXPECT_EQ("m1nd", FileNameOf("/home/u/m1nd/"));
  EXPECT_EQ("m1nd", FileNameOf("/home/u/m1nd/."));
  EXPECT_EQ("m1nd", FileNameOf("/home/u/m1nd/./."));
  EXPECT_EQ("m1nd", FileNameOf("m1nd"));
  EXPECT_EQ("", FileNameOf("/home/u/.."));
  EXPECT_EQ("", FileNameOf("/"));
  EXPECT_EQ("", FileNameOf("."));
  EXPECT_EQ("", FileNameOf(""));
  EXPECT_EQ(".m1nd", FileNameOf("/home/u/.m1nd"));
}

}  // namespace
}  // namespace scx
