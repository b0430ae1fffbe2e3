// What this process can see: roots, m1nd's view, runtime dirs (visibility.h).
#include "engine/discovery/visibility.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "base/strings.h"

namespace scx {

// ---------------------------------------------------------------------------------
// Roots.

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

// ---------------------------------------------------------------------------------
// m1nd's view.

namespace {

std::string ProcPath(std::uint32_t pid, const char* entry) {
  return "/proc/" + std::to_string(pid) + entry;
}

std::string Failed(const std::string& what, int error) { return what + ": " + strerror(error); }

std::int64_t ClockMs(clockid_t clock) {
  struct timespec now;
  clock_gettime(clock, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

// The wall-clock start of `pid` from field 22 of /proc/<pid>/stat (clock ticks since
// boot, CLOCK_BOOTTIME); false with `error` when it cannot be read.
bool ReadStartMs(std::uint32_t pid, std::int64_t* started_ms, std::string* error) {
  const std::string path = ProcPath(pid, "/stat");
  std::ifstream file(path);
  std::string text;
  if (!file || !std::getline(file, text)) {
    *error = path + ": cannot be read";
    return false;
  }
  // The command name (field 2) may hold spaces and ')': fields 3 on follow the last ')'.
  const std::size_t close = text.rfind(')');
  if (close == std::string::npos) {
    *error = path + ": no command name";
    return false;
  }
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  unsigned long long ticks = 0;
  for (int number = 3; number <= 22 && fields >> field; ++number) {
    if (number == 22) ticks = strtoull(field.c_str(), nullptr, 10);
  }
  const long hz = sysconf(_SC_CLK_TCK);
  if (!fields || hz <= 0) {
    *error = path + ": no start time";
    return false;
  }
  const auto since_boot_ms = static_cast<std::int64_t>(ticks * 1000 / hz);
  *started_ms = ClockMs(CLOCK_REALTIME) - (ClockMs(CLOCK_BOOTTIME) - since_boot_ms);
  return true;
}

bool ReadLink(const std::string& path, std::string* target, std::string* error) {
  char buffer[256];
  const ssize_t length = readlink(path.c_str(), buffer, sizeof(buffer));
  if (length < 0) {
    *error = Failed(path, errno);
    return false;
  }
  target->assign(buffer, static_cast<std::size_t>(length));
  return true;
}

void ReadNamespaces(std::uint32_t pid, OwnerViewFacts* facts) {
  std::string own;
  std::string owner;
  if (!ReadLink("/proc/self/ns/mnt", &own, &facts->namespace_error) ||
      !ReadLink(ProcPath(pid, "/ns/mnt"), &owner, &facts->namespace_error)) {
    return;
  }
  facts->namespaces_read = true;
  facts->same_namespace = own == owner;
}

void ReadRoot(std::uint32_t pid, OwnerViewFacts* facts) {
  const std::string path = ProcPath(pid, "/root");
  struct stat owner;
  struct stat own;
  if (stat(path.c_str(), &owner) != 0) {
    facts->root_error = Failed(path, errno);
    return;
  }
  facts->root_readable = true;
  facts->same_root =
      stat("/", &own) == 0 && own.st_dev == owner.st_dev && own.st_ino == owner.st_ino;
}

// A pid reused after m1nd exited belongs to a process started after its entry.
bool StartedAfterRecord(const OwnerViewFacts& facts) {
  if (facts.process_started_ms < 0) return false;
  const auto started = static_cast<std::uint64_t>(facts.process_started_ms);
  const std::uint64_t latest =
      facts.record_started_ms > std::numeric_limits<std::uint64_t>::max() - kStartTimeSlackMs
          ? std::numeric_limits<std::uint64_t>::max()
          : facts.record_started_ms + kStartTimeSlackMs;
  return started > latest;
}

// m1nd writes its own pid into its entry: the process must be the entry owner's, unless
// root wrote the entry.
bool ProcessMayBeTheRecords(const OwnerViewFacts& facts) {
  return facts.record_owner == 0 || facts.process_owner == facts.record_owner;
}

// openat2(RESOLVE_IN_ROOT) of `path` (absolute) under `root_fd`; -1 with errno.
int OpenInRoot(int root_fd, const std::string& path) {
  struct open_how how = {};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT;
  return static_cast<int>(syscall(SYS_openat2, root_fd, path.c_str(), &how, sizeof(how)));
}

// Stats `path` as the process whose root is `root_fd` sees it: 0, or an errno.
int StatInRoot(int root_fd, const std::string& path, struct stat* info) {
  int fd = OpenInRoot(root_fd, path);
  if (fd < 0 && errno == EAGAIN) fd = OpenInRoot(root_fd, path);  // a rename raced it
  if (fd >= 0) {
    const int result = fstat(fd, info) == 0 ? 0 : errno;
    close(fd);
    return result;
  }
  if (errno != ENOSYS && errno != EPERM) return errno;
  // No openat2 (before Linux 5.6, or a seccomp filter): a lookup relative to the root,
  // in which an absolute symlink resolves in this process's view instead.
  const std::size_t start = path.find_first_not_of('/');
  const std::string relative = start == std::string::npos ? "." : path.substr(start);
  return fstatat(root_fd, relative.c_str(), info, 0) == 0 ? 0 : errno;
}

}  // namespace

OwnerView JudgeOwnerView(DiscoveryView declared, const OwnerViewFacts& facts) {
  if (declared == DiscoveryView::kHost) {
    return {ViewRule::kHost, 0, "the exporter is declared to see as m1nd does (host)"};
  }
  const ViewRule fallback =
      declared == DiscoveryView::kSandbox ? ViewRule::kNever : ViewRule::kShape;
  auto none = [fallback](const std::string& why) {
    return OwnerView{fallback, 0, "no evidence of m1nd's view: " + why};
  };
  if (facts.pid == 0) return none("no m1nd process is known for this brain");
  const std::string process = "m1nd's process " + std::to_string(facts.pid);
  if (!facts.process_exists) {
    return none(process +
                " is not in /proc (it exited, runs in another pid namespace, or /proc hides it)");
  }
  if (!ProcessMayBeTheRecords(facts)) {
    return none(process + " runs as uid " + std::to_string(facts.process_owner) +
                ", not as the owner of its registry entry (uid " +
                std::to_string(facts.record_owner) + "): m1nd writes its own pid");
  }
  if (!facts.start_known)
    return none("the start time of " + process + " is unknown: " + facts.process_error);
  if (StartedAfterRecord(facts)) {
    return none("pid " + std::to_string(facts.pid) +
                " belongs to a process started after m1nd's registry entry (m1nd exited)");
  }
  if (facts.namespaces_read && facts.same_namespace && (!facts.root_readable || facts.same_root)) {
    return {ViewRule::kHost, 0, "the exporter shares the mount namespace of " + process};
  }
  if (facts.root_readable) {
    return {ViewRule::kOwnerRoot, facts.pid,
            "looked up in m1nd's own view, through /proc/" + std::to_string(facts.pid) + "/root"};
  }
  return none("the mount namespace of " + process + " cannot be read: " +
              (facts.namespace_error.empty() ? facts.root_error : facts.namespace_error));
}

OwnerViewFacts GatherOwnerViewFacts(std::uint32_t pid, std::uint64_t started_at_ms,
                                    std::uint32_t record_owner) {
  OwnerViewFacts facts;
  facts.pid = pid;
  facts.record_started_ms = started_at_ms;
  facts.record_owner = record_owner;
  if (pid == 0) return facts;
  const std::string process = ProcPath(pid, "");
  struct stat info;
  if (stat(process.c_str(), &info) != 0) {
    facts.process_error = Failed(process, errno);
    return facts;
  }
  facts.process_exists = true;
  facts.process_owner = info.st_uid;
  // Nothing more is asked of another user's process.
  if (!ProcessMayBeTheRecords(facts)) return facts;
  facts.start_known = ReadStartMs(pid, &facts.process_started_ms, &facts.process_error);
  if (!facts.start_known) return facts;
  ReadNamespaces(pid, &facts);
  ReadRoot(pid, &facts);
  return facts;
}

OwnerView ViewOfOwner(DiscoveryView declared, std::uint32_t pid, std::uint64_t started_at_ms,
                      std::uint32_t record_owner) {
  if (declared == DiscoveryView::kHost) return JudgeOwnerView(declared, OwnerViewFacts());
  return JudgeOwnerView(declared, GatherOwnerViewFacts(pid, started_at_ms, record_owner));
}

RootProbe ProbeRootThroughProcess(std::uint32_t pid, const std::string& root) {
  if (root.empty()) return RootProbe{RootPresence::kNotDirectory, std::string()};
  if (root.front() != '/') {
    return Unseen("it is a relative path, which m1nd resolves in its own working folder");
  }
  const std::string proc_root = ProcPath(pid, "/root");
  const int root_fd = open(proc_root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) return Unseen(Failed(proc_root, errno));
  struct stat info;
  const int error = StatInRoot(root_fd, root, &info);
  close(root_fd);
  if (error == 0) {
    return RootProbe{S_ISDIR(info.st_mode) ? RootPresence::kDirectory : RootPresence::kNotDirectory,
                     std::string()};
  }
  // What m1nd's own is_dir() reads as "no": missing, under a file, a symlink loop.
  if (error == ENOENT || error == ENOTDIR || error == ELOOP) {
    return RootProbe{RootPresence::kNotDirectory, std::string()};
  }
  return Unseen(Failed("in m1nd's view (" + proc_root + ")", error));
}

RootProbe ProbeRootInView(const OwnerView& view, const std::string& root) {
  RootProbe probe;
  switch (view.rule) {
    case ViewRule::kHost:
      probe = ProbeRoot(root, MissingRootRule::kHost);
      break;
    case ViewRule::kOwnerRoot:
      probe = ProbeRootThroughProcess(view.pid, root);
      break;
    case ViewRule::kShape:
      probe = ProbeRoot(root, MissingRootRule::kShape);
      break;
    case ViewRule::kNever:
      probe = ProbeRoot(root, MissingRootRule::kNever);
      break;
  }
  if (probe.presence == RootPresence::kUnseen && !view.evidence.empty()) {
    probe.why += "; " + view.evidence;
  }
  return probe;
}

// ---------------------------------------------------------------------------------
// Runtime dirs.

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
