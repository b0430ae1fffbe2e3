// Discovery of brains: static brains, m1nd instance registries and runtime globs
// (discovery.h); the walk itself is DiscoveryWalk's (walk.h).
#include "engine/discovery/discovery.h"

#include <stdlib.h>

#include <atomic>
#include <string>
#include <vector>

#include "base/parallel_for.h"
#include "engine/discovery/cache.h"
#include "engine/discovery/paths.h"
#include "engine/discovery/walk.h"

namespace scx {

std::string DefaultRegistry() {
  const char* moved = getenv(kRegistryDirVariable);
  if (moved != nullptr && *moved != '\0') return moved;
  return kDefaultRegistry;
}

Discovery DiscoverBrains(const DiscoveryConfig& config, const std::vector<Brain>& previous,
                         const std::atomic<bool>* stop, const Parallelism& parallelism,
                         DiscoveryCache* cache) {
  if (cache) cache->BeginWalk();
  DiscoveryWalk walk(previous, stop, parallelism, cache, config.view);
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
  if (cache && !discovery.stopped) cache->DropUnseen();
  return discovery;
}

}  // namespace scx
