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
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/brain_file.h"
#include "engine/brain_names.h"
#include "engine/parallel_for.h"
#include "engine/stamp_cache.h"

namespace scx {

namespace {

using Json = nlohmann::json;

constexpr char kInstancesDir[] = "instances";
constexpr char kProjectBrainsDir[] = "project-brains";
constexpr char kJsonSuffix[] = ".json";
// Registry entries and manifests are a few hundred bytes; anything this large is
// not one of them and is not read.
constexpr std::int64_t kMaxSmallFileBytes = std::int64_t{1} << 20;

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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

bool IsDirectory(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
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

bool ParseJsonObject(const std::string& text, Json* doc, std::string* error) {
  try {
    *doc = Json::parse(text);
  } catch (const Json::exception& e) {
    *error = std::string("not valid JSON: ") + e.what();
    return false;
  }
  if (!doc->is_object()) {
    *error = "not a JSON object";
    return false;
  }
  return true;
}

// The non-empty string at `key`, or false.
bool StringField(const Json& doc, const char* key, std::string* value) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string()) return false;
  *value = it->get<std::string>();
  return !value->empty();
}

// ---- Pure parsers of m1nd's small files ------------------------------------------

enum class InstanceKind { kOwner, kProject };

constexpr char kProjectKind[] = "project";
constexpr char kMedullaKind[] = "medulla";
constexpr char kReadOnlyMode[] = "read_only";

struct Instance {
  InstanceKind kind = InstanceKind::kOwner;
  bool read_only = false;    // "mode": "read_only": an attacher, not the brain's owner
  std::string unknown_kind;  // a brain_kind m1nd does not write, as JSON; treated as owner
  std::string workspace_root;
  std::string runtime_root;
  std::string graph_source;  // may be empty
  std::int64_t last_heartbeat_ms = 0;
};

// Reads brain_kind: null (or absent) and "medulla" are owners, "project" a project
// brain, anything else an owner that is worth a notice.
void ParseInstanceKind(const Json& doc, Instance* instance) {
  auto kind = doc.find("brain_kind");
  instance->kind = InstanceKind::kOwner;
  if (kind == doc.end() || kind->is_null()) return;
  if (kind->is_string() && kind->get<std::string>() == kProjectKind) {
    instance->kind = InstanceKind::kProject;
  } else if (!kind->is_string() || kind->get<std::string>() != kMedullaKind) {
    instance->unknown_kind = kind->dump(-1, ' ', false, Json::error_handler_t::replace);
  }
}

// Parses an instance registry entry. On failure sets `error`, and `transient` when
// the text is not JSON at all (possibly caught mid-write).
bool ParseInstance(const std::string& text, Instance* instance, std::string* error,
                   bool* transient) {
  Json doc;
  *transient = false;
  if (!ParseJsonObject(text, &doc, error)) {
    *transient = true;
    return false;
  }
  ParseInstanceKind(doc, instance);
  std::string mode;
  instance->read_only = StringField(doc, "mode", &mode) && mode == kReadOnlyMode;
  if (!StringField(doc, "workspace_root", &instance->workspace_root)) {
    *error = "missing or empty string \"workspace_root\"";
    return false;
  }
  if (instance->kind == InstanceKind::kOwner &&
      !StringField(doc, "runtime_root", &instance->runtime_root)) {
    *error = "missing or empty string \"runtime_root\"";
    return false;
  }
  StringField(doc, "graph_source", &instance->graph_source);
  auto heartbeat = doc.find("last_heartbeat_ms");
  instance->last_heartbeat_ms =
      heartbeat != doc.end() && heartbeat->is_number_integer() ? heartbeat->get<std::int64_t>() : 0;
  return true;
}

// Parses project_brain.json into its project root. Every failure is transient: the
// manifest is written without an atomic rename.
bool ParseManifest(const std::string& text, std::string* project_root, std::string* error) {
  Json doc;
  if (!ParseJsonObject(text, &doc, error)) return false;
  std::string schema;
  if (!StringField(doc, "schema", &schema) || schema != kProjectBrainSchema) {
    *error = std::string("schema is not \"") + kProjectBrainSchema + "\"";
    return false;
  }
  if (!StringField(doc, "project_root", project_root)) {
    *error = "missing or empty string \"project_root\"";
    return false;
  }
  return true;
}

// ---- Parses, and how they are kept between scans ----------------------------------

// What project_brain.json gave: its project root, or why it is not a manifest.
struct ManifestParse {
  bool parsed = false;
  std::string project_root;  // when parsed
  std::string error;         // when not parsed
};

// What an instance registry entry gave.
struct InstanceParse {
  bool parsed = false;
  Instance instance;  // when parsed
  std::string error;  // when not parsed
  bool transient = false;
};

// What ingest_roots.json gave.
struct IngestRootsParse {
  bool parsed = false;
  std::vector<std::string> roots;  // when parsed
  std::string error;               // when not parsed
};

ManifestParse ParseManifestText(const std::string& text) {
  ManifestParse result;
  result.parsed = ParseManifest(text, &result.project_root, &result.error);
  return result;
}

InstanceParse ParseInstanceText(const std::string& text) {
  InstanceParse result;
  result.parsed = ParseInstance(text, &result.instance, &result.error, &result.transient);
  return result;
}

IngestRootsParse ParseIngestRootsText(const std::string& text) {
  IngestRootsParse result;
  result.parsed = ParseIngestRoots(text, &result.roots, &result.error);
  return result;
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
  }

  void DropUnseen() {
    manifests.DropUnseen();
    instances.DropUnseen();
    ingest_roots.DropUnseen();
  }

  Options options;
  std::int64_t walk_started_ns = 0;  // by options.now_ns, before the walk read anything
  StampCache<ManifestParse> manifests;
  StampCache<InstanceParse> instances;
  StampCache<IngestRootsParse> ingest_roots;
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
                                ParseManifestText, dir_fd, &name_at);
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

// ---- The walk ---------------------------------------------------------------------

struct OwnerCandidate {
  std::string runtime_dir;  // RealDir
  std::string key;          // RuntimeKey of runtime_dir
  std::string workspace_root;
  std::string ingest_dir;  // the folder holding ingest_roots.json
  bool read_only = false;
  std::int64_t last_heartbeat_ms = 0;
  std::string instance_file;  // file name, for a deterministic tie break
};

// The order in which entries on one runtime root may name its brain: owners before
// read_only attachers, then the freshest heartbeat, then the smallest file name.
bool NamesBrainFirst(const OwnerCandidate& a, const OwnerCandidate& b) {
  return std::tie(a.key, a.read_only, b.last_heartbeat_ms, a.instance_file) <
         std::tie(b.key, b.read_only, a.last_heartbeat_ms, b.instance_file);
}

// What to do when a project-brains/ folder (or a glob match) has no manifest.
enum class MissingManifest { kQuiet, kProblem };

// Collects brains in source priority order, keeping the first per runtime dir.
class Walk {
 public:
  Walk(const std::vector<Brain>& previous, const std::atomic<bool>* stop,
       const Parallelism& parallelism, DiscoveryCache::Impl* cache)
      : stop_(stop), parallelism_(parallelism), previous_brains_(previous), cache_(cache) {}

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
  // Keeps last scan's brain for `key` (if any) when its files could not be read now.
  void CarryOver(const std::string& key);
  // Loads the manifest of `dir` and remembers it in the cache.
  Manifest LoadManifest(const std::string& dir);
  // Records a manifest loaded by ReadManifest in the cache.
  void RememberManifest(const Manifest& manifest);
  // Adds the brain of `dir` (a folder whose RuntimeKey is `key`) from its manifest,
  // read by ReadManifest (or carries the previous one over).
  void AddManifestBrain(const std::string& dir, const std::string& key, const Manifest& manifest,
                        BrainSource source, MissingManifest missing);
  // Lists one project-brains/ folder and adds the brain of every folder in it.
  void AddProjectBrainsIn(const std::string& folder);
  void AddOwner(const OwnerCandidate& owner);
  // Reads ingest_roots.json from `dir`. False (a problem recorded) when it exists but
  // cannot be read or parsed; a missing file is an empty list.
  bool ReadIngestRoots(const std::string& dir, std::vector<std::string>* roots);
  void ReadInstance(const std::string& registry, const std::string& name);
  void Problem(DiscoveryProblemSource source, const std::string& path, const std::string& message,
               bool transient = false);

  const std::atomic<bool>* const stop_;  // may be null
  const Parallelism parallelism_;        // for the folders under project-brains/
  const std::vector<Brain>& previous_brains_;
  DiscoveryCache::Impl* const cache_;             // may be null
  std::map<std::string, const Brain*> previous_;  // by RuntimeKey, built on first use
  bool previous_indexed_ = false;
  std::unordered_set<std::string> claimed_;  // keys of runtime dirs already tried
  std::vector<Brain> brains_;
  std::vector<DiscoveryProblem> problems_;
  std::vector<DiscoveryNotice> notices_;
  std::vector<OwnerCandidate> owners_;
  std::vector<std::string> project_entries_;  // runtime dirs of "project" entries
};

void Walk::Problem(DiscoveryProblemSource source, const std::string& path,
                   const std::string& message, bool transient) {
  problems_.push_back(DiscoveryProblem{source, path, message, transient});
}

void Walk::AddBrain(Brain brain, const std::string& key) {
  if (claimed_.insert(key).second) brains_.push_back(std::move(brain));
}

void Walk::CarryOver(const std::string& key) {
  claimed_.insert(key);
  if (!previous_indexed_) {
    for (const Brain& brain : previous_brains_) {
      previous_.emplace(RuntimeKey(brain.runtime_dir), &brain);
    }
    previous_indexed_ = true;
  }
  auto previous = previous_.find(key);
  if (previous == previous_.end()) return;
  Brain carried = *previous->second;
  carried.name.clear();  // names are assigned afresh; only static names are explicit
  brains_.push_back(std::move(carried));
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
  std::string folder = CleanDir(registry);
  // The default registry need not exist (m1nd never ran here); a named one must.
  struct stat info;
  if (stat(folder.c_str(), &info) != 0) {
    if (!is_default) {
      Problem(DiscoveryProblemSource::kRegistry, folder,
              errno == ENOENT ? "no such folder" : "cannot stat folder: " + ErrnoText(errno));
    }
    return;
  }
  if (!S_ISDIR(info.st_mode))
    return Problem(DiscoveryProblemSource::kRegistry, folder, "not a folder");
  std::string instances = JoinPath(folder, kInstancesDir);
  std::vector<std::string> names;
  std::string error;
  // A registry without an instances/ folder has no instance yet.
  ReadStatus status = ListDir(instances, &names, &error);
  if (status == ReadStatus::kError) Problem(DiscoveryProblemSource::kRegistry, instances, error);
  if (status != ReadStatus::kOk) return;
  for (const std::string& name : names) {
    if (Stopped()) return;
    // m1nd replaces entries through "<id>.tmp"; only finished entries count.
    if (EndsWith(name, kJsonSuffix)) ReadInstance(folder, name);
  }
}

void Walk::ReadInstance(const std::string& registry, const std::string& name) {
  std::string path = JoinPath(JoinPath(registry, kInstancesDir), name);
  StampCache<InstanceParse>* cache = cache_ ? &cache_->instances : nullptr;
  const Loaded<InstanceParse> file =
      LoadSmallFile(path, cache, ReaderOf(cache_), ParseInstanceText);
  if (cache_) Remember(path, file, cache_->walk_started_ns, cache);
  if (file.status == ReadStatus::kMissing) return;  // removed since the listing
  if (file.status == ReadStatus::kError) {
    return Problem(DiscoveryProblemSource::kInstance, path, file.error);
  }
  const InstanceParse& parse = file.parsed();
  if (!parse.parsed) {
    return Problem(DiscoveryProblemSource::kInstance, path, parse.error, parse.transient);
  }
  const Instance& instance = parse.instance;
  if (instance.kind == InstanceKind::kProject) {
    // The workspace root of a project entry is its project-brains/<hex> folder.
    project_entries_.push_back(RealDir(ResolveInRegistry(registry, instance.workspace_root)));
    return;
  }
  if (!instance.unknown_kind.empty()) {
    notices_.push_back(DiscoveryNotice{
        path, "unknown brain_kind " + instance.unknown_kind + ": watched as an owner"});
  }
  OwnerCandidate owner;
  owner.runtime_dir = RealDir(ResolveInRegistry(registry, instance.runtime_root));
  owner.key = RuntimeKey(owner.runtime_dir);
  owner.workspace_root = ResolveInRegistry(registry, instance.workspace_root);
  // ingest_roots.json sits beside the graph snapshot (by default in the runtime root).
  owner.ingest_dir = instance.graph_source.empty()
                         ? owner.runtime_dir
                         : std::filesystem::path(ResolveInRegistry(registry, instance.graph_source))
                               .parent_path()
                               .string();
  owner.read_only = instance.read_only;
  owner.last_heartbeat_ms = instance.last_heartbeat_ms;
  owner.instance_file = name;
  owners_.push_back(std::move(owner));
}

bool Walk::ReadIngestRoots(const std::string& dir, std::vector<std::string>* roots) {
  roots->clear();
  const std::string path = JoinPath(dir, kIngestRootsFileName);
  StampCache<IngestRootsParse>* cache = cache_ ? &cache_->ingest_roots : nullptr;
  const Loaded<IngestRootsParse> file =
      LoadSmallFile(path, cache, ReaderOf(cache_), ParseIngestRootsText);
  if (cache_) Remember(path, file, cache_->walk_started_ns, cache);
  if (file.status == ReadStatus::kMissing) return true;
  if (file.status == ReadStatus::kError) {
    Problem(DiscoveryProblemSource::kIngestRoots, path, file.error);
    return false;
  }
  const IngestRootsParse& parse = file.parsed();
  if (!parse.parsed) {
    // Possibly caught mid-write: retried once it changes.
    Problem(DiscoveryProblemSource::kIngestRoots, path, parse.error, /*transient=*/true);
    return false;
  }
  *roots = parse.roots;
  return true;
}

void Walk::AddOwner(const OwnerCandidate& owner) {
  const std::string& key = owner.key;
  if (claimed_.count(key)) return;  // a static brain, or an entry that names it first
  std::vector<std::string> ingest_roots;
  if (!ReadIngestRoots(owner.ingest_dir, &ingest_roots)) {
    // Naming it after its workspace_root instead could page on a healthy brain.
    return CarryOver(key);
  }
  const OwnerIdentity identity =
      ResolveOwnerIdentity(ingest_roots, owner.workspace_root, IsDirectory);
  Brain brain;
  brain.project_root = identity.root;
  brain.runtime_dir = owner.runtime_dir;
  brain.source = BrainSource::kRegistryOwner;
  brain.identity_source = identity.source;
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
  for (const std::string& dir : project_entries_) {
    if (Stopped()) return;
    const std::string key = RuntimeKey(dir);
    if (claimed_.count(key)) continue;  // found (or tried) by a stronger source
    AddManifestBrain(dir, key, LoadManifest(dir), BrainSource::kRegistryProject,
                     MissingManifest::kQuiet);
  }
  std::set<std::string> roots_seen;
  for (const OwnerCandidate& owner : owners_) {
    if (Stopped()) return;
    if (!roots_seen.insert(owner.key).second) continue;
    AddProjectBrainsIn(RealDir(JoinPath(owner.runtime_dir, kProjectBrainsDir)));
  }
}

void Walk::AddProjectBrainsIn(const std::string& folder) {
  std::vector<std::string> names;
  std::string error;
  ReadStatus status = ListDir(folder, &names, &error);
  if (status == ReadStatus::kError) Problem(DiscoveryProblemSource::kRegistry, folder, error);
  if (status != ReadStatus::kOk) return;
  // Dot-folders are brains being born (.birth-staging-*), committed by rename.
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& name) { return name.front() == '.'; }),
              names.end());
  // Each folder is looked at and its manifest read on a few threads (this is most of
  // a cold discovery); what they found is then added here, in name order.
  struct Found {
    std::string dir;
    std::string key;  // empty: not a folder
    Manifest manifest;
  };
  std::vector<Found> found(names.size());
  const DiscoveryCache::Impl* cache = cache_;  // only read on the threads
  // Folders and manifests are stat'ed from the listed folder: a path walk of one or
  // two names instead of the whole path.
  const FolderFd listed(folder);
  const int at = listed.get();
  auto look = [this, cache, at, &folder, &names, &found](std::size_t i) {
    Found& entry = found[i];
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
    // Claimed before this folder was listed: not read (claimed_ does not change now).
    if (claimed_.count(entry.key) != 0) return;
    entry.manifest =
        symlink ? ReadManifest(entry.dir, cache) : ReadManifest(entry.dir, cache, at, names[i]);
  };
  if (!ParallelFor(names.size(), parallelism_, look, stop_)) return;
  brains_.reserve(brains_.size() + found.size());
  for (const Found& entry : found) {
    if (entry.key.empty()) continue;
    if (!entry.manifest.path.empty()) RememberManifest(entry.manifest);
    if (claimed_.count(entry.key)) continue;
    AddManifestBrain(entry.dir, entry.key, entry.manifest, BrainSource::kRegistryProject,
                     MissingManifest::kQuiet);
  }
}

void Walk::ScanGlob(const std::string& pattern) {
  if (pattern.empty()) return Problem(DiscoveryProblemSource::kGlob, pattern, "empty pattern");
  glob_t matches;
  int result = glob(pattern.c_str(), GLOB_TILDE | GLOB_ONLYDIR, nullptr, &matches);
  if (result == 0) {
    for (size_t i = 0; i < matches.gl_pathc && !Stopped(); ++i) {
      std::string dir = RealDir(matches.gl_pathv[i]);
      // GLOB_ONLYDIR is only a hint to glob(3).
      struct stat info;
      if (stat(dir.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
        const std::string key = InodeKey(info);
        if (claimed_.count(key)) continue;  // found (or tried) by a stronger source
        AddManifestBrain(dir, key, LoadManifest(dir), BrainSource::kGlob,
                         MissingManifest::kProblem);
      }
    }
  } else if (result == GLOB_NOSPACE) {
    Problem(DiscoveryProblemSource::kGlob, pattern, "out of memory");
  } else if (result == GLOB_ABORTED) {
    Problem(DiscoveryProblemSource::kGlob, pattern, "read error");
  } else if (result != GLOB_NOMATCH) {
    Problem(DiscoveryProblemSource::kGlob, pattern,
            "glob failed with code " + std::to_string(result));
  }
  globfree(&matches);
}

Manifest Walk::LoadManifest(const std::string& dir) {
  Manifest manifest = ReadManifest(dir, cache_);
  RememberManifest(manifest);
  return manifest;
}

void Walk::RememberManifest(const Manifest& manifest) {
  if (cache_) Remember(manifest.path, manifest.file, cache_->walk_started_ns, &cache_->manifests);
}

void Walk::AddManifestBrain(const std::string& dir, const std::string& key,
                            const Manifest& manifest, BrainSource source, MissingManifest missing) {
  const std::string& path = manifest.path;
  const Loaded<ManifestParse>& file = manifest.file;
  if (file.status == ReadStatus::kMissing) {
    // Not a brain folder (runtime-jobs/, a brain being born): nothing to watch.
    claimed_.insert(key);
    if (missing == MissingManifest::kProblem) {
      Problem(DiscoveryProblemSource::kManifest, path, std::string("no ") + kProjectBrainManifest);
    }
    return;
  }
  if (file.status == ReadStatus::kError) {
    claimed_.insert(key);
    return Problem(DiscoveryProblemSource::kManifest, path, file.error);
  }
  const ManifestParse& parse = file.parsed();
  if (!parse.parsed) {
    // Possibly caught half written: keep last scan's brain until the next scan.
    Problem(DiscoveryProblemSource::kManifest, path, parse.error, /*transient=*/true);
    return CarryOver(key);
  }
  Brain brain;
  brain.project_root = parse.project_root;
  brain.runtime_dir = dir;
  brain.source = source;
  brain.identity_source = IdentitySource::kManifest;
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
