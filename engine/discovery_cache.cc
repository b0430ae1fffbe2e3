// The cache of m1nd's small files that discovery keeps between scans
// (discovery_cache.h).
#include "engine/discovery_cache.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "base/brain_file.h"
#include "base/stamp_cache.h"
#include "engine/discovery_reads.h"
#include "engine/m1nd_files.h"

namespace scx {

namespace {

// Records in `files` what LoadSmallFile found at `path` during a walk that began at
// `walk_started_ns`: a parse is kept with its stamp, a read error never.
template <typename Parsed>
void Remember(const std::string& path, const Loaded<Parsed>& loaded, std::int64_t walk_started_ns,
              StampCache<Parsed>* files) {
  if (loaded.kept != nullptr) {
    files->MarkSeen(*loaded.kept);
  } else if (loaded.status == ReadStatus::kOk) {
    files->Keep(path, loaded.stamp, walk_started_ns, loaded.read);
  } else {
    files->Forget(path);
  }
}

}  // namespace

DiscoveryCache::DiscoveryCache() : DiscoveryCache(Options()) {}

DiscoveryCache::DiscoveryCache(Options options) : options_(std::move(options)) {
  if (!options_.now_ns) options_.now_ns = RealtimeNowNs;
}

std::size_t DiscoveryCache::size() const {
  return manifests_.size() + instances_.size() + ingest_roots_.size();
}

void DiscoveryCache::BeginWalk() {
  walk_started_ns_ = options_.now_ns();
  manifests_.BeginWalk();
  instances_.BeginWalk();
  ingest_roots_.BeginWalk();
  ingest_roots_absent_.BeginWalk();
}

void DiscoveryCache::DropUnseen() {
  manifests_.DropUnseen();
  instances_.DropUnseen();
  ingest_roots_.DropUnseen();
  ingest_roots_absent_.DropUnseen();
}

const KeptParse<ManifestParse>* DiscoveryCache::FindManifest(const std::string& folder_key) const {
  return manifests_.Find(folder_key);
}

const KeptParse<InstanceRecordParse>* DiscoveryCache::FindInstance(const std::string& path) const {
  return instances_.Find(path);
}

const KeptParse<IngestRootsParse>* DiscoveryCache::FindIngestRoots(const std::string& path) const {
  return ingest_roots_.Find(path);
}

const KeptParse<bool>* DiscoveryCache::FindIngestRootsAbsence(const std::string& folder_key) const {
  return ingest_roots_absent_.Find(folder_key);
}

void DiscoveryCache::RememberManifest(const std::string& folder_key,
                                      const Loaded<ManifestParse>& loaded) {
  Remember(folder_key, loaded, walk_started_ns_, &manifests_);
}

void DiscoveryCache::RememberInstance(const std::string& path,
                                      const Loaded<InstanceRecordParse>& loaded) {
  Remember(path, loaded, walk_started_ns_, &instances_);
}

void DiscoveryCache::RememberIngestRoots(const std::string& path,
                                         const Loaded<IngestRootsParse>& loaded) {
  Remember(path, loaded, walk_started_ns_, &ingest_roots_);
}

void DiscoveryCache::KeepIngestRootsAbsence(const KeptParse<bool>& absence) {
  ingest_roots_absent_.MarkSeen(absence);
}

void DiscoveryCache::RememberIngestRootsAbsent(const std::string& folder_key,
                                               const FileStamp& folder_stamp) {
  ingest_roots_absent_.Keep(folder_key, folder_stamp, walk_started_ns_, true);
}

void DiscoveryCache::ForgetIngestRootsAbsence(const std::string& folder_key) {
  ingest_roots_absent_.Forget(folder_key);
}

const ReadFileFunction& ReaderOf(const DiscoveryCache* cache) {
  static const ReadFileFunction kReadBrainFile;  // empty: ReadBrainFile
  return cache != nullptr ? cache->read_file() : kReadBrainFile;
}

}  // namespace scx
