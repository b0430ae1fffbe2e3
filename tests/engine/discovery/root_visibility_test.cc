// Tests for telling a root that does not exist from one this process cannot see: the
// pure judgement over facts, and the probe over real temporary folders.
#include "engine/discovery/visibility.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "tests/test_support.h"

namespace scx {
namespace {

using testing::MakeDirs;
using testing::TempDir;
using testing::WriteFile;

MissingRootFacts VisibleParent() {
  MissingRootFacts facts;
  facts.parent_exists = true;
  facts.ancestor = "/home/u";
  return facts;
}

TEST(JudgeMissingRootTest, MissingFromAFolderSeenWholeIsAbsent) {
  EXPECT_EQ(RootPresence::kNotDirectory, JudgeMissingRoot(VisibleParent()).presence);
  // A tmpfs or a mount point with real contents is seen whole too.
  MissingRootFacts facts = VisibleParent();
  facts.ancestor_on_tmpfs = true;
  facts.ancestor_is_mount_point = true;
  EXPECT_EQ(RootPresence::kNotDirectory, JudgeMissingRoot(facts).presence);
}

TEST(JudgeMissingRootTest, AMissingParentHidesIt) {
  MissingRootFacts facts;
  facts.ancestor = "/home";
  const RootProbe probe = JudgeMissingRoot(facts);
  EXPECT_EQ(RootPresence::kUnseen, probe.presence);
  EXPECT_NE(std::string::npos, probe.why.find("parent"));
}

TEST(JudgeMissingRootTest, AScaffoldOfMountsHidesIt) {
  MissingRootFacts facts = VisibleParent();
  facts.ancestor_holds_only_mounts = true;  // a pod's /home/u holding only .m1nd
  EXPECT_EQ(RootPresence::kUnseen, JudgeMissingRoot(facts).presence);
}

TEST(JudgeMissingRootTest, AnEmptyTmpfsOrMountPointHidesIt) {
  MissingRootFacts facts = VisibleParent();
  facts.ancestor_empty = true;
  EXPECT_EQ(RootPresence::kNotDirectory, JudgeMissingRoot(facts).presence);
  facts.ancestor_on_tmpfs = true;  // systemd's ProtectHome=tmpfs
  EXPECT_EQ(RootPresence::kUnseen, JudgeMissingRoot(facts).presence);
  facts.ancestor_on_tmpfs = false;
  facts.ancestor_is_mount_point = true;
  EXPECT_EQ(RootPresence::kUnseen, JudgeMissingRoot(facts).presence);
}

// This process sees as m1nd does: a root deleted with its parent is gone for m1nd too.
// What a sandbox of this process leaves (an empty tmpfs where the repo's folder should
// be, a scaffold of mounts) still hides it.
TEST(JudgeMissingRootTest, TheHostRuleTakesAMissingParentAsGone) {
  MissingRootFacts facts;
  facts.ancestor = "/home";
  EXPECT_EQ(RootPresence::kNotDirectory, JudgeMissingRoot(facts, MissingRootRule::kHost).presence);
  EXPECT_EQ(RootPresence::kNotDirectory,
            JudgeMissingRoot(VisibleParent(), MissingRootRule::kHost).presence);
  facts.ancestor_empty = true;
  facts.ancestor_on_tmpfs = true;  // its own PrivateTmp=yes on a tmpfs /tmp
  EXPECT_EQ(RootPresence::kUnseen, JudgeMissingRoot(facts, MissingRootRule::kHost).presence);
  facts = VisibleParent();
  facts.ancestor_holds_only_mounts = true;
  EXPECT_EQ(RootPresence::kUnseen, JudgeMissingRoot(facts, MissingRootRule::kHost).presence);
}

// A declared sandbox without m1nd's own word: a root missing from a folder that looks
// whole may still be hidden (an image's /srv in a pod).
TEST(JudgeMissingRootTest, TheSandboxRuleNeverTakesAMissingRootAsGone) {
  const RootProbe probe = JudgeMissingRoot(VisibleParent(), MissingRootRule::kNever);
  EXPECT_EQ(RootPresence::kUnseen, probe.presence);
  EXPECT_NE(std::string::npos, probe.why.find("--discovery.view=sandbox"));
}

TEST(ProbeRootTest, OnRealFolders) {
  TempDir tmp;
  MakeDirs(tmp.Join("home/u/m1nd"));
  WriteFile(tmp.Join("home/u/notes.txt"), "x");
  EXPECT_EQ(RootPresence::kDirectory, ProbeRoot(tmp.Join("home/u/m1nd")).presence);
  EXPECT_EQ(RootPresence::kDirectory, ProbeRoot(tmp.Join("home/u/m1nd/")).presence);
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRoot(tmp.Join("home/u/notes.txt")).presence);
  // Under a file: visibly not a directory.
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRoot(tmp.Join("home/u/notes.txt/x")).presence);
  // Deleted from a folder with real contents: absent, as m1nd sees it.
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRoot(tmp.Join("home/u/gone")).presence);
  // Its parent gone too: this process cannot tell.
  EXPECT_EQ(RootPresence::kUnseen, ProbeRoot(tmp.Join("home/v/gone")).presence);
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRoot("").presence);
  EXPECT_EQ(RootPresence::kUnseen, ProbeRoot("relative/m1nd").presence);
  // By the host rule its parent gone too is gone; by the sandbox rule nothing is.
  EXPECT_EQ(RootPresence::kNotDirectory,
            ProbeRoot(tmp.Join("home/v/gone"), MissingRootRule::kHost).presence);
  EXPECT_EQ(RootPresence::kUnseen,
            ProbeRoot(tmp.Join("home/u/gone"), MissingRootRule::kNever).presence);
  EXPECT_EQ(RootPresence::kDirectory,
            ProbeRoot(tmp.Join("home/u/m1nd"), MissingRootRule::kNever).presence);
}

// m1nd's is_dir() follows links: a dangling link among the ingest roots is judged by
// where its target is missing, not by the visible folder that holds the link.
TEST(ProbeRootTest, DanglingLinkIsJudgedByItsTarget) {
  TempDir tmp;
  MakeDirs(tmp.Join("home/u/links"));
  MakeDirs(tmp.Join("srv/repos"));
  WriteFile(tmp.Join("srv/repos/other"), "x");
  ASSERT_EQ(0,
            symlink(tmp.Join("mnt/hidden/m1nd").c_str(), tmp.Join("home/u/links/hidden").c_str()));
  ASSERT_EQ(0, symlink("../../../srv/repos/gone", tmp.Join("home/u/links/gone").c_str()));
  ASSERT_EQ(0, symlink("hidden", tmp.Join("home/u/links/chain").c_str()));
  const RootProbe hidden = ProbeRoot(tmp.Join("home/u/links/hidden"));
  EXPECT_EQ(RootPresence::kUnseen, hidden.presence);
  EXPECT_NE(std::string::npos, hidden.why.find("its link's target")) << hidden.why;
  EXPECT_EQ(RootPresence::kNotDirectory, ProbeRoot(tmp.Join("home/u/links/gone")).presence);
  EXPECT_EQ(RootPresence::kUnseen, ProbeRoot(tmp.Join("home/u/links/chain")).presence);
  ASSERT_EQ(0, symlink("loop", tmp.Join("home/u/links/loop").c_str()));
  EXPECT_EQ(RootPresence::kUnseen, ProbeRoot(tmp.Join("home/u/links/loop")).presence);
}

}  // namespace
}  // namespace scx
