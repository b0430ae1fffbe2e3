// Discovery of brains: static brains, m1nd instance registries and runtime globs.
// Only lists directories and reads small JSON files through brain_file (read-only,
// non-blocking, regular files only, closed at once); never writes or locks, and holds
// nothing open but the folder being listed. With a DiscoveryCache, a small file whose
// stamp is unchanged is only stat'ed.
#include "engine/discovery.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/bounded_glob.h"
#include "base/brain_file.h"
#include "base/parallel_for.h"
#include "base/stamp_cache.h"
#include "base/strings.h"
#include "engine/brain_names.h"
#include "engine/root_visibility.h"
#include "engine/store_reader.h"

namespace scx {

namespace {

// Registry entries and manifests are a few hundred bytes; anything this large is
// not one of them and is not read.
constexpr std::int64_t kMaxSmallFileBytes = std::int64_t{1} << 20;

std::string ErrnoText(int error) { return strerror(error); }

// Removes trailing '/' but keeps a lone "/".
std::string StripTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// The runtime dir as stored in a Brain: "~" expanded, trailing '/' removed.
std::string CleanDir(const std::string& path) { return StripTrailingSlashes(ExpandHome(path)); }

// The key runtime dirs are compared by: CleanDir, then lexically normal ("a/./b",
// "a/x/../b" -> "a/b"). Symlinks are not resolved.
std::string DirKey(const std::string& path) {
  std::string expanded = ExpandHome(path);
  if (expanded.empty()) return expanded;
  return StripTrailingSlashes(std::filesystem::path(expanded).lexically_normal().string());
}

// A path from a registry instance file. m1nd writes absolute paths; a relative one
// is resolved against the registry folder (so that a registry shipped inside a
// checkout, like examples/registry, works wherever the checkout lives).
std::string ResolveInRegistry(const std::string& registry, const std::string& path) {
  std::string expanded = ExpandHome(path);
  if (expanded.empty() || expanded.front() == '/') return CleanDir(expanded);
  std::filesystem::path joined = std::filesystem::path(registry) / expanded;
  return StripTrailingSlashes(joined.lexically_normal().string());
}

// The real path of a runtime dir: symlinks and ".." resolved, so that aliases of one
// folder get one name. A folder that cannot be resolved (not there yet) keeps its
// lexically normal form.
std::string RealDir(const std::string& path) {
  const std::string clean = DirKey(path);
  char* real = realpath(clean.c_str(), nullptr);
  if (real == nullptr) return clean;
  std::string resolved = real;
  free(real);
  return resolved;
}

// The RuntimeKey of a folder stat'ed as `info`.
std::string InodeKey(const struct stat& info) {
  return "inode " + std::to_string(static_cast<std::uint64_t>(info.st_dev)) + ":" +
         std::to_string(static_cast<std::uint64_t>(info.st_ino));
}

// What makes two runtime dirs one: the folder's device and inode (symlinks, ".."
// paths and bind mounts of one folder agree), else the lexically normal path.
std::string RuntimeKey(const std::string& path) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0) return InodeKey(info);
  return "path " + DirKey(path);
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

enum class ReadStatus { kOk, kMissing, kError };

// Lists the entry names of `dir` (without "." and ".."), sorted. kMissing when the
// folder does not exist.
ReadStatus ListDir(const std::string& dir, std::vector<std::string>* names, std::string* error) {
  names->clear();
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    if (errno == ENOENT) return ReadStatus::kMissing;
    *error = "cannot list folder: " + ErrnoText(errno);
    return ReadStatus::kError;
  }
  errno = 0;
  while (struct dirent* entry = readdir(handle)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names->push_back(std::move(name));
    errno = 0;
  }
  int read_errno = errno;
  closedir(handle);
  if (read_errno != 0) {
    *error = "cannot list folder: " + ErrnoText(read_errno);
    return ReadStatus::kError;
  }
  std::sort(names->begin(), names->end());
  return ReadStatus::kOk;
}

using ReadFileFunction =
    std::function<BrainFileResult(const std::string&, std::int64_t, std::string*)>;

// Reads a small file of a brain whole through `read_file` (ReadBrainFile when empty:
// read-only, non-blocking, regular files only, closed before returning), and gives
// the stamp of what was read. kMissing only when nothing is there.
ReadStatus ReadSmallFile(const std::string& path, const ReadFileFunction& read_file,
                         std::string* contents, FileStamp* stamp, std::string* error) {
  const BrainFileResult result = read_file ? read_file(path, kMaxSmallFileBytes, contents)
                                           : ReadBrainFile(path, kMaxSmallFileBytes, contents);
  if (result.error == BrainFileError::kNone) {
    *stamp = StampOfStat(result.info);
    return ReadStatus::kOk;
  }
  if (result.error == BrainFileError::kAbsent) return ReadStatus::kMissing;
  *error = result.message;
  return ReadStatus::kError;
}

// ---- m1nd's small files, as this exporter uses them ---------------------------------

enum class InstanceKind { kOwner, kProject };

constexpr char kProjectKind[] = "project";
constexpr char kMedullaKind[] = "medulla";
constexpr char kReadOnlyMode[] = "read_only";
// m1nd's brain list calls the owner it serves over HTTP this.
constexpr char kMedullaName[] = "medulla";

InstanceKind KindOf(const InstanceRecord& record) {
  return record.has_brain_kind && record.brain_kind == kProjectKind ? InstanceKind::kProject
                                                                    : InstanceKind::kOwner;
}

// A brain_kind m1nd does not write ("medulla", "project" or null), for a notice.
bool IsUnknownKind(const InstanceRecord& record) {
  return record.has_brain_kind && record.brain_kind != kProjectKind &&
         record.brain_kind != kMedullaKind;
}

// A small file's parse: read now, or kept from a read of the file as it still is.
template <typename Parsed>
struct Loaded {
  ReadStatus status = ReadStatus::kOk;
  std::string error;  // when status is kError
  // From the cache (the file was only stat'ed); null when read now.
  const typename StampCache<Parsed>::Entry* kept = nullptr;
  Parsed read;      // the parse of the read, when read now with status kOk
  FileStamp stamp;  // of the read, when read now with status kOk

  // The parse, when status is kOk.
  const Parsed& parsed() const { return kept != nullptr ? kept->parsed : read; }
};

// Reads and parses `path`, unless `cache` (may be null) holds the parse of the file
// as a stat finds it now; the stat is of `name` in the folder `dir_fd` (AT_FDCWD:
// of `path`). Changes nothing, so that several threads may load different files at
// once; Remember then records the outcome.
template <typename Parsed, typename Parse>
Loaded<Parsed> LoadSmallFile(const std::string& path, const StampCache<Parsed>* cache,
                             const ReadFileFunction& read_file, Parse parse, int dir_fd = AT_FDCWD,
                             const std::string* name = nullptr) {
  Loaded<Parsed> loaded;
  // Without an entry there is nothing to compare: the file is read at once.
  const auto* entry = cache != nullptr ? cache->Find(path) : nullptr;
  if (entry != nullptr) {
    struct stat info;
    const char* at = name != nullptr ? name->c_str() : path.c_str();
    if (fstatat(dir_fd, at, &info, 0) == 0 && S_ISREG(info.st_mode) &&
        CanReuseParse(entry->stamp, StampOfStat(info))) {
      loaded.kept = entry;
      return loaded;
    }
  }
  std::string text;
  loaded.status = ReadSmallFile(path, read_file, &text, &loaded.stamp, &loaded.error);
  if (loaded.status == ReadStatus::kOk) loaded.read = parse(text);
  return loaded;
}

// Records in `cache` (may be null) what LoadSmallFile found at `path` during a walk
// that began at `walk_started_ns`: a parse is kept with its stamp, a read error never.
template <typename Parsed>
void Remember(const std::string& path, const Loaded<Parsed>& loaded, std::int64_t walk_started_ns,
              StampCache<Parsed>* cache) {
  if (cache == nullptr) return;
  if (loaded.kept != nullptr) {
    cache->MarkSeen(*loaded.kept);
  } else if (loaded.status == ReadStatus::kOk) {
    cache->Keep(path, loaded.stamp, walk_started_ns, loaded.read);
  } else {
    cache->Forget(path);
  }
}

std::int64_t RealtimeNowNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 * 1000 * 1000 + now.tv_nsec;
}

}  // namespace

struct DiscoveryCache::Impl {
  explicit Impl(Options given) : options(std::move(given)) {
    if (!options.now_ns) options.now_ns = RealtimeNowNs;
  }

  void BeginWalk() {
    walk_started_ns = options.now_ns();
    manifests.BeginWalk();
    instances.BeginWalk();
    ingest_roots.BeginWalk();
    ingest_roots_absent.BeginWalk();
  }

  void DropUnseen() {
    manifests.DropUnseen();
    instances.DropUnseen();
    ingest_roots.DropUnseen();
    ingest_roots_absent.DropUnseen();
  }

  Options options;
  std::int64_t walk_started_ns = 0;  // by options.now_ns, before the walk read anything
  StampCache<ManifestParse> manifests;
  StampCache<InstanceRecordParse> instances;
  StampCache<IngestRootsParse> ingest_roots;
  // A project brain folder's ingest_roots.json known to be absent, by the folder's
  // manifest path (so that a warm walk makes no path of it), with
  // the stamp of the folder it is missing from: any file made in the folder since
  // changes the folder's mtime and ctime. Most project brains have none, and a warm
  // discovery would otherwise try to open one in every folder at every scan.
  StampCache<bool> ingest_roots_absent;
};

DiscoveryCache::DiscoveryCache() : DiscoveryCache(Options()) {}

DiscoveryCache::DiscoveryCache(Options options) : impl_(new Impl(std::move(options))) {}

DiscoveryCache::~DiscoveryCache() = default;

std::size_t DiscoveryCache::size() const {
  return impl_->manifests.size() + impl_->instances.size() + impl_->ingest_roots.size();
}

namespace {

// How `cache` (may be null) reads small files.
const ReadFileFunction& ReaderOf(const DiscoveryCache::Impl* cache) {
  static const ReadFileFunction kReadBrainFile;  // empty: ReadBrainFile
  return cache != nullptr ? cache->options.read_file : kReadBrainFile;
}

// A brain folder's project_brain.json as loaded.
struct Manifest {
  std::string path;
  Loaded<ManifestParse> file;
};

// Loads the manifest of `dir` through `cache` (may be null); when `dir_fd` is not
// AT_FDCWD, `dir` is `dir_name` in that folder, and the stat that tells an unchanged
// manifest is made from there (a shorter path walk). Changes nothing, so that several
// threads may load manifests of different folders at once.
Manifest ReadManifest(const std::string& dir, const DiscoveryCache::Impl* cache,
                      int dir_fd = AT_FDCWD, const std::string& dir_name = std::string()) {
  Manifest manifest;
  manifest.path = JoinPath(dir, kProjectBrainManifest);
  const std::string name_at =
      dir_fd == AT_FDCWD ? manifest.path : JoinPath(dir_name, kProjectBrainManifest);
  manifest.file = LoadSmallFile(manifest.path, cache ? &cache->manifests : nullptr, ReaderOf(cache),
                                ParseProjectBrainManifest, dir_fd, &name_at);
  return manifest;
}

// A folder opened to stat what is in it; AT_FDCWD when it could not be opened.
class FolderFd {
 public:
  explicit FolderFd(const std::string& folder)
      : fd_(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~FolderFd() {
    if (fd_ >= 0) close(fd_);
  }
  FolderFd(const FolderFd&) = delete;
  FolderFd& operator=(const FolderFd&) = delete;

  int get() const { return fd_ >= 0 ? fd_ : AT_FDCWD; }

 private:
  const int fd_;
};

// A folder's ingest_roots.json as loaded.
struct IngestRootsFile {
  std::string path;
  Loaded<IngestRootsParse> file;
  // When known absent from its folder as that folder still is (file.status kMissing).
  const StampCache<bool>::Entry* kept_absent = nullptr;
};

// Loads `dir`'s ingest_roots.json through `cache` (may be null), as ReadManifest does
// its manifest. With `dir_stamp` (the folder's stamp now) and `absent_key` (how the
// cache knows the folder: its manifest's path), a file the cache knows absent from the
// folder as it still is is not looked for (then `path` stays empty). Changes nothing.
IngestRootsFile ReadIngestRootsIn(const std::string& dir, const DiscoveryCache::Impl* cache,
                                  int dir_fd = AT_FDCWD,
                                  const std::string& dir_name = std::string(),
                                  const FileStamp* dir_stamp = nullptr,
                                  const std::string* absent_key = nullptr) {
  IngestRootsFile ingest;
  if (cache != nullptr && dir_stamp != nullptr && absent_key != nullptr) {
    const StampCache<bool>::Entry* absent = cache->ingest_roots_absent.Find(*absent_key);
    if (absent != nullptr && CanReuseParse(absent->stamp, *dir_stamp)) {
      ingest.file.status = ReadStatus::kMissing;
      ingest.kept_absent = absent;
      return ingest;
    }
  }
  ingest.path = JoinPath(dir, kIngestRootsFileName);
  const std::string name_at =
      dir_fd == AT_FDCWD ? ingest.path : JoinPath(dir_name, kIngestRootsFileName);
  // Most project brains have none: a stat from the listed folder (a walk of two names)
  // tells so more cheaply than an open of the whole path. A file the cache knows is
  // stat'ed by LoadSmallFile instead.
  const bool known = cache != nullptr && cache->ingest_roots.Find(ingest.path) != nullptr;
  struct stat info;
  if (dir_fd != AT_FDCWD && !known && fstatat(dir_fd, name_at.c_str(), &info, 0) != 0 &&
      errno == ENOENT) {
    ingest.file.status = ReadStatus::kMissing;
    return ingest;
  }
  ingest.file = LoadSmallFile(ingest.path, cache ? &cache->ingest_roots : nullptr, ReaderOf(cache),
                              ParseIngestRootsAsM1nd, dir_fd, &name_at);
  return ingest;
}

// The identity m1nd's project_root_display() gives a brain whose ingest roots were
// loaded as `ingest` and whose own root is `workspace_root` (rule 2, named
// `workspace_source`). An ingest_roots.json that cannot be read leaves it undecided.
OwnerIdentity IdentityOf(const IngestRootsFile& ingest, const std::string& workspace_root,
                         IdentitySource workspace_source) {
  if (ingest.file.status == ReadStatus::kError) {
    return {std::string(), IdentitySource::kUnknown,
            ingest.path + " cannot be read: " + ingest.file.error};
  }
  static const std::vector<std::string> kNone;
  const std::vector<std::string>& roots =
      ingest.file.status == ReadStatus::kOk ? ingest.file.parsed().roots : kNone;
  return ResolveOwnerIdentity(roots, workspace_root, ProbeRoot, workspace_source);
}

// A project brain folder and what was read of it: its manifest, the ingest roots of
// its own session state and the identity they give. Made on any thread.
struct BrainFolder {
  std::string dir;
  std::string key;  // its RuntimeKey; empty: not a folder
  bool has_stamp = false;
  FileStamp stamp;  // of the folder itself, when has_stamp
  Manifest manifest;
  IngestRootsFile ingest;  // read when the manifest parsed
  OwnerIdentity identity;  // when the manifest parsed
};

// Reads the manifest of the folder `dir` (RuntimeKey `key`) and, when it is a brain's,
// its ingest roots, and resolves its identity; `dir_fd`/`dir_name` as ReadManifest.
void LookIntoFolder(const DiscoveryCache::Impl* cache, BrainFolder* folder, int dir_fd = AT_FDCWD,
                    const std::string& dir_name = std::string()) {
  folder->manifest = ReadManifest(folder->dir, cache, dir_fd, dir_name);
  const Loaded<ManifestParse>& file = folder->manifest.file;
  if (file.status != ReadStatus::kOk || !file.parsed().ok) return;
  folder->ingest =
      ReadIngestRootsIn(folder->dir, cache, dir_fd, dir_name,
                        folder->has_stamp ? &folder->stamp : nullptr, &folder->manifest.path);
  // A hosted project brain is named by its own session state: its ingest roots
  // first, its manifest's project_root at rule 2.
  folder->identity =
      IdentityOf(folder->ingest, file.parsed().project_root, IdentitySource::kManifest);
}

// The form of a project root by which m1nd's brain list dedupes brain folders: m1nd
// writes the canonical root it was given, so lexically normal is enough to compare. A
// view into `root` itself when only trailing slashes differ (most roots: std::filesystem
// is spared them), else into the normal copy appended to `normalized` (whose elements
// never move).
std::string_view RootKeyView(const std::string& root, std::deque<std::string>* normalized) {
  std::string_view view = root;
  if (root.find("/.") == std::string::npos && root.find("//") == std::string::npos &&
      (root.empty() || root.front() != '.')) {
    while (view.size() > 1 && view.back() == '/') view.remove_suffix(1);
    return view;
  }
  normalized->push_back(
      StripTrailingSlashes(std::filesystem::path(root).lexically_normal().string()));
  return normalized->back();
}

// The mtime of the store in `dir`, or the smallest value without one.
std::int64_t StoreMtimeNs(const std::string& dir) {
  struct stat info;
  if (stat(JoinPath(dir, kStoreFileName).c_str(), &info) != 0) {
    return std::numeric_limits<std::int64_t>::min();
  }
  return StampOfStat(info).mtime_ns;
}

// ---- The walk ---------------------------------------------------------------------

struct OwnerCandidate {
  std::shared_ptr<const std::string> registry;  // the registry folder it is listed in
  std::string runtime_dir;                      // RealDir
  std::string key;                              // RuntimeKey of runtime_dir
  std::string workspace_root;
  std::string ingest_dir;  // the folder holding ingest_roots.json
  std::string m1nd_name;   // what m1nd's brain list calls it
  bool read_only = false;
  std::uint64_t last_heartbeat_ms = 0;
  std::string instance_file;  // file name, for a deterministic tie break
};

// The order in which entries on one runtime root may name its brain: owners before
// read_only attachers, then the freshest heartbeat, then the smallest file name.
bool NamesBrainFirst(const OwnerCandidate& a, const OwnerCandidate& b) {
  return std::tie(a.key, a.read_only, b.last_heartbeat_ms, a.instance_file) <
         std::tie(b.key, b.read_only, a.last_heartbeat_ms, b.instance_file);
}

// A "project" registry entry: a live hosted project brain, serving its folder.
struct ProjectEntry {
  std::shared_ptr<const std::string> registry;
  std::string dir;  // RealDir of its workspace_root: the folder it serves
  std::uint64_t last_heartbeat_ms = 0;
};

// What to do when a project-brains/ folder (or a glob match) is not a brain's.
enum class MissingManifest { kQuiet, kProblem };

// Collects brains in source priority order, keeping the first per runtime dir.
class Walk {
 public:
  Walk(const std::vector<Brain>& previous, const std::atomic<bool>* stop,
       const Parallelism& parallelism, DiscoveryCache::Impl* cache)
      : stop_(stop),
        parallelism_(parallelism),
        previous_brains_(previous),
        cache_(cache),
        walk_started_ns_(cache != nullptr ? cache->walk_started_ns : RealtimeNowNs()) {}

  // True once a stop was requested; checked between steps.
  bool Stopped() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }

  void AddStatic(const StaticBrain& config);
  void ScanRegistry(const std::string& registry, bool is_default);
  void AddOwners();
  void AddProjectBrains();
  void ScanGlob(const std::string& pattern);

  Discovery Finish(const std::vector<Brain>& previous);

 private:
  // Adds `brain` unless a runtime dir with the same RuntimeKey `key` was claimed.
  void AddBrain(Brain brain, const std::string& key);
  // Keeps last scan's brain for `key` (if any) when its files could not be read now;
  // false when there was none.
  bool CarryOver(const std::string& key);
  // Keeps every brain of the previous scan for which `came_from` is true, when the
  // folder they were found in cannot be listed now.
  template <typename Predicate>
  void CarryOverAll(Predicate came_from);
  // Records in the cache what LookIntoFolder read.
  void RememberFolder(const BrainFolder& folder);
  // Adds the brain of a folder looked into by LookIntoFolder (or carries the previous
  // one over, or records why it is not a brain).
  void AddFolderBrain(const BrainFolder& folder, BrainSource source, MissingManifest missing,
                      const std::shared_ptr<const std::string>& origin);
  // Lists one project-brains/ folder of `registry`'s owner and adds the brain of every
  // folder in it; of several folders claiming one project root, the one m1nd serves.
  void AddProjectBrainsIn(const std::string& folder,
                          const std::shared_ptr<const std::string>& registry);
  // Of `folders` (indices into `found`) claiming one project root, the one m1nd serves.
  std::size_t ServedFolder(const std::vector<BrainFolder>& found,
                           const std::vector<std::size_t>& folders);
  void AddOwner(const OwnerCandidate& owner);
  void ReadInstance(const std::string& registry, const std::string& name);
  void Problem(DiscoveryProblemSource source, const std::string& path, const std::string& message,
               bool transient = false);
  void Debug(const std::string& path, const std::string& message);
  // Deals with an ingest_roots.json that m1nd would read as an empty list. True when
  // the brain of `key` was carried over instead: text that is not JSON at all, written
  // in the last kStampSettleNs, is likely caught mid-write (a transient problem).
  bool IgnoredIngestRoots(const IngestRootsFile& ingest, const std::string& key);

  const std::atomic<bool>* const stop_;  // may be null
  const Parallelism parallelism_;        // for the folders under project-brains/
  const std::vector<Brain>& previous_brains_;
  DiscoveryCache::Impl* const cache_;             // may be null
  const std::int64_t walk_started_ns_;            // CLOCK_REALTIME
  std::map<std::string, const Brain*> previous_;  // by RuntimeKey, built on first use
  bool previous_indexed_ = false;
  std::unordered_set<std::string> claimed_;  // keys of runtime dirs already tried
  std::vector<Brain> brains_;
  std::vector<DiscoveryProblem> problems_;
  std::vector<DiscoveryNotice> notices_;
  std::vector<DiscoveryNotice> debug_notes_;
  std::vector<OrphanedFolder> orphans_;
  std::vector<OwnerCandidate> owners_;
  std::vector<ProjectEntry> project_entries_;
  std::shared_ptr<const std::string> listed_registry_;  // the one ScanRegistry is listing
  // RuntimeKey of each project entry's folder -> its freshest heartbeat; built on
  // first use, after every registry was read.
  std::unordered_map<std::string, std::uint64_t> served_by_entry_;
  bool served_by_entry_indexed_ = false;
};

void Walk::Problem(DiscoveryProblemSource source, const std::string& path,
                   const std::string& message, bool transient) {
  problems_.push_back(DiscoveryProblem{source, path, message, transient});
}

void Walk::Debug(const std::string& path, const std::string& message) {
  debug_notes_.push_back(DiscoveryNotice{path, message});
}

bool Walk::IgnoredIngestRoots(const IngestRootsFile& ingest, const std::string& key) {
  if (ingest.file.status != ReadStatus::kOk) return false;
  const IngestRootsParse& parse = ingest.file.parsed();
  if (parse.ignored_because.empty()) return false;
  const FileStamp& stamp =
      ingest.file.kept != nullptr ? ingest.file.kept->stamp : ingest.file.stamp;
  const bool just_written = walk_started_ns_ - stamp.mtime_ns < kStampSettleNs;
  if (parse.torn && just_written) {
    Problem(DiscoveryProblemSource::kIngestRoots, ingest.path, parse.ignored_because,
            /*transient=*/true);
    if (CarryOver(key)) return true;
    claimed_.erase(key);
  }
  Debug(ingest.path, "read as an empty list, as m1nd reads it: " + parse.ignored_because);
  return false;
}

void Walk::AddBrain(Brain brain, const std::string& key) {
  if (claimed_.insert(key).second) brains_.push_back(std::move(brain));
}

bool Walk::CarryOver(const std::string& key) {
  claimed_.insert(key);
  if (!previous_indexed_) {
    for (const Brain& brain : previous_brains_) {
      previous_.emplace(RuntimeKey(brain.runtime_dir), &brain);
    }
    previous_indexed_ = true;
  }
  auto previous = previous_.find(key);
  if (previous == previous_.end()) return false;
  Brain carried = *previous->second;
  carried.name.clear();  // names are assigned afresh; only static names are explicit
  carried.carried_over = true;
  brains_.push_back(std::move(carried));
  return true;
}

template <typename Predicate>
void Walk::CarryOverAll(Predicate came_from) {
  for (const Brain& brain : previous_brains_) {
    if (!came_from(brain)) continue;
    if (!claimed_.insert(RuntimeKey(brain.runtime_dir)).second) continue;
    Brain carried = brain;
    carried.name.clear();
    carried.carried_over = true;
    brains_.push_back(std::move(carried));
  }
}

void Walk::AddStatic(const StaticBrain& config) {
  Brain brain;
  brain.name = config.name;
  brain.project_root = config.project_root;
  brain.display_name = config.display_name;
  brain.runtime_dir = RealDir(config.runtime_dir);
  brain.source = BrainSource::kStatic;
  brain.identity_source = config.display_name.empty() ? IdentitySource::kConfigProjectRoot
                                                      : IdentitySource::kConfigDisplayName;
  const std::string key = RuntimeKey(brain.runtime_dir);
  AddBrain(std::move(brain), key);
}

void Walk::ScanRegistry(const std::string& registry, bool is_default) {
  const std::string folder = CleanDir(registry);
  auto from_this_registry = [&folder](const Brain& brain) {
    return brain.origin != nullptr && *brain.origin == folder;
  };
  // The default registry need not exist (m1nd never ran here); a named one must.
  struct stat info;
  if (stat(folder.c_str(), &info) != 0) {
    if (errno == ENOENT) {
      if (!is_default) Problem(DiscoveryProblemSource::kRegistry, folder, "no such folder");
      return;
    }
    Problem(DiscoveryProblemSource::kRegistry, folder, "cannot stat folder: " + ErrnoText(errno));
    return CarryOverAll(from_this_registry);
  }
  if (!S_ISDIR(info.st_mode))
    return Problem(DiscoveryProblemSource::kRegistry, folder, "not a folder");
  const std::string instances = JoinPath(folder, kInstancesDir);
  std::vector<std::string> names;
  std::string error;
  const ReadStatus status = ListDir(instances, &names, &error);
  if (status == ReadStatus::kError) {
    // Its brains did not go away: what the last scan knew of them stands.
    Problem(DiscoveryProblemSource::kRegistry, instances, error);
    return CarryOverAll(from_this_registry);
  }
  if (status == ReadStatus::kMissing) {
    // m1nd makes instances/ when it starts: a registry named in the config without one
    // is not the folder it should be.
    if (!is_default) {
      Problem(DiscoveryProblemSource::kRegistry, instances,
              "no instances/ folder (m1nd makes it when it starts)");
    }
    return;
  }
  listed_registry_ = std::make_shared<const std::string>(folder);
  for (const std::string& name : names) {
    if (Stopped()) return;
    // m1nd replaces entries through "<id>.tmp"; only finished entries count.
    if (IsInstanceFileName(name)) ReadInstance(folder, name);
  }
}

void Walk::ReadInstance(const std::string& registry, const std::string& name) {
  std::string path = JoinPath(JoinPath(registry, kInstancesDir), name);
  StampCache<InstanceRecordParse>* cache = cache_ ? &cache_->instances : nullptr;
  const Loaded<InstanceRecordParse> file =
      LoadSmallFile(path, cache, ReaderOf(cache_), ParseInstanceRecord);
  if (cache_) Remember(path, file, cache_->walk_started_ns, cache);
  if (file.status == ReadStatus::kMissing) return;  // removed since the listing
  if (file.status == ReadStatus::kError) {
    return Problem(DiscoveryProblemSource::kInstance, path, file.error);
  }
  const InstanceRecordParse& parse = file.parsed();
  if (!parse.ok) {
    // m1nd's list_instances skips an entry that is not a whole record: so do we.
    return Debug(path, "not an m1nd instance record, skipped as m1nd skips it: " + parse.error);
  }
  const InstanceRecord& record = parse.record;
  if (KindOf(record) == InstanceKind::kProject) {
    // The workspace root of a project entry is its project-brains/<hex> folder.
    project_entries_.push_back(
        ProjectEntry{listed_registry_, RealDir(ResolveInRegistry(registry, record.workspace_root)),
                     record.last_heartbeat_ms});
    return;
  }
  if (IsUnknownKind(record)) {
    notices_.push_back(DiscoveryNotice{
        path, "unknown brain_kind \"" + record.brain_kind + "\": watched as an owner"});
  }
  if (record.runtime_root.empty()) {
    return Debug(path, "empty \"runtime_root\": no brain folder to watch");
  }
  OwnerCandidate owner;
  owner.registry = listed_registry_;
  owner.runtime_dir = RealDir(ResolveInRegistry(registry, record.runtime_root));
  owner.key = RuntimeKey(owner.runtime_dir);
  owner.workspace_root = ResolveInRegistry(registry, record.workspace_root);
  // ingest_roots.json sits beside the graph snapshot (by default in the runtime root).
  owner.ingest_dir = record.graph_source.empty()
                         ? owner.runtime_dir
                         : std::filesystem::path(ResolveInRegistry(registry, record.graph_source))
                               .parent_path()
                               .string();
  owner.m1nd_name = record.has_brain_kind && record.brain_kind == kMedullaKind
                        ? std::string(kMedullaName)
                        : std::string(FileNameOf(record.workspace_root));
  owner.read_only = record.mode == kReadOnlyMode;
  owner.last_heartbeat_ms = record.last_heartbeat_ms;
  owner.instance_file = name;
  owners_.push_back(std::move(owner));
}

void Walk::AddOwner(const OwnerCandidate& owner) {
  const std::string& key = owner.key;
  if (claimed_.count(key)) return;  // a static brain, or an entry that names it first
  const IngestRootsFile ingest = ReadIngestRootsIn(owner.ingest_dir, cache_);
  if (cache_) Remember(ingest.path, ingest.file, cache_->walk_started_ns, &cache_->ingest_roots);
  if (ingest.file.status == ReadStatus::kError) {
    Problem(DiscoveryProblemSource::kIngestRoots, ingest.path, ingest.file.error);
    // Named after its workspace_root instead, it could page on a healthy brain: the
    // last scan's identity stands, or none is decided.
    if (CarryOver(key)) return;
  } else if (IgnoredIngestRoots(ingest, key)) {
    return;
  }
  const OwnerIdentity identity =
      IdentityOf(ingest, owner.workspace_root, IdentitySource::kWorkspaceRoot);
  Brain brain;
  brain.project_root = identity.root;
  brain.runtime_dir = owner.runtime_dir;
  brain.source = BrainSource::kRegistryOwner;
  brain.identity_source = identity.source;
  brain.identity_note = identity.undecided_because;
  brain.m1nd_name = owner.m1nd_name;
  brain.origin = owner.registry;
  claimed_.erase(key);  // a failed CarryOver claimed it
  AddBrain(std::move(brain), key);
}

void Walk::AddOwners() {
  std::vector<OwnerCandidate> sorted = owners_;
  std::stable_sort(sorted.begin(), sorted.end(), NamesBrainFirst);
  for (const OwnerCandidate& owner : sorted) {
    if (Stopped()) return;
    AddOwner(owner);
  }
}

void Walk::AddProjectBrains() {
  std::set<std::string> roots_seen;
  for (const OwnerCandidate& owner : owners_) {
    if (Stopped()) return;
    if (!roots_seen.insert(owner.key).second) continue;
    AddProjectBrainsIn(RealDir(JoinPath(owner.runtime_dir, kProjectBrainsDir)), owner.registry);
  }
  // Entries whose folder no owner's project-brains/ holds.
  for (const ProjectEntry& entry : project_entries_) {
    if (Stopped()) return;
    BrainFolder folder;
    folder.dir = entry.dir;
    folder.key = RuntimeKey(entry.dir);
    if (claimed_.count(folder.key)) continue;  // found (or tried) by a stronger source
    LookIntoFolder(cache_, &folder);
    RememberFolder(folder);
    AddFolderBrain(folder, BrainSource::kRegistryProject, MissingManifest::kQuiet, entry.registry);
  }
}

void Walk::AddProjectBrainsIn(const std::string& folder,
                              const std::shared_ptr<const std::string>& registry) {
  std::vector<std::string> names;
  std::string error;
  ReadStatus status = ListDir(folder, &names, &error);
  if (status == ReadStatus::kError) {
    Problem(DiscoveryProblemSource::kRegistry, folder, error);
    // Its brains did not go away: what the last scan knew of them stands.
    return CarryOverAll([&folder](const Brain& brain) {
      return brain.source == BrainSource::kRegistryProject &&
             ParentFolder(brain.runtime_dir) == folder;
    });
  }
  if (status != ReadStatus::kOk) return;
  // Dot-folders are brains being born (.birth-staging-*), committed by rename.
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& name) { return name.front() == '.'; }),
              names.end());
  // Each folder is looked at and its files read on a few threads (this is most of a
  // cold discovery); what they found is then added here, in name order.
  std::vector<BrainFolder> found(names.size());
  const DiscoveryCache::Impl* cache = cache_;  // only read on the threads
  // Folders and their files are stat'ed from the listed folder: a path walk of one or
  // two names instead of the whole path.
  const FolderFd listed(folder);
  const int at = listed.get();
  auto look = [this, cache, at, &folder, &names, &found](std::size_t i) {
    BrainFolder& entry = found[i];
    entry.dir = JoinPath(folder, names[i]);
    // One lstat per folder: it tells a folder and gives its key. A symlinked brain
    // folder is named (and keyed) by where it points.
    struct stat info;
    const std::string& name_at = at == AT_FDCWD ? entry.dir : names[i];
    if (fstatat(at, name_at.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return;
    const bool symlink = S_ISLNK(info.st_mode);
    if (symlink) {
      entry.dir = RealDir(entry.dir);
      if (stat(entry.dir.c_str(), &info) != 0) return;
    }
    if (!S_ISDIR(info.st_mode)) return;
    entry.key = InodeKey(info);
    entry.has_stamp = true;
    entry.stamp = StampOfStat(info);
    // Claimed before this folder was listed: not read (claimed_ does not change now).
    if (claimed_.count(entry.key) != 0) return;
    if (symlink) {
      LookIntoFolder(cache, &entry);
    } else {
      LookIntoFolder(cache, &entry, at, names[i]);
    }
  };
  if (!ParallelFor(names.size(), parallelism_, look, stop_)) return;
  // Folders that claim one project root: m1nd serves one, the others are orphans.
  // Roots are compared as views into the parses (stable for the walk), and a group is
  // made only for a root claimed twice: nearly every root is claimed once.
  std::unordered_map<std::string_view, std::size_t> first_of_root;  // root -> folder
  std::map<std::size_t, std::vector<std::size_t>> groups;  // first folder -> all of its root
  std::deque<std::string> normalized;                      // roots RootKeyView rewrote
  first_of_root.reserve(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    const BrainFolder& entry = found[i];
    if (entry.key.empty()) continue;
    RememberFolder(entry);
    const Loaded<ManifestParse>& file = entry.manifest.file;
    if (claimed_.count(entry.key) || file.status != ReadStatus::kOk || !file.parsed().ok) continue;
    const auto [first, inserted] =
        first_of_root.emplace(RootKeyView(file.parsed().project_root, &normalized), i);
    if (inserted) continue;
    std::vector<std::size_t>& group = groups[first->second];
    if (group.empty()) group.push_back(first->second);
    group.push_back(i);
  }
  std::vector<bool> orphaned(found.size(), false);
  for (const auto& [first, folders] : groups) {
    const std::size_t served = ServedFolder(found, folders);
    for (std::size_t i : folders) {
      if (i == served) continue;
      orphaned[i] = true;
      orphans_.push_back(OrphanedFolder{found[i].dir, found[i].manifest.file.parsed().project_root,
                                        found[served].dir});
    }
  }
  brains_.reserve(brains_.size() + found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    const BrainFolder& entry = found[i];
    if (entry.key.empty()) continue;
    if (orphaned[i]) {
      claimed_.insert(entry.key);
      continue;
    }
    if (claimed_.count(entry.key)) continue;
    AddFolderBrain(entry, BrainSource::kRegistryProject, MissingManifest::kQuiet, registry);
  }
}

std::size_t Walk::ServedFolder(const std::vector<BrainFolder>& found,
                               const std::vector<std::size_t>& folders) {
  if (!served_by_entry_indexed_) {
    for (const ProjectEntry& entry : project_entries_) {
      std::uint64_t& heartbeat = served_by_entry_[RuntimeKey(entry.dir)];
      heartbeat = std::max(heartbeat, entry.last_heartbeat_ms);
    }
    served_by_entry_indexed_ = true;
  }
  // 1. The folder a "project" registry entry says m1nd serves (the freshest).
  std::size_t best = folders.front();
  bool best_has_entry = false;
  std::uint64_t best_heartbeat = 0;
  for (std::size_t i : folders) {
    auto entry = served_by_entry_.find(found[i].key);
    if (entry == served_by_entry_.end()) continue;
    if (!best_has_entry || entry->second > best_heartbeat) {
      best = i;
      best_has_entry = true;
      best_heartbeat = entry->second;
    }
  }
  if (best_has_entry) return best;
  // 2. Else the most recently written store; then the first folder by name.
  std::int64_t best_mtime = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i : folders) {
    const std::int64_t mtime = StoreMtimeNs(found[i].dir);
    if (mtime > best_mtime) {
      best = i;
      best_mtime = mtime;
    }
  }
  return best;
}

void Walk::ScanGlob(const std::string& pattern) {
  if (pattern.empty()) return Problem(DiscoveryProblemSource::kGlob, pattern, "empty pattern");
  const GlobResult result = BoundedGlob(pattern, GLOB_TILDE | GLOB_ONLYDIR, kMaxGlobEntries, stop_);
  switch (result.status) {
    case GlobStatus::kOk:
      break;
    case GlobStatus::kNoMatch:
    case GlobStatus::kStopped:  // Finish marks the walk stopped
      return;
    case GlobStatus::kTooMany:
      return Problem(DiscoveryProblemSource::kGlob, pattern,
                     "expands through more than " + std::to_string(kMaxGlobEntries) +
                         " directory entries (a symlink loop?); none of its matches is watched");
    case GlobStatus::kNoMemory:
      return Problem(DiscoveryProblemSource::kGlob, pattern, "out of memory");
    case GlobStatus::kReadError:
      return Problem(DiscoveryProblemSource::kGlob, pattern, "read error");
  }
  for (size_t i = 0; i < result.paths.size() && !Stopped(); ++i) {
    BrainFolder folder;
    folder.dir = RealDir(result.paths[i]);
    // GLOB_ONLYDIR is only a hint to glob(3).
    struct stat info;
    if (stat(folder.dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
      folder.key = InodeKey(info);
      if (claimed_.count(folder.key)) continue;  // found (or tried) by a stronger source
      LookIntoFolder(cache_, &folder);
      RememberFolder(folder);
      AddFolderBrain(folder, BrainSource::kGlob, MissingManifest::kProblem, nullptr);
    }
  }
}

void Walk::RememberFolder(const BrainFolder& folder) {
  if (!cache_) return;
  if (!folder.manifest.path.empty()) {
    Remember(folder.manifest.path, folder.manifest.file, cache_->walk_started_ns,
             &cache_->manifests);
  }
  if (folder.ingest.kept_absent != nullptr) {
    cache_->ingest_roots_absent.MarkSeen(*folder.ingest.kept_absent);
    return;
  }
  if (folder.ingest.path.empty()) return;  // not looked for: no brain's manifest
  Remember(folder.ingest.path, folder.ingest.file, cache_->walk_started_ns, &cache_->ingest_roots);
  // Known by the folder's manifest path, which a brain folder always has.
  if (folder.ingest.file.status == ReadStatus::kMissing && folder.has_stamp) {
    cache_->ingest_roots_absent.Keep(folder.manifest.path, folder.stamp, cache_->walk_started_ns,
                                     true);
  } else {
    cache_->ingest_roots_absent.Forget(folder.manifest.path);
  }
}

void Walk::AddFolderBrain(const BrainFolder& folder, BrainSource source, MissingManifest missing,
                          const std::shared_ptr<const std::string>& origin) {
  const std::string& key = folder.key;
  const std::string& path = folder.manifest.path;
  const Loaded<ManifestParse>& file = folder.manifest.file;
  if (file.status == ReadStatus::kMissing) {
    // Not a brain folder (runtime-jobs/, a brain being born): nothing to watch.
    claimed_.insert(key);
    if (missing == MissingManifest::kProblem) {
      Problem(DiscoveryProblemSource::kManifest, path, std::string("no ") + kProjectBrainManifest);
    }
    return;
  }
  if (file.status == ReadStatus::kError) {
    // Unreadable now (no permission, a FIFO, an I/O error): the brain it was keeps
    // last scan's series, marked stale, as a brain whose store is unreadable does.
    Problem(DiscoveryProblemSource::kManifest, path, file.error);
    CarryOver(key);
    return;
  }
  const ManifestParse& parse = file.parsed();
  if (!parse.ok) {
    if (parse.torn) {
      // Possibly caught half written: keep last scan's brain until the next scan.
      Problem(DiscoveryProblemSource::kManifest, path, parse.error, /*transient=*/true);
      CarryOver(key);
      return;
    }
    // JSON, but not a project brain's manifest: m1nd does not serve it either.
    claimed_.insert(key);
    if (missing == MissingManifest::kProblem) {
      return Problem(DiscoveryProblemSource::kManifest, path, parse.error);
    }
    return Debug(path, "not a project brain's manifest: " + parse.error);
  }
  const Loaded<IngestRootsParse>& ingest = folder.ingest.file;
  if (ingest.status == ReadStatus::kError) {
    Problem(DiscoveryProblemSource::kIngestRoots, folder.ingest.path, ingest.error);
    if (CarryOver(key)) return;
    claimed_.erase(key);
  } else if (IgnoredIngestRoots(folder.ingest, key)) {
    return;
  }
  Brain brain;
  brain.project_root = folder.identity.root;
  brain.runtime_dir = folder.dir;
  brain.source = source;
  brain.identity_source = folder.identity.source;
  brain.identity_note = folder.identity.undecided_because;
  brain.m1nd_name = std::string(FileNameOf(parse.project_root));
  brain.origin = origin;
  AddBrain(std::move(brain), key);
}

Discovery Walk::Finish(const std::vector<Brain>& previous) {
  Discovery discovery;
  if (Stopped()) {
    discovery.stopped = true;  // incomplete: not worth naming
    return discovery;
  }
  discovery.brains = std::move(brains_);
  discovery.problems = std::move(problems_);
  discovery.notices = std::move(notices_);
  discovery.debug_notes = std::move(debug_notes_);
  discovery.orphans = std::move(orphans_);
  std::sort(discovery.orphans.begin(), discovery.orphans.end(),
            [](const OrphanedFolder& a, const OrphanedFolder& b) {
              return a.runtime_dir < b.runtime_dir;
            });
  AssignBrainNames(&discovery.brains, previous, &discovery.name_collisions);
  return discovery;
}

}  // namespace

std::string DefaultRegistry() {
  const char* moved = getenv(kRegistryDirVariable);
  if (moved != nullptr && *moved != '\0') return moved;
  return kDefaultRegistry;
}

std::string ExpandHome(const std::string& path) {
  if (path.empty() || path[0] != '~') return path;
  if (path.size() > 1 && path[1] != '/') return path;  // "~user/...": left as is
  const char* home = getenv("HOME");
  if (home == nullptr || *home == '\0') return path;
  std::string base = StripTrailingSlashes(home);
  std::string rest = path.substr(1);  // "" or "/..."
  if (base == "/" && !rest.empty()) return rest;
  return base + rest;
}

Discovery DiscoverBrains(const DiscoveryConfig& config, const std::vector<Brain>& previous,
                         const std::atomic<bool>* stop, const Parallelism& parallelism,
                         DiscoveryCache* cache) {
  DiscoveryCache::Impl* kept = cache != nullptr ? &cache->impl() : nullptr;
  if (kept) kept->BeginWalk();
  Walk walk(previous, stop, parallelism, kept);
  for (const StaticBrain& brain : config.static_brains) walk.AddStatic(brain);
  for (const std::string& registry : config.registries) {
    if (walk.Stopped()) break;
    walk.ScanRegistry(registry, config.registries_are_default);
  }
  walk.AddOwners();
  walk.AddProjectBrains();
  for (const std::string& pattern : config.runtime_globs) {
    if (walk.Stopped()) break;
    walk.ScanGlob(pattern);
  }
  Discovery discovery = walk.Finish(previous);
  // A stopped walk did not meet every file: nothing is dropped for it.
  if (kept && !discovery.stopped) kept->DropUnseen();
  return discovery;
}

}  // namespace scx
