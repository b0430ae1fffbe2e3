// The cache of m1nd's small files that discovery keeps between scans (cache.h).
#include "engine/discovery/cache.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"
#include "engine/discovery/disk_access.h"
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

KeptManifest ParseKeptManifest(std::string_view text) {
  KeptManifest kept;
  static_cast<ManifestParse&>(kept) = ParseProjectBrainManifest(text);
  return kept;
}

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
}

void DiscoveryCache::DropUnseen() {
  manifests_.DropUnseen();
  instances_.DropUnseen();
  ingest_roots_.DropUnseen();
}

const KeptParse<KeptManifest>* DiscoveryCache::FindManifest(const std::string& folder_key) const {
  return manifests_.Find(folder_key);
}

const KeptParse<InstanceRecordParse>* DiscoveryCache::FindInstance(const std::string& path) const {
  return instances_.Find(path);
}

const KeptParse<IngestRootsParse>* DiscoveryCache::FindIngestRoots(const std::string& path) const {
  return ingest_roots_.Find(path);
}

const FileStamp* DiscoveryCache::FindIngestRootsAbsence(const std::string& folder_key) const {
  const KeptParse<KeptManifest>* manifest = manifests_.Find(folder_key);
  if (manifest == nullptr || !manifest->parsed.no_ingest_roots_at) return nullptr;
  return &*manifest->parsed.no_ingest_roots_at;
}

void DiscoveryCache::RememberManifest(const std::string& folder_key,
                                      const Loaded<KeptManifest>& loaded) {
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

void DiscoveryCache::RememberIngestRootsAbsent(const std::string& folder_key,
                                               const FileStamp& folder_stamp) {
  if (!StampIsSettled(folder_stamp, walk_started_ns_)) {
    return SetIngestRootsAbsence(folder_key, std::nullopt);
  }
  SetIngestRootsAbsence(folder_key, folder_stamp);
}

void DiscoveryCache::ForgetIngestRootsAbsence(const std::string& folder_key) {
  SetIngestRootsAbsence(folder_key, std::nullopt);
}

void DiscoveryCache::SetIngestRootsAbsence(const std::string& folder_key,
                                           const std::optional<FileStamp>& folder_stamp) {
  const KeptParse<KeptManifest>* manifest = manifests_.Find(folder_key);
  if (manifest == nullptr || manifest->parsed.no_ingest_roots_at == folder_stamp) return;
  // Kept again at its own stamp, which was settled when it was kept: only the
  // absence changes (rare: a folder seen for the first time, or changed).
  KeptManifest changed = manifest->parsed;
  changed.no_ingest_roots_at = folder_stamp;
  manifests_.Keep(folder_key, manifest->stamp, walk_started_ns_, std::move(changed));
}

const ReadFileFunction& ReaderOf(const DiscoveryCache* cache) {
  static const ReadFileFunction kReadUntrustedFile;  // empty: ReadUntrustedFile
  return cache != nullptr ? cache->read_file() : kReadUntrustedFile;
}

}  // namespace scx
