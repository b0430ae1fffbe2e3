// Tests for the strict key tables of base/yaml_keys.h: unknown, duplicate, missing and
// mistyped keys, each in the one error form with its line.
#include "base/yaml_keys.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace scx {
namespace {

struct Point {
  std::string name;
  std::vector<std::string> tags;
  bool on = false;
};

// Reads `text` (parsed by yaml-cpp alone, so that the table's own checks are tested)
// into `point` by a three-key table; returns the error, "" when none.
std::string Read(const std::string& text, Point* point) {
  YamlReader reader("f.yml");
  const std::vector<YamlKey> keys = {
      {"name",
       [point](YamlReader* r, const YAML::Node& value, const std::string& path) {
         return ReadYamlString(r, value, path, &point->name);
       },
       "every point has one"},
      YamlStringListKey("tags", &point->tags),
      YamlBoolKey("on", &point->on),
  };
  const YAML::Node root = YAML::Load(text);
  const bool ok = ReadYamlMap(&reader, root["point"], "point", keys);
  EXPECT_EQ(ok, !reader.failed());
  return reader.error();
}

TEST(YamlKeysTest, ReadsEveryKeyOfTheTable) {
  Point point;
  EXPECT_EQ(Read("point:\n  name: a\n  tags: [x, y]\n  on: true\n", &point), "");
  EXPECT_EQ(point.name, "a");
  EXPECT_EQ(point.tags, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(point.on);
}

TEST(YamlKeysTest, UnknownKeyListsTheKnownKeysSorted) {
  Point point;
  EXPECT_EQ(Read("point:\n  name: a\n  colour: red\n", &point),
            "f.yml:3: key 'point.colour': unknown key (known keys: name, on, tags)");
}

// yaml-cpp keeps both pairs; a lookup would find the first and ignore the second.
TEST(YamlKeysTest, DuplicateKeyNamesBothLines) {
  Point point;
  EXPECT_EQ(Read("point:\n  name: a\n  on: true\n  name: b\n", &point),
            "f.yml:4: key 'point.name': duplicate key (first on line 2)");
}

TEST(YamlKeysTest, WrongTypesSayWhatTheyGot) {
  Point point;
  EXPECT_EQ(Read("point:\n  name: [a]\n", &point),
            "f.yml:2: key 'point.name': expected a string, got a list");
  EXPECT_EQ(Read("point:\n  name: a\n  tags: x\n", &point),
            "f.yml:3: key 'point.tags': expected a list, got a scalar");
  EXPECT_EQ(Read("point:\n  name: a\n  tags:\n    - x\n    - {y: 1}\n", &point),
            "f.yml:5: key 'point.tags[1]': expected a string, got a mapping");
  EXPECT_EQ(Read("point:\n  name: a\n  on: yes\n", &point),
            "f.yml:3: key 'point.on': expected true or false, got \"yes\"");
  EXPECT_EQ(Read("point: [1]\n", &point), "f.yml:1: key 'point': expected a mapping, got a list");
}

TEST(YamlKeysTest, MissingRequiredKeySaysWhy) {
  Point point;
  EXPECT_EQ(Read("point:\n  on: false\n", &point),
            "f.yml:2: key 'point.name': missing (every point has one)");
  // Nothing after the key is an empty mapping, so its required keys are missing.
  EXPECT_NE(Read("point:\n", &point).find("key 'point.name': missing (every point has one)"),
            std::string::npos);
}

TEST(YamlKeysTest, EntriesRefuseDuplicatesAndNonStringKeys) {
  YamlReader reader("f.yml");
  std::vector<std::string> seen;
  auto collect = [&](const std::string& key, const YAML::Node&, const std::string& path) {
    seen.push_back(key + "@" + path);
    return true;
  };
  EXPECT_TRUE(ReadYamlEntries(&reader, YAML::Load("{a: 1, b: 2}"), "users", collect));
  EXPECT_EQ(seen, (std::vector<std::string>{"a@users.a", "b@users.b"}));
  EXPECT_FALSE(ReadYamlEntries(&reader, YAML::Load("a: 1\nb: 2\na: 3\n"), "users", collect));
  EXPECT_EQ(reader.error(), "f.yml:3: key 'users.a': duplicate key (first on line 1)");
  YamlReader other("f.yml");
  EXPECT_FALSE(ReadYamlEntries(&other, YAML::Load("? [a]\n: 1\n"), "users", collect));
  EXPECT_EQ(other.error().rfind("f.yml:1: key 'users.?': expected a string as a key", 0), 0u)
      << other.error();
}

TEST(YamlKeysTest, TheFirstErrorIsKept) {
  YamlReader reader("f.yml");
  EXPECT_FALSE(reader.Fail(YAML::Load("a"), "x", "first"));
  EXPECT_FALSE(reader.Fail(YAML::Load("b"), "y", "second"));
  EXPECT_EQ(reader.error(), "f.yml:1: key 'x': first");
}

}  // namespace
}  // namespace scx
