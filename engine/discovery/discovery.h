// Finds the brains to watch, anew on every scan: static brains from the config,
// m1nd instance registries (each owner's bound brain, named as m1nd names it, and
// every project brain under its runtime root, dormant ones included) and glob
// patterns of runtime dirs. It only lists and reads; it never writes, and holds
// nothing open but the folder it is listing. With a DiscoveryCache (cache.h)
// it opens only the small files that changed.
#ifndef SCX_ENGINE_DISCOVERY_DISCOVERY_H_
#define SCX_ENGINE_DISCOVERY_DISCOVERY_H_

#include <atomic>
#include <string>
#include <vector>

#include "base/parallel_for.h"
#include "engine/discovery/cache.h"  // DiscoveryCache, for callers of DiscoverBrains
#include "engine/discovery/types.h"  // what it is asked and what it finds

namespace scx {

inline constexpr char kDefaultRegistry[] = "~/.m1nd/registry";
// m1nd's own variable for moving its registry.
inline constexpr char kRegistryDirVariable[] = "M1ND_REGISTRY_DIR";

// m1nd's rule for where its registry lives when nothing names one:
// $M1ND_REGISTRY_DIR when set and non-empty, else kDefaultRegistry.
std::string DefaultRegistry();

// Discovers every brain. A runtime dir found by more than one source is kept once
// (static before registry before glob). In a registry, an instance of brain_kind
// null, "medulla" or any unknown value is an owner (an unknown value adds a notice);
// "project" is a project brain. Among the entries on one runtime root the identity
// comes from a read_write one before any "read_only" attacher, then the freshest
// heartbeat, then the smallest instance file name. Under project-brains/, only
// folders holding project_brain.json are brains; the rest is skipped quietly. A
// runtime dir skipped for a transient problem keeps the Brain it had in `previous`
// (if any). Names are then made unique by AssignBrainNames, and a brain keeps the
// label it had in `previous`. When `stop` (may be null) becomes true, the walk ends
// at the next step (between sources, registry entries, folders and glob matches, and
// at every directory a glob lists) and the result is marked stopped. The folders
// under each project-brains/ folder are looked at on `parallelism`'s threads; the result never
// depends on them. With a `cache` (may be null) unchanged small files are known by their stamp
// instead of read; the result never depends on it either.
Discovery DiscoverBrains(const DiscoveryConfig& config, const std::vector<Brain>& previous,
                         const std::atomic<bool>* stop = nullptr,
                         const Parallelism& parallelism = Parallelism{1, 1},
                         DiscoveryCache* cache = nullptr);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_DISCOVERY_H_
