// The --storage.path check against the folders the exporter watches.
#include "exporter/storage_path_check.h"

#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "base/strings.h"
#include "engine/discovery/paths.h"
#include "engine/m1nd_files.h"

namespace scx {

namespace {

using FolderIdentity = std::pair<dev_t, ino_t>;

std::string Absolute(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof cwd) == nullptr) return path;
  return JoinPath(cwd, path);
}

// `path` (absolute) with the symlinks and ".." of its existing part resolved, and the
// part that does not exist yet appended as the kernel would read it once made.
std::string ResolveAllowingMissing(const std::string& path) {
  char* real = realpath(path.c_str(), nullptr);
  if (real != nullptr) {
    std::string resolved(real);
    std::free(real);
    return resolved;
  }
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || path == "/") return path;
  std::string base = ResolveAllowingMissing(slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = path.substr(slash + 1);
  if (name.empty() || name == ".") return base;
  if (name == "..") {
    const std::size_t cut = base.find_last_of('/');
    return cut == 0 || cut == std::string::npos ? "/" : base.substr(0, cut);
  }
  return JoinPath(base, name);
}

// `resolved` and every folder above it, innermost first, "/" last.
std::vector<std::string> AncestorsOf(std::string resolved) {
  std::vector<std::string> ancestors;
  while (true) {
    ancestors.push_back(resolved);
    if (resolved == "/") break;
    const std::size_t slash = resolved.find_last_of('/');
    resolved = slash == 0 || slash == std::string::npos ? "/" : resolved.substr(0, slash);
  }
  return ancestors;
}

std::string WhatTheRuntimeDirIs(const Brain& brain) {
  const std::string parent = brain.runtime_dir.substr(0, brain.runtime_dir.find_last_of('/'));
  const bool in_project_brains = EndsWith(parent, std::string("/") + kProjectBrainsDir);
  return std::string(in_project_brains ? "the project-brain folder" : "the runtime dir") +
         " of brain " + brain.name;
}

}  // namespace

std::vector<WatchedFolder> WatchedFolders(const DiscoveryConfig& config) {
  std::vector<WatchedFolder> watched;
  for (const std::string& registry : config.registries) {
    watched.push_back({ExpandHome(registry), "the m1nd registry"});
  }
  const Discovery found = DiscoverBrains(config, {}, nullptr, WithUsableCpus(Parallelism{}));
  for (const Brain& brain : found.brains) {
    watched.push_back({brain.runtime_dir, WhatTheRuntimeDirIs(brain)});
  }
  return watched;
}

std::string StoragePathConflict(const std::string& storage_path,
                                const std::vector<WatchedFolder>& watched) {
  const std::string resolved = ResolveAllowingMissing(StripTrailingSlashes(Absolute(storage_path)));
  const std::vector<std::string> ancestors = AncestorsOf(resolved);
  std::map<FolderIdentity, std::size_t> depth_of;  // existing ancestors, by identity
  for (std::size_t depth = 0; depth < ancestors.size(); ++depth) {
    struct stat info;
    if (stat(ancestors[depth].c_str(), &info) == 0) depth_of[{info.st_dev, info.st_ino}] = depth;
  }
  // The innermost watched folder it is in (a project brain's before its owner's).
  const WatchedFolder* innermost = nullptr;
  std::size_t innermost_depth = 0;
  for (const WatchedFolder& folder : watched) {
    // An existing folder by its identity (one stat a brain); one not made yet by where
    // it would be.
    std::optional<std::size_t> depth;
    struct stat info;
    if (stat(folder.path.c_str(), &info) == 0) {
      const auto found = depth_of.find({info.st_dev, info.st_ino});
      if (found != depth_of.end()) depth = found->second;
    } else {
      const std::string where = ResolveAllowingMissing(Absolute(folder.path));
      for (std::size_t i = 0; i < ancestors.size() && !depth; ++i) {
        if (ancestors[i] == where) depth = i;
      }
    }
    if (!depth || (innermost != nullptr && *depth >= innermost_depth)) continue;
    innermost = &folder;
    innermost_depth = *depth;
  }
  if (innermost == nullptr) return "";
  return "--storage.path " + storage_path + " is in " + innermost->what + " (" + innermost->path +
         "): the exporter never writes where m1nd keeps its files; choose a folder outside "
         "every runtime dir and registry it watches";
}

bool CheckStoragePath(const std::string& storage_path, const DiscoveryConfig& config,
                      std::string* error) {
  if (storage_path.empty()) return true;
  *error = StoragePathConflict(storage_path, WatchedFolders(config));
  return error->empty();
}

}  // namespace scx
