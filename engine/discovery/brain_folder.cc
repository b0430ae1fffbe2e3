// Reading one brain folder (brain_folder.h).
#include "engine/discovery/brain_folder.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"
#include "engine/discovery/cache.h"
#include "engine/discovery/disk_access.h"
#include "engine/discovery/owner_identity.h"
#include "engine/discovery/paths.h"
#include "engine/discovery/visibility.h"
#include "engine/m1nd_files.h"

namespace scx {

ManifestFile ReadManifest(const std::string& dir, const std::string& key,
                          const DiscoveryCache* cache, int dir_fd, const std::string& dir_name) {
  ManifestFile manifest;
  manifest.path = JoinPath(dir, kProjectBrainManifest);
  const std::string name_at =
      dir_fd == AT_FDCWD ? manifest.path : JoinPath(dir_name, kProjectBrainManifest);
  manifest.file = LoadSmallFile(manifest.path, cache ? cache->FindManifest(key) : nullptr,
                                ReaderOf(cache), ParseKeptManifest, dir_fd, &name_at);
  return manifest;
}

IngestRootsFile ReadIngestRootsIn(const std::string& dir, const DiscoveryCache* cache, int dir_fd,
                                  const std::string& dir_name, const FileStamp* dir_stamp,
                                  const std::string* absent_key) {
  IngestRootsFile ingest;
  if (cache != nullptr && dir_stamp != nullptr && absent_key != nullptr) {
    const FileStamp* absent_at = cache->FindIngestRootsAbsence(*absent_key);
    if (absent_at != nullptr && CanReuseParse(*absent_at, *dir_stamp)) {
      ingest.file.status = ReadStatus::kMissing;
      ingest.known_absent = true;
      return ingest;
    }
  }
  ingest.path = JoinPath(dir, kIngestRootsFileName);
  const std::string name_at =
      dir_fd == AT_FDCWD ? ingest.path : JoinPath(dir_name, kIngestRootsFileName);
  // Most project brains have none: a stat from the listed folder (a walk of two names)
  // tells so more cheaply than an open of the whole path. A file the cache knows is
  // stat'ed by LoadSmallFile instead.
  const KeptParse<IngestRootsParse>* known =
      cache != nullptr ? cache->FindIngestRoots(ingest.path) : nullptr;
  struct stat info;
  if (dir_fd != AT_FDCWD && known == nullptr && fstatat(dir_fd, name_at.c_str(), &info, 0) != 0 &&
      errno == ENOENT) {
    ingest.file.status = ReadStatus::kMissing;
    return ingest;
  }
  ingest.file =
      LoadSmallFile(ingest.path, known, ReaderOf(cache), ParseIngestRootsAsM1nd, dir_fd, &name_at);
  return ingest;
}

OwnerIdentity IdentityOf(const IngestRootsFile& ingest, const std::string& workspace_root,
                         IdentitySource workspace_source, const OwnerView& view) {
  if (ingest.file.status == ReadStatus::kError) {
    return {std::string(), IdentitySource::kUnknown,
            ingest.path + " cannot be read: " + ingest.file.error};
  }
  static const std::vector<std::string> kNone;
  const std::vector<std::string>& roots =
      ingest.file.status == ReadStatus::kOk ? ingest.file.parsed().roots : kNone;
  return ResolveOwnerIdentity(
      roots, workspace_root,
      [&view](const std::string& root) { return ProbeRootInView(view, root); }, workspace_source);
}

void LookIntoFolder(const DiscoveryCache* cache, const OwnerView& view, BrainFolder* folder,
                    int dir_fd, const std::string& dir_name) {
  folder->manifest = ReadManifest(folder->dir, folder->key, cache, dir_fd, dir_name);
  const Loaded<KeptManifest>& file = folder->manifest.file;
  if (file.status != ReadStatus::kOk || !file.parsed().ok) return;
  folder->ingest = ReadIngestRootsIn(folder->dir, cache, dir_fd, dir_name,
                                     folder->has_stamp ? &folder->stamp : nullptr, &folder->key);
  // A hosted project brain is named by its own session state: its ingest roots
  // first, its manifest's project_root at rule 2.
  folder->identity =
      IdentityOf(folder->ingest, file.parsed().project_root, IdentitySource::kManifest, view);
}

void RememberFolder(const BrainFolder& folder, DiscoveryCache* cache) {
  if (!folder.manifest.path.empty()) {
    cache->RememberManifest(folder.key, folder.manifest.file);
  }
  if (folder.ingest.known_absent) {
    // Kept in the manifest's entry, met above; set again if the manifest was read anew.
    cache->RememberIngestRootsAbsent(folder.key, folder.stamp);
    return;
  }
  if (folder.ingest.path.empty()) return;  // not looked for: no brain's manifest
  cache->RememberIngestRoots(folder.ingest.path, folder.ingest.file);
  // Known by the folder's RuntimeKey.
  if (folder.ingest.file.status == ReadStatus::kMissing && folder.has_stamp) {
    cache->RememberIngestRootsAbsent(folder.key, folder.stamp);
  } else {
    cache->ForgetIngestRootsAbsence(folder.key);
  }
}

std::int64_t StoreMtimeNs(const std::string& dir) {
  struct stat info;
  if (stat(JoinPath(dir, kStoreFileName).c_str(), &info) != 0) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return StampOfStat(info).mtime_ns;
}

}  // namespace scx
