// Start-up log of what discovery will look at.
#include "exporter/watched_sources.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include "base/strings.h"
#include "engine/discovery/paths.h"

namespace scx {

namespace {

bool IsDirectory(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

}  // namespace

void LogWatchedSources(const DiscoveryConfig& config, Logger* logger) {
  std::vector<std::string> registries;
  for (const std::string& registry : config.registries) registries.push_back(ExpandHome(registry));
  std::vector<std::string> static_dirs;
  for (const StaticBrain& brain : config.static_brains) {
    static_dirs.push_back(ExpandHome(brain.runtime_dir));
  }
  logger->Info("watching", {{"m1nd_registries", Join(registries, ",")},
                            {"runtime_globs", Join(config.runtime_globs, ",")},
                            {"static_brains", Join(static_dirs, ",")},
                            {"discovery_view", DiscoveryViewName(config.view)}});
  if (!config.registries_are_default) return;
  for (const std::string& registry : registries) {
    if (IsDirectory(registry)) continue;
    logger->Warn("the default m1nd registry does not exist; no registry brain can be found",
                 {{"path", registry},
                  {"hint", std::string("set m1nd_registries in the config file or ") +
                               kRegistryDirVariable}});
  }
}

}  // namespace scx
