// Tells a missing store from a runtime dir this process cannot see.
#include "engine/discovery/runtime_dir_view.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "base/strings.h"

namespace scx {

namespace {

// 0 when `dir` can be opened and read; sets *empty when it holds no entry.
int ListErrno(const std::string& dir, bool* empty) {
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) return errno;
  *empty = true;
  errno = 0;
  while (struct dirent* entry = readdir(handle)) {
    const char* name = entry->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
    *empty = false;
    break;
  }
  const int error = errno;
  closedir(handle);
  return error;
}

}  // namespace

std::string WhyRuntimeDirUnseen(const RuntimeDirFacts& facts, bool held_a_store) {
  if (facts.stat_errno == ENOENT)
    return "is missing: moved, unmounted or out of this process' view";
  if (facts.stat_errno != 0) return std::string("cannot be seen: ") + strerror(facts.stat_errno);
  if (!facts.is_dir) return "is not a folder";
  if (facts.list_errno != 0)
    return std::string("cannot be searched or listed: ") + strerror(facts.list_errno);
  if (held_a_store && facts.is_empty) return "is empty now, after it held a store (unmounted?)";
  return std::string();
}

RuntimeDirFacts ProbeRuntimeDir(const std::string& runtime_dir, bool held_a_store) {
  RuntimeDirFacts facts;
  struct stat info;
  if (stat(runtime_dir.c_str(), &info) != 0) {
    facts.stat_errno = errno;
    return facts;
  }
  facts.is_dir = S_ISDIR(info.st_mode);
  if (!facts.is_dir) return facts;
  // A folder that cannot be searched hides the store as well as one that is missing.
  if (access(runtime_dir.c_str(), X_OK) != 0) {
    facts.list_errno = errno;
    return facts;
  }
  if (held_a_store) facts.list_errno = ListErrno(runtime_dir, &facts.is_empty);
  return facts;
}

bool IsGone(const GoneFacts& facts) {
  return (facts.stat_errno == ENOENT || facts.stat_errno == ENOTDIR) && facts.parent_listable;
}

GoneFacts ProbeGone(const std::string& runtime_dir) {
  GoneFacts facts;
  struct stat info;
  if (stat(runtime_dir.c_str(), &info) == 0) return facts;
  facts.stat_errno = errno;
  if (facts.stat_errno != ENOENT && facts.stat_errno != ENOTDIR) return facts;
  // The nearest folder above it that exists.
  std::string folder = ParentFolder(runtime_dir);
  bool is_parent = true;
  while (!folder.empty() && stat(folder.c_str(), &info) != 0 && errno == ENOENT) {
    const std::string up = ParentFolder(folder);
    if (up == folder) break;
    folder = up;
    is_parent = false;
  }
  if (folder.empty() || stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return facts;
  bool empty = false;
  if (ListErrno(folder, &empty) != 0) return facts;
  // Its own folder, listed: m1nd removed it. A folder further up that is empty is
  // what an unmount leaves (the mount point): what was below it is out of view.
  facts.parent_listable = is_parent || !empty;
  return facts;
}

}  // namespace scx
