// The YAML loader's nesting bound: deep text is refused by line before yaml-cpp
// recurses, on a thread whose stack is far too small for yaml-cpp's recursion at
// that depth (it overflowed a ~100 KiB stack near 220 levels).
#include "base/yaml_file.h"

#include <pthread.h>

#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "exporter/config.h"
#include "exporter/http/web_config.h"
#include "tests/test_support.h"

namespace scx {
namespace {

constexpr std::size_t kSmallStack = 128 * 1024;
constexpr int kDeep = 300;

// Runs `call` on a new thread with a `stack_bytes` stack and waits for it.
void RunOnSmallStack(std::size_t stack_bytes, const std::function<void()>& call) {
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, stack_bytes), 0);
  pthread_t thread;
  auto body = [](void* argument) -> void* {
    (*static_cast<const std::function<void()>*>(argument))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, body, const_cast<std::function<void()>*>(&call)),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
}

std::string FlowNesting(int depth) {
  return "brains: " + std::string(depth, '[') + std::string(depth, ']') + "\n";
}

std::string BlockNesting(int depth) {
  std::string text;
  for (int level = 0; level < depth; ++level) text += std::string(level, ' ') + "-\n";
  return text + std::string(depth, ' ') + "x\n";
}

std::string MappingNesting(int depth) {
  std::string text;
  for (int level = 0; level < depth; ++level) text += std::string(level, ' ') + "a:\n";
  return text + std::string(depth, ' ') + "b: 1\n";
}

TEST(YamlNestingBoundTest, CountsFlowBracketsAndIndentation) {
  int line = 0;
  EXPECT_EQ(YamlNestingBound("a: 1\n", &line), 2);
  EXPECT_EQ(YamlNestingBound("a:\n  b: [1, {c: [2]}]\n", &line), 2 + 2 + 3);
  EXPECT_EQ(line, 2);
  EXPECT_EQ(YamlNestingBound("- - - x\n", &line), 6 + 2);
  EXPECT_GE(YamlNestingBound(BlockNesting(kDeep), &line), kDeep);
  EXPECT_GE(YamlNestingBound(MappingNesting(kDeep), &line), kDeep);
  EXPECT_EQ(line, kDeep + 1);
  // A multi-line flow collection keeps its depth across lines.
  EXPECT_EQ(YamlNestingBound("a: [\n [\n  [\n   1]]]\n", &line), 2 + 3);
  EXPECT_EQ(line, 3);
}

TEST(YamlNestingBoundTest, SkipsQuotesCommentsAndBracketsInsidePlainScalars) {
  int line = 0;
  EXPECT_EQ(YamlNestingBound("a: '[[[[' # [[[[\nb: \"[[\\\"[[\"\nc: x[[[\n", &line), 2);
  EXPECT_EQ(YamlNestingBound("a: 'it''s [[['\n", &line), 2);
  // In a flow collection, brackets count without a space ("[[").
  EXPECT_EQ(YamlNestingBound("a: [[[]]]\n", &line), 2 + 3);
  // In a flow collection, a quote right after ':' opens a string.
  EXPECT_EQ(YamlNestingBound("{\"a\":\"[[[[\"}\n", &line), 2 + 1);
}

TEST(YamlNestingTest, DeepTextIsRefusedByLineOnASmallStack) {
  for (const std::string& text : {FlowNesting(kDeep), BlockNesting(kDeep), MappingNesting(kDeep)}) {
    std::string error;
    bool parsed = true;
    RunOnSmallStack(kSmallStack, [&] {
      YAML::Node root;
      parsed = ParseYamlText(text, "deep.yml", &root, &error);
    });
    EXPECT_FALSE(parsed);
    EXPECT_EQ(error.rfind("deep.yml:", 0), 0u) << error;
    EXPECT_NE(error.find("nested too deeply: more than 64 levels"), std::string::npos) << error;
  }
}

// The text bound takes a quote after a space for the start of a quoted string;
// YAML does not when it follows a plain scalar ("a 'b" is one plain scalar). Text
// built on that slips past the bound, and yaml-cpp's recursion then runs on the
// parse's own stack, not the caller's: a clean error past yaml-cpp's guard, a
// normal parse below it.
TEST(YamlNestingTest, TextThatFoolsTheBoundStillCannotOverflowTheCallersStack) {
  for (const int depth : {300, 2000}) {
    const std::string text =
        "k: a '\nv: " + std::string(depth, '[') + std::string(depth, ']') + "\n# '\n";
    int line = 0;
    ASSERT_LE(YamlNestingBound(text, &line), kMaxYamlNesting);  // fooled
    std::string error;
    bool parsed = false;
    YAML::Node root;
    RunOnSmallStack(kSmallStack, [&] { parsed = ParseYamlText(text, "sly.yml", &root, &error); });
    if (depth == 300) {
      EXPECT_TRUE(parsed) << error;
      EXPECT_EQ(root["k"].as<std::string>(), "a '");
    } else {
      EXPECT_FALSE(parsed);
      EXPECT_EQ(error.rfind("sly.yml:2: nested too deeply for the YAML parser", 0), 0u) << error;
    }
  }
}

TEST(YamlNestingTest, NestingUpToTheLimitParses) {
  std::string error;
  YAML::Node root;
  EXPECT_TRUE(ParseYamlText(FlowNesting(kMaxYamlNesting - 3), "ok.yml", &root, &error)) << error;
  EXPECT_FALSE(ParseYamlText(FlowNesting(kMaxYamlNesting - 1), "ok.yml", &root, &error));
}

TEST(YamlNestingTest, BothConfigLoadersRefuseDeepFiles) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("config.yml"), FlowNesting(kDeep));
  testing::WriteFile(dir.Join("web.yml"), "basic_auth_users:\n" + FlowNesting(kDeep));
  std::string config_error;
  std::string web_error;
  RunOnSmallStack(kSmallStack, [&] {
    Config config;
    WebConfig web_config;
    EXPECT_FALSE(LoadConfigFile(dir.Join("config.yml"), &config, &config_error));
    EXPECT_FALSE(LoadWebConfig(dir.Join("web.yml"), &web_config, &web_error));
  });
  EXPECT_EQ(config_error, dir.Join("config.yml") +
                              ":1: nested too deeply: more than 64 levels of lists and mappings "
                              "(indentation counts one level per column)");
  EXPECT_EQ(web_error.rfind(dir.Join("web.yml") + ":2: nested too deeply", 0), 0u) << web_error;
}

// Ten anchors, each a list of ten aliases of the one before: 10^10 values once
// expanded (about 20 GB as strings), from 400 bytes of text. `key` names the last.
std::string BillionLaughs(const std::string& key) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 10; ++level) {
    const std::string previous = "*a" + std::to_string(level - 1);
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i == 0 ? "" : ", ") + previous;
    text += "]\n";
  }
  return text + key + ": *a9\n";
}

TEST(YamlAliasTest, MeasureCountsEveryAliasExpanded) {
  const YAML::Node root = YAML::Load("a: &a [x, yy]\nb: [*a, *a]\n");
  YamlTreeSize size;
  ASSERT_TRUE(MeasureYamlTree(root, {100, 100}, &size));
  // The mapping, keys a and b, a's list and its two scalars, b's list, two copies of a.
  EXPECT_EQ(size.nodes, 1 + 2 + 3 + 1 + 2 * 3);
  EXPECT_EQ(size.scalar_bytes, 1 + 1 + 3 + 2 * 3);
  EXPECT_FALSE(MeasureYamlTree(root, {12, 100}, &size));
  EXPECT_FALSE(MeasureYamlTree(root, {100, 10}, &size));
}

TEST(YamlAliasTest, ACycleIsRefused) {
  // yaml-cpp links an alias inside its own anchor back to it: a cycle.
  std::string error;
  YAML::Node root;
  EXPECT_FALSE(ParseYamlText("a: &a [*a, x]\n", "cycle.yml", &root, &error));
  EXPECT_EQ(error,
            "cycle.yml: too large once its aliases are expanded: more than 1000000 "
            "values or 16777216 bytes of text");
}

// Refused at the expansion limit (a million values), not after expanding a billion:
// the error names the limit. No time bound here (it depended on the machine's load;
// ctest's timeout catches a loader that expands it all).
TEST(YamlAliasTest, BillionLaughsIsRefusedAtTheLimitByBothLoaders) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("config.yml"), BillionLaughs("runtime_globs"));
  testing::WriteFile(dir.Join("web.yml"), BillionLaughs("basic_auth_users"));
  Config config;
  WebConfig web_config;
  std::string config_error;
  std::string web_error;
  EXPECT_FALSE(LoadConfigFile(dir.Join("config.yml"), &config, &config_error));
  EXPECT_FALSE(LoadWebConfig(dir.Join("web.yml"), &web_config, &web_error));
  EXPECT_EQ(config_error, dir.Join("config.yml") +
                              ": too large once its aliases are expanded: more than 1000000 "
                              "values or 16777216 bytes of text");
  EXPECT_EQ(web_error.rfind(dir.Join("web.yml") + ": too large once its aliases", 0), 0u)
      << web_error;
}

TEST(YamlAliasTest, FewAliasesStillWork) {
  Config config;
  std::string error;
  ASSERT_TRUE(
      ParseConfig("brains:\n  - &one {project_root: /p/a, runtime_dir: /r/a}\n"
                  "  - {project_root: /p/b, runtime_dir: /r/b}\n"
                  "  - *one\n"
                  "runtime_globs: [\"/srv/*\"]\n",
                  "x.yml", &config, &error))
      << error;
  EXPECT_EQ(config.discovery.static_brains.size(), 3u);
}

TEST(YamlDuplicateKeyTest, FoundAtAnyDepthAndNamedByPath) {
  YAML::Node root;
  std::string error;
  EXPECT_FALSE(
      ParseYamlText("a:\n  - [x, {b: 1, c: 2}]\n  - {b: 1, b: 2}\n", "f.yml", &root, &error));
  EXPECT_EQ(error, "f.yml:3: key 'a[1].b': duplicate key (first on line 3)");
  EXPECT_TRUE(root.IsNull());  // nothing half-checked is handed on
  // Keys are compared as text, as a config reader looks them up.
  EXPECT_FALSE(ParseYamlText("'1': a\n1: b\n", "f.yml", &root, &error));
  EXPECT_EQ(error, "f.yml:2: key '1': duplicate key (first on line 1)");
  // In the file's order: the first duplicate is the one named.
  EXPECT_FALSE(ParseYamlText("a: {x: 1, x: 2}\nb: {y: 1, y: 2}\n", "f.yml", &root, &error));
  EXPECT_EQ(error, "f.yml:1: key 'a.x': duplicate key (first on line 1)");
  // Aliases are checked where they are used, and a mapping used twice is fine.
  EXPECT_TRUE(ParseYamlText("a: &m {x: 1}\nb: *m\nc: [*m, *m]\n", "f.yml", &root, &error)) << error;
  EXPECT_TRUE(ParseYamlText("{[1, 2]: a, [1, 2]: b}\n", "f.yml", &root, &error)) << error;
}

}  // namespace
}  // namespace scx
