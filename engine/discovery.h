// Finds the brains to watch, anew on every scan: static brains from the config,
// m1nd instance registries (each owner's bound brain and every project brain under
// its runtime root, dormant ones included) and glob patterns of runtime dirs.
// It only lists and reads; it never writes or holds anything open.
#ifndef SCX_ENGINE_DISCOVERY_H_
#define SCX_ENGINE_DISCOVERY_H_

#include <atomic>
#include <string>
#include <vector>

namespace scx {

inline constexpr char kProjectBrainManifest[] = "project_brain.json";
inline constexpr char kProjectBrainSchema[] = "m1nd-project-brain-v0";
inline constexpr char kDefaultRegistry[] = "~/.m1nd/registry";

// A brain named in the config file.
struct StaticBrain {
  std::string name;          // optional: the `brain` label; empty = from identity
  std::string project_root;  // the repo the brain is bound to
  std::string display_name;  // optional; wins over project_root when non-empty
  std::string runtime_dir;   // the folder holding system_blocks.json
};

struct DiscoveryConfig {
  std::vector<StaticBrain> static_brains;
  std::vector<std::string> registries;     // registry folders; "~" is expanded
  std::vector<std::string> runtime_globs;  // glob(3) patterns of runtime dirs
};

enum class BrainSource { kStatic, kRegistryOwner, kRegistryProject, kGlob };

// "static", "registry_owner", "registry_project", "glob".
const char* BrainSourceName(BrainSource source);

struct Brain {
  std::string name;  // unique within one discovery; the `brain` label
  std::string project_root;
  std::string display_name;
  std::string runtime_dir;  // as discovered, "~" expanded, trailing '/' removed
  BrainSource source = BrainSource::kStatic;
};

// Something discovery could not read. `transient` problems (a manifest caught half
// written) are retried next scan; their brain is carried over from the previous scan.
struct DiscoveryProblem {
  std::string source;  // "registry", "instance", "manifest" or "glob"
  std::string path;
  std::string message;
  bool transient = false;
};

struct Discovery {
  std::vector<Brain> brains;  // names unique, sorted by name
  std::vector<DiscoveryProblem> problems;
  std::vector<std::string> name_collisions;  // one log-ready line per renamed brain
  bool stopped = false;  // `stop` was set: the walk ended early and is incomplete
};

// Discovers every brain. A runtime dir found by more than one source is kept once
// (static before registry before glob). A runtime dir skipped for a transient
// problem keeps the Brain it had in `previous` (if any). Names are then made unique
// by AssignBrainNames, and a brain keeps the label it had in `previous`. When `stop`
// (may be null) becomes true, the walk ends at the next step (between sources,
// registry entries, folders and glob matches) and the result is marked stopped.
Discovery DiscoverBrains(const DiscoveryConfig& config, const std::vector<Brain>& previous,
                         const std::atomic<bool>* stop = nullptr);

// Expands a leading "~" or "~/" with $HOME.
std::string ExpandHome(const std::string& path);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_H_
