// The YAML config file, strictly checked: every error names the file, line and key.
#include "exporter/config.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "base/strings.h"
#include "base/yaml_file.h"
#include "exporter/duration.h"

namespace scx {

namespace {

// A file with no YAML document (nothing, blanks or comments) or a null one. Read as
// the defaults, a file that config management empties before writing it again would
// drop every brain it names on a reload, and their alerts would resolve.
constexpr char kEmptyConfigError[] =
    "config file is empty (to run on the defaults, leave out --config.file or write {})";

// Thrown inside this file only; ParseConfig turns it into the error string.
struct ConfigError {
  YAML::Mark mark;
  std::string key;
  std::string what;
};

[[noreturn]] void Fail(const YAML::Node& node, const std::string& key, const std::string& what) {
  throw ConfigError{node.Mark(), key, what};
}

const char* KindOf(const YAML::Node& node) { return YamlKind(node); }

// A scalar as text; an empty value (`key:` or `key: ""`) is the empty string.
std::string ReadString(const YAML::Node& node, const std::string& key) {
  if (node.IsNull()) return "";
  if (!node.IsScalar()) Fail(node, key, std::string("expected a string, got ") + KindOf(node));
  return node.Scalar();
}

std::vector<std::string> ReadStringList(const YAML::Node& node, const std::string& key) {
  if (!node.IsSequence()) Fail(node, key, std::string("expected a list, got ") + KindOf(node));
  std::vector<std::string> values;
  for (std::size_t i = 0; i < node.size(); ++i) {
    values.push_back(ReadString(node[i], key + "[" + std::to_string(i) + "]"));
  }
  return values;
}

// Checks that every key of `map` is one of `allowed`.
void CheckKeys(const YAML::Node& map, const std::string& prefix,
               const std::set<std::string>& allowed) {
  for (const auto& entry : map) {
    std::string key = entry.first.IsScalar() ? entry.first.Scalar() : "?";
    if (!allowed.count(key)) {
      const std::string known = Join({allowed.begin(), allowed.end()}, ", ");
      Fail(entry.first, prefix + key, "unknown key (known keys: " + known + ")");
    }
  }
}

StaticBrain ReadBrain(const YAML::Node& node, const std::string& key,
                      const std::string& file_name) {
  if (!node.IsMap()) Fail(node, key, std::string("expected a mapping, got ") + KindOf(node));
  CheckKeys(node, key + ".", {"name", "project_root", "display_name", "runtime_dir"});
  StaticBrain brain;
  if (node["name"]) brain.name = ReadString(node["name"], key + ".name");
  if (node["project_root"]) {
    brain.project_root = ReadString(node["project_root"], key + ".project_root");
  }
  if (node["display_name"]) {
    brain.display_name = ReadString(node["display_name"], key + ".display_name");
  }
  if (!node["runtime_dir"])
    Fail(node, key + ".runtime_dir",
         "missing (the folder holding "
         "system_blocks.json)");
  brain.runtime_dir =
      ResolveYamlPath(file_name, ReadString(node["runtime_dir"], key + ".runtime_dir"));
  if (brain.runtime_dir.empty()) Fail(node["runtime_dir"], key + ".runtime_dir", "is empty");
  if (brain.project_root.empty() && brain.display_name.empty()) {
    Fail(node, key + ".project_root", "missing: a brain needs project_root or display_name");
  }
  return brain;
}

void ReadBrains(const YAML::Node& node, const std::string& file_name, Config* config) {
  if (!node.IsSequence()) Fail(node, "brains", std::string("expected a list, got ") + KindOf(node));
  std::set<std::string> names;
  for (std::size_t i = 0; i < node.size(); ++i) {
    std::string key = "brains[" + std::to_string(i) + "]";
    StaticBrain brain = ReadBrain(node[i], key, file_name);
    if (!brain.name.empty() && !names.insert(brain.name).second) {
      Fail(node[i]["name"], key + ".name", "duplicate brain name \"" + brain.name + "\"");
    }
    config->discovery.static_brains.push_back(std::move(brain));
  }
}

// `prefix_ambiguity_allowed`: a list of {brain, slug}, each a prefix ambiguity that a
// person checked (the brain's skeleton names a longer slug, and it is its own).
void ReadAllowedAmbiguity(const YAML::Node& node, Config* config) {
  const std::string list_key = "prefix_ambiguity_allowed";
  if (!node.IsSequence()) Fail(node, list_key, std::string("expected a list, got ") + KindOf(node));
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string key = list_key + "[" + std::to_string(i) + "]";
    const YAML::Node& entry = node[i];
    if (!entry.IsMap()) Fail(entry, key, std::string("expected a mapping, got ") + KindOf(entry));
    CheckKeys(entry, key + ".", {"brain", "slug"});
    AllowedAmbiguity allowed;
    for (const char* field : {"brain", "slug"}) {
      if (!entry[field]) Fail(entry, key + "." + field, "missing");
      std::string value = ReadString(entry[field], key + "." + field);
      if (value.empty()) Fail(entry[field], key + "." + field, "is empty");
      (field[0] == 'b' ? allowed.brain : allowed.slug) = std::move(value);
    }
    config->allowed_ambiguity.push_back(std::move(allowed));
  }
}

void ReadRoot(const YAML::Node& root, const std::string& file_name, Config* config) {
  if (!root.IsMap())
    Fail(root, "(top level)", std::string("expected a mapping, got ") + KindOf(root));
  CheckKeys(root, "",
            {"scan_interval", "brains", "m1nd_registries", "runtime_globs", "max_store_bytes",
             "prefix_ambiguity_allowed"});
  if (root["scan_interval"]) {
    std::string text = ReadString(root["scan_interval"], "scan_interval");
    std::chrono::milliseconds interval;
    if (!ParseDuration(text, &interval)) {
      Fail(root["scan_interval"], "scan_interval",
           "expected " + DurationSyntax() + ", got \"" + text + "\"");
    }
    if (interval < kMinScanInterval) {
      Fail(root["scan_interval"], "scan_interval",
           "must be at least " + FormatDuration(kMinScanInterval) +
               " (each scan costs CPU), got \"" + text + "\"");
    }
    config->scan_interval = interval;
  }
  if (root["brains"]) ReadBrains(root["brains"], file_name, config);
  if (root["m1nd_registries"]) {
    config->discovery.registries.clear();
    config->discovery.registries_are_default = false;
    for (const std::string& path : ReadStringList(root["m1nd_registries"], "m1nd_registries")) {
      config->discovery.registries.push_back(ResolveYamlPath(file_name, path));
    }
  }
  if (root["runtime_globs"]) {
    for (const std::string& glob : ReadStringList(root["runtime_globs"], "runtime_globs")) {
      config->discovery.runtime_globs.push_back(ResolveYamlPath(file_name, glob));
    }
  }
  if (root["prefix_ambiguity_allowed"]) {
    ReadAllowedAmbiguity(root["prefix_ambiguity_allowed"], config);
  }
  if (root["max_store_bytes"]) {
    const YAML::Node& node = root["max_store_bytes"];
    std::string text = ReadString(node, "max_store_bytes");
    std::int64_t bytes = 0;
    std::size_t used = 0;
    try {
      bytes = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != text.size() || bytes <= 0) {
      Fail(node, "max_store_bytes", "expected a positive number of bytes, got \"" + text + "\"");
    }
    config->max_store_bytes = bytes;
  }
}

// Reads `root`, the parsed file `file_name`, into `config` (left untouched on error).
bool ReadConfig(const YAML::Node& root, const std::string& file_name, Config* config,
                std::string* error) {
  if (root.IsNull()) {
    *error = YamlError(file_name, YAML::Mark::null_mark(), "", kEmptyConfigError);
    return false;
  }
  Config parsed = DefaultConfig();
  try {
    ReadRoot(root, file_name, &parsed);
  } catch (const ConfigError& e) {
    *error = YamlError(file_name, e.mark, e.key, e.what);
    return false;
  } catch (const YAML::Exception& e) {
    *error = YamlError(file_name, e.mark, "", std::string("invalid YAML: ") + e.what());
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
