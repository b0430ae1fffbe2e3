// The YAML config file, strictly checked: every error names the file, line and key.
#include "exporter/config.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "base/yaml_file.h"
#include "base/yaml_keys.h"
#include "exporter/duration.h"

namespace scx {

namespace {

// A file with no YAML document (nothing, blanks or comments) or a null one. Read as
// the defaults, a file that config management empties before writing it again would
// drop every brain it names on a reload, and their alerts would resolve.
constexpr char kEmptyConfigError[] =
    "config file is empty (to run on the defaults, leave out --config.file or write {})";

// The keys named again outside their table row (in cross-checks), spelled once.
constexpr char kName[] = "name";
constexpr char kProjectRoot[] = "project_root";
constexpr char kDisplayName[] = "display_name";

// A string that must not be empty.
bool ReadNonEmpty(YamlReader* reader, const YAML::Node& value, const std::string& path,
                  std::string* out) {
  if (!ReadYamlString(reader, value, path, out)) return false;
  return !out->empty() || reader->Fail(value, path, "is empty");
}

// A list of paths, each resolved against the config file's folder, appended to `out`.
bool ReadPaths(YamlReader* reader, const YAML::Node& value, const std::string& path,
               std::vector<std::string>* out) {
  std::vector<std::string> texts;
  if (!ReadYamlStringList(reader, value, path, &texts)) return false;
  for (const std::string& text : texts) out->push_back(ResolveYamlPath(reader->file_name(), text));
  return true;
}

bool ReadBrain(YamlReader* reader, const YAML::Node& node, const std::string& path,
               StaticBrain* brain) {
  const std::vector<YamlKey> keys = {
      YamlStringKey(kName, &brain->name),
      YamlStringKey(kProjectRoot, &brain->project_root),
      YamlStringKey(kDisplayName, &brain->display_name),
      {"runtime_dir",
       [brain](YamlReader* r, const YAML::Node& value, const std::string& key_path) {
         if (!ReadNonEmpty(r, value, key_path, &brain->runtime_dir)) return false;
         brain->runtime_dir = ResolveYamlPath(r->file_name(), brain->runtime_dir);
         return true;
       },
       "the folder holding system_blocks.json"},
  };
  if (!node.IsMap()) {
    return reader->Fail(node, path, std::string("expected a mapping, got ") + YamlKind(node));
  }
  if (!ReadYamlMap(reader, node, path, keys)) return false;
  if (brain->project_root.empty() && brain->display_name.empty()) {
    return reader->Fail(
        node, YamlKeyPath(path, kProjectRoot),
        std::string("missing: a brain needs ") + kProjectRoot + " or " + kDisplayName);
  }
  return true;
}

bool ReadBrains(YamlReader* reader, const YAML::Node& node, const std::string& path,
                Config* config) {
  if (!node.IsSequence()) {
    return reader->Fail(node, path, std::string("expected a list, got ") + YamlKind(node));
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = YamlItemPath(path, i);
    StaticBrain brain;
    if (!ReadBrain(reader, node[i], item_path, &brain)) return false;
    if (!brain.name.empty() && !names.insert(brain.name).second) {
      return reader->Fail(node[i][kName], YamlKeyPath(item_path, kName),
                          "duplicate brain name \"" + brain.name + "\"");
    }
    config->discovery.static_brains.push_back(std::move(brain));
  }
  return true;
}

// `prefix_ambiguity_allowed`: a list of {brain, slug}, each a prefix ambiguity that a
// person checked (the brain's skeleton names a longer slug, and it is its own).
bool ReadAllowedAmbiguity(YamlReader* reader, const YAML::Node& node, const std::string& path,
                          Config* config) {
  if (!node.IsSequence()) {
    return reader->Fail(node, path, std::string("expected a list, got ") + YamlKind(node));
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string item_path = YamlItemPath(path, i);
    const YAML::Node& entry = node[i];
    if (!entry.IsMap()) {
      return reader->Fail(entry, item_path,
                          std::string("expected a mapping, got ") + YamlKind(entry));
    }
    AllowedAmbiguity allowed;
    auto non_empty = [](std::string* out) -> YamlValueReader {
      return [out](YamlReader* r, const YAML::Node& value, const std::string& key_path) {
        return ReadNonEmpty(r, value, key_path, out);
      };
    };
    if (!ReadYamlMap(
            reader, entry, item_path,
            {{"brain", non_empty(&allowed.brain), ""}, {"slug", non_empty(&allowed.slug), ""}})) {
      return false;
    }
    config->allowed_ambiguity.push_back(std::move(allowed));
  }
  return true;
}

bool ReadScanInterval(YamlReader* reader, const YAML::Node& value, const std::string& path,
                      Config* config) {
  std::string text;
  if (!ReadYamlString(reader, value, path, &text)) return false;
  std::chrono::milliseconds interval;
  if (!ParseDuration(text, &interval)) {
    return reader->Fail(value, path, "expected " + DurationSyntax() + ", got \"" + text + "\"");
  }
  if (interval < kMinScanInterval) {
    return reader->Fail(value, path,
                        "must be at least " + FormatDuration(kMinScanInterval) +
                            " (each scan costs CPU), got \"" + text + "\"");
  }
  config->scan_interval = interval;
  return true;
}

bool ReadMaxStoreBytes(YamlReader* reader, const YAML::Node& value, const std::string& path,
                       Config* config) {
  std::string text;
  if (!ReadYamlString(reader, value, path, &text)) return false;
  std::int64_t bytes = 0;
  std::size_t used = 0;
  try {
    bytes = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || bytes <= 0) {
    return reader->Fail(value, path, "expected a positive number of bytes, got \"" + text + "\"");
  }
  config->max_store_bytes = bytes;
  return true;
}

// The top-level keys, each with what reads its value into `config`.
std::vector<YamlKey> TopLevelKeys(Config* config) {
  auto into = [config](bool (*read)(YamlReader*, const YAML::Node&, const std::string&,
                                    Config*)) -> YamlValueReader {
    return [config, read](YamlReader* reader, const YAML::Node& value, const std::string& path) {
      return read(reader, value, path, config);
    };
  };
  DiscoveryConfig* discovery = &config->discovery;
  return {
      {"scan_interval", into(&ReadScanInterval)},
      {"brains", into(&ReadBrains)},
      {"m1nd_registries",
       [discovery](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         discovery->registries.clear();
         discovery->registries_are_default = false;
         return ReadPaths(reader, value, path, &discovery->registries);
       }},
      {"runtime_globs",
       [discovery](YamlReader* reader, const YAML::Node& value, const std::string& path) {
         return ReadPaths(reader, value, path, &discovery->runtime_globs);
       }},
      {"max_store_bytes", into(&ReadMaxStoreBytes)},
      {"prefix_ambiguity_allowed", into(&ReadAllowedAmbiguity)},
  };
}

// Reads `root`, the parsed file `file_name`, into `config` (left untouched on error).
bool ReadConfig(const YAML::Node& root, const std::string& file_name, Config* config,
                std::string* error) {
  if (root.IsNull()) {
    *error = YamlError(file_name, YAML::Mark::null_mark(), "", kEmptyConfigError);
    return false;
  }
  Config parsed = DefaultConfig();
  YamlReader reader(file_name);
  try {
    ReadYamlMap(&reader, root, "", TopLevelKeys(&parsed));
  } catch (const YAML::Exception& e) {
    *error = YamlError(file_name, e.mark, "", std::string("invalid YAML: ") + e.what());
    return false;
  }
  if (reader.failed()) {
    *error = reader.error();
    return false;
  }
  *config = std::move(parsed);
  return true;
}

}  // namespace

Config DefaultConfig() {
  Config config;
  config.discovery.registries = {DefaultRegistry()};
  config.discovery.registries_are_default = true;
  return config;
}

bool ParseConfig(const std::string& yaml_text, const std::string& file_name, Config* config,
                 std::string* error) {
  YAML::Node root;
  return ParseYamlText(yaml_text, file_name, &root, error) &&
         ReadConfig(root, file_name, config, error);
}

bool LoadConfigFile(const std::string& path, Config* config, std::string* error) {
  YAML::Node root;
  YamlFileLimits limits;
  limits.max_bytes = kMaxConfigFileBytes;
  limits.too_large_hint =
      " (list brains by m1nd_registries or runtime_globs rather than one by one in brains)";
  return LoadYamlFile(path, limits, &root, error) && ReadConfig(root, path, config, error);
}

}  // namespace scx
