// Refuses a --storage.path in what the exporter watches. The exporter never writes
// into a brain (DESIGN.md: a vital sign, not a gate): a state file and its lock in a
// runtime dir, a project-brain folder or an m1nd registry would be files m1nd finds
// beside its own, and a registry's instances/ folder is m1nd's to list. Checked at
// start and by --config.check (exit 2) and at every config load (a reload that would
// watch the state folder is refused and the running config kept).
#ifndef SCX_EXPORTER_STORAGE_PATH_CHECK_H_
#define SCX_EXPORTER_STORAGE_PATH_CHECK_H_

#include <string>
#include <vector>

#include "engine/discovery/discovery.h"

namespace scx {

// A folder the exporter watches, and what it is, for people ("the m1nd registry",
// "the runtime dir of brain m1nd").
struct WatchedFolder {
  std::string path;
  std::string what;
};

// The folders `config` watches: each m1nd registry it names and the runtime dir of
// every brain discovered now (static, registry owners, project-brain folders, glob
// matches). Reads the disk as a scan's discovery does.
std::vector<WatchedFolder> WatchedFolders(const DiscoveryConfig& config);

// "" when `storage_path` is neither one of `watched` nor inside one; else one line for
// people naming the flag, both folders and what to do. Folders are compared as the
// file system resolves them: a symlink, a ".." or a bind mount of a watched folder is
// that folder, and a storage path that does not exist yet is placed where it would be
// made.
std::string StoragePathConflict(const std::string& storage_path,
                                const std::vector<WatchedFolder>& watched);

// StoragePathConflict of `storage_path` (none when it is empty) against
// WatchedFolders(config): true when it may be used, else false with the line in
// `error`.
bool CheckStoragePath(const std::string& storage_path, const DiscoveryConfig& config,
                      std::string* error);

}  // namespace scx

#endif  // SCX_EXPORTER_STORAGE_PATH_CHECK_H_
