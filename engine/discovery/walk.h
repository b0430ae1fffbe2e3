// The walk behind DiscoverBrains (discovery.h): it collects the brains of every source
// in priority order (static, registry owners, project brains, globs), keeping the first
// per runtime dir, carries over what cannot be read now, and finishes a Discovery.
// Internal to engine/.
#ifndef SCX_ENGINE_DISCOVERY_WALK_H_
#define SCX_ENGINE_DISCOVERY_WALK_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/parallel_for.h"
#include "engine/discovery/brain_folder.h"
#include "engine/discovery/cache.h"
#include "engine/discovery/disk_access.h"
#include "engine/discovery/owner_identity.h"
#include "engine/discovery/read_folders.h"
#include "engine/discovery/types.h"
#include "engine/discovery/visibility.h"

namespace scx {

// A registry entry that may name the brain of its runtime root.
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
  std::uint32_t pid = 0;      // m1nd's process, whose view names the brain
  std::uint64_t started_at_ms = 0;
  std::uint32_t record_owner = 0;          // the uid owning the instance file
  std::optional<std::uint32_t> dir_owner;  // the runtime dir's, when it could be stat'ed
};

// A "project" registry entry: a live hosted project brain, serving its folder.
struct ProjectEntry {
  std::shared_ptr<const std::string> registry;
  std::string dir;  // RealDir of its workspace_root: the folder it serves
  std::string key;  // RuntimeKey(dir), read once
  std::uint64_t last_heartbeat_ms = 0;
  std::uint32_t pid = 0;  // the m1nd process serving it
  std::uint64_t started_at_ms = 0;
  std::uint32_t record_owner = 0;  // the uid owning the instance file
};

// What to do when a project-brains/ folder (or a glob match) is not a brain's.
enum class MissingManifest { kQuiet, kProblem };

// Collects brains in source priority order, keeping the first per runtime dir. One
// walk per discovery: DiscoverBrains adds each source in turn, then calls Finish.
class DiscoveryWalk {
 public:
  DiscoveryWalk(const std::vector<Brain>& previous, const std::atomic<bool>* stop,
                const Parallelism& parallelism, DiscoveryCache* cache, DiscoveryView view)
      : view_(view),
        stop_(stop),
        parallelism_(parallelism),
        previous_brains_(previous),
        cache_(cache),
        walk_started_ns_(cache != nullptr ? cache->walk_started_ns() : RealtimeNowNs()) {}

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
  // Adds the brain of a folder looked into by LookIntoFolder (or carries the previous
  // one over, or records why it is not a brain).
  void AddFolderBrain(const BrainFolder& folder, BrainSource source, MissingManifest missing,
                      const std::shared_ptr<const std::string>& origin);
  // What the walk keeps of one folder under project-brains/ from when it was looked
  // into until every folder of the listing was (the orphan check needs every root
  // first): the little a brain is made of. A folder AddFolderBrain has more to say
  // about than "a brain" is kept whole. At 100,000 folders, keeping every BrainFolder
  // whole was the exporter's peak of memory.
  struct ListedFolder {
    std::string key;  // its RuntimeKey; empty: not a folder
    std::string dir;
    bool is_brain = false;      // its manifest parsed as a project brain's
    std::string manifest_root;  // that manifest's project_root, when is_brain
    OwnerIdentity identity;     // when is_brain and not kept whole
    // identity.root is manifest_root (then left empty here, not kept twice).
    bool identity_is_manifest_root = false;
    std::unique_ptr<BrainFolder> whole;
  };
  // Keeps of `folder`, looked into and remembered, what AddProjectBrainsIn needs.
  static ListedFolder Summarize(BrainFolder folder);
  // Lists one project-brains/ folder of `registry`'s owner and adds the brain of every
  // folder in it; of several folders claiming one project root, the one m1nd serves.
  // Their roots are probed in `view`, the owner's.
  void AddProjectBrainsIn(const std::string& folder,
                          const std::shared_ptr<const std::string>& registry,
                          const OwnerView& view);
  // Marks in `orphaned` the folders of `listed` that claim a project root another one
  // claims too and that m1nd does not serve, and reports them in orphans_. Every
  // folder's root is needed before the first brain of the listing is added.
  void MarkOrphans(const std::vector<ListedFolder>& listed, std::vector<bool>* orphaned);
  // Of `folders` (indices into `listed`) claiming one project root, the one m1nd serves.
  // Builds served_by_entry_ from project_entries_, once a walk.
  void IndexServedByEntry();
  // A "project" registry entry points at the folder of RuntimeKey `key`.
  bool HasProjectEntry(const std::string& key);
  std::size_t ServedFolder(const std::vector<ListedFolder>& listed,
                           const std::vector<std::size_t>& folders);
  void AddOwner(const OwnerCandidate& owner);
  // The view of the m1nd process `pid` started at `started_at_ms` (0: none known),
  // named in an entry whose file `record_owner` owns, judged once per walk.
  const OwnerView& ViewOf(std::uint32_t pid, std::uint64_t started_at_ms,
                          std::uint32_t record_owner);
  // Reports a record refused or demoted (record_trust.h).
  void Conflict(RegistryConflictReason reason, std::string record_path, std::string runtime_dir,
                std::string detail);
  void ReadInstance(const std::string& registry, const std::string& name);
  void Problem(DiscoveryProblemSource source, const std::string& path, const std::string& message,
               bool transient = false);
  void Debug(const std::string& path, const std::string& message);
  // Reports a folder the walk lists or reads in (Discovery::folders_read).
  void Read(std::string folder, FolderRole role);
  // Now, by the cache's clock (the real one without a cache).
  std::int64_t NowNs() const;
  // Deals with an ingest_roots.json that m1nd would read as an empty list. True when
  // the brain of `key` was carried over instead: text that is not JSON at all, written
  // in the last kStampSettleNs, is likely caught mid-write (a transient problem). An
  // mtime in the future is a notice, and the text is read as m1nd reads it.
  bool IgnoredIngestRoots(const IngestRootsFile& ingest, const std::string& key);

  const DiscoveryView view_;             // as the deployment declares it
  const std::atomic<bool>* const stop_;  // may be null
  const Parallelism parallelism_;        // for the folders under project-brains/
  const std::vector<Brain>& previous_brains_;
  DiscoveryCache* const cache_;                   // may be null
  const std::int64_t walk_started_ns_;            // CLOCK_REALTIME
  std::map<std::string, const Brain*> previous_;  // by RuntimeKey, built on first use
  bool previous_indexed_ = false;
  std::unordered_set<std::string> claimed_;  // keys of runtime dirs already tried
  std::vector<Brain> brains_;
  std::vector<DiscoveryProblem> problems_;
  std::vector<DiscoveryNotice> notices_;
  std::vector<DiscoveryNotice> debug_notes_;
  std::vector<OrphanedFolder> orphans_;
  std::vector<RegistryConflict> conflicts_;
  std::vector<ReadFolder> folders_read_;
  std::vector<OwnerCandidate> owners_;
  std::vector<ProjectEntry> project_entries_;
  std::shared_ptr<const std::string> listed_registry_;  // the one ScanRegistry is listing
  // RuntimeKey of each project entry's folder -> its freshest heartbeat; built on
  // first use, after every registry was read.
  std::unordered_map<std::string, std::uint64_t> served_by_entry_;
  bool served_by_entry_indexed_ = false;
  // ViewOf's answers, by pid, start time and record owner; and, by RuntimeKey, the view
  // of the owner that names each runtime root's brain (AddOwners), for the project
  // brains it hosts.
  std::map<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>, OwnerView> views_;
  std::unordered_map<std::string, const OwnerView*> root_views_;
};

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_WALK_H_
