// Reading one brain folder: its project_brain.json, the ingest_roots.json of its own
// session state and the identity they give, through the DiscoveryCache when there is
// one; and the mtime of its store. Reading changes nothing, so that several threads
// may read different folders at once; RememberFolder then records in the cache, on one
// thread, what was read. Internal to engine/.
#ifndef SCX_ENGINE_DISCOVERY_BRAIN_FOLDER_H_
#define SCX_ENGINE_DISCOVERY_BRAIN_FOLDER_H_

#include <fcntl.h>

#include <cstdint>
#include <string>

#include "base/untrusted_file.h"
#include "engine/discovery/cache.h"
#include "engine/discovery/disk_access.h"
#include "engine/discovery/owner_identity.h"
#include "engine/discovery/visibility.h"
#include "engine/m1nd_files.h"

namespace scx {

// A brain folder's project_brain.json as loaded.
struct ManifestFile {
  std::string path;
  Loaded<KeptManifest> file;
};

// Loads the manifest of `dir`, whose RuntimeKey is `key` (how the cache knows it),
// through `cache` (may be null); when `dir_fd` is not AT_FDCWD, `dir` is `dir_name`
// in that folder, and the stat that tells an unchanged manifest is made from there (a
// shorter path walk). Changes nothing, so that several threads may load manifests of
// different folders at once.
ManifestFile ReadManifest(const std::string& dir, const std::string& key,
                          const DiscoveryCache* cache, int dir_fd = AT_FDCWD,
                          const std::string& dir_name = std::string());

// A folder's ingest_roots.json as loaded.
struct IngestRootsFile {
  std::string path;
  Loaded<IngestRootsParse> file;
  // Known absent from its folder as that folder still is (file.status kMissing).
  bool known_absent = false;
};

// Loads `dir`'s ingest_roots.json through `cache` (may be null), as ReadManifest does
// its manifest. With `dir_stamp` (the folder's stamp now) and `absent_key` (how the
// cache knows the folder: its RuntimeKey), a file the cache knows absent from the
// folder as it still is is not looked for (then `path` stays empty). Changes nothing.
IngestRootsFile ReadIngestRootsIn(const std::string& dir, const DiscoveryCache* cache,
                                  int dir_fd = AT_FDCWD,
                                  const std::string& dir_name = std::string(),
                                  const FileStamp* dir_stamp = nullptr,
                                  const std::string* absent_key = nullptr);

// The identity m1nd's project_root_display() gives a brain whose ingest roots were
// loaded as `ingest` and whose own root is `workspace_root` (rule 2, named
// `workspace_source`), its roots probed in `view` (its owner's). An ingest_roots.json
// that cannot be read leaves it undecided.
OwnerIdentity IdentityOf(const IngestRootsFile& ingest, const std::string& workspace_root,
                         IdentitySource workspace_source, const OwnerView& view);

// A project brain folder and what was read of it: its manifest, the ingest roots of
// its own session state and the identity they give. Made on any thread.
struct BrainFolder {
  std::string dir;
  std::string key;  // its RuntimeKey; empty: not a folder
  bool has_stamp = false;
  FileStamp stamp;  // of the folder itself, when has_stamp
  ManifestFile manifest;
  IngestRootsFile ingest;  // read when the manifest parsed
  OwnerIdentity identity;  // when the manifest parsed
};

// Reads the manifest of the folder `dir` (RuntimeKey `key`) and, when it is a brain's,
// its ingest roots, and resolves its identity with its roots probed in `view` (that of
// the m1nd process hosting it); `dir_fd`/`dir_name` as ReadManifest.
void LookIntoFolder(const DiscoveryCache* cache, const OwnerView& view, BrainFolder* folder,
                    int dir_fd = AT_FDCWD, const std::string& dir_name = std::string());

// Records in `cache` what LookIntoFolder read of `folder`: its manifest, and its
// ingest_roots.json or that the folder has none.
void RememberFolder(const BrainFolder& folder, DiscoveryCache* cache);

// The mtime of the store in `dir`, or the smallest value without one.
std::int64_t StoreMtimeNs(const std::string& dir);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_BRAIN_FOLDER_H_
