// Tells a root that does not exist from one this process cannot see.
#include "engine/discovery/root_visibility.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <string>

#include "base/strings.h"

namespace scx {

namespace {

constexpr long kTmpfsMagic = 0x01021994;  // TMPFS_MAGIC in <linux/magic.h>
constexpr int kMaxLinks = 40;             // Linux follows at most 40 links in a path

RootProbe Unseen(std::string why) { return RootProbe{RootPresence::kUnseen, std::move(why)}; }

// Fills the facts about the nearest existing ancestor `folder` (device `device`).
void LookAtAncestor(const std::string& folder, dev_t device, MissingRootFacts* facts) {
  facts->ancestor = folder;
  struct statfs fs;
  facts->ancestor_on_tmpfs =
      statfs(folder.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kTmpfsMagic;
  const std::string parent = ParentFolder(folder);
  struct stat parent_info;
  facts->ancestor_is_mount_point = !parent.empty() && parent != folder &&
                                   stat(parent.c_str(), &parent_info) == 0 &&
                                   parent_info.st_dev != device;
  DIR* handle = opendir(folder.c_str());
  if (handle == nullptr) return;
  const int fd = dirfd(handle);
  bool any = false;
  bool only_mounts = true;
  while (struct dirent* entry = readdir(handle)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    any = true;
    struct stat info;
    if (fstatat(fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0 || info.st_dev == device) {
      only_mounts = false;
      break;
    }
  }
  closedir(handle);
  facts->ancestor_empty = !any;
  facts->ancestor_holds_only_mounts = any && only_mounts;
}

}  // namespace

RootProbe JudgeMissingRoot(const MissingRootFacts& facts, MissingRootRule rule) {
  if (rule == MissingRootRule::kNever) {
    return Unseen("the exporter is declared to run in a sandbox (--discovery.view=sandbox)");
  }
  if (rule == MissingRootRule::kShape && !facts.parent_exists) {
    return Unseen("its parent folder is missing too (a sandbox may hide it; nearest folder seen: " +
                  facts.ancestor + ")");
  }
  if (facts.ancestor_holds_only_mounts) {
    return Unseen("its folder " + facts.ancestor +
                  " holds only mount points, as a container's or a sandbox's scaffold does");
  }
  if (facts.ancestor_empty && (facts.ancestor_is_mount_point || facts.ancestor_on_tmpfs)) {
    return Unseen("its folder " + facts.ancestor + " is an empty " +
                  (facts.ancestor_on_tmpfs ? "tmpfs" : "mount point") +
                  ", as a sandbox that hides homes makes it");
  }
  return RootProbe{RootPresence::kNotDirectory, std::string()};
}

// ProbeRoot with `links` symlinks already followed.
static RootProbe ProbeRootThroughLinks(const std::string& root, MissingRootRule rule, int links);

RootProbe ProbeRoot(const std::string& root, MissingRootRule rule) {
  return ProbeRootThroughLinks(root, rule, 0);
}

static RootProbe ProbeRootThroughLinks(const std::string& root, MissingRootRule rule, int links) {
  if (root.empty()) return RootProbe{RootPresence::kNotDirectory, std::string()};
  if (root.front() != '/') {
    return Unseen("it is a relative path, which m1nd resolves in its own working folder");
  }
  struct stat info;
  if (stat(root.c_str(), &info) == 0) {
    return RootProbe{S_ISDIR(info.st_mode) ? RootPresence::kDirectory : RootPresence::kNotDirectory,
                     std::string()};
  }
  if (errno == ENOTDIR) return RootProbe{RootPresence::kNotDirectory, std::string()};
  if (errno != ENOENT) return Unseen(std::string("stat: ") + strerror(errno));
  // A dangling symlink: m1nd's is_dir() follows it, so what decides is whether its
  // target is missing from a folder this process sees, not the link's own folder.
  char target[PATH_MAX];
  const ssize_t length = readlink(root.c_str(), target, sizeof(target) - 1);
  if (length > 0 && links < kMaxLinks) {
    std::string next(target, static_cast<std::size_t>(length));
    if (next.front() != '/') next = ParentFolder(root) + "/" + next;
    RootProbe probe = ProbeRootThroughLinks(next, rule, links + 1);
    if (probe.presence == RootPresence::kUnseen)
      probe.why = "its link's target " + next + ": " + probe.why;
    return probe;
  }
  MissingRootFacts facts;
  std::string ancestor = ParentFolder(root);
  bool first = true;
  while (!ancestor.empty()) {
    if (stat(ancestor.c_str(), &info) == 0) break;
    if (errno != ENOENT) return Unseen("stat of " + ancestor + ": " + strerror(errno));
    first = false;
    const std::string up = ParentFolder(ancestor);
    if (up == ancestor) break;
    ancestor = up;
  }
  if (ancestor.empty()) return Unseen("no folder above it can be seen");
  facts.parent_exists = first;
  LookAtAncestor(ancestor, info.st_dev, &facts);
  return JudgeMissingRoot(facts, rule);
}

}  // namespace scx
