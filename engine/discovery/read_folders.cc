// Which changes in a folder discovery read matter (read_folders.h).
#include "engine/discovery/read_folders.h"

#include <string_view>

#include "engine/m1nd_files.h"

namespace scx {

bool ChangeMatters(FolderRole role, std::string_view name, bool is_dir) {
  switch (role) {
    case FolderRole::kBrainFolder:
      // A project-brains/ folder appearing in a runtime root brings its brains.
      return name == kStoreFileName || name == kProjectBrainManifest ||
             name == kIngestRootsFileName || (is_dir && name == kProjectBrainsDir);
    case FolderRole::kBrainFolders:
      // Dot-folders are brains being born, committed by a rename (which matters).
      return is_dir && !name.empty() && name.front() != '.';
    case FolderRole::kRegistryEntries:
      return !is_dir && IsInstanceFileName(name);
  }
  return false;
}

}  // namespace scx
