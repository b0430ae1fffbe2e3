// `skeleton-coherence-exporter --once` run as a real process: the bundled examples
// (the incident included), a FIFO store, exit codes and config errors; and the exit
// codes of the service's own usage errors (a bad web config or listen address) and of
// --config.check.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "exporter/version.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using Json = nlohmann::json;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  double seconds = 0;
};

// Runs the exporter with `args` (already shell-quoted), bounded by `timeout`, with
// `env` ("NAME='value' ...", already quoted) added to its environment.
RunResult RunExporter(const std::string& args, const std::string& env = "") {
  TempDir dir;
  std::string command = env + " timeout -s KILL 20 '" + std::string(SCX_EXPORTER_BINARY) + "' " +
                        args + " >'" + dir.Join("out") + "' 2>'" + dir.Join("err") + "' </dev/null";
  auto start = std::chrono::steady_clock::now();
  int status = std::system(command.c_str());
  RunResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFile(dir.Join("out"));
  result.err = ReadFile(dir.Join("err"));
  return result;
}

const Json& FindBrain(const Json& report, const std::string& name) {
  for (const Json& brain : report["brains"]) {
    if (brain["brain"] == name) return brain;
  }
  static const Json kNone;
  ADD_FAILURE() << "no brain " << name << " in " << report.dump();
  return kNone;
}

TEST(OnceCliTest, ExamplesShowTheIncidentAndExitOne) {
  RunResult run =
      RunExporter("--config.file='" + std::string(SCX_SOURCE_DIR) + "/examples/config.yml' --once");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  Json report = Json::parse(run.out);
  ASSERT_EQ(report["brains"].size(), 4u) << run.out;

  const Json& incident = FindBrain(report, "m1nd");
  EXPECT_EQ(incident["store"], "present");
  EXPECT_EQ(incident["skeleton_coherence"]["status"], "mismatch");
  EXPECT_EQ(incident["skeleton_coherence"]["expected_slug"], "m1nd");
  EXPECT_EQ(incident["skeleton_coherence"]["found_slug"], "keyvault");
  EXPECT_TRUE(incident["skeleton_coherence"]["reason"].is_string());
  // Since when: the incident store's mtime.
  struct stat info {};
  ASSERT_EQ(
      stat((std::string(SCX_SOURCE_DIR) + "/examples/m1nd-runtime/system_blocks.json").c_str(),
           &info),
      0);
  EXPECT_NEAR(incident["mismatch_since"].get<double>(),
              static_cast<double>(info.st_mtim.tv_sec) + info.st_mtim.tv_nsec / 1e9, 1e-3);
  EXPECT_FALSE(FindBrain(report, "keyvault").contains("mismatch_since"));
  EXPECT_EQ(FindBrain(report, "keyvault")["skeleton_coherence"]["status"], "ok");
  EXPECT_EQ(FindBrain(report, "my_repo")["skeleton_coherence"]["status"], "ok");
  EXPECT_EQ(FindBrain(report, "my_repo")["skeleton_coherence"]["expected_slug"], "my_repo");
  EXPECT_EQ(FindBrain(report, "notes")["store"], "absent");
  EXPECT_TRUE(FindBrain(report, "notes")["skeleton_coherence"].is_null());

  // Today's m1nd layout: the medulla owner is named by its ingest root (its
  // workspace_root is the agent-memory sidecar), the read-only attacher changes
  // nothing, and runtime-jobs/ and the brain being born are no problem.
  EXPECT_EQ(incident["source"], "registry_owner");
  EXPECT_EQ(incident["identity_source"], "first_ingest_root");
  EXPECT_EQ(incident["project_root"], "/home/dev/m1nd");
  int mismatches = 0;
  for (const Json& brain : report["brains"]) {
    const Json& verdict = brain["skeleton_coherence"];
    mismatches += verdict.is_object() && verdict["status"] == "mismatch" ? 1 : 0;
  }
  EXPECT_EQ(mismatches, 1) << run.out;
  EXPECT_EQ(run.err.find("level=warn"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("msg=watching"), std::string::npos) << run.err;
}

TEST(OnceCliTest, TableForPeopleWorstFirstWithoutColourWhenPiped) {
  RunResult run = RunExporter("--config.file='" + std::string(SCX_SOURCE_DIR) +
                              "/examples/config.yml' --once --output=table");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(run.out.rfind("BRAIN", 0), 0u) << run.out;
  const std::string second_line = run.out.substr(run.out.find('\n') + 1);
  EXPECT_EQ(second_line.rfind("m1nd ", 0), 0u) << run.out;
  EXPECT_NE(second_line.find("mismatch  m1nd      keyvault  keyvault"), std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find('\x1b'), std::string::npos);  // stdout is a file here
}

// The README's quick start shows the table scripts/run-example.sh prints over examples/:
// it must be what the binary prints.
TEST(OnceCliTest, ReadmeQuickStartShowsTheTableItPrints) {
  RunResult run = RunExporter("--config.file='" + std::string(SCX_SOURCE_DIR) +
                              "/examples/config.yml' --once --output=table");
  ASSERT_EQ(run.exit_code, 1) << run.err;
  const std::string readme = ReadFile(std::string(SCX_SOURCE_DIR) + "/README.md");
  const size_t quick_start = readme.find("## Quick start");
  ASSERT_NE(quick_start, std::string::npos);
  const size_t next = readme.find("\n## ", quick_start + 1);
  const std::string section = readme.substr(quick_start, next - quick_start);
  EXPECT_NE(section.find("```\n" + run.out + "```\n"), std::string::npos) << run.out;
}

TEST(OnceCliTest, OutputFlagIsCheckedAndGoesWithOnce) {
  EXPECT_EQ(RunExporter("--once --output=xml").exit_code, 2);
  RunResult run = RunExporter("--output=table");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--output goes with --once"), std::string::npos) << run.err;
}

// Without a config file the registry is m1nd's own default: $M1ND_REGISTRY_DIR first.
TEST(OnceCliTest, DefaultRegistryFollowsM1ndRegistryDir) {
  TempDir home;
  RunResult run = RunExporter("--once", "HOME='" + home.path() + "' M1ND_REGISTRY_DIR='" +
                                            std::string(SCX_SOURCE_DIR) + "/examples/registry'");
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(Json::parse(run.out)["brains"].size(), 4u) << run.out;
}

// A machine where m1nd never ran: one warn line about the default registry, and a
// warn line because nothing at all is watched (exit 0: no mismatch).
TEST(OnceCliTest, WatchingNothingIsSaid) {
  TempDir home;
  RunResult run = RunExporter("--once", "HOME='" + home.path() + "' M1ND_REGISTRY_DIR=");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Json::parse(run.out)["brains"].empty()) << run.out;
  EXPECT_NE(run.err.find("the default m1nd registry does not exist"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(home.path() + "/.m1nd/registry"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("no brains found"), std::string::npos) << run.err;
}

// A registry the config names but that does not exist is a discovery problem.
TEST(OnceCliTest, MistypedRegistryIsADiscoveryProblem) {
  TempDir dir;
  WriteFile(dir.Join("config.yml"), "m1nd_registries: [regsitry]\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("discovery problem"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find(dir.Join("regsitry")), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("no such folder"), std::string::npos) << run.err;
}

// m1nd cannot load a store whose skeleton is null: unreadable (schema), not empty.
TEST(OnceCliTest, NullSkeletonIsUnreadableNotEmpty) {
  TempDir dir;
  WriteFile(dir.Join("rt/system_blocks.json"),
            R"({"schema": "m1nd-system-block-store-v0", "store_version": 1, "skeleton": null,
                "blocks": []})");
  WriteFile(dir.Join("config.yml"),
            "m1nd_registries: []\nbrains:\n  - {project_root: /home/u/m1nd, runtime_dir: rt}\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const Json report = Json::parse(run.out);
  const Json& brain = FindBrain(report, "m1nd");
  EXPECT_EQ(brain["store"], "unreadable");
  EXPECT_EQ(brain["store_error"]["reason"], "schema");
  EXPECT_NE(run.err.find("store unreadable"), std::string::npos) << run.err;
}

TEST(OnceCliTest, FifoStoreIsUnreadableWithinASecond) {
  TempDir dir;
  testing::MakeDirs(dir.Join("rt"));
  ASSERT_EQ(mkfifo(dir.Join("rt/system_blocks.json").c_str(), 0600), 0);
  WriteFile(dir.Join("config.yml"),
            "m1nd_registries: []\nbrains:\n  - {project_root: /home/u/m1nd, runtime_dir: rt}\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_LT(run.seconds, 1.0);
  Json report = Json::parse(run.out);
  EXPECT_EQ(report["brains"][0]["store"], "unreadable");
  EXPECT_EQ(report["brains"][0]["store_error"]["reason"], "not_regular");
  EXPECT_NE(run.err.find("store unreadable"), std::string::npos) << run.err;
}

// An owner whose ingest roots name two repos, the first one hidden from the exporter
// (its parent folder is missing: a sandbox): its identity is unknown, which is no
// mismatch (exit 0), one warn line says why, and the JSON has the state and the note.
// Two project-brain folders claiming one root leave one orphaned folder.
TEST(OnceCliTest, IdentityUnknownExitsZeroAndSaysWhy) {
  TempDir dir;
  testing::MakeDirs(dir.Join("repos/beta"));
  const std::string hidden = dir.Join("hidden-parent/x/alpha");
  WriteFile(dir.Join("rt/ingest_roots.json"),
            "[\"" + hidden + "\", \"" + dir.Join("repos/beta") + "\"]");
  testing::ReplaceFileAtomically(dir.Join("rt/system_blocks.json"),
                                 testing::StoreJson("sk_alpha_candidate", {"sb_alpha_core_1"}));
  WriteFile(dir.Join("rt/project-brains/aaa/project_brain.json"),
            testing::ManifestJson(dir.Join("repos/beta")));
  WriteFile(dir.Join("rt/project-brains/bbb/project_brain.json"),
            testing::ManifestJson(dir.Join("repos/beta")));
  WriteFile(dir.Join("registry/instances/owner.json"),
            testing::InstanceJson("owner", dir.Join("agent-memory"), dir.Join("rt")));
  WriteFile(dir.Join("config.yml"), "m1nd_registries: [registry]\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err << run.out;
  const Json report = Json::parse(run.out);
  const Json* owner = nullptr;
  for (const Json& brain : report["brains"]) {
    if (brain["source"] == "registry_owner") owner = &brain;
  }
  ASSERT_NE(owner, nullptr) << run.out;
  EXPECT_EQ((*owner)["state"], "identity_unknown") << run.out;
  EXPECT_EQ((*owner)["identity_source"], "unknown");
  EXPECT_EQ((*owner)["project_root"], "");
  EXPECT_TRUE((*owner)["skeleton_coherence"].is_null());
  EXPECT_TRUE((*owner)["identity_note"].is_string());
  EXPECT_FALSE((*owner)["identity_note"].get<std::string>().empty());
  EXPECT_TRUE((*owner)["m1nd_name"].is_string());
  EXPECT_EQ((*owner)["carried_over"], false);
  // One warn line for it, naming where it is and why.
  const std::string line =
      "level=warn msg=\"brain discovered\" brain=" + (*owner)["brain"].get<std::string>() +
      " to=identity_unknown";
  const std::size_t at = run.err.find(line);
  ASSERT_NE(at, std::string::npos) << run.err;
  EXPECT_EQ(run.err.find(line, at + 1), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("runtime_dir=", at), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("note=", at), std::string::npos) << run.err;
  // The orphaned folder, at the top level and in one info line.
  ASSERT_EQ(report["orphaned_folders"].size(), 1u) << run.out;
  const Json& orphan = report["orphaned_folders"][0];
  EXPECT_EQ(orphan["project_root"], dir.Join("repos/beta"));
  EXPECT_NE(orphan["runtime_dir"], orphan["served_runtime_dir"]);
  EXPECT_NE(run.err.find("level=info msg=\"orphaned brain folder\""), std::string::npos) << run.err;

  // The table: the state, the note, and the orphaned folder under it.
  RunResult table =
      RunExporter("--config.file='" + dir.Join("config.yml") + "' --once --output=table");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("identity_unknown"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("Orphaned brain folders (not served by m1nd):"), std::string::npos)
      << table.out;
}

TEST(OnceCliTest, HealthyLayoutExitsZero) {
  TempDir dir;
  testing::ReplaceFileAtomically(
      dir.Join("rt/system_blocks.json"),
      testing::StoreJson("sk_m1nd_candidate", {"sb_m1nd_core_1a2b3c4d"}));
  WriteFile(dir.Join("config.yml"),
            "m1nd_registries: []\nbrains:\n  - {project_root: /home/u/m1nd, runtime_dir: rt}\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(Json::parse(run.out)["brains"][0]["skeleton_coherence"]["status"], "ok");
}

// --once sets up its scan as the service does: a prefix ambiguity the config allows
// is shown as allowed, as /api/v1/brains shows it (docs/runbook.md promises both).
TEST(OnceCliTest, AnAllowedPrefixAmbiguityIsShownAsAllowed) {
  TempDir dir;
  testing::ReplaceFileAtomically(dir.Join("rt/system_blocks.json"),
                                 testing::StoreJson("sk_lib_core_candidate", {"sb_lib_a"}));
  const std::string brains =
      "m1nd_registries: []\nbrains:\n  - {name: lib, project_root: /home/u/lib, "
      "runtime_dir: rt}\n";
  WriteFile(dir.Join("config.yml"), brains);
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(FindBrain(Json::parse(run.out), "lib")["prefix_ambiguous"],
            Json({{"slug", "lib_core"}}))
      << run.out;

  WriteFile(dir.Join("config.yml"),
            brains + "prefix_ambiguity_allowed:\n  - {brain: lib, slug: lib_core}\n");
  run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(FindBrain(Json::parse(run.out), "lib")["prefix_ambiguous"],
            Json({{"slug", "lib_core"}, {"allowed", true}}))
      << run.out;
}

TEST(OnceCliTest, BadConfigIsOneLineNamingFileLineAndKeyExitTwo) {
  TempDir dir;
  WriteFile(dir.Join("config.yml"), "m1nd_registries: []\nbrainz: []\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "skeleton-coherence-exporter: " + dir.Join("config.yml") +
                         ":2: key 'brainz': unknown key (known keys: brains, m1nd_registries, "
                         "max_store_bytes, prefix_ambiguity_allowed, runtime_globs, "
                         "scan_interval)\n");
}

// As on a reload: an empty file is not the defaults (to run on them, leave out
// --config.file).
TEST(OnceCliTest, EmptyConfigFileExitsTwo) {
  TempDir dir;
  WriteFile(dir.Join("config.yml"), "# nothing but a comment\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") + "' --once");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err, "skeleton-coherence-exporter: " + dir.Join("config.yml") +
                         ": config file is empty (to run on the defaults, leave out "
                         "--config.file or write {})\n");
}

TEST(OnceCliTest, MissingConfigFileExitsTwo) {
  RunResult run = RunExporter("--config.file=/nonexistent/config.yml --once");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("/nonexistent/config.yml"), std::string::npos);
}

TEST(OnceCliTest, ConfigFileThatIsADirectoryExitsTwo) {
  TempDir dir;
  RunResult run = RunExporter("--config.file='" + dir.path() + "' --once");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err,
            "skeleton-coherence-exporter: " + dir.path() + ": cannot read: is a directory\n");
}

TEST(OnceCliTest, UsageErrorsExitTwo) {
  RunResult run = RunExporter("--bogus");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("unknown flag --bogus"), std::string::npos);
  run = RunExporter("--web.max-requests=-1");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--web.max-requests must be a whole number"), std::string::npos)
      << run.err;
}

TEST(OnceCliTest, HelpAndVersion) {
  RunResult help = RunExporter("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--web.listen-address"), std::string::npos);
  RunResult version = RunExporter("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("skeleton-coherence-exporter, version ", 0), 0u);
  // prometheus/common/version.Print's lines, "toolchain" for its "go version".
  EXPECT_EQ(version.out, VersionText("skeleton-coherence-exporter", ThisBuild()));
  for (const char* line :
       {" (branch: ", ", revision: ", "\n  build user:       ", "\n  build date:       ",
        "\n  toolchain:        ", "\n  platform:         linux/"}) {
    EXPECT_NE(version.out.find(line), std::string::npos) << line << " in " << version.out;
  }
}

// A socket listening on a free port of 127.0.0.1 for the test's life: the port is
// taken, so that whatever tries to bind it fails.
class TakenPort {
 public:
  TakenPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(fd_, 1) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "cannot take a port";
      return;
    }
    port_ = ntohs(address.sin_port);
  }
  ~TakenPort() {
    if (fd_ >= 0) close(fd_);
  }
  TakenPort(const TakenPort&) = delete;
  TakenPort& operator=(const TakenPort&) = delete;
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

constexpr char kGoodHash[] = "$2b$04$jl6B1t0gP9SAAPyP07rdYefGYNsq5W.PyM7OXi4Q8YzK9S.s6DNzy";

// Web config files the server refuses at start, by what is wrong with them, and what
// the one error line says.
struct BadWebConfig {
  const char* what;
  const char* yaml;
  const char* error;
};
const BadWebConfig kBadWebConfigs[] = {
    {"an unknown key", "tls_server_config: {}\nbasic_auth: {}\n",
     "web.yml:2: key 'basic_auth': unknown key"},
    {"a missing cert file", "tls_server_config:\n  cert_file: gone.crt\n  key_file: gone.key\n",
     "cannot load cert_file"},
    {"a bad bcrypt hash", "basic_auth_users:\n  prometheus: not-a-hash\n",
     "web.yml:2: key 'basic_auth_users.prometheus': expected a bcrypt hash"},
    {"a bad TLS version",
     "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n  min_version: TLS11\n",
     "key 'tls_server_config.min_version': 'TLS11' is not supported"},
};

// Under the systemd unit (RestartPreventExitStatus=2) exit 2 stops the restarts: a
// web config the server refuses is the operator's to fix, and failed with 1 before
// (restarted every 5 s forever).
TEST(ServiceExitCodeTest, BadWebConfigExitsTwoBeforeListening) {
  for (const BadWebConfig& bad : kBadWebConfigs) {
    TempDir dir;
    WriteFile(dir.Join("web.yml"), bad.yaml);
    WriteFile(dir.Join("config.yml"), "m1nd_registries: []\n");
    RunResult run =
        RunExporter("--config.file='" + dir.Join("config.yml") + "' --web.config.file='" +
                    dir.Join("web.yml") + "' --web.listen-address=127.0.0.1:0");
    EXPECT_EQ(run.exit_code, 2) << bad.what << ": " << run.err;
    EXPECT_EQ(run.err.rfind("skeleton-coherence-exporter: ", 0), 0u) << run.err;
    EXPECT_NE(run.err.find(bad.error), std::string::npos) << bad.what << ": " << run.err;
    EXPECT_EQ(run.err.find("listening"), std::string::npos) << run.err;
  }
}

TEST(ServiceExitCodeTest, BadListenAddressExitsTwo) {
  for (const char* address : {"nonsense", "127.0.0.1:99999", "256.1.1.1:9864", "[zz]:9864"}) {
    RunResult run = RunExporter("--web.listen-address='" + std::string(address) + "'");
    EXPECT_EQ(run.exit_code, 2) << address << ": " << run.err;
    EXPECT_NE(
        run.err.find("--web.listen-address: invalid listen address '" + std::string(address) + "'"),
        std::string::npos)
        << run.err;
  }
}

// A port in use is no usage error: it may come free (the old process still stopping),
// so the unit's restart is right.
TEST(ServiceExitCodeTest, APortInUseExitsOne) {
  TakenPort taken;
  TempDir dir;
  WriteFile(dir.Join("config.yml"), "m1nd_registries: []\n");
  RunResult run = RunExporter("--config.file='" + dir.Join("config.yml") +
                              "' --web.listen-address=" + taken.address());
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.err.find("cannot start the HTTP server"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("Address already in use"), std::string::npos) << run.err;
}

// --config.check on good files: a line per file, exit 0, and neither a scan (no log
// line at all) nor a listener: the port it is given is taken, and it does not mind.
TEST(ConfigCheckTest, GoodFilesExitZeroWithoutScanningOrListening) {
  TempDir dir;
  testing::MakeDirs(dir.Join("rt"));
  WriteFile(dir.Join("config.yml"),
            "m1nd_registries: []\nbrains:\n  - {project_root: /home/u/m1nd, runtime_dir: rt}\n");
  WriteFile(dir.Join("web.yml"),
            std::string("basic_auth_users:\n  prometheus: ") + kGoodHash + "\n");
  TakenPort taken;
  RunResult run = RunExporter("--config.check --config.file='" + dir.Join("config.yml") +
                              "' --web.config.file='" + dir.Join("web.yml") +
                              "' --web.listen-address=" + taken.address() + " --storage.path='" +
                              dir.Join("state") + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "config file " + dir.Join("config.yml") + ": ok\nweb config file " +
                         dir.Join("web.yml") + ": ok\n");
  EXPECT_EQ(run.err, "");  // no "starting", no "watching", no scan
  EXPECT_LT(run.seconds, 2.0);
  struct stat info {};
  EXPECT_NE(stat(dir.Join("state").c_str(), &info), 0) << "--config.check wrote the state folder";

  run = RunExporter("--config.check");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "flags: ok (no --config.file or --web.config.file to check)\n");
}

// A TLS web config is checked as the server checks it at start: the certificate and
// the key load, and they belong together.
TEST(ConfigCheckTest, TlsFilesAreLoadedAndMustMatch) {
  if (!testing::ToolAvailable("openssl")) GTEST_SKIP() << "needs the openssl command";
  TempDir dir;
  int status = -1;
  for (const char* name : {"a", "b"}) {
    const std::string made = testing::RunShellCommand(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 "
        "-subj /CN=localhost -keyout '" +
            dir.Join(std::string(name) + ".key") + "' -out '" +
            dir.Join(std::string(name) + ".crt") + "' 2>&1",
        "", &status);
    ASSERT_EQ(status, 0) << made;
  }
  WriteFile(dir.Join("good.yml"), "tls_server_config:\n  cert_file: a.crt\n  key_file: a.key\n");
  WriteFile(dir.Join("mixed.yml"), "tls_server_config:\n  cert_file: a.crt\n  key_file: b.key\n");
  RunResult run = RunExporter("--config.check --web.config.file='" + dir.Join("good.yml") + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "web config file " + dir.Join("good.yml") + ": ok\n");
  run = RunExporter("--config.check --web.config.file='" + dir.Join("mixed.yml") + "'");
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_EQ(run.out, "");
  EXPECT_EQ(run.err.rfind("skeleton-coherence-exporter: " + dir.Join("mixed.yml"), 0), 0u)
      << run.err;
}

// exporter-toolkit's rate_limit passes the check (it once exited 2); a burst of 0,
// which would refuse every request, does not.
TEST(ConfigCheckTest, RateLimitIsTaken) {
  TempDir dir;
  WriteFile(dir.Join("limit.yml"), "rate_limit:\n  interval: 1s\n  burst: 20\n");
  WriteFile(dir.Join("zero.yml"), "rate_limit:\n  interval: 1s\n  burst: 0\n");
  RunResult run = RunExporter("--config.check --web.config.file='" + dir.Join("limit.yml") + "'");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "web config file " + dir.Join("limit.yml") + ": ok\n");
  run = RunExporter("--config.check --web.config.file='" + dir.Join("zero.yml") + "'");
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_NE(run.err.find(dir.Join("zero.yml") + ":2: key 'rate_limit': burst must be at least 1"),
            std::string::npos)
      << run.err;
}

TEST(ConfigCheckTest, EachBadFileExitsTwoWithItsErrorLine) {
  TempDir dir;
  WriteFile(dir.Join("config.yml"), "m1nd_registries: []\n");
  WriteFile(dir.Join("bad.yml"), "m1nd_registries: []\nbrainz: []\n");
  RunResult run = RunExporter("--config.check --config.file='" + dir.Join("bad.yml") + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find(dir.Join("bad.yml") + ":2: key 'brainz': unknown key"), std::string::npos)
      << run.err;
  WriteFile(dir.Join("fast.yml"), "scan_interval: 1ms\n");
  run = RunExporter("--config.check --config.file='" + dir.Join("fast.yml") + "'");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("must be at least 100ms"), std::string::npos) << run.err;

  for (const BadWebConfig& bad : kBadWebConfigs) {
    WriteFile(dir.Join("web.yml"), bad.yaml);
    run = RunExporter("--config.check --config.file='" + dir.Join("config.yml") +
                      "' --web.config.file='" + dir.Join("web.yml") + "'");
    EXPECT_EQ(run.exit_code, 2) << bad.what << ": " << run.out;
    EXPECT_EQ(run.out, "config file " + dir.Join("config.yml") + ": ok\n") << bad.what;
    EXPECT_NE(run.err.find(bad.error), std::string::npos) << bad.what << ": " << run.err;
  }

  run = RunExporter("--config.check --web.listen-address=nonsense");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("invalid listen address 'nonsense'"), std::string::npos) << run.err;
  run = RunExporter("--config.check --once");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--config.check and --once exclude each other"), std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace scx
