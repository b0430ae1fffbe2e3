// Tests for the unique, deterministic `brain` labels.
#include "engine/discovery/brain_names.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace scx {
namespace {

Brain Derived(const std::string& project_root, const std::string& runtime_dir,
              const std::string& display_name = "") {
  Brain brain;
  brain.project_root = project_root;
  brain.display_name = display_name;
  brain.runtime_dir = runtime_dir;
  brain.source = BrainSource::kRegistryProject;
  return brain;
}

Brain Explicit(const std::string& name, const std::string& project_root,
               const std::string& runtime_dir) {
  Brain brain = Derived(project_root, runtime_dir);
  brain.name = name;
  brain.source = BrainSource::kStatic;
  return brain;
}

// An independent FNV-1a 32 for the expected suffixes.
std::string Suffix(const std::string& text) {
  std::uint32_t hash = 0x811c9dc5u;
  for (unsigned char c : text) hash = (hash ^ c) * 0x01000193u;
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "_%08x", static_cast<unsigned>(hash));
  return buffer;
}

// "<base>_" followed by exactly 8 lowercase hex digits.
bool IsHashed(const std::string& name, const std::string& base) {
  if (name.size() != base.size() + 9 || name.compare(0, base.size() + 1, base + "_") != 0) {
    return false;
  }
  return std::all_of(name.begin() + base.size() + 1, name.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::vector<std::string> Names(const std::vector<Brain>& brains) {
  std::vector<std::string> names;
  for (const Brain& brain : brains) names.push_back(brain.name);
  return names;
}

const Brain* FindByRuntimeDir(const std::vector<Brain>& brains, const std::string& dir) {
  for (const Brain& brain : brains) {
    if (brain.runtime_dir == dir) return &brain;
  }
  return nullptr;
}

TEST(WantedBrainNameTest, DerivesTheSlugOfTheIdentity) {
  EXPECT_EQ("keyvault", WantedBrainName(Derived("/home/dev/keyvault", "/rt/a")));
  EXPECT_EQ("my_repo", WantedBrainName(Derived("/home/dev/My-Repo/", "/rt/a")));
  EXPECT_EQ("shown_name", WantedBrainName(Derived("/home/dev/keyvault", "/rt/a", "Shown Name")));
}

TEST(WantedBrainNameTest, ExplicitNameIsTakenAsIs) {
  EXPECT_EQ("Prod-Vault", WantedBrainName(Explicit("Prod-Vault", "/home/dev/keyvault", "/rt")));
}

// Without an identity: m1nd's own name for the brain, else its folder's name.
TEST(WantedBrainNameTest, UndecidedIdentityAsksForM1ndsName) {
  Brain brain = Derived("", "/srv/rt/.m1nd-rt");
  brain.identity_source = IdentitySource::kUnknown;
  EXPECT_EQ("m1nd_rt", WantedBrainName(brain));
  brain.m1nd_name = "medulla";
  EXPECT_EQ("medulla", WantedBrainName(brain));
}

// A repo hidden for a while must not rename its brain: its series and alerts stay.
TEST(AssignBrainNamesTest, UndecidedIdentityKeepsTheNameItHad) {
  std::vector<Brain> first = {Derived("/home/u/m1nd", "/rt/a")};
  AssignBrainNames(&first, {}, nullptr);
  ASSERT_EQ("m1nd", first[0].name);
  Brain hidden = Derived("", "/rt/a");
  hidden.identity_source = IdentitySource::kUnknown;
  hidden.m1nd_name = "medulla";
  std::vector<Brain> second = {hidden};
  std::vector<std::string> collisions;
  AssignBrainNames(&second, first, &collisions);
  EXPECT_EQ("m1nd", second[0].name);
  EXPECT_TRUE(collisions.empty());
}

TEST(AssignBrainNamesTest, EmptyInputIsFine) {
  std::vector<Brain> brains;
  AssignBrainNames(&brains, nullptr);
  EXPECT_TRUE(brains.empty());
}

TEST(AssignBrainNamesTest, DistinctIdentitiesKeepTheirSlugsSortedByName) {
  std::vector<Brain> brains = {
      Derived("/home/dev/notes", "/rt/n"), Derived("/home/dev/m1nd", "/rt/m"),
      Derived("/home/dev/My-Repo", "/rt/r"), Derived("/home/dev/keyvault", "/rt/k")};
  std::vector<std::string> collisions;
  AssignBrainNames(&brains, &collisions);
  EXPECT_EQ((std::vector<std::string>{"keyvault", "m1nd", "my_repo", "notes"}), Names(brains));
  EXPECT_TRUE(collisions.empty());
  EXPECT_EQ("/rt/k", brains[0].runtime_dir);
}

TEST(AssignBrainNamesTest, SmallestRuntimeDirKeepsAContestedName) {
  std::vector<Brain> brains = {Derived("/b/m1nd", "/b/rt"), Derived("/a/m1nd", "/a/rt")};
  std::vector<std::string> collisions;
  AssignBrainNames(&brains, &collisions);
  EXPECT_EQ("m1nd", FindByRuntimeDir(brains, "/a/rt")->name);
  EXPECT_EQ("m1nd" + Suffix("/b/rt"), FindByRuntimeDir(brains, "/b/rt")->name);
  ASSERT_EQ(1u, collisions.size());
  EXPECT_EQ("brain name \"m1nd\" wanted by /a/rt and /b/rt: /b/rt is named \"m1nd" +
                Suffix("/b/rt") + "\"",
            collisions[0]);
}

TEST(AssignBrainNamesTest, HashSuffixIsFnv1aOfTheRuntimeDirInLowercaseHex) {
  // FNV-1a 32 of "a" is 0xe40c292c.
  std::vector<Brain> brains = {Derived("/x/same", ""), Derived("/y/same", "a")};
  AssignBrainNames(&brains, nullptr);
  EXPECT_EQ("same", FindByRuntimeDir(brains, "")->name);
  EXPECT_EQ("same_e40c292c", FindByRuntimeDir(brains, "a")->name);

  std::vector<Brain> many;
  for (int i = 0; i < 20; ++i) many.push_back(Derived("/p/repo", "/rt/" + std::to_string(i)));
  AssignBrainNames(&many, nullptr);
  int plain = 0;
  for (const Brain& brain : many) {
    if (brain.name == "repo") {
      ++plain;
    } else {
      EXPECT_TRUE(IsHashed(brain.name, "repo")) << brain.name;
    }
  }
  EXPECT_EQ(1, plain);
}

TEST(AssignBrainNamesTest, ExplicitNameWinsOverDerivedOnes) {
  // The derived brain has the smaller runtime dir, yet the configured name wins.
  std::vector<Brain> brains = {Derived("/home/dev/vault", "/a/rt"),
                               Explicit("vault", "/srv/other", "/z/rt")};
  std::vector<std::string> collisions;
  AssignBrainNames(&brains, &collisions);
  EXPECT_EQ("vault", FindByRuntimeDir(brains, "/z/rt")->name);
  EXPECT_EQ("vault" + Suffix("/a/rt"), FindByRuntimeDir(brains, "/a/rt")->name);
  ASSERT_EQ(1u, collisions.size());
  EXPECT_EQ("brain name \"vault\" wanted by /z/rt and /a/rt: /a/rt is named \"vault" +
                Suffix("/a/rt") + "\"",
            collisions[0]);
}

TEST(AssignBrainNamesTest, AmongExplicitNamesTheSmallestRuntimeDirWins) {
  std::vector<Brain> brains = {Explicit("prod", "/r", "/b/rt"), Explicit("prod", "/r", "/a/rt")};
  AssignBrainNames(&brains, nullptr);
  EXPECT_EQ("prod", FindByRuntimeDir(brains, "/a/rt")->name);
  EXPECT_EQ("prod" + Suffix("/b/rt"), FindByRuntimeDir(brains, "/b/rt")->name);
}

TEST(AssignBrainNamesTest, SameResultWhateverTheInputOrder) {
  const std::vector<Brain> input = {
      Derived("/home/dev/m1nd", "/home/dev/.m1nd-rt"),
      Derived("/work/m1nd", "/work/.m1nd-rt"),
      Derived("/srv/m1nd/", "/srv/rt"),
      Explicit("m1nd", "/opt/anything", "/opt/rt"),
      Derived("/home/dev/keyvault", "/rt/1"),
      Derived("/other/keyvault", "/rt/0"),
      Derived("/home/dev/notes", "/rt/2", "Key Vault"),
      Derived("/home/dev/My-Repo", "/rt/3"),
  };
  std::vector<Brain> expected = input;
  std::vector<std::string> expected_collisions;
  AssignBrainNames(&expected, &expected_collisions);
  EXPECT_EQ(4u, expected_collisions.size());

  std::mt19937 random(12345);
  for (int round = 0; round < 50; ++round) {
    std::vector<Brain> brains = input;
    std::shuffle(brains.begin(), brains.end(), random);
    std::vector<std::string> collisions;
    AssignBrainNames(&brains, &collisions);
    ASSERT_EQ(expected.size(), brains.size());
    for (size_t i = 0; i < brains.size(); ++i) {
      EXPECT_EQ(expected[i].name, brains[i].name);
      EXPECT_EQ(expected[i].runtime_dir, brains[i].runtime_dir);
    }
    EXPECT_EQ(expected_collisions, collisions);
  }
}

TEST(AssignBrainNamesTest, SuffixCollisionsAppendACounter) {
  // Pathological: other brains ask for exactly the hashed name (and the next one).
  const std::string hashed = "x" + Suffix("/b");
  std::vector<Brain> brains = {Derived("/p/x", "/a"), Derived("/q/x", "/b"),
                               Derived("/r", "/c", hashed), Derived("/s", "/d", hashed + "_2")};
  std::vector<std::string> collisions;
  AssignBrainNames(&brains, &collisions);
  EXPECT_EQ("x", FindByRuntimeDir(brains, "/a")->name);
  EXPECT_EQ(hashed, FindByRuntimeDir(brains, "/c")->name);
  EXPECT_EQ(hashed + "_2", FindByRuntimeDir(brains, "/d")->name);
  EXPECT_EQ(hashed + "_3", FindByRuntimeDir(brains, "/b")->name);
  ASSERT_EQ(1u, collisions.size());
  EXPECT_EQ("brain name \"x\" wanted by /a and /b: /b is named \"" + hashed + "_3\"",
            collisions[0]);
}

// Two scans: `first` named by the start-up rule, then `second` with the first scan's
// labels as the previous ones.
std::vector<Brain> SecondScan(std::vector<Brain> first, std::vector<Brain> second,
                              std::vector<std::string>* collisions = nullptr) {
  AssignBrainNames(&first, nullptr);
  AssignBrainNames(&second, first, collisions);
  return second;
}

TEST(StableBrainNamesTest, NewcomerThatSortsFirstGetsTheSuffixNeverTheIncumbent) {
  // The scenario: the newcomer's runtime dir is smaller, so at start-up it
  // would win; while the incumbent exists it keeps "m1nd".
  std::vector<std::string> collisions;
  std::vector<Brain> brains =
      SecondScan({Derived("/home/dev/m1nd", "/z/rt")},
                 {Derived("/home/dev/m1nd", "/z/rt"), Derived("/srv/m1nd", "/a/rt")}, &collisions);
  EXPECT_EQ("m1nd", FindByRuntimeDir(brains, "/z/rt")->name);
  EXPECT_EQ("m1nd" + Suffix("/a/rt"), FindByRuntimeDir(brains, "/a/rt")->name);
  EXPECT_EQ((std::vector<std::string>{"brain name \"m1nd\" wanted by /z/rt and /a/rt: /a/rt is "
                                      "named \"m1nd" +
                                      Suffix("/a/rt") + "\""}),
            collisions);

  // And it stays so on every later scan.
  std::vector<Brain> third = {Derived("/srv/m1nd", "/a/rt"), Derived("/home/dev/m1nd", "/z/rt")};
  AssignBrainNames(&third, brains, nullptr);
  EXPECT_EQ("m1nd", FindByRuntimeDir(third, "/z/rt")->name);
  EXPECT_EQ("m1nd" + Suffix("/a/rt"), FindByRuntimeDir(third, "/a/rt")->name);
}

TEST(StableBrainNamesTest, ExplicitNewcomerDoesNotTakeAnIncumbentsName) {
  std::vector<Brain> brains =
      SecondScan({Derived("/home/dev/vault", "/z/rt")},
                 {Derived("/home/dev/vault", "/z/rt"), Explicit("vault", "/srv/other", "/a/rt")});
  EXPECT_EQ("vault", FindByRuntimeDir(brains, "/z/rt")->name);
  EXPECT_EQ("vault" + Suffix("/a/rt"), FindByRuntimeDir(brains, "/a/rt")->name);
}

TEST(StableBrainNamesTest, RenamedBrainKeepsItsLabelWhenTheOtherGoes) {
  std::vector<std::string> collisions;
  std::vector<Brain> brains =
      SecondScan({Derived("/home/dev/m1nd", "/a/rt"), Derived("/srv/m1nd", "/b/rt")},
                 {Derived("/srv/m1nd", "/b/rt")}, &collisions);
  EXPECT_EQ("m1nd" + Suffix("/b/rt"), brains[0].name);
  EXPECT_EQ((std::vector<std::string>{"brain name \"m1nd\" wanted by /b/rt: /b/rt keeps the name "
                                      "\"m1nd" +
                                      Suffix("/b/rt") + "\" it already has"}),
            collisions);
  // A brain that comes back after it was gone is a newcomer.
  std::vector<Brain> back = {Derived("/srv/m1nd", "/b/rt"), Derived("/home/dev/m1nd", "/a/rt")};
  AssignBrainNames(&back, brains, nullptr);
  EXPECT_EQ("m1nd" + Suffix("/b/rt"), FindByRuntimeDir(back, "/b/rt")->name);
  EXPECT_EQ("m1nd", FindByRuntimeDir(back, "/a/rt")->name);
}

TEST(StableBrainNamesTest, CounterSuffixIsKeptToo) {
  const std::string hashed = "x" + Suffix("/b");
  std::vector<Brain> first = {Derived("/p/x", "/a"), Derived("/q/x", "/b"),
                              Derived("/r", "/c", hashed)};
  AssignBrainNames(&first, nullptr);
  ASSERT_EQ(hashed + "_2", FindByRuntimeDir(first, "/b")->name);
  std::vector<Brain> second = {Derived("/q/x", "/b")};
  AssignBrainNames(&second, first, nullptr);
  EXPECT_EQ(hashed + "_2", second[0].name);
}

TEST(StableBrainNamesTest, ALabelIsKeptWhenTheIdentityChanges) {
  // The brain's identity changed: it keeps its label (its series and alerts stay
  // whose they were), and says so once; a newcomer wanting that label is suffixed.
  std::vector<std::string> collisions;
  std::vector<Brain> brains =
      SecondScan({Derived("/home/dev/m1nd", "/z/rt")},
                 {Derived("/home/dev/notes", "/z/rt"), Derived("/srv/m1nd", "/a/rt")}, &collisions);
  EXPECT_EQ("m1nd", FindByRuntimeDir(brains, "/z/rt")->name);
  EXPECT_EQ("m1nd" + Suffix("/a/rt"), FindByRuntimeDir(brains, "/a/rt")->name);
  EXPECT_EQ(2u, collisions.size());

  // A label from an earlier run (the state) is kept as it is, suffix and all.
  Brain previous = Derived("/home/dev/m1nd", "/z/rt");
  previous.name = "m1nd_0000abcd";
  std::vector<Brain> now = {Derived("/home/dev/m1nd", "/z/rt")};
  AssignBrainNames(&now, {previous}, nullptr);
  EXPECT_EQ("m1nd_0000abcd", now[0].name);

  // Only a name the config gives wins over the label.
  std::vector<Brain> named = {Explicit("notes", "/home/dev/m1nd", "/z/rt")};
  AssignBrainNames(&named, {previous}, nullptr);
  EXPECT_EQ("notes", named[0].name);
}

TEST(StableBrainNamesTest, StartUpRuleIsUnchangedWithoutAPreviousScan) {
  std::vector<Brain> with_empty = {Derived("/home/dev/m1nd", "/z/rt"),
                                   Derived("/srv/m1nd", "/a/rt")};
  std::vector<Brain> start_up = with_empty;
  AssignBrainNames(&with_empty, std::vector<Brain>{}, nullptr);
  AssignBrainNames(&start_up, nullptr);
  EXPECT_EQ(Names(start_up), Names(with_empty));
  EXPECT_EQ("m1nd", FindByRuntimeDir(start_up, "/a/rt")->name);
}

TEST(AssignBrainNamesTest, NamesAreUniqueAndSorted) {
  std::vector<Brain> brains;
  for (int i = 0; i < 30; ++i) {
    brains.push_back(Derived("/p/" + std::to_string(i % 4) + "/repo" + std::to_string(i % 3),
                             "/rt/" + std::to_string(i)));
  }
  AssignBrainNames(&brains, nullptr);
  std::vector<std::string> names = Names(brains);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(names.end(), std::adjacent_find(names.begin(), names.end()));
}

// The brains come out sorted by name even when a renamed one ("x_<hash>") sorts after
// a name wanted later ("x_00000000"): the claims' order is not the names' then.
TEST(AssignBrainNamesTest, ARenamedBrainIsSortedAmongTheOthers) {
  std::vector<Brain> brains = {Derived("/p/x_00000000", "/c"), Derived("/p/x", "/b"),
                               Derived("/p/x", "/a")};
  AssignBrainNames(&brains, nullptr);
  const std::vector<std::string> want = {"x", "x_00000000", "x" + Suffix("/b")};
  std::vector<std::string> sorted_want = want;
  std::sort(sorted_want.begin(), sorted_want.end());
  EXPECT_EQ(sorted_want, Names(brains));
  EXPECT_EQ("x", FindByRuntimeDir(brains, "/a")->name);
  EXPECT_EQ("x" + Suffix("/b"), FindByRuntimeDir(brains, "/b")->name);
  EXPECT_EQ("x_00000000", FindByRuntimeDir(brains, "/c")->name);
}

}  // namespace
}  // namespace scx
