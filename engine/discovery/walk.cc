// The walk behind DiscoverBrains (walk.h).
#include "engine/discovery/walk.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/bounded_glob.h"
#include "base/parallel_for.h"
#include "base/stamp_cache.h"
#include "base/strings.h"
#include "engine/discovery/brain_folder.h"
#include "engine/discovery/brain_names.h"
#include "engine/discovery/cache.h"
#include "engine/discovery/disk_access.h"
#include "engine/discovery/paths.h"
#include "engine/discovery/record_trust.h"
#include "engine/discovery/visibility.h"
#include "engine/m1nd_files.h"

namespace scx {

namespace {

// ---- Instance records, as the walk reads them --------------------------------------

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

std::string UidText(std::optional<std::uint32_t> uid) {
  return uid ? std::to_string(*uid) : std::string("unknown");
}

std::string ForeignOwnerDetail(std::uint32_t record_owner, std::optional<std::uint32_t> dir_owner) {
  return "the record's file belongs to uid " + std::to_string(record_owner) +
         ", the folder it names to uid " + UidText(dir_owner) +
         ": m1nd writes records only for the runtime root its own process opened, so this is "
         "not m1nd's word about that folder; ignored";
}

// The brain of a brain folder `dir` whose identity is `identity`, named `m1nd_name` in
// m1nd's brain list (the basename of its manifest's project_root).
Brain FolderBrain(std::string dir, OwnerIdentity identity, std::string m1nd_name,
                  BrainSource source, const std::shared_ptr<const std::string>& origin) {
  Brain brain;
  brain.project_root = std::move(identity.root);
  brain.runtime_dir = std::move(dir);
  brain.source = source;
  brain.identity_source = identity.source;
  brain.identity_note = std::move(identity.undecided_because);
  brain.m1nd_name = std::move(m1nd_name);
  brain.origin = origin;
  return brain;
}

// Folders under project-brains/ looked into at once: what was read of them is held
// whole only until their batch is summarized (DiscoveryWalk::ListedFolder).
constexpr std::size_t kFoldersPerBatch = 1024;

// False, with why in *why, when `folder` is missing or cannot be searched: what it
// holds is then out of this process' view, not gone.
bool FolderIsVisible(const std::string& folder, std::string* why) {
  *why = WhyRuntimeDirUnseen(ProbeRuntimeDir(folder, /*held_a_store=*/false), false);
  return why->empty();
}

}  // namespace

void DiscoveryWalk::Conflict(RegistryConflictReason reason, std::string record_path,
                             std::string runtime_dir, std::string detail) {
  conflicts_.push_back(
      RegistryConflict{reason, std::move(record_path), std::move(runtime_dir), std::move(detail)});
}

void DiscoveryWalk::Problem(DiscoveryProblemSource source, const std::string& path,
                            const std::string& message, bool transient) {
  problems_.push_back(DiscoveryProblem{source, path, message, transient});
}

std::int64_t DiscoveryWalk::NowNs() const {
  return cache_ != nullptr ? cache_->now_ns() : RealtimeNowNs();
}

void DiscoveryWalk::Debug(const std::string& path, const std::string& message) {
  debug_notes_.push_back(DiscoveryNotice{path, message});
}

void DiscoveryWalk::Read(std::string folder, FolderRole role) {
  folders_read_.push_back(ReadFolder{std::move(folder), role});
}

bool DiscoveryWalk::IgnoredIngestRoots(const IngestRootsFile& ingest, const std::string& key) {
  if (ingest.file.status != ReadStatus::kOk) return false;
  const IngestRootsParse& parse = ingest.file.parsed();
  if (parse.ignored_because.empty()) return false;
  const FileStamp& stamp =
      ingest.file.kept != nullptr ? ingest.file.kept->stamp : ingest.file.stamp;
  // A time past the walk's start is compared with the clock now: written during the
  // walk, or in the future. A future mtime is no sign of a write in progress.
  const std::int64_t now = stamp.mtime_ns > walk_started_ns_ ? NowNs() : walk_started_ns_;
  if (FileTimeIsInFuture(stamp.mtime_ns, now)) {
    notices_.push_back(
        DiscoveryNotice{ingest.path,
                        "mtime is in the future (the clock is behind the file): read as m1nd "
                        "reads it, never taken for a file being written"});
  }
  if (parse.torn && FileTimeIsRecent(stamp.mtime_ns, now)) {
    Problem(DiscoveryProblemSource::kIngestRoots, ingest.path, parse.ignored_because,
            /*transient=*/true);
    if (CarryOver(key)) return true;
    claimed_.erase(key);
  }
  Debug(ingest.path, "read as an empty list, as m1nd reads it: " + parse.ignored_because);
  return false;
}

void DiscoveryWalk::AddBrain(Brain brain, const std::string& key) {
  if (claimed_.insert(key).second) brains_.push_back(std::move(brain));
}

bool DiscoveryWalk::CarryOver(const std::string& key) {
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
void DiscoveryWalk::CarryOverAll(Predicate came_from) {
  for (const Brain& brain : previous_brains_) {
    if (!came_from(brain)) continue;
    if (!claimed_.insert(RuntimeKey(brain.runtime_dir)).second) continue;
    Brain carried = brain;
    carried.name.clear();
    carried.carried_over = true;
    brains_.push_back(std::move(carried));
  }
}

void DiscoveryWalk::AddStatic(const StaticBrain& config) {
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

void DiscoveryWalk::ScanRegistry(const std::string& registry, bool is_default) {
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
  Read(instances, FolderRole::kRegistryEntries);
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

void DiscoveryWalk::ReadInstance(const std::string& registry, const std::string& name) {
  std::string path = JoinPath(JoinPath(registry, kInstancesDir), name);
  const Loaded<InstanceRecordParse> file = LoadSmallFile(
      path, cache_ ? cache_->FindInstance(path) : nullptr, ReaderOf(cache_), ParseInstanceRecord);
  if (cache_) cache_->RememberInstance(path, file);
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
    std::string dir = RealDir(ResolveInRegistry(registry, record.workspace_root));
    std::optional<std::uint32_t> dir_owner;
    std::string key = RuntimeKey(dir, &dir_owner);
    if (!RecordMaySpeakFor(file.owner, dir_owner)) {
      return Conflict(RegistryConflictReason::kForeignOwner, path, dir,
                      ForeignOwnerDetail(file.owner, dir_owner));
    }
    project_entries_.push_back(ProjectEntry{listed_registry_, std::move(dir), std::move(key),
                                            record.last_heartbeat_ms, record.pid,
                                            record.started_at_ms, file.owner});
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
  owner.key = RuntimeKey(owner.runtime_dir, &owner.dir_owner);
  owner.record_owner = file.owner;
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
  owner.pid = record.pid;
  owner.started_at_ms = record.started_at_ms;
  owners_.push_back(std::move(owner));
}

void DiscoveryWalk::AddOwner(const OwnerCandidate& owner) {
  const std::string& key = owner.key;
  if (claimed_.count(key)) return;  // a static brain, or an entry that names it first
  // Beside the graph snapshot, which need not be in the runtime dir.
  if (owner.ingest_dir != owner.runtime_dir) Read(owner.ingest_dir, FolderRole::kBrainFolder);
  const IngestRootsFile ingest = ReadIngestRootsIn(owner.ingest_dir, cache_);
  if (cache_) cache_->RememberIngestRoots(ingest.path, ingest.file);
  std::string unseen_because;
  if (ingest.file.status == ReadStatus::kMissing &&
      !FolderIsVisible(owner.ingest_dir, &unseen_because)) {
    // Not "no ingest roots": the folder that holds them is out of view (unmounted,
    // moved, a hostPath the pod lacks). Named by a later rule, a known brain would be
    // renamed: the last scan's identity stands. A brain never seen is named as m1nd's
    // rules say of an empty list (its store is out of view too: no verdict).
    if (CarryOver(key)) {
      Problem(DiscoveryProblemSource::kIngestRoots, owner.ingest_dir,
              "the folder " + unseen_because + ": the brain keeps its last identity");
      return;
    }
    claimed_.erase(key);  // a failed CarryOver claimed it
  }
  if (ingest.file.status == ReadStatus::kError) {
    Problem(DiscoveryProblemSource::kIngestRoots, ingest.path, ingest.file.error);
    // Named after its workspace_root instead, it could page on a healthy brain: the
    // last scan's identity stands, or none is decided.
    if (CarryOver(key)) return;
  } else if (IgnoredIngestRoots(ingest, key)) {
    return;
  }
  const OwnerIdentity identity =
      IdentityOf(ingest, owner.workspace_root, IdentitySource::kWorkspaceRoot, *root_views_[key]);
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

const OwnerView& DiscoveryWalk::ViewOf(std::uint32_t pid, std::uint64_t started_at_ms,
                                       std::uint32_t record_owner) {
  const auto key = std::make_tuple(pid, started_at_ms, record_owner);
  auto known = views_.find(key);
  if (known != views_.end()) return known->second;
  return views_.emplace(key, ViewOfOwner(view_, pid, started_at_ms, record_owner)).first->second;
}

void DiscoveryWalk::AddOwners() {
  // Whose records count, and in which order they name brains (record_trust.h); the
  // clock is read after every record was.
  const std::int64_t now_ms = NowNs() / 1000000;
  std::vector<RecordClaim> claims;
  claims.reserve(owners_.size());
  for (const OwnerCandidate& owner : owners_) {
    claims.push_back(RecordClaim{owner.key, owner.read_only, owner.last_heartbeat_ms,
                                 owner.instance_file, owner.record_owner, owner.dir_owner});
  }
  const ClaimDecision decision = DecideClaims(claims, now_ms);
  for (const ClaimConflict& conflict : decision.conflicts) {
    const OwnerCandidate& owner = owners_[conflict.claim];
    std::string record_path =
        JoinPath(JoinPath(*owner.registry, kInstancesDir), owner.instance_file);
    if (conflict.reason == RegistryConflictReason::kForeignOwner) {
      Conflict(conflict.reason, std::move(record_path), owner.runtime_dir,
               ForeignOwnerDetail(owner.record_owner, owner.dir_owner));
    } else {
      Conflict(conflict.reason, std::move(record_path), owner.runtime_dir,
               "last_heartbeat_ms " + std::to_string(owner.last_heartbeat_ms) +
                   " is in the future (now " + std::to_string(now_ms) +
                   "): never the freshest; another record on this runtime dir ranks first");
    }
  }
  std::vector<OwnerCandidate> sorted;
  sorted.reserve(decision.order.size());
  for (std::size_t i : decision.order) sorted.push_back(owners_[i]);
  // A refused record names nothing: not even the project brains under its runtime dir.
  std::vector<bool> counts(owners_.size(), false);
  for (std::size_t i : decision.order) counts[i] = true;
  std::vector<OwnerCandidate> kept;
  kept.reserve(decision.order.size());
  for (std::size_t i = 0; i < owners_.size(); ++i) {
    if (counts[i]) kept.push_back(std::move(owners_[i]));
  }
  owners_ = std::move(kept);
  // The entry that names a runtime root's brain is the m1nd process whose view counts,
  // for it and for the project brains under it.
  for (const OwnerCandidate& owner : sorted) {
    if (root_views_.count(owner.key) == 0) {
      root_views_[owner.key] = &ViewOf(owner.pid, owner.started_at_ms, owner.record_owner);
    }
  }
  for (const OwnerCandidate& owner : sorted) {
    if (Stopped()) return;
    AddOwner(owner);
  }
}

void DiscoveryWalk::AddProjectBrains() {
  std::set<std::string> roots_seen;
  for (const OwnerCandidate& owner : owners_) {
    if (Stopped()) return;
    if (!roots_seen.insert(owner.key).second) continue;
    AddProjectBrainsIn(RealDir(JoinPath(owner.runtime_dir, kProjectBrainsDir)), owner.registry,
                       *root_views_[owner.key]);
  }
  // Entries whose folder no owner's project-brains/ holds.
  for (const ProjectEntry& entry : project_entries_) {
    if (Stopped()) return;
    BrainFolder folder;
    folder.dir = entry.dir;
    folder.key = entry.key;
    if (claimed_.count(folder.key)) continue;  // found (or tried) by a stronger source
    LookIntoFolder(cache_, ViewOf(entry.pid, entry.started_at_ms, entry.record_owner), &folder);
    if (cache_) RememberFolder(folder, cache_);
    AddFolderBrain(folder, BrainSource::kRegistryProject, MissingManifest::kQuiet, entry.registry);
  }
}

DiscoveryWalk::ListedFolder DiscoveryWalk::Summarize(BrainFolder folder) {
  ListedFolder listed;
  const Loaded<KeptManifest>& manifest = folder.manifest.file;
  listed.is_brain = manifest.status == ReadStatus::kOk && manifest.parsed().ok;
  if (listed.is_brain) listed.manifest_root = manifest.parsed().project_root;
  const Loaded<IngestRootsParse>& ingest = folder.ingest.file;
  // What AddFolderBrain does with anything else: problems, notes, carry-overs.
  const bool plainly_a_brain =
      listed.is_brain && ingest.status != ReadStatus::kError &&
      (ingest.status != ReadStatus::kOk || ingest.parsed().ignored_because.empty());
  if (plainly_a_brain) {
    listed.key = std::move(folder.key);
    listed.dir = std::move(folder.dir);
    listed.identity = std::move(folder.identity);
    // Most project brains are named by their manifest's root: one copy is kept.
    listed.identity_is_manifest_root = listed.identity.root == listed.manifest_root;
    if (listed.identity_is_manifest_root) std::string().swap(listed.identity.root);
  } else {
    listed.key = folder.key;
    listed.dir = folder.dir;
    listed.whole = std::make_unique<BrainFolder>(std::move(folder));
  }
  return listed;
}

void DiscoveryWalk::AddProjectBrainsIn(const std::string& folder,
                                       const std::shared_ptr<const std::string>& registry,
                                       const OwnerView& view) {
  Read(folder, FolderRole::kBrainFolders);
  std::vector<std::string> names;
  std::string error;
  ReadStatus status = ListDir(folder, &names, &error);
  // Missing because the runtime root around it is out of view, not because it holds
  // no project brain: listing it failed.
  auto hosted_here = [&folder](const Brain& brain) {
    return brain.source == BrainSource::kRegistryProject &&
           ParentFolder(brain.runtime_dir) == folder;
  };
  if (status == ReadStatus::kMissing && !FolderIsVisible(ParentFolder(folder), &error) &&
      std::any_of(previous_brains_.begin(), previous_brains_.end(), hosted_here)) {
    status = ReadStatus::kError;
    error = "its runtime root " + error;
  }
  if (status == ReadStatus::kError) {
    Problem(DiscoveryProblemSource::kRegistry, folder, error);
    // Its brains did not go away: what the last scan knew of them stands.
    return CarryOverAll(hosted_here);
  }
  if (status != ReadStatus::kOk) return;
  // Dot-folders are brains being born (.birth-staging-*), committed by rename.
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const std::string& name) { return name.front() == '.'; }),
              names.end());
  // Each folder is looked at and its files read on a few threads (this is most of a
  // cold discovery), a batch at a time; what they found is then added here, in name
  // order, once every folder was looked into.
  std::vector<ListedFolder> listed(names.size());
  const DiscoveryCache* cache = cache_;  // only read on the threads
  // Folders and their files are stat'ed from the listed folder: a path walk of one or
  // two names instead of the whole path.
  const FolderFd listed_fd(folder);
  const int at = listed_fd.get();
  std::vector<BrainFolder> batch;
  std::size_t first = 0;  // index in `names` of batch[0]
  auto look = [this, cache, at, &view, &folder, &names, &batch, &first](std::size_t j) {
    BrainFolder& entry = batch[j];
    const std::string& name = names[first + j];
    entry.dir = JoinPath(folder, name);
    // One lstat per folder: it tells a folder and gives its key. A symlinked brain
    // folder is named (and keyed) by where it points.
    struct stat info;
    const std::string& name_at = at == AT_FDCWD ? entry.dir : name;
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
      LookIntoFolder(cache, view, &entry);
    } else {
      LookIntoFolder(cache, view, &entry, at, name);
    }
  };
  for (; first < names.size(); first += kFoldersPerBatch) {
    const std::size_t count = std::min(kFoldersPerBatch, names.size() - first);
    batch.assign(count, BrainFolder());
    if (!ParallelFor(count, parallelism_, look, stop_)) return;
    for (std::size_t j = 0; j < count; ++j) {
      if (batch[j].key.empty()) continue;
      if (cache_) RememberFolder(batch[j], cache_);
      listed[first + j] = Summarize(std::move(batch[j]));
    }
  }
  // What the batches no longer need goes before the brains are added.
  std::vector<BrainFolder>().swap(batch);
  std::vector<std::string>().swap(names);
  std::vector<bool> orphaned(listed.size(), false);
  MarkOrphans(listed, &orphaned);
  brains_.reserve(brains_.size() + listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    ListedFolder& entry = listed[i];
    if (entry.key.empty()) continue;
    if (orphaned[i]) {
      claimed_.insert(entry.key);
      continue;
    }
    if (claimed_.count(entry.key)) continue;
    if (entry.whole != nullptr) {
      AddFolderBrain(*entry.whole, BrainSource::kRegistryProject, MissingManifest::kQuiet,
                     registry);
      continue;
    }
    std::string m1nd_name(FileNameOf(entry.manifest_root));
    if (entry.identity_is_manifest_root) entry.identity.root = std::move(entry.manifest_root);
    AddBrain(FolderBrain(std::move(entry.dir), std::move(entry.identity), std::move(m1nd_name),
                         BrainSource::kRegistryProject, registry),
             entry.key);
  }
}

void DiscoveryWalk::MarkOrphans(const std::vector<ListedFolder>& listed,
                                std::vector<bool>* orphaned) {
  // Roots are compared as views into `listed`, and a group is made only for a root
  // claimed twice: nearly every root is claimed once.
  std::unordered_map<std::string_view, std::size_t> first_of_root;  // root -> folder
  std::map<std::size_t, std::vector<std::size_t>> groups;  // first folder -> all of its root
  std::deque<std::string> normalized;                      // roots RootKeyView rewrote
  first_of_root.reserve(listed.size());
  for (std::size_t i = 0; i < listed.size(); ++i) {
    const ListedFolder& entry = listed[i];
    if (entry.key.empty() || !entry.is_brain || claimed_.count(entry.key)) continue;
    // A dormant folder whose root can never be m1nd's key for it is never served; a
    // live one (a "project" entry points at it) is served whatever its manifest says.
    if (!CouldBeCanonicalKey(entry.manifest_root) && !HasProjectEntry(entry.key)) {
      (*orphaned)[i] = true;
      orphans_.push_back(OrphanedFolder{entry.dir, entry.manifest_root, std::string()});
      continue;
    }
    const auto [earlier, inserted] =
        first_of_root.emplace(RootKeyView(entry.manifest_root, &normalized), i);
    if (inserted) continue;
    std::vector<std::size_t>& group = groups[earlier->second];
    if (group.empty()) group.push_back(earlier->second);
    group.push_back(i);
  }
  for (const auto& [earliest, folders] : groups) {
    const std::size_t served = ServedFolder(listed, folders);
    for (std::size_t i : folders) {
      if (i == served) continue;
      (*orphaned)[i] = true;
      orphans_.push_back(
          OrphanedFolder{listed[i].dir, listed[i].manifest_root, listed[served].dir});
    }
  }
}

void DiscoveryWalk::IndexServedByEntry() {
  if (served_by_entry_indexed_) return;
  // A heartbeat in the future is never the freshest (record_trust.h).
  const std::int64_t now_ms = NowNs() / 1000000;
  for (const ProjectEntry& entry : project_entries_) {
    std::uint64_t& heartbeat = served_by_entry_[entry.key];
    heartbeat = std::max(heartbeat, RankedHeartbeat(entry.last_heartbeat_ms, now_ms));
  }
  served_by_entry_indexed_ = true;
}

bool DiscoveryWalk::HasProjectEntry(const std::string& key) {
  IndexServedByEntry();
  return served_by_entry_.count(key) != 0;
}

std::size_t DiscoveryWalk::ServedFolder(const std::vector<ListedFolder>& listed,
                                        const std::vector<std::size_t>& folders) {
  IndexServedByEntry();
  // 1. The folder a "project" registry entry says m1nd serves (the freshest).
  std::size_t best = folders.front();
  bool best_has_entry = false;
  std::uint64_t best_heartbeat = 0;
  for (std::size_t i : folders) {
    auto entry = served_by_entry_.find(listed[i].key);
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
    const std::int64_t mtime = StoreMtimeNs(listed[i].dir);
    if (mtime > best_mtime) {
      best = i;
      best_mtime = mtime;
    }
  }
  return best;
}

void DiscoveryWalk::ScanGlob(const std::string& pattern) {
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
      if (claimed_.count(folder.key)) continue;          // found (or tried) by a stronger source
      LookIntoFolder(cache_, ViewOf(0, 0, 0), &folder);  // no m1nd process is known
      if (cache_) RememberFolder(folder, cache_);
      AddFolderBrain(folder, BrainSource::kGlob, MissingManifest::kProblem, nullptr);
    }
  }
}

void DiscoveryWalk::AddFolderBrain(const BrainFolder& folder, BrainSource source,
                                   MissingManifest missing,
                                   const std::shared_ptr<const std::string>& origin) {
  const std::string& key = folder.key;
  const std::string& path = folder.manifest.path;
  const Loaded<KeptManifest>& file = folder.manifest.file;
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
  AddBrain(FolderBrain(folder.dir, folder.identity, std::string(FileNameOf(parse.project_root)),
                       source, origin),
           key);
}

Discovery DiscoveryWalk::Finish(const std::vector<Brain>& previous) {
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
  discovery.conflicts = std::move(conflicts_);
  discovery.folders_read = std::move(folders_read_);
  std::sort(discovery.orphans.begin(), discovery.orphans.end(),
            [](const OrphanedFolder& a, const OrphanedFolder& b) {
              return a.runtime_dir < b.runtime_dir;
            });
  AssignBrainNames(&discovery.brains, previous, &discovery.name_collisions);
  return discovery;
}

}  // namespace scx
