// The YAML config file: static brains, m1nd registries, runtime globs, scan interval.
// Strict: an unknown key, a duplicate key, a wrong type or a missing file is a
// one-line error naming the file, the line and the key; an empty file (no YAML
// document, or a null one) is an error too, "FILE: config file is empty ...".
#ifndef SCX_EXPORTER_CONFIG_H_
#define SCX_EXPORTER_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/discovery/discovery.h"
#include "engine/skeleton_provenance.h"
#include "engine/store_reader.h"

namespace scx {

// The config file's size cap: a static list of 10,000 named brains whose
// project_root is 50 characters long is 1.75 MB, 150 characters 3.75 MB. Larger
// fleets are found, not listed: m1nd_registries and runtime_globs.
inline constexpr std::int64_t kMaxConfigFileBytes = std::int64_t{4} << 20;

// The shortest scan interval taken (--scan.interval and scan_interval): even a scan
// of a few brains costs CPU, so at 1ms scanning alone took a good part of a core
// (docs/performance.md has a scan's cost); at 100ms it is a small fraction. Not 1s:
// short intervals are how the tests (and a person trying a layout) see a change within
// a second without inotify.
inline constexpr std::chrono::milliseconds kMinScanInterval{100};

struct Config {
  DiscoveryConfig discovery;  // registries default to {DefaultRegistry()}
  std::optional<std::chrono::milliseconds> scan_interval;  // set when the file has one
  std::int64_t max_store_bytes = kDefaultMaxStoreBytes;
  // `prefix_ambiguity_allowed`: prefix ambiguities a person checked (brain, slug).
  std::vector<AllowedAmbiguity> allowed_ambiguity;
};

// The config used when no --config.file is given: the default registry alone
// ($M1ND_REGISTRY_DIR when set, else ~/.m1nd/registry, as m1nd decides it).
Config DefaultConfig();

// Parses YAML text. `file_name` appears in error messages, and relative paths in the
// file are taken relative to its folder. Returns false and
// sets `error` ("FILE:LINE: key 'K': what is wrong") on any problem.
bool ParseConfig(const std::string& yaml_text, const std::string& file_name, Config* config,
                 std::string* error);

// Reads and parses `path`.
bool LoadConfigFile(const std::string& path, Config* config, std::string* error);

}  // namespace scx

#endif  // SCX_EXPORTER_CONFIG_H_
