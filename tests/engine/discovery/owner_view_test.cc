// Tests for judging m1nd's view of the file system by evidence: the pure judgement
// for each kind of evidence, the facts /proc gives about this very process and a dead
// one, and lookups through the /proc/<pid>/root of a child in a mount namespace of its
// own (as root, where unshare and mount are permitted).
#include "engine/discovery/visibility.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

#include "engine/discovery/discovery.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::MakeDirs;
using testing::TempDir;
using testing::WriteFile;

std::uint64_t NowMs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

// The uid this test runs as: the owner of the records it writes.
std::uint32_t Me() { return static_cast<std::uint32_t>(geteuid()); }

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// m1nd's live process, as /proc shows it, started a minute before its registry entry.
OwnerViewFacts LiveOwner() {
  OwnerViewFacts facts;
  facts.pid = 4242;
  facts.record_started_ms = 1767225600000;
  facts.process_exists = true;
  facts.start_known = true;
  facts.process_started_ms = 1767225600000 - 60000;
  return facts;
}

TEST(JudgeOwnerViewTest, ADeclaredHostNeedsNoEvidence) {
  const OwnerView view = JudgeOwnerView(DiscoveryView::kHost, OwnerViewFacts());
  EXPECT_EQ(ViewRule::kHost, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "declared")) << view.evidence;
}

TEST(JudgeOwnerViewTest, NoProcessFallsBackToTheDeclaredView) {
  OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, OwnerViewFacts());
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "no m1nd process is known")) << view.evidence;
  view = JudgeOwnerView(DiscoveryView::kSandbox, OwnerViewFacts());
  EXPECT_EQ(ViewRule::kNever, view.rule);
}

TEST(JudgeOwnerViewTest, AProcessGoneFromProcTellsNothing) {
  OwnerViewFacts facts;
  facts.pid = 4242;
  const OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "4242 is not in /proc")) << view.evidence;
  EXPECT_EQ(ViewRule::kNever, JudgeOwnerView(DiscoveryView::kSandbox, facts).rule);
}

// m1nd writes its own pid: a record naming another user's process is no evidence, and
// nothing is asked of that process's view (the oracle of issue 43).
TEST(JudgeOwnerViewTest, AnotherUsersProcessTellsNothing) {
  OwnerViewFacts facts = LiveOwner();
  facts.record_owner = 200000;
  facts.process_owner = 0;
  facts.namespaces_read = true;
  facts.root_readable = true;
  OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "not as the owner of its registry entry")) << view.evidence;
  EXPECT_EQ(ViewRule::kNever, JudgeOwnerView(DiscoveryView::kSandbox, facts).rule);
  // The honest cases beside it: the record owner's own process, and a record of root's.
  facts.process_owner = 200000;
  EXPECT_EQ(ViewRule::kOwnerRoot, JudgeOwnerView(DiscoveryView::kAuto, facts).rule);
  facts.record_owner = 0;
  facts.process_owner = 200001;
  EXPECT_EQ(ViewRule::kOwnerRoot, JudgeOwnerView(DiscoveryView::kAuto, facts).rule);
}

TEST(JudgeOwnerViewTest, AnUnknownStartTimeTellsNothing) {
  OwnerViewFacts facts = LiveOwner();
  facts.start_known = false;
  facts.process_error = "/proc/4242/stat: cannot be read";
  facts.namespaces_read = facts.same_namespace = true;
  const OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "cannot be read")) << view.evidence;
}

// m1nd exited and another process got its pid: it started after the entry was written.
TEST(JudgeOwnerViewTest, APidReusedAfterM1ndExitedTellsNothing) {
  OwnerViewFacts facts = LiveOwner();
  facts.namespaces_read = facts.same_namespace = true;
  facts.process_started_ms = static_cast<std::int64_t>(facts.record_started_ms) + 60000;
  const OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "started after")) << view.evidence;
  // Within the slack of /proc's start time: the owner.
  facts.process_started_ms = static_cast<std::int64_t>(facts.record_started_ms) + kStartTimeSlackMs;
  EXPECT_EQ(ViewRule::kHost, JudgeOwnerView(DiscoveryView::kAuto, facts).rule);
}

TEST(JudgeOwnerViewTest, ASharedMountNamespaceIsTheHostRule) {
  OwnerViewFacts facts = LiveOwner();
  facts.namespaces_read = facts.same_namespace = true;
  facts.root_readable = facts.same_root = true;
  OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kHost, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "shares the mount namespace")) << view.evidence;
  // A declared sandbox yields to it: m1nd sees what this process sees.
  EXPECT_EQ(ViewRule::kHost, JudgeOwnerView(DiscoveryView::kSandbox, facts).rule);
  // Its root cannot be followed: the namespace alone says it.
  facts.root_readable = facts.same_root = false;
  EXPECT_EQ(ViewRule::kHost, JudgeOwnerView(DiscoveryView::kAuto, facts).rule);
}

// One namespace, another root (m1nd chrooted): its view is looked into.
TEST(JudgeOwnerViewTest, AnotherRootIsLookedInto) {
  OwnerViewFacts facts = LiveOwner();
  facts.namespaces_read = facts.same_namespace = true;
  facts.root_readable = true;
  const OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kOwnerRoot, view.rule);
  EXPECT_EQ(4242u, view.pid);
}

TEST(JudgeOwnerViewTest, AnotherNamespaceIsLookedIntoWherePermitted) {
  OwnerViewFacts facts = LiveOwner();
  facts.namespaces_read = true;
  facts.root_readable = true;
  const OwnerView view = JudgeOwnerView(DiscoveryView::kSandbox, facts);
  EXPECT_EQ(ViewRule::kOwnerRoot, view.rule);
  EXPECT_EQ(4242u, view.pid);
  EXPECT_TRUE(Contains(view.evidence, "/proc/4242/root")) << view.evidence;
}

// Not permitted (another user's m1nd, no CAP_SYS_PTRACE; /proc/1/ns unreadable even
// by root on some machines): cannot tell.
TEST(JudgeOwnerViewTest, UnreadableNamespacesTellNothing) {
  OwnerViewFacts facts = LiveOwner();
  facts.namespace_error = "/proc/4242/ns/mnt: Permission denied";
  facts.root_error = "/proc/4242/root: Permission denied";
  OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "Permission denied")) << view.evidence;
  EXPECT_EQ(ViewRule::kNever, JudgeOwnerView(DiscoveryView::kSandbox, facts).rule);
  // Read, and another namespace, but its root cannot be followed.
  facts.namespaces_read = true;
  facts.namespace_error.clear();
  view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  EXPECT_EQ(ViewRule::kShape, view.rule);
  EXPECT_TRUE(Contains(view.evidence, "/proc/4242/root")) << view.evidence;
}

TEST(GatherOwnerViewFactsTest, ThisProcessSharesItsOwnView) {
  const OwnerViewFacts facts =
      GatherOwnerViewFacts(static_cast<std::uint32_t>(getpid()), NowMs(), Me());
  EXPECT_TRUE(facts.process_exists) << facts.process_error;
  ASSERT_TRUE(facts.start_known) << facts.process_error;
  EXPECT_LE(facts.process_started_ms, static_cast<std::int64_t>(NowMs()));
  EXPECT_GT(facts.process_started_ms, static_cast<std::int64_t>(NowMs()) - 3600 * 1000);
  if (!facts.namespaces_read) GTEST_SKIP() << "/proc/self/ns unreadable: " << facts.namespace_error;
  EXPECT_TRUE(facts.same_namespace);
  EXPECT_TRUE(facts.root_readable) << facts.root_error;
  EXPECT_TRUE(facts.same_root);
  EXPECT_EQ(
      ViewRule::kHost,
      ViewOfOwner(DiscoveryView::kAuto, static_cast<std::uint32_t>(getpid()), NowMs(), Me()).rule);
  // An entry written before this process started names another process.
  EXPECT_EQ(
      ViewRule::kShape,
      ViewOfOwner(DiscoveryView::kAuto, static_cast<std::uint32_t>(getpid()), 1000, Me()).rule);
}

TEST(GatherOwnerViewFactsTest, ADeadProcessIsNotInProc) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(child, waitpid(child, nullptr, 0));
  const OwnerViewFacts facts =
      GatherOwnerViewFacts(static_cast<std::uint32_t>(child), NowMs(), Me());
  EXPECT_FALSE(facts.process_exists);
  EXPECT_EQ(ViewRule::kShape, JudgeOwnerView(DiscoveryView::kAuto, facts).rule);
}

TEST(ProbeRootThroughProcessTest, ThisProcessesOwnView) {
  TempDir tmp;
  MakeDirs(tmp.Join("home/u/m1nd"));
  WriteFile(tmp.Join("home/u/notes.txt"), "x");
  const auto self = static_cast<std::uint32_t>(getpid());
  EXPECT_EQ(RootPresence::kDirectory,
            ProbeRootThroughProcess(self, tmp.Join("home/u/m1nd")).presence);
  EXPECT_EQ(RootPresence::kDirectory,
            ProbeRootThroughProcess(self, tmp.Join("home/u/m1nd/")).presence);
  EXPECT_EQ(RootPresence::kNotDirectory,
            ProbeRootThroughProcess(self, tmp.Join("home/u/notes.txt")).presence);
  // Missing, with its parent: m1nd's own view says it is gone.
  EXPECT_EQ(RootPresence::kNotDirectory,
            ProbeRootThroughProcess(self, tmp.Join("home/v/gone")).presence);
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRootThroughProcess(self, "").presence);
  EXPECT_EQ(RootPresence::kUnseen, ProbeRootThroughProcess(self, "relative/m1nd").presence);
}

TEST(ProbeRootInViewTest, UnseenRootsSayWhichEvidenceWasUsed) {
  TempDir tmp;
  MakeDirs(tmp.Join("home/u"));
  OwnerView view{ViewRule::kShape, 0, "no evidence of m1nd's view: because"};
  RootProbe probe = ProbeRootInView(view, tmp.Join("home/v/gone"));
  EXPECT_EQ(RootPresence::kUnseen, probe.presence);
  EXPECT_TRUE(Contains(probe.why, "parent")) << probe.why;
  EXPECT_TRUE(Contains(probe.why, "; no evidence of m1nd's view: because")) << probe.why;
  view.rule = ViewRule::kHost;
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRootInView(view, tmp.Join("home/v/gone")).presence);
  view.rule = ViewRule::kNever;
  probe = ProbeRootInView(view, tmp.Join("home/u/gone"));
  EXPECT_EQ(RootPresence::kUnseen, probe.presence);
  EXPECT_TRUE(Contains(probe.why, "sandbox")) << probe.why;
}

// A child that stands for m1nd in a mount namespace of its own, in which a tmpfs hides
// `hide` and holds a folder `only_there`. Stopped (SIGKILL) when it goes away.
class NamespacedChild {
 public:
  NamespacedChild(const std::string& hide, const std::string& only_there) {
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      int error = 0;
      if (unshare(CLONE_NEWNS) != 0 ||
          mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          mount("tmpfs", hide.c_str(), "tmpfs", 0, nullptr) != 0 ||
          mkdir(only_there.c_str(), 0755) != 0) {
        error = errno;
      }
      if (write(ready[1], &error, sizeof(error)) != sizeof(error)) _exit(1);
      close(ready[1]);
      if (error != 0) _exit(1);
      for (;;) pause();
    }
    close(ready[1]);
    if (pid_ > 0 && read(ready[0], &error_, sizeof(error_)) != sizeof(error_)) error_ = EIO;
    close(ready[0]);
  }
  ~NamespacedChild() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  NamespacedChild(const NamespacedChild&) = delete;
  NamespacedChild& operator=(const NamespacedChild&) = delete;

  bool started() const { return pid_ > 0 && error_ == 0; }
  std::string error() const { return pid_ <= 0 ? "fork failed" : strerror(error_); }
  std::uint32_t pid() const { return static_cast<std::uint32_t>(pid_); }

 private:
  pid_t pid_ = -1;
  int error_ = 0;
};

// m1nd (the child) sees a tmpfs over the repo's parent: for it the repo this process
// sees is gone, and a folder only it sees is there. Through /proc/<pid>/root the
// exporter answers as m1nd would.
TEST(NamespacedOwnerTest, RootsAreLookedUpInM1ndsOwnView) {
  if (geteuid() != 0) GTEST_SKIP() << "not root: a mount namespace needs CAP_SYS_ADMIN";
  TempDir tmp;
  MakeDirs(tmp.Join("home/u/m1nd"));
  MakeDirs(tmp.Join("rt"));
  const std::string only_there = tmp.Join("home/u/only-in-m1nd");
  NamespacedChild child(tmp.Join("home/u"), only_there);
  if (!child.started()) {
    GTEST_SKIP() << "unshare(CLONE_NEWNS) and a tmpfs mount are not permitted here: "
                 << child.error();
  }
  const OwnerViewFacts facts = GatherOwnerViewFacts(child.pid(), NowMs(), Me());
  ASSERT_TRUE(facts.process_exists);
  ASSERT_TRUE(facts.namespaces_read) << facts.namespace_error;
  EXPECT_FALSE(facts.same_namespace);
  const OwnerView view = JudgeOwnerView(DiscoveryView::kAuto, facts);
  ASSERT_EQ(ViewRule::kOwnerRoot, view.rule) << view.evidence;
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRootInView(view, tmp.Join("home/u/m1nd")).presence);
  EXPECT_EQ(RootPresence::kDirectory, ProbeRootInView(view, only_there).presence);
  // This process sees the repo and not the other folder.
  EXPECT_EQ(RootPresence::kDirectory, ProbeRoot(tmp.Join("home/u/m1nd")).presence);
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRoot(only_there).presence);

  // Discovery names the brain as m1nd does: its first ingest root is gone for m1nd, the
  // second is the one it sees.
  const std::string registry = tmp.Join("registry");
  const std::string runtime = tmp.Join("rt");
  WriteFile(runtime + "/ingest_roots.json",
            "[\"" + tmp.Join("home/u/m1nd") + "\", \"" + only_there + "\"]");
  WriteFile(registry + "/instances/owner.json",
            "{\"instance_id\": \"x\", \"workspace_root\": \"" + runtime +
                "\", \"runtime_root\": \"" + runtime + "\", \"graph_source\": \"" + runtime +
                "/graph_snapshot.json\", \"plasticity_state\": \"" + runtime +
                "/plasticity_state.json\", \"pid\": " + std::to_string(child.pid()) +
                ", \"started_at_ms\": " + std::to_string(NowMs()) +
                ", \"last_heartbeat_ms\": 1, \"mode\": \"read_write\", \"status\": \"running\"}");
  DiscoveryConfig config;
  config.registries = {registry};
  const Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ(1u, discovery.brains.size());
  EXPECT_EQ(only_there, discovery.brains[0].project_root);
  EXPECT_EQ(IdentitySource::kIngestRoot, discovery.brains[0].identity_source);
}

// The oracle of issue 43: another user writes a record of their own runtime dir that
// names the pid of root's process in a private mount namespace. Asking that process's
// view would tell them whether a path exists there (here: which ingest root names the
// brain). The process is not theirs: no evidence, the shape rule in this process's view.
TEST(NamespacedOwnerTest, AnotherUsersRecordNeverAsksAProcessView) {
  if (geteuid() != 0) GTEST_SKIP() << "not root: a mount namespace needs CAP_SYS_ADMIN";
  TempDir tmp;
  MakeDirs(tmp.Join("home/u/m1nd"));
  MakeDirs(tmp.Join("rt"));
  const std::string only_there = tmp.Join("home/u/only-in-m1nd");
  NamespacedChild child(tmp.Join("home/u"), only_there);
  if (!child.started()) {
    GTEST_SKIP() << "unshare(CLONE_NEWNS) and a tmpfs mount are not permitted here: "
                 << child.error();
  }
  const std::string registry = tmp.Join("registry");
  const std::string runtime = tmp.Join("rt");
  // Asks whether only_there exists in the child's view: rule 1 would pick it there.
  WriteFile(runtime + "/ingest_roots.json",
            "[\"" + only_there + "\", \"" + tmp.Join("home/u/m1nd") + "\"]");
  const std::string record = registry + "/instances/owner.json";
  WriteFile(record, "{\"instance_id\": \"x\", \"workspace_root\": \"" + runtime +
                        "\", \"runtime_root\": \"" + runtime + "\", \"graph_source\": \"" +
                        runtime + "/graph_snapshot.json\", \"plasticity_state\": \"" + runtime +
                        "/plasticity_state.json\", \"pid\": " + std::to_string(child.pid()) +
                        ", \"started_at_ms\": " + std::to_string(NowMs()) +
                        ", \"last_heartbeat_ms\": 1, \"mode\": \"read_write\", "
                        "\"status\": \"running\"}");
  constexpr uid_t kUser = 200000;
  ASSERT_EQ(0, chown(record.c_str(), kUser, kUser));
  ASSERT_EQ(0, chown(runtime.c_str(), kUser, kUser));
  DiscoveryConfig config;
  config.registries = {registry};
  const Discovery discovery = DiscoverBrains(config, {});
  ASSERT_EQ(1u, discovery.brains.size());
  // Named as this process sees the roots, never as the child does.
  EXPECT_EQ(tmp.Join("home/u/m1nd"), discovery.brains[0].project_root);
  EXPECT_TRUE(discovery.conflicts.empty());  // the record is the runtime dir owner's own

  // The honest case beside it: the child is root's, and so is the record; its view counts.
  ASSERT_EQ(0, chown(record.c_str(), 0, 0));
  const Discovery honest = DiscoverBrains(config, {});
  ASSERT_EQ(1u, honest.brains.size());
  EXPECT_EQ(only_there, honest.brains[0].project_root);
}

}  // namespace
}  // namespace scx
