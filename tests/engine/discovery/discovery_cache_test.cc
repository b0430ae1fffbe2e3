// Tests for DiscoveryCache's own interface: look-ups and remembering of the small
// files LoadSmallFile loads, by stamp, over one walk after another. Discovery through
// the cache is tested in discovery_cached_test.cc.
#include "engine/discovery/cache.h"

#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "base/untrusted_file.h"
#include "engine/discovery/disk_access.h"
#include "engine/m1nd_files.h"
#include "tests/counted_reads.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::InstanceJson;
using testing::ManifestJson;
using testing::TempDir;
using testing::WriteFile;

std::int64_t RealtimeNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// A cache whose reads are counted and whose clock is now_ns_.
class DiscoveryCacheTest : public ::testing::Test {
 protected:
  DiscoveryCacheTest() : cache_(CountingOptions()) {}

  DiscoveryCache::Options CountingOptions() {
    DiscoveryCache::Options options;
    options.read_file = reads_.Reader();
    options.now_ns = [this] { return now_ns_; };
    return options;
  }

  // Loads the manifest at `path` as the walk does: known by its stamp when the cache
  // holds a parse that still stands, read otherwise.
  Loaded<KeptManifest> LoadManifest(const std::string& path) {
    return LoadSmallFile(path, cache_.FindManifest(path), cache_.read_file(), ParseKeptManifest);
  }

  // Loads and remembers the manifest at `path` in a walk of its own.
  Loaded<KeptManifest> WalkOverManifest(const std::string& path) {
    cache_.BeginWalk();
    Loaded<KeptManifest> loaded = LoadManifest(path);
    cache_.RememberManifest(path, loaded);
    cache_.DropUnseen();
    return loaded;
  }

  int Reads(const std::string& path) { return reads_.Of(path); }

  TempDir dir_;
  // Long after every file of the test changed: their stamps are settled.
  std::int64_t now_ns_ = RealtimeNs() + std::int64_t{3600} * 1000000000;
  testing::CountedReads reads_;
  DiscoveryCache cache_;
};

TEST_F(DiscoveryCacheTest, AnUnchangedStampHits) {
  const std::string path = dir_.Join("project_brain.json");
  WriteFile(path, ManifestJson("/home/u/keyvault"));

  const Loaded<KeptManifest> first = WalkOverManifest(path);
  EXPECT_EQ(nullptr, first.kept);  // nothing kept yet: read
  EXPECT_EQ(1, Reads(path));
  EXPECT_EQ(1u, cache_.size());

  const Loaded<KeptManifest> second = WalkOverManifest(path);
  ASSERT_NE(nullptr, second.kept);  // only stat'ed
  EXPECT_EQ(1, Reads(path));
  ASSERT_EQ(ReadStatus::kOk, second.status);
  EXPECT_EQ("/home/u/keyvault", second.parsed().project_root);
  EXPECT_EQ(first.stamp, second.kept->stamp);
  EXPECT_EQ(1u, cache_.size());
}

TEST_F(DiscoveryCacheTest, AStampChangeInvalidates) {
  const std::string path = dir_.Join("project_brain.json");
  WriteFile(path, ManifestJson("/home/u/keyvault"));
  const Loaded<KeptManifest> first = WalkOverManifest(path);

  WriteFile(path, ManifestJson("/home/u/keyvault-renamed"));
  const Loaded<KeptManifest> second = WalkOverManifest(path);
  EXPECT_EQ(nullptr, second.kept);  // read again
  EXPECT_EQ(2, Reads(path));
  EXPECT_NE(first.stamp, second.stamp);
  EXPECT_EQ("/home/u/keyvault-renamed", second.parsed().project_root);

  // The new parse is what the cache keeps now.
  const KeptParse<KeptManifest>* kept = cache_.FindManifest(path);
  ASSERT_NE(nullptr, kept);
  EXPECT_EQ(second.stamp, kept->stamp);
  EXPECT_EQ("/home/u/keyvault-renamed", kept->parsed.project_root);
  EXPECT_EQ(1u, cache_.size());
}

TEST_F(DiscoveryCacheTest, AFileChangedJustBeforeTheWalkIsNotKept) {
  const std::string path = dir_.Join("project_brain.json");
  WriteFile(path, ManifestJson("/home/u/keyvault"));
  now_ns_ = RealtimeNs();  // the file may still change within its stamp's tick

  WalkOverManifest(path);
  WalkOverManifest(path);
  EXPECT_EQ(2, Reads(path));
  EXPECT_EQ(0u, cache_.size());
}

TEST_F(DiscoveryCacheTest, AReadErrorIsNeverKept) {
  const std::string path = dir_.Join("project_brain.json");
  WriteFile(path, ManifestJson("/home/u/keyvault"));
  WalkOverManifest(path);
  ASSERT_NE(nullptr, cache_.FindManifest(path));

  ASSERT_EQ(0, unlink(path.c_str()));
  const Loaded<KeptManifest> gone = WalkOverManifest(path);
  EXPECT_EQ(ReadStatus::kMissing, gone.status);
  EXPECT_EQ(nullptr, cache_.FindManifest(path));
  EXPECT_EQ(0u, cache_.size());
}

TEST_F(DiscoveryCacheTest, SizeCountsTheParsedFilesEachCompleteWalkMet) {
  const std::string manifest = dir_.Join("brain/project_brain.json");
  const std::string instance = dir_.Join("registry/instances/owner-1.json");
  const std::string ingest = dir_.Join("runtime/ingest_roots.json");
  WriteFile(manifest, ManifestJson("/home/u/keyvault"));
  WriteFile(instance, InstanceJson("owner-1", "/home/u/m1nd", dir_.Join("runtime")));
  WriteFile(ingest, "[\"/home/u/m1nd\"]");

  cache_.BeginWalk();
  cache_.RememberManifest(manifest, LoadManifest(manifest));
  cache_.RememberInstance(instance, LoadSmallFile(instance, cache_.FindInstance(instance),
                                                  cache_.read_file(), ParseInstanceRecord));
  cache_.RememberIngestRoots(ingest, LoadSmallFile(ingest, cache_.FindIngestRoots(ingest),
                                                   cache_.read_file(), ParseIngestRootsAsM1nd));
  cache_.DropUnseen();
  EXPECT_EQ(3u, cache_.size());
  ASSERT_NE(nullptr, cache_.FindInstance(instance));
  EXPECT_EQ("owner-1", cache_.FindInstance(instance)->parsed.record.instance_id);
  ASSERT_NE(nullptr, cache_.FindIngestRoots(ingest));
  EXPECT_EQ(1u, cache_.FindIngestRoots(ingest)->parsed.roots.size());

  // A walk that meets only the manifest forgets the rest at its end.
  WalkOverManifest(manifest);
  EXPECT_EQ(1u, cache_.size());
  EXPECT_EQ(nullptr, cache_.FindInstance(instance));
  EXPECT_EQ(nullptr, cache_.FindIngestRoots(ingest));
}

// A folder's stamp in the past, settled at the walk's start.
FileStamp FolderStamp(std::int64_t time_ns) {
  FileStamp stamp;
  stamp.inode = 42;
  stamp.mtime_ns = time_ns;
  stamp.ctime_ns = time_ns;
  return stamp;
}

TEST_F(DiscoveryCacheTest, AnIngestRootsAbsenceIsKeptWithItsFoldersManifest) {
  // Manifests are known by their folder's RuntimeKey in the walk; any string here.
  const std::string key = dir_.Join("brain/project_brain.json");
  WriteFile(key, ManifestJson("/home/u/keyvault"));
  const FileStamp folder_stamp = FolderStamp(1000);

  WalkOverManifest(key);
  cache_.BeginWalk();
  cache_.RememberManifest(key, LoadManifest(key));
  cache_.RememberIngestRootsAbsent(key, folder_stamp);
  cache_.DropUnseen();
  const FileStamp* absent_at = cache_.FindIngestRootsAbsence(key);
  ASSERT_NE(nullptr, absent_at);
  EXPECT_EQ(folder_stamp, *absent_at);
  EXPECT_EQ(1u, cache_.size());  // bookkeeping of the manifest's, not a parse of its own

  // A walk that meets the manifest keeps it: nothing else needs remembering.
  WalkOverManifest(key);
  ASSERT_NE(nullptr, cache_.FindIngestRootsAbsence(key));
  EXPECT_EQ(folder_stamp, *cache_.FindIngestRootsAbsence(key));
  EXPECT_EQ(1, Reads(key));

  // The manifest read anew (changed) loses it until it is remembered again.
  WriteFile(key, ManifestJson("/home/u/keyvault-renamed"));
  WalkOverManifest(key);
  EXPECT_EQ(nullptr, cache_.FindIngestRootsAbsence(key));
  cache_.BeginWalk();
  cache_.RememberManifest(key, LoadManifest(key));
  cache_.RememberIngestRootsAbsent(key, folder_stamp);
  cache_.DropUnseen();
  EXPECT_NE(nullptr, cache_.FindIngestRootsAbsence(key));

  // The folder has one now: forgotten, the manifest kept.
  cache_.BeginWalk();
  cache_.RememberManifest(key, LoadManifest(key));
  cache_.ForgetIngestRootsAbsence(key);
  cache_.DropUnseen();
  EXPECT_EQ(nullptr, cache_.FindIngestRootsAbsence(key));
  EXPECT_NE(nullptr, cache_.FindManifest(key));

  // A walk that does not meet the manifest drops both.
  cache_.BeginWalk();
  cache_.RememberManifest(key, LoadManifest(key));
  cache_.RememberIngestRootsAbsent(key, folder_stamp);
  cache_.DropUnseen();
  ASSERT_NE(nullptr, cache_.FindIngestRootsAbsence(key));
  cache_.BeginWalk();
  cache_.DropUnseen();
  EXPECT_EQ(nullptr, cache_.FindIngestRootsAbsence(key));
  EXPECT_EQ(0u, cache_.size());
}

TEST_F(DiscoveryCacheTest, AnIngestRootsAbsenceNeedsAManifestAndASettledFolder) {
  const std::string key = dir_.Join("brain/project_brain.json");
  cache_.BeginWalk();
  EXPECT_EQ(now_ns_, cache_.walk_started_ns());
  cache_.RememberIngestRootsAbsent(key, FolderStamp(1000));  // no manifest kept
  cache_.DropUnseen();
  EXPECT_EQ(nullptr, cache_.FindIngestRootsAbsence(key));

  WriteFile(key, ManifestJson("/home/u/keyvault"));
  cache_.BeginWalk();
  cache_.RememberManifest(key, LoadManifest(key));
  // The folder changed just before the walk: a file made in the same tick would not
  // change its stamp.
  cache_.RememberIngestRootsAbsent(key, FolderStamp(now_ns_));
  cache_.DropUnseen();
  EXPECT_EQ(nullptr, cache_.FindIngestRootsAbsence(key));
  EXPECT_NE(nullptr, cache_.FindManifest(key));
}

TEST(ReaderOfTest, ReadsThroughTheCachesReaderOrUntrustedFile) {
  EXPECT_FALSE(ReaderOf(nullptr));  // empty: ReadUntrustedFile
  DiscoveryCache plain;
  EXPECT_FALSE(ReaderOf(&plain));
  DiscoveryCache::Options options;
  options.read_file = [](const std::string&, std::int64_t, std::string*) {
    return UntrustedFileResult();
  };
  DiscoveryCache seamed(options);
  EXPECT_TRUE(ReaderOf(&seamed));
}

}  // namespace
}  // namespace scx
