// Tests for discovery through a DiscoveryCache, and for the StampCache that keeps its parses.
#include "engine/discovery/discovery.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"
#include "tests/counted_reads.h"
#include "tests/engine/discovery/discovery_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::Describe;
using testing::DiscoveryTest;
using testing::Entry;
using testing::ExpectSameDiscovery;
using testing::Find;
using testing::MakeDirs;
using testing::ManifestJson;
using testing::Names;
using testing::RegistryConfig;
using testing::SetOld;
using testing::WriteFile;

std::int64_t RealtimeNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

bool SameTime(const struct timespec& a, const struct timespec& b) {
  return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Discovery through a cache whose reads are counted and whose clock is now_ns_.
class CachedDiscoveryTest : public DiscoveryTest {
 protected:
  DiscoveryCache::Options CountingOptions() {
    DiscoveryCache::Options options;
    options.read_file = reads_.Reader();
    options.now_ns = [this] { return now_ns_; };
    return options;
  }

  Discovery Discover(DiscoveryCache* cache, const std::vector<Brain>& previous = {},
                     const Parallelism& parallelism = Parallelism{1, 1}) {
    reads_.Clear();
    return DiscoverBrains(RegistryConfig(Registry()), previous, nullptr, parallelism, cache);
  }

  // How often the last Discover opened `path`.
  int Reads(const std::string& path) { return reads_.Of(path); }
  std::map<std::string, int> AllReads() { return reads_.All(); }

  std::string Manifest(const std::string& hex) const {
    return ProjectBrain(hex) + "/project_brain.json";
  }

  // Long after every file of the test changed: their stamps are settled.
  std::int64_t now_ns_ = RealtimeNs() + std::int64_t{3600} * 1000000000;
  testing::CountedReads reads_;
};

TEST_F(CachedDiscoveryTest, UnchangedFilesAreNotOpenedAndFindTheSame) {
  WriteOwner();
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1nd\"]");
  WriteFoldersOfEveryKind();
  DiscoveryCache cache(CountingOptions());
  const DiscoveryConfig config = RegistryConfig(Registry());

  const Discovery first = Discover(&cache, {}, Parallelism{4, 1});
  ExpectSameDiscovery(DiscoverBrains(config, {}), first);
  EXPECT_EQ(1, Reads(Registry() + "/instances/owner-1.json"));
  EXPECT_EQ(1, Reads(Runtime() + "/ingest_roots.json"));
  EXPECT_EQ(1, Reads(Manifest("f1000")));
  EXPECT_EQ(1, Reads(Manifest("f1003")));  // torn: its failure is kept
  const std::size_t kept = cache.size();
  EXPECT_GT(kept, 100u);

  const Discovery second = Discover(&cache, first.brains, Parallelism{4, 1});
  ExpectSameDiscovery(DiscoverBrains(config, first.brains), second);
  EXPECT_EQ(kept, cache.size());
  // Only what could not be read was tried again (no parse is kept for a FIFO, nor
  // for a manifest that is not there); no regular file was opened again.
  const std::map<std::string, int> reads = AllReads();
  EXPECT_EQ(1, reads.count(Manifest("f1004")));  // a FIFO
  EXPECT_EQ(1, reads.count(Manifest("f1002")));  // none
  for (const auto& entry : reads) {
    struct stat info;
    if (lstat(entry.first.c_str(), &info) == 0) {
      EXPECT_TRUE(S_ISFIFO(info.st_mode)) << entry.first;
    }
  }
}

// A rewrite in place within one mtime tick (or with mtime set back) leaves device,
// inode, size and mtime as they were; only ctime tells.
TEST_F(CachedDiscoveryTest, ManifestRewrittenWithSameSizeAndMtimeIsReadAgain) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvaulta");
  DiscoveryCache cache(CountingOptions());
  ASSERT_NE(nullptr, Find(Discover(&cache), "keyvaulta"));
  struct stat before;
  ASSERT_EQ(0, stat(Manifest("aa").c_str(), &before));

  WriteFile(Manifest("aa"), ManifestJson("/home/u/keyvaultb"));  // in place, same size
  struct stat after;
  do {  // mtime set back; each call also moves ctime on, once the clock has ticked
    const struct timespec times[2] = {before.st_atim, before.st_mtim};
    ASSERT_EQ(0, utimensat(AT_FDCWD, Manifest("aa").c_str(), times, 0));
    ASSERT_EQ(0, stat(Manifest("aa").c_str(), &after));
  } while (SameTime(after.st_ctim, before.st_ctim));
  ASSERT_EQ(before.st_dev, after.st_dev);
  ASSERT_EQ(before.st_ino, after.st_ino);
  ASSERT_EQ(before.st_size, after.st_size);
  ASSERT_TRUE(SameTime(before.st_mtim, after.st_mtim));

  const Discovery second = Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  EXPECT_EQ(nullptr, Find(second, "keyvaulta"));
  ASSERT_NE(nullptr, Find(second, "keyvaultb"));
  EXPECT_EQ("/home/u/keyvaultb", Find(second, "keyvaultb")->project_root);
}

// A file changed in the same timestamp tick as a read would keep the stamp the read
// saw: a stamp is trusted only once the file is kStampSettleNs old.
TEST_F(CachedDiscoveryTest, RecentlyChangedFileIsReadUntilItSettles) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  struct stat info;
  ASSERT_EQ(0, stat(Manifest("aa").c_str(), &info));
  const FileStamp stamp = StampOfStat(info);
  DiscoveryCache cache(CountingOptions());

  now_ns_ = std::max(stamp.mtime_ns, stamp.ctime_ns) + kStampSettleNs;  // not yet
  Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));

  now_ns_ += 1;  // settled: this read is kept, and the next discovery only stats
  Discover(&cache);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  const Discovery last = Discover(&cache);
  EXPECT_EQ(0, Reads(Manifest("aa")));
  EXPECT_NE(nullptr, Find(last, "keyvault"));
}

TEST_F(CachedDiscoveryTest, FilesNoLongerFoundAreForgotten) {
  WriteOwner();
  WriteFile(Runtime() + "/ingest_roots.json", "[\"/home/u/m1nd\"]");
  WriteProjectBrain("aa", "/home/u/keyvault");
  WriteProjectBrain("bb", "/home/u/notes");
  DiscoveryCache cache(CountingOptions());
  Discover(&cache);
  EXPECT_EQ(4u, cache.size());  // the instance file, ingest_roots.json, two manifests

  std::filesystem::remove_all(ProjectBrain("bb"));
  EXPECT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(Discover(&cache)));
  EXPECT_EQ(3u, cache.size());

  // A stopped discovery met only some files: it forgets nothing.
  std::atomic<bool> stop{true};
  EXPECT_TRUE(
      DiscoverBrains(RegistryConfig(Registry()), {}, &stop, Parallelism{1, 1}, &cache).stopped);
  EXPECT_EQ(3u, cache.size());

  ASSERT_EQ(0, unlink((Registry() + "/instances/owner-1.json").c_str()));
  EXPECT_TRUE(Discover(&cache).brains.empty());
  EXPECT_EQ(0u, cache.size());
}

TEST_F(CachedDiscoveryTest, ManifestThatGoesBadIsReportedAsWithoutACache) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  DiscoveryCache cache(CountingOptions());
  const Discovery good = Discover(&cache);
  ASSERT_EQ((std::vector<std::string>{"keyvault", "m1nd"}), Names(good));

  WriteFile(Manifest("aa"), "{\"schema\": ");
  const Discovery uncached = DiscoverBrains(RegistryConfig(Registry()), good.brains);
  const Discovery torn = Discover(&cache, good.brains);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  ExpectSameDiscovery(uncached, torn);
  ASSERT_EQ(1u, torn.problems.size());
  EXPECT_TRUE(torn.problems[0].transient);
  EXPECT_EQ("/home/u/keyvault", Find(torn, "keyvault")->project_root);  // carried over

  // Still torn, unchanged: not read again, and reported as before.
  const Discovery still = Discover(&cache, torn.brains);
  EXPECT_EQ(0, Reads(Manifest("aa")));
  ExpectSameDiscovery(uncached, still);

  WriteProjectBrain("aa", "/home/u/vault");
  const Discovery mended = Discover(&cache, still.brains);
  EXPECT_EQ(1, Reads(Manifest("aa")));
  EXPECT_TRUE(mended.problems.empty()) << Describe(mended.problems);
  EXPECT_EQ("/home/u/vault", Find(mended, "keyvault")->project_root);  // its label kept
}

TEST_F(CachedDiscoveryTest, ChangedInstanceFileAndIngestRootsAreReadAgain) {
  MakeDirs(tmp_.Join("src/m1nd"));
  MakeDirs(tmp_.Join("src/other"));
  const std::string instance = Registry() + "/instances/owner.json";
  const std::string ingest_roots = Runtime() + "/ingest_roots.json";
  WriteInstance("owner.json",
                Entry{tmp_.Join("home/.claude/agent-memory"), Runtime(), "\"medulla\""}.Json());
  WriteFile(ingest_roots, "[\"" + tmp_.Join("src/m1nd") + "\"]");
  DiscoveryCache cache(CountingOptions());
  ASSERT_EQ((std::vector<std::string>{"m1nd"}), Names(Discover(&cache)));

  WriteFile(ingest_roots, "[\"" + tmp_.Join("src/other") + "\"]");
  const Discovery other = Discover(&cache);
  EXPECT_EQ((std::vector<std::string>{"other"}), Names(other));
  EXPECT_EQ(1, Reads(ingest_roots));
  EXPECT_EQ(0, Reads(instance));

  WriteFile(ingest_roots, "[\"" + tmp_.Join("src/oth"));  // torn: the name is kept
  now_ns_ = RealtimeNs();                                 // as just written
  const Discovery torn = Discover(&cache, other.brains);
  EXPECT_EQ(1, Reads(ingest_roots));
  EXPECT_EQ((std::vector<std::string>{"other"}), Names(torn));
  // Settled, it is what m1nd reads: an empty list (rule 4 names the brain), and it
  // is read no more.
  now_ns_ += 2 * kStampSettleNs;
  const Discovery settled = Discover(&cache, torn.brains);
  EXPECT_EQ(1, Reads(ingest_roots));
  ASSERT_EQ(1u, settled.brains.size());
  EXPECT_EQ(IdentitySource::kSidecarWorkspace, settled.brains[0].identity_source);
  const Discovery still = Discover(&cache, settled.brains);
  EXPECT_EQ(0, Reads(ingest_roots));
  SetOld(ingest_roots);
  ExpectSameDiscovery(DiscoverBrains(RegistryConfig(Registry()), settled.brains), still);

  WriteInstance("owner.json", Entry{tmp_.Join("src/side"), Runtime(), "\"project\""}.Json());
  EXPECT_TRUE(Discover(&cache).brains.empty());  // a project entry now: no manifest there
  EXPECT_EQ(1, Reads(instance));
}

// Most project brains have no ingest_roots.json of their own: a warm discovery does
// not look for it again in a folder unchanged since it was found missing there, and
// does as soon as a file is made in the folder.
TEST_F(CachedDiscoveryTest, MissingIngestRootsAreNotLookedForInAnUnchangedFolder) {
  WriteOwner();
  WriteProjectBrain("aa", "/home/u/keyvault");
  const std::string ingest_roots = ProjectBrain("aa") + "/ingest_roots.json";
  DiscoveryCache cache(CountingOptions());
  Discover(&cache);
  EXPECT_EQ(0, Reads(ingest_roots));  // a stat from the listed folder says it is missing
  Discover(&cache);
  EXPECT_EQ(0, Reads(ingest_roots));
  const std::string repo = tmp_.Join("src/Key-Vault");
  MakeDirs(repo);
  WriteFile(ingest_roots, "[\"" + repo + "\"]");
  const Discovery named = Discover(&cache);
  EXPECT_EQ(1, Reads(ingest_roots));
  ASSERT_EQ((std::vector<std::string>{"key_vault", "m1nd"}), Names(named));
}

TEST(StampCacheTest, OnlyTheSameStampReusesAParse) {
  FileStamp kept{1, 2, 3, 4, 5};
  EXPECT_TRUE(CanReuseParse(kept, kept));
  for (int field = 0; field < 5; ++field) {
    FileStamp now = kept;
    switch (field) {
      case 0:
        now.device = 9;
        break;
      case 1:
        now.inode = 9;
        break;
      case 2:
        now.size = 9;
        break;
      case 3:
        now.mtime_ns = 9;
        break;
      default:
        now.ctime_ns = 9;
        break;
    }
    EXPECT_FALSE(CanReuseParse(kept, now)) << field;
  }
}

TEST(StampCacheTest, AStampSettlesOnceMtimeAndCtimeAreOldEnough) {
  FileStamp stamp;
  stamp.mtime_ns = 1000;
  stamp.ctime_ns = 2000;
  EXPECT_FALSE(StampIsSettled(stamp, 2000 + kStampSettleNs));
  EXPECT_TRUE(StampIsSettled(stamp, 2001 + kStampSettleNs));
  stamp.mtime_ns = 5000;  // set into the future: never trusted before then
  EXPECT_FALSE(StampIsSettled(stamp, 2001 + kStampSettleNs));
}

// A file time past the clock is in the future, never "just written": it would stay
// so for as long as the clock is behind it.
TEST(StampCacheTest, AFileTimeInTheFutureIsNotRecent) {
  const std::int64_t now = 10 * kStampSettleNs;
  EXPECT_TRUE(FileTimeIsRecent(now, now));
  EXPECT_TRUE(FileTimeIsRecent(now - kStampSettleNs + 1, now));
  EXPECT_FALSE(FileTimeIsRecent(now - kStampSettleNs, now));
  EXPECT_FALSE(FileTimeIsInFuture(now, now));
  EXPECT_TRUE(FileTimeIsInFuture(now + 1, now));
  EXPECT_FALSE(FileTimeIsRecent(now + 1, now));
}

TEST(StampCacheTest, KeepsSettledParsesAndDropsWhatAWalkDidNotMeet) {
  StampCache<std::string> cache;
  FileStamp old{1, 2, 3, 4, 5};
  const std::int64_t later = 6 + kStampSettleNs;
  cache.BeginWalk();
  cache.Keep("/a", old, later, "parse of a");
  cache.Keep("/b", old, later, "parse of b");
  cache.Keep("/new", old, 5 + kStampSettleNs, "unsettled");  // not kept
  EXPECT_EQ(2u, cache.size());
  ASSERT_NE(nullptr, cache.Find("/a"));
  EXPECT_EQ("parse of a", cache.Find("/a")->parsed);
  EXPECT_EQ(nullptr, cache.Find("/new"));

  cache.BeginWalk();
  const StampCache<std::string>::Entry* a = cache.Find("/a");
  cache.MarkSeen(*a);
  cache.DropUnseen();
  EXPECT_EQ(1u, cache.size());
  EXPECT_EQ(nullptr, cache.Find("/b"));

  // Within a walk an entry stays where it is, forgotten or not: the walk may still
  // hold it (one manifest reached through a symlinked folder and the folder itself,
  // on two threads, changed between the two stats).
  cache.BeginWalk();
  a = cache.Find("/a");
  cache.Forget("/a");
  EXPECT_EQ(nullptr, cache.Find("/a"));
  cache.MarkSeen(*a);
  EXPECT_EQ("parse of a", a->parsed);
  cache.Keep("/a", old, 5 + kStampSettleNs, "unsettled");  // forgotten, not erased
  EXPECT_EQ(1u, cache.size());
  cache.DropUnseen();
  EXPECT_EQ(0u, cache.size());
}

}  // namespace
}  // namespace scx
