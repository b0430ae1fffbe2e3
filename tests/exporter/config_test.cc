// The config file: defaults, every key, and one-line errors naming file, line and key.
#include "exporter/config.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>

#include "base/yaml_file.h"
#include "tests/test_support.h"

namespace scx {
namespace {

Config MustParse(const std::string& yaml, const std::string& file = "/etc/scx/config.yml") {
  Config config;
  std::string error;
  EXPECT_TRUE(ParseConfig(yaml, file, &config, &error)) << error;
  return config;
}

std::string ErrorOf(const std::string& yaml, const std::string& file = "/etc/scx/config.yml") {
  Config config;
  std::string error;
  EXPECT_FALSE(ParseConfig(yaml, file, &config, &error));
  return error;
}

TEST(ConfigTest, PrefixAmbiguityAllowedIsAListOfBrainAndSlug) {
  Config config = MustParse(
      "prefix_ambiguity_allowed:\n"
      "  - {brain: m1nd, slug: m1nd_core}\n"
      "  - brain: lib\n"
      "    slug: lib_extra\n");
  ASSERT_EQ(config.allowed_ambiguity.size(), 2u);
  EXPECT_EQ(config.allowed_ambiguity[0].brain, "m1nd");
  EXPECT_EQ(config.allowed_ambiguity[0].slug, "m1nd_core");
  EXPECT_EQ(config.allowed_ambiguity[1].brain, "lib");
  EXPECT_EQ(config.allowed_ambiguity[1].slug, "lib_extra");
  EXPECT_TRUE(MustParse("{}").allowed_ambiguity.empty());
  EXPECT_NE(ErrorOf("prefix_ambiguity_allowed: m1nd\n").find("expected a list"), std::string::npos);
  EXPECT_NE(ErrorOf("prefix_ambiguity_allowed: [{brain: m1nd}]\n")
                .find("key 'prefix_ambiguity_allowed[0].slug': missing"),
            std::string::npos);
  EXPECT_NE(ErrorOf("prefix_ambiguity_allowed: [{brain: m1nd, slug: \"\"}]\n").find("is empty"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("prefix_ambiguity_allowed: [{brain: m1nd, slug: x, why: y}]\n").find("unknown key"),
      std::string::npos);
}

TEST(ConfigTest, DefaultUsesTheDefaultRegistryAlone) {
  unsetenv("M1ND_REGISTRY_DIR");
  Config config = DefaultConfig();
  EXPECT_EQ(config.discovery.registries, std::vector<std::string>{"~/.m1nd/registry"});
  EXPECT_TRUE(config.discovery.registries_are_default);
  EXPECT_TRUE(config.discovery.static_brains.empty());
  EXPECT_TRUE(config.discovery.runtime_globs.empty());
  EXPECT_FALSE(config.scan_interval.has_value());
  EXPECT_EQ(config.max_store_bytes, 64 << 20);
}

TEST(ConfigTest, DefaultRegistryIsM1ndRegistryDirWhenSet) {
  setenv("M1ND_REGISTRY_DIR", "/srv/m1nd/registry", 1);
  Config config = DefaultConfig();
  Config from_file = MustParse("scan_interval: 5s\n");
  unsetenv("M1ND_REGISTRY_DIR");
  EXPECT_EQ(config.discovery.registries, std::vector<std::string>{"/srv/m1nd/registry"});
  EXPECT_EQ(from_file.discovery.registries, std::vector<std::string>{"/srv/m1nd/registry"});
  EXPECT_TRUE(from_file.discovery.registries_are_default);
}

TEST(ConfigTest, EmptyMappingIsTheDefault) {
  Config config = MustParse("# nothing set\n{}\n");
  EXPECT_EQ(config.discovery.registries, DefaultConfig().discovery.registries);
  EXPECT_TRUE(config.discovery.registries_are_default);
}

// A file that config management empties before writing it again must not be read as
// the defaults: every brain it names would vanish and their alerts resolve.
TEST(ConfigErrorTest, EmptyFileIsRefusedNamingIt) {
  for (const char* text : {"", "  \n\n", "# all commented out\n# brains: []\n", "---\n", "~\n"}) {
    EXPECT_EQ(ErrorOf(text),
              "/etc/scx/config.yml: config file is empty (to run on the defaults, leave out "
              "--config.file or write {})")
        << "text: " << text;
  }
}

TEST(ConfigTest, NamedRegistriesAreNotTheDefault) {
  EXPECT_FALSE(MustParse("m1nd_registries: [~/.m1nd/registry]\n").discovery.registries_are_default);
}

TEST(ConfigTest, ReadsEveryKey) {
  Config config = MustParse(R"(
scan_interval: 30s
brains:
  - name: m1nd
    project_root: /home/u/m1nd
    display_name: ""
    runtime_dir: /home/u/.m1nd-rt
  - project_root: /home/u/keyvault
    display_name: Key Vault
    runtime_dir: rt/keyvault
m1nd_registries: [~/.m1nd/registry, /srv/registry]
runtime_globs: ["/srv/m1nd/*/project-brains/*"]
max_store_bytes: 1048576
)");
  EXPECT_EQ(config.scan_interval, std::chrono::milliseconds(30000));
  ASSERT_EQ(config.discovery.static_brains.size(), 2u);
  const StaticBrain& first = config.discovery.static_brains[0];
  EXPECT_EQ(first.name, "m1nd");
  EXPECT_EQ(first.project_root, "/home/u/m1nd");
  EXPECT_EQ(first.display_name, "");
  EXPECT_EQ(first.runtime_dir, "/home/u/.m1nd-rt");
  const StaticBrain& second = config.discovery.static_brains[1];
  EXPECT_EQ(second.name, "");
  EXPECT_EQ(second.display_name, "Key Vault");
  EXPECT_EQ(second.runtime_dir, "/etc/scx/rt/keyvault");  // relative to the file
  EXPECT_EQ(config.discovery.registries,
            (std::vector<std::string>{"~/.m1nd/registry", "/srv/registry"}));
  EXPECT_EQ(config.discovery.runtime_globs,
            std::vector<std::string>{"/srv/m1nd/*/project-brains/*"});
  EXPECT_EQ(config.max_store_bytes, 1048576);
}

TEST(ConfigTest, EmptyRegistryListTurnsTheRegistryOff) {
  EXPECT_TRUE(MustParse("m1nd_registries: []\n").discovery.registries.empty());
}

TEST(ConfigTest, RelativePathsFollowTheConfigFile) {
  Config config = MustParse("m1nd_registries: [registry, ~/r, /abs]\nruntime_globs: [rt/*]\n",
                            "/srv/examples/config.yml");
  EXPECT_EQ(config.discovery.registries,
            (std::vector<std::string>{"/srv/examples/registry", "~/r", "/abs"}));
  EXPECT_EQ(config.discovery.runtime_globs, std::vector<std::string>{"/srv/examples/rt/*"});
  // A relative config file name is made absolute from the working directory.
  std::string cwd = std::filesystem::current_path().string();
  EXPECT_EQ(MustParse("m1nd_registries: [registry]\n", "sub/../config.yml").discovery.registries,
            std::vector<std::string>{cwd + "/registry"});
}

TEST(ConfigTest, NullDisplayNameIsEmpty) {
  Config config = MustParse(
      "brains:\n  - project_root: /a/m1nd\n    display_name:\n"
      "    runtime_dir: /rt\n");
  EXPECT_EQ(config.discovery.static_brains[0].display_name, "");
}

TEST(ConfigErrorTest, UnknownTopLevelKeyNamesFileLineAndKey) {
  std::string error = ErrorOf("scan_interval: 15s\nbrian: []\n");
  EXPECT_EQ(error.rfind("/etc/scx/config.yml:2: key 'brian': unknown key", 0), 0u) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

TEST(ConfigErrorTest, UnknownBrainKeyNamesThePath) {
  std::string error = ErrorOf(
      "brains:\n  - project_root: /a/m1nd\n    runtime_dir: /rt\n  - project_root: /b\n"
      "    runtime_dir: /rt2\n    runtimedir: /x\n");
  EXPECT_EQ(error.rfind("/etc/scx/config.yml:6: key 'brains[1].runtimedir': unknown key", 0), 0u)
      << error;
}

TEST(ConfigErrorTest, ScanIntervalBelow100msIsRefused) {
  EXPECT_EQ(ErrorOf("scan_interval: 1ms\n"),
            "/etc/scx/config.yml:1: key 'scan_interval': must be at least 100ms (each scan costs "
            "CPU), got \"1ms\"");
  EXPECT_EQ(MustParse("scan_interval: 100ms\n").scan_interval, std::chrono::milliseconds(100));
  EXPECT_EQ(MustParse("scan_interval: 1y\n").scan_interval, std::chrono::hours(365 * 24));
}

TEST(ConfigErrorTest, WrongTypes) {
  EXPECT_EQ(ErrorOf("scan_interval: soon\n"),
            "/etc/scx/config.yml:1: key 'scan_interval': expected a duration like 15s, 1m30s or "
            "1w (whole numbers of y, w, d, h, m, s, ms, the largest first: 1h30m, not 1.5h), "
            "got \"soon\"");
  EXPECT_EQ(ErrorOf("brains: {a: 1}\n")
                .rfind("/etc/scx/config.yml:1: key 'brains': expected a "
                       "list, got a mapping",
                       0),
            0u);
  EXPECT_EQ(ErrorOf("m1nd_registries: /one/path\n")
                .rfind("/etc/scx/config.yml:1: key 'm1nd_registries': expected a list", 0),
            0u);
  EXPECT_EQ(ErrorOf("runtime_globs:\n  - [nested]\n")
                .rfind("/etc/scx/config.yml:2: key 'runtime_globs[0]': expected a string", 0),
            0u);
  EXPECT_EQ(ErrorOf("max_store_bytes: lots\n")
                .rfind("/etc/scx/config.yml:1: key 'max_store_bytes': expected a positive", 0),
            0u);
  EXPECT_EQ(ErrorOf("- a\n- b\n"),
            "/etc/scx/config.yml:1: expected a mapping at the top level, got a list");
}

TEST(ConfigErrorTest, BrainWithoutRuntimeDirOrIdentity) {
  EXPECT_NE(ErrorOf("brains:\n  - project_root: /a\n").find("key 'brains[0].runtime_dir': missing"),
            std::string::npos);
  EXPECT_NE(ErrorOf("brains:\n  - runtime_dir: /a\n").find("key 'brains[0].project_root'"),
            std::string::npos);
}

TEST(ConfigErrorTest, DuplicateExplicitNames) {
  std::string error = ErrorOf(
      "brains:\n  - {name: a, project_root: /x, runtime_dir: /1}\n"
      "  - {name: a, project_root: /y, runtime_dir: /2}\n");
  EXPECT_NE(error.find(":3: key 'brains[1].name': duplicate brain name \"a\""), std::string::npos)
      << error;
}

// yaml-cpp keeps both pairs of a key written twice, and a lookup finds the first:
// the second would be ignored without a word.
TEST(ConfigErrorTest, DuplicateKeysNameFileLineAndKey) {
  EXPECT_EQ(ErrorOf("scan_interval: 15s\nm1nd_registries: []\nscan_interval: 1m\n"),
            "/etc/scx/config.yml:3: key 'scan_interval': duplicate key (first on line 1)");
  EXPECT_EQ(ErrorOf("brains:\n  - project_root: /a\n    runtime_dir: /rt/a\n"
                    "  - project_root: /b\n    runtime_dir: /rt/b\n    project_root: /c\n"),
            "/etc/scx/config.yml:6: key 'brains[1].project_root': duplicate key (first on line 4)");
  EXPECT_EQ(ErrorOf("prefix_ambiguity_allowed: [{brain: m1nd, slug: m1nd_core, brain: lib}]\n"),
            "/etc/scx/config.yml:1: key 'prefix_ambiguity_allowed[0].brain': duplicate key "
            "(first on line 1)");
  // The same item twice in a list is no duplicate key.
  MustParse("runtime_globs: [/a/*, /a/*]\n");
}

TEST(ConfigErrorTest, InvalidYamlNamesTheLine) {
  std::string error = ErrorOf("brains:\n  - name: [unclosed\n");
  EXPECT_EQ(error.rfind("/etc/scx/config.yml:", 0), 0u);
  EXPECT_NE(error.find("invalid YAML"), std::string::npos);
}

TEST(ConfigFileTest, MissingFileIsAnErrorNamingIt) {
  testing::TempDir dir;
  Config config;
  std::string error;
  EXPECT_FALSE(LoadConfigFile(dir.Join("nope.yml"), &config, &error));
  EXPECT_NE(error.find(dir.Join("nope.yml")), std::string::npos);
  EXPECT_NE(error.find("No such file"), std::string::npos);
}

TEST(ConfigFileTest, ADirectoryIsRefused) {
  testing::TempDir dir;
  Config config = DefaultConfig();
  config.max_store_bytes = 7;
  std::string error;
  EXPECT_FALSE(LoadConfigFile(dir.path(), &config, &error));
  EXPECT_EQ(error, dir.path() + ": cannot read: is a directory");
  EXPECT_EQ(config.max_store_bytes, 7);  // untouched
}

TEST(ConfigFileTest, AFifoIsRefusedWithoutWaitingForAWriter) {
  testing::TempDir dir;
  ASSERT_EQ(mkfifo(dir.Join("fifo.yml").c_str(), 0600), 0);
  Config config;
  std::string error;
  EXPECT_FALSE(LoadConfigFile(dir.Join("fifo.yml"), &config, &error));
  EXPECT_EQ(error, dir.Join("fifo.yml") + ": cannot read: is a FIFO, not a regular file");
}

TEST(ConfigFileTest, AnOversizedFileIsRefusedPointingToRegistriesAndGlobs) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("big.yml"),
                     "# " + std::string(static_cast<std::size_t>(kMaxConfigFileBytes), 'x') + "\n");
  Config config;
  std::string error;
  EXPECT_FALSE(LoadConfigFile(dir.Join("big.yml"), &config, &error));
  EXPECT_EQ(error, dir.Join("big.yml") + ": cannot read: larger than " +
                       std::to_string(kMaxConfigFileBytes) +
                       " bytes (list brains by m1nd_registries or runtime_globs rather than one "
                       "by one in brains)");
}

// 10,000 static brains named, with a project root and a runtime dir of 150
// characters each: 3.75 MB, over the web config's 1 MiB cap, within the config's.
TEST(ConfigFileTest, TenThousandStaticBrainsWithLongPathsLoad) {
  std::string text = "brains:\n";
  for (int i = 0; i < 10000; ++i) {
    std::string root = "/home/developer/src/project-" + std::to_string(100000 + i);
    root += std::string(150 - root.size(), 'x');
    text += "  - name: project-" + std::to_string(100000 + i) + "\n    project_root: " + root +
            "\n    runtime_dir: " + root + "/.m1nd-runtime\n";
  }
  EXPECT_GT(text.size(), 3'700'000u);
  testing::TempDir dir;
  testing::WriteFile(dir.Join("fleet.yml"), text);
  Config config;
  std::string error;
  ASSERT_TRUE(LoadConfigFile(dir.Join("fleet.yml"), &config, &error)) << error;
  EXPECT_EQ(config.discovery.static_brains.size(), 10000u);
}

TEST(ConfigFileTest, LoadsARealFile) {
  testing::TempDir dir;
  testing::WriteFile(dir.Join("c.yml"), "brains:\n  - {project_root: /a/m1nd, runtime_dir: rt}\n");
  Config config;
  std::string error;
  ASSERT_TRUE(LoadConfigFile(dir.Join("c.yml"), &config, &error)) << error;
  EXPECT_EQ(config.discovery.static_brains[0].runtime_dir, dir.Join("rt"));
}

}  // namespace
}  // namespace scx
