// What a discovery read, for watching it: each folder it listed or read a small file
// in, with the role that says which changes there can change what the next scan
// finds. The change watcher (exporter/change_watcher) watches these folders and asks
// ChangeMatters about each change; it knows no m1nd file or folder name. Pure.
#ifndef SCX_ENGINE_DISCOVERY_READ_FOLDERS_H_
#define SCX_ENGINE_DISCOVERY_READ_FOLDERS_H_

#include <string>
#include <string_view>

namespace scx {

// Why a folder was read, which decides which of its names matter.
enum class FolderRole {
  kBrainFolder,      // a brain's files: its store, manifest and ingest roots
  kBrainFolders,     // holds brain folders: folders appearing, going or renamed into place
  kRegistryEntries,  // a registry's instance entries
};

struct ReadFolder {
  std::string path;
  FolderRole role = FolderRole::kBrainFolder;
};

// Whether a change to `name` (a folder when `is_dir`) in a folder read as `role` can
// change what a scan finds.
bool ChangeMatters(FolderRole role, std::string_view name, bool is_dir);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_READ_FOLDERS_H_
