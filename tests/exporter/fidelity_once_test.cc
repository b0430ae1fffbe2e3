// `--once` over temporary layouts written the way m1nd writes them, one for each rule
// by which the exporter agrees with m1nd on what it serves (README, "Where brains come
// from"): each layout is one where the rule changes the verdict or the exit code.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace scx {
namespace {

using Json = nlohmann::json;
using testing::InstanceJson;
using testing::MakeDirs;
using testing::ManifestJson;
using testing::ReadFile;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

// Sets a file's modification time `seconds_ago` back.
void Age(const std::string& path, int seconds_ago) {
  struct timespec when[2];
  clock_gettime(CLOCK_REALTIME, &when[0]);
  when[0].tv_sec -= seconds_ago;
  when[1] = when[0];
  ASSERT_EQ(0, utimensat(AT_FDCWD, path.c_str(), when, 0));
}

// One m1nd machine in a temporary folder: a registry and an owner's runtime root.
class FidelityOnceTest : public ::testing::Test {
 protected:
  std::string Registry() const { return tmp_.Join("registry"); }
  std::string Runtime() const { return tmp_.Join("m1nd-rt"); }
  std::string Folder(const std::string& hex) const { return Runtime() + "/project-brains/" + hex; }

  // The owner, bound to `workspace_root`, serving `skeleton` from its runtime root.
  void WriteOwner(const std::string& workspace_root, const std::string& skeleton,
                  const std::string& kind = "\"medulla\"") {
    WriteFile(Registry() + "/instances/owner.json",
              InstanceJson("owner", workspace_root, Runtime(), kind));
    if (!skeleton.empty()) WriteFile(Runtime() + "/system_blocks.json", StoreJson(skeleton, {}));
  }

  struct Run {
    int exit_code = -1;
    Json report;
    std::string err;
  };

  Run Once() {
    WriteFile(tmp_.Join("config.yml"), "m1nd_registries: [" + Registry() + "]\n");
    const std::string command = "timeout -s KILL 20 '" + std::string(SCX_EXPORTER_BINARY) +
                                "' --config.file='" + tmp_.Join("config.yml") +
                                "' --once --log.level=debug >'" + tmp_.Join("out") + "' 2>'" +
                                tmp_.Join("err") + "' </dev/null";
    const int status = std::system(command.c_str());
    Run run;
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.err = ReadFile(tmp_.Join("err"));
    run.report = Json::parse(ReadFile(tmp_.Join("out")), nullptr, /*allow_exceptions=*/false);
    return run;
  }

  static const Json* Brain(const Run& run, const std::string& name) {
    for (const Json& brain : run.report["brains"]) {
      if (brain["brain"] == name) return &brain;
    }
    return nullptr;
  }

  TempDir tmp_;
};

// m1nd reads an ingest_roots.json that is not an array of strings as an empty list
// and serves the foreign skeleton: the incident is reported, not the brain dropped.
TEST_F(FidelityOnceTest, IngestRootsThatAreNotPathsStillPageTheIncident) {
  WriteOwner("/home/u/m1nd", "sk_keyvault_candidate");
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/keyvault\", null]");
  Run run = Once();
  EXPECT_EQ(1, run.exit_code) << run.err;
  const Json* brain = Brain(run, "m1nd");
  ASSERT_NE(nullptr, brain) << run.report.dump();
  EXPECT_EQ("mismatch", (*brain)["state"]);
  EXPECT_EQ("workspace_root", (*brain)["identity_source"]);
  EXPECT_NE(std::string::npos, run.err.find("read as an empty list")) << run.err;
}

// m1nd serves a project brain whatever its manifest's schema.
TEST_F(FidelityOnceTest, ManifestOfANewerSchemaOrNoneIsStillWatched) {
  WriteOwner("/home/u/m1nd", "sk_m1nd_candidate");
  WriteFile(Folder("aa") + "/project_brain.json",
            "{\"schema\": \"m1nd-project-brain-v2\", \"project_root\": \"/home/u/notes\"}");
  WriteFile(Folder("aa") + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {}));
  WriteFile(Folder("bb") + "/project_brain.json", "{\"project_root\": \"/home/u/lib\"}");
  WriteFile(Folder("bb") + "/system_blocks.json", StoreJson("sk_lib_candidate", {}));
  Run run = Once();
  EXPECT_EQ(1, run.exit_code) << run.err;
  ASSERT_NE(nullptr, Brain(run, "notes")) << run.report.dump();
  EXPECT_EQ("mismatch", (*Brain(run, "notes"))["state"]);
  ASSERT_NE(nullptr, Brain(run, "lib"));
  EXPECT_EQ("ok", (*Brain(run, "lib"))["state"]);
}

// An older m1nd build left a folder for the same root behind, with a stale foreign
// store: m1nd never serves it, so it never pages; it is listed as orphaned.
TEST_F(FidelityOnceTest, OrphanedFolderForAServedRootNeverPages) {
  WriteOwner("/home/u/m1nd", "sk_m1nd_candidate");
  WriteFile(Folder("0old") + "/project_brain.json", ManifestJson("/home/u/keyvault"));
  WriteFile(Folder("0old") + "/system_blocks.json", StoreJson("sk_m1nd_candidate", {}));
  Age(Folder("0old") + "/system_blocks.json", 86400);
  WriteFile(Folder("1new") + "/project_brain.json", ManifestJson("/home/u/keyvault"));
  WriteFile(Folder("1new") + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {}));
  Run run = Once();
  EXPECT_EQ(0, run.exit_code) << run.report.dump();
  ASSERT_NE(nullptr, Brain(run, "keyvault"));
  EXPECT_EQ(Folder("1new"), (*Brain(run, "keyvault"))["runtime_dir"]);
  ASSERT_EQ(1u, run.report["orphaned_folders"].size()) << run.report.dump();
  EXPECT_EQ(Folder("0old"), run.report["orphaned_folders"][0]["runtime_dir"]);
  EXPECT_EQ(Folder("1new"), run.report["orphaned_folders"][0]["served_runtime_dir"]);
}

// A hosted project brain is named by the ingest_roots.json in its own folder first.
TEST_F(FidelityOnceTest, HostedProjectBrainIsNamedByItsOwnIngestRoots) {
  WriteOwner("/home/u/m1nd", "sk_m1nd_candidate");
  const std::string repo = tmp_.Join("src/key-vault");
  MakeDirs(repo);
  WriteFile(Folder("aa") + "/project_brain.json", ManifestJson("/home/u/kv"));
  WriteFile(Folder("aa") + "/ingest_roots.json", "[\"" + repo + "\"]");
  WriteFile(Folder("aa") + "/system_blocks.json", StoreJson("sk_key_vault_candidate", {}));
  Run run = Once();
  EXPECT_EQ(0, run.exit_code) << run.report.dump();
  const Json* brain = Brain(run, "key_vault");
  ASSERT_NE(nullptr, brain) << run.report.dump();
  EXPECT_EQ("ok", (*brain)["state"]);
  EXPECT_EQ("ingest_root", (*brain)["identity_source"]);
  EXPECT_EQ("kv", (*brain)["m1nd_name"]);
}

// A sidecar workspace written with a trailing "/." is still a sidecar for m1nd: rule 2
// skips it and the first ingest root names the brain.
TEST_F(FidelityOnceTest, SidecarWithATrailingDotIsNotTheIdentity) {
  MakeDirs(tmp_.Join("src/other"));  // the repo's folder is there: the repo is gone
  WriteOwner(tmp_.Join("home/.claude/agent-memory/."), "sk_notes_candidate");
  WriteFile(Runtime() + "/ingest_roots.json", "[\"" + tmp_.Join("src/notes") + "\"]");
  Run run = Once();
  EXPECT_EQ(0, run.exit_code) << run.report.dump();
  ASSERT_NE(nullptr, Brain(run, "notes")) << run.report.dump();
  EXPECT_EQ("first_ingest_root", (*Brain(run, "notes"))["identity_source"]);
}

// A hand-written entry with only the two roots is skipped by m1nd: no brain, no page.
TEST_F(FidelityOnceTest, PartialRegistryEntryIsNoBrain) {
  WriteFile(Registry() + "/instances/hand.json",
            "{\"workspace_root\": \"/home/u/m1nd\", \"runtime_root\": \"" + Runtime() + "\"}");
  WriteFile(Runtime() + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {}));
  Run run = Once();
  EXPECT_EQ(0, run.exit_code) << run.report.dump();
  EXPECT_TRUE(run.report["brains"].empty()) << run.report.dump();
  EXPECT_NE(std::string::npos, run.err.find("hand.json")) << run.err;
}

// m1nd cannot load a store without a required top-level field: it serves no skeleton
// from it, so it is unreadable, never a mismatch. A u64 store_version is valid.
TEST_F(FidelityOnceTest, StoresAreAcceptedAsM1ndLoadsThem) {
  WriteOwner("/home/u/m1nd", "");
  std::string store = StoreJson("sk_keyvault_candidate", {});
  const std::string policy = ",\n  \"unmapped_policy\"";
  store.erase(store.find(policy), store.rfind('}') - store.find(policy));
  WriteFile(Runtime() + "/system_blocks.json", store);
  Run run = Once();
  EXPECT_EQ(0, run.exit_code) << run.report.dump();
  ASSERT_NE(nullptr, Brain(run, "m1nd")) << run.report.dump();
  EXPECT_EQ("unreadable", (*Brain(run, "m1nd"))["state"]);
  EXPECT_EQ("schema", (*Brain(run, "m1nd"))["store_error"]["reason"]);

  std::string big = StoreJson("sk_m1nd_candidate", {});
  const std::string version = "\"store_version\": 1";
  big.replace(big.find(version), version.size(), "\"store_version\": 18446744073709551615");
  WriteFile(Runtime() + "/system_blocks.json", big);
  run = Once();
  EXPECT_EQ(0, run.exit_code);
  EXPECT_EQ("ok", (*Brain(run, "m1nd"))["state"]) << run.report.dump();
}

// The repo m1nd names the brain after is hidden from the exporter (its parent folder
// missing, as in a sandbox): no verdict it cannot stand behind, no mismatch.
TEST_F(FidelityOnceTest, HiddenRepoLeavesTheIdentityUnknownNotAMismatch) {
  WriteOwner(Runtime(), "sk_m1nd_candidate");
  WriteFile(Runtime() + "/ingest_roots.json", "[\"" + tmp_.Join("hidden/u/m1nd") + "\"]");
  Run run = Once();
  EXPECT_EQ(0, run.exit_code) << run.report.dump();
  ASSERT_EQ(1u, run.report["brains"].size()) << run.report.dump();
  const Json& brain = run.report["brains"][0];
  EXPECT_EQ("identity_unknown", brain["state"]);
  EXPECT_EQ("unknown", brain["identity_source"]);
  EXPECT_TRUE(brain["skeleton_coherence"].is_null());
  EXPECT_NE(std::string::npos, brain["identity_note"].get<std::string>().find("hidden/u/m1nd"));
}

}  // namespace
}  // namespace scx
