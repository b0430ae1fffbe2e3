// The temporary m1nd layouts and helpers the tests of discovery share (the
// discovery_*_test.cc files of this folder).
#ifndef SCX_TESTS_ENGINE_DISCOVERY_DISCOVERY_FIXTURES_H_
#define SCX_TESTS_ENGINE_DISCOVERY_DISCOVERY_FIXTURES_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/discovery/discovery.h"
#include "tests/test_support.h"

namespace scx::testing {

// Sets a file's times an hour back, as if written long ago.
inline void SetOld(const std::string& path) {
  struct timespec old[2];
  clock_gettime(CLOCK_REALTIME, &old[0]);
  old[0].tv_sec -= 3600;
  old[1] = old[0];
  ASSERT_EQ(0, utimensat(AT_FDCWD, path.c_str(), old, 0));
}

inline const Brain* Find(const Discovery& discovery, const std::string& name) {
  for (const Brain& brain : discovery.brains) {
    if (brain.name == name) return &brain;
  }
  return nullptr;
}

inline std::vector<std::string> Names(const Discovery& discovery) {
  std::vector<std::string> names;
  for (const Brain& brain : discovery.brains) names.push_back(brain.name);
  return names;
}

inline std::string Describe(const std::vector<DiscoveryProblem>& problems) {
  std::string text;
  for (const DiscoveryProblem& p : problems) {
    text += std::string(DiscoveryProblemSourceName(p.source)) + " " + p.path + ": " + p.message +
            (p.transient ? " (transient)" : "") + "\n";
  }
  return text;
}

inline DiscoveryConfig RegistryConfig(const std::string& registry) {
  DiscoveryConfig config;
  config.registries = {registry};
  return config;
}

// An instance entry as today's m1nd writes it.
struct Entry {
  Entry(std::string workspace, std::string runtime, std::string kind = "null")
      : workspace_root(std::move(workspace)),
        runtime_root(std::move(runtime)),
        brain_kind(std::move(kind)) {}

  std::string workspace_root;
  std::string runtime_root;
  std::string brain_kind;  // JSON
  std::string mode = "read_write";
  std::int64_t heartbeat_ms = 1767225600000;
  std::string graph_source;  // omitted when empty
  std::uint32_t pid = 4242;
  std::uint64_t started_at_ms = 1767225600000;

  // A whole record, as m1nd's list_instances needs it.
  std::string Json() const {
    const std::string graph =
        graph_source.empty() ? runtime_root + "/graph_snapshot.json" : graph_source;
    return "{\"instance_id\": \"x\", \"workspace_root\": \"" + workspace_root +
           "\", \"runtime_root\": \"" + runtime_root + "\", \"graph_source\": \"" + graph +
           "\", \"plasticity_state\": \"" + runtime_root + "/plasticity_state.json\"" +
           ", \"pid\": " + std::to_string(pid) + ", \"bind\": null, \"port\": null" +
           ", \"started_at_ms\": " + std::to_string(started_at_ms) +
           ", \"last_heartbeat_ms\": " + std::to_string(heartbeat_ms) + ", \"mode\": \"" + mode +
           "\", \"status\": \"running\", \"conflicts\": [], \"brain_kind\": " + brain_kind + "}\n";
  }
};

// A temporary m1nd layout: a registry folder and an owner's runtime root.
class DiscoveryTest : public ::testing::Test {
 protected:
  std::string Registry() const { return tmp_.Join("registry"); }
  std::string Runtime() const { return tmp_.Join("home/.m1nd-rt"); }
  std::string ProjectBrain(const std::string& hex) const {
    return Runtime() + "/project-brains/" + hex;
  }

  void WriteInstance(const std::string& file_name, const std::string& json) {
    WriteFile(Registry() + "/instances/" + file_name, json);
  }
  void WriteOwner(bool stale = false) {
    WriteInstance("owner-1.json",
                  InstanceJson("owner-1", "/home/u/m1nd", Runtime(), "null", stale));
    WriteFile(Runtime() + "/system_blocks.json", StoreJson("sk_m1nd_candidate", {"sb_m1nd_a"}));
  }
  void WriteProjectBrain(const std::string& hex, const std::string& project_root,
                         bool with_store = true) {
    WriteFile(ProjectBrain(hex) + "/project_brain.json", ManifestJson(project_root));
    if (with_store) {
      WriteFile(ProjectBrain(hex) + "/system_blocks.json",
                StoreJson("sk_x_candidate", {"sb_x_core_0123abcd"}));
    }
  }

  // Project-brains folders of every kind, with more than enough of them for four
  // threads: brains, folders without a manifest, torn manifests, FIFOs, symlinks,
  // files and brains being born.
  void WriteFoldersOfEveryKind() {
    for (int i = 0; i < 300; ++i) {
      const std::string hex = "f" + std::to_string(1000 + i);
      switch (i % 7) {
        case 0:
        case 1:
          // Names collide (one basename), roots do not (no orphan).
          WriteProjectBrain(hex, "/home/u" + std::to_string(i) + "/p" + std::to_string(i % 50));
          break;
        case 2:
          MakeDirs(ProjectBrain(hex));  // no manifest: quietly skipped
          break;
        case 3:
          WriteFile(ProjectBrain(hex) + "/project_brain.json", "{\"schema\": \"m1nd-pr");
          break;
        case 4:
          MakeDirs(ProjectBrain(hex));
          ASSERT_EQ(0, mkfifo((ProjectBrain(hex) + "/project_brain.json").c_str(), 0600));
          break;
        case 5:  // an alias of the previous folder, and one of a folder outside
          ASSERT_EQ(0, symlink(ProjectBrain("f" + std::to_string(999 + i)).c_str(),
                               ProjectBrain(hex).c_str()));
          WriteFile(tmp_.Join("outside/" + hex + "/project_brain.json"),
                    ManifestJson("/home/u/out" + std::to_string(i)));
          ASSERT_EQ(0,
                    symlink(tmp_.Join("outside/" + hex).c_str(), ProjectBrain("l" + hex).c_str()));
          break;
        default:
          WriteFile(ProjectBrain(hex), "a file, not a folder\n");
          WriteProjectBrain(".birth-staging-" + hex, "/home/u/unborn");
          break;
      }
    }
  }

  TempDir tmp_;
};

// Two discoveries agree on every brain and every problem, in the same order.
inline void ExpectSameDiscovery(const Discovery& serial, const Discovery& parallel) {
  ASSERT_EQ(Names(serial), Names(parallel));
  for (std::size_t i = 0; i < serial.brains.size(); ++i) {
    EXPECT_EQ(serial.brains[i].project_root, parallel.brains[i].project_root);
    EXPECT_EQ(serial.brains[i].runtime_dir, parallel.brains[i].runtime_dir);
    EXPECT_EQ(serial.brains[i].source, parallel.brains[i].source);
  }
  EXPECT_EQ(Describe(serial.problems), Describe(parallel.problems));
  EXPECT_EQ(serial.name_collisions, parallel.name_collisions);
  ASSERT_EQ(serial.orphans.size(), parallel.orphans.size());
  for (std::size_t i = 0; i < serial.orphans.size(); ++i) {
    EXPECT_EQ(serial.orphans[i].runtime_dir, parallel.orphans[i].runtime_dir);
    EXPECT_EQ(serial.orphans[i].served_runtime_dir, parallel.orphans[i].served_runtime_dir);
  }
  EXPECT_FALSE(parallel.stopped);
}

}  // namespace scx::testing

#endif  // SCX_TESTS_ENGINE_DISCOVERY_DISCOVERY_FIXTURES_H_
