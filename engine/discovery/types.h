// What discovery is asked (DiscoveryConfig) and what it finds (Discovery: brains,
// orphaned folders, problems, the folders it read): plain data, shared by the walk
// (walk.h) and the callers of DiscoverBrains (discovery.h), which turns one into the
// other.
#ifndef SCX_ENGINE_DISCOVERY_TYPES_H_
#define SCX_ENGINE_DISCOVERY_TYPES_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/rare_string.h"
#include "engine/discovery/owner_identity.h"
#include "engine/discovery/read_folders.h"
#include "engine/discovery/record_trust.h"
#include "engine/discovery/visibility.h"
#include "engine/vocabulary.h"

namespace scx {

// A brain named in the config file.
struct StaticBrain {
  std::string name;          // optional: the `brain` label; empty = from identity
  std::string project_root;  // the repo the brain is bound to
  std::string display_name;  // optional; wins over project_root when non-empty
  std::string runtime_dir;   // the folder holding system_blocks.json
};

// What one runtime_globs pattern may read while it expands: ten times the entries
// `/srv/m1nd/*/project-brains/*` reads over 10,000 brains, so that a pattern that loops
// through symlinks ends in about a second; a stop ends it at once.
inline constexpr std::int64_t kMaxGlobEntries = 100000;

struct DiscoveryConfig {
  std::vector<StaticBrain> static_brains;
  std::vector<std::string> registries;  // registry folders; "~" is expanded
  // glob(3) patterns of runtime dirs; each may read at most kMaxGlobEntries
  // directory entries (else a discovery problem, and none of its matches is watched)
  std::vector<std::string> runtime_globs;
  // True when `registries` is the implicit default (DefaultRegistry()) rather than
  // named in the config: then a registry folder that does not exist is no problem.
  bool registries_are_default = false;
  // How this process sees the file system compared with m1nd (--discovery.view):
  // decides whether an ingest root it does not find is gone or hidden from it.
  DiscoveryView view = DiscoveryView::kAuto;
};

enum class BrainSource { kStatic, kRegistryOwner, kRegistryProject, kGlob };

inline constexpr Term<BrainSource> kBrainSources[] = {
    {BrainSource::kStatic, "static"},
    {BrainSource::kRegistryOwner, "registry_owner"},
    {BrainSource::kRegistryProject, "registry_project"},
    {BrainSource::kGlob, "glob"},
};

inline const char* BrainSourceName(BrainSource source) { return NameOf(kBrainSources, source); }

// What discovery was reading when it met a problem.
enum class DiscoveryProblemSource { kRegistry, kInstance, kIngestRoots, kManifest, kGlob };

inline constexpr Term<DiscoveryProblemSource> kDiscoveryProblemSources[] = {
    {DiscoveryProblemSource::kRegistry, "registry"},
    {DiscoveryProblemSource::kInstance, "instance"},
    {DiscoveryProblemSource::kIngestRoots, "ingest_roots"},
    {DiscoveryProblemSource::kManifest, "manifest"},
    {DiscoveryProblemSource::kGlob, "glob"},
};

inline const char* DiscoveryProblemSourceName(DiscoveryProblemSource source) {
  return NameOf(kDiscoveryProblemSources, source);
}

struct Brain {
  std::string name;  // unique within one discovery; the `brain` label
  // The root whose basename names the brain: the configured project_root, the
  // manifest's project_root, or the root m1nd's own rule picks for an owner.
  std::string project_root;
  RareString display_name;  // a static brain's, when configured: nearly always empty
  std::string runtime_dir;  // as discovered, "~" expanded, trailing '/' removed
  BrainSource source = BrainSource::kStatic;
  IdentitySource identity_source = IdentitySource::kConfigProjectRoot;
  // When identity_source is kUnknown (project_root is then empty): why it could not
  // be decided, for people. The brain gets no verdict.
  RareString identity_note;
  // m1nd's own name for the brain in its brain list, so that an operator finds it
  // there: "medulla" for an owner served over HTTP, the basename of a sibling owner's
  // workspace_root, the raw basename of a project brain's root. Empty for static brains.
  std::string m1nd_name;
  // Kept from the previous scan because the folder it was found in could not be
  // listed (or its files read) now: its verdict is marked stale.
  bool carried_over = false;
  // The registry folder (registry owners and project brains) it was found through,
  // for carrying it over when that registry cannot be listed; null otherwise. Shared
  // by the brains of one registry (a copy per brain would cost an allocation each).
  std::shared_ptr<const std::string> origin;
};

// A folder under project-brains/ whose manifest claims a project root that another
// folder of the same owner serves: an older m1nd build left it behind. m1nd never
// serves its store, so it gets no verdict and no page; it is only reported.
struct OrphanedFolder {
  std::string runtime_dir;
  std::string project_root;  // as its manifest says
  // The folder m1nd serves for that root; empty when it serves none for this
  // manifest: its root can never be m1nd's key (CouldBeCanonicalKey).
  std::string served_runtime_dir;
};

// Something discovery could not read. `transient` problems (a manifest caught half
// written) are retried next scan; their brain is carried over from the previous scan.
struct DiscoveryProblem {
  DiscoveryProblemSource source = DiscoveryProblemSource::kRegistry;
  std::string path;
  std::string message;
  bool transient = false;
};

// Something worth a warning that is not a failure: the brain is still watched.
struct DiscoveryNotice {
  std::string path;
  std::string message;
};

// A registry record refused or demoted (record_trust.h): one log line when first seen,
// and skeleton_coherence_exporter_registry_conflicts{reason}. The brain it claimed is
// decided as if the record were not there (refused) or had no heartbeat (demoted).
struct RegistryConflict {
  RegistryConflictReason reason = RegistryConflictReason::kForeignOwner;
  std::string record_path;  // the instance file
  std::string runtime_dir;  // the runtime dir (or project brain folder) it names
  std::string detail;       // for people
};

struct Discovery {
  std::vector<Brain> brains;  // names unique, sorted by name
  std::vector<DiscoveryProblem> problems;
  std::vector<DiscoveryNotice> notices;  // e.g. an instance of an unknown brain_kind
  // What m1nd itself skips or reads as empty, for debug lines: a registry entry that
  // is not a whole instance record, an ingest_roots.json that is not a list of paths,
  // a project_brain.json without a string project_root.
  std::vector<DiscoveryNotice> debug_notes;
  std::vector<OrphanedFolder> orphans;       // sorted by runtime_dir
  std::vector<RegistryConflict> conflicts;   // in registry and file order
  std::vector<std::string> name_collisions;  // one log-ready line per renamed brain
  // The folders the walk listed or read a small file in, beside every brain's
  // runtime_dir (which holds the brain's files, a FolderRole::kBrainFolder, and is
  // not repeated here): a change there can change what the next discovery finds.
  // In walk order; a folder may appear twice.
  std::vector<ReadFolder> folders_read;
  bool stopped = false;  // `stop` was set: the walk ended early and is incomplete
};

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_TYPES_H_
