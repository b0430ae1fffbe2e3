// Table-driven strict reading of YAML mappings.
#include "base/yaml_keys.h"

#include <algorithm>
#include <map>
#include <utility>

#include "base/strings.h"
#include "base/yaml_file.h"

namespace scx {

namespace {

// "expected KIND, got a list", or at the top level "expected KIND at the top level, ...".
std::string Expected(const char* kind, const std::string& path, const YAML::Node& node) {
  return std::string("expected ") + kind + (path.empty() ? " at the top level" : "") + ", got " +
         YamlKind(node);
}

// Checks that `map` is a mapping (or null) whose keys are distinct strings, and hands
// each entry to `visit` in the file's order. The one walk ReadYamlMap and
// ReadYamlEntries share.
bool VisitEntries(YamlReader* reader, const YAML::Node& map, const std::string& path,
                  const std::function<bool(const YAML::Node& key, const std::string& name,
                                           const YAML::Node& value)>& visit) {
  if (map.IsNull()) return true;
  if (!map.IsMap()) return reader->Fail(map, path, Expected("a mapping", path, map));
  std::map<std::string, YAML::Mark> first_seen;
  for (const auto& entry : map) {
    if (!entry.first.IsScalar()) {
      return reader->Fail(entry.first, YamlKeyPath(path, "?"),
                          std::string("expected a string as a key, got ") + YamlKind(entry.first));
    }
    const std::string name = entry.first.Scalar();
    const auto [seen, inserted] = first_seen.emplace(name, entry.first.Mark());
    if (!inserted) {
      return reader->Fail(entry.first, YamlKeyPath(path, name), DuplicateKeyProblem(seen->second));
    }
    if (!visit(entry.first, name, entry.second)) return false;
  }
  return true;
}

std::string KnownKeys(const std::vector<YamlKey>& keys) {
  std::vector<std::string> names;
  names.reserve(keys.size());
  for (const YamlKey& key : keys) names.push_back(key.name);
  std::sort(names.begin(), names.end());
  return Join(names, ", ");
}

}  // namespace

bool YamlReader::Fail(const YAML::Node& node, const std::string& path, const std::string& what) {
  if (error_.empty()) error_ = YamlError(file_name_, node.Mark(), path, what);
  return false;
}

bool ReadYamlMap(YamlReader* reader, const YAML::Node& map, const std::string& path,
                 const std::vector<YamlKey>& keys) {
  std::vector<bool> present(keys.size(), false);
  const bool read = VisitEntries(
      reader, map, path,
      [&](const YAML::Node& key, const std::string& name, const YAML::Node& value) {
        const auto row = std::find_if(keys.begin(), keys.end(), [&](const YamlKey& candidate) {
          return candidate.name == name;
        });
        if (row == keys.end()) {
          return reader->Fail(key, YamlKeyPath(path, name),
                              "unknown key (known keys: " + KnownKeys(keys) + ")");
        }
        present[static_cast<std::size_t>(row - keys.begin())] = true;
        return row->read(reader, value, YamlKeyPath(path, name));
      });
  if (!read) return false;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (present[i] || keys[i].required == nullptr) continue;
    const std::string why = keys[i].required;
    return reader->Fail(map, YamlKeyPath(path, keys[i].name),
                        why.empty() ? "missing" : "missing (" + why + ")");
  }
  return true;
}

bool ReadYamlEntries(YamlReader* reader, const YAML::Node& map, const std::string& path,
                     const std::function<bool(const std::string& key, const YAML::Node& value,
                                              const std::string& path)>& read) {
  return VisitEntries(
      reader, map, path,
      [&](const YAML::Node& /*key*/, const std::string& name, const YAML::Node& value) {
        return read(name, value, YamlKeyPath(path, name));
      });
}

bool ReadYamlString(YamlReader* reader, const YAML::Node& value, const std::string& path,
                    std::string* out) {
  if (value.IsNull()) {
    out->clear();
    return true;
  }
  if (!value.IsScalar()) return reader->Fail(value, path, Expected("a string", path, value));
  *out = value.Scalar();
  return true;
}

bool ReadYamlStringList(YamlReader* reader, const YAML::Node& value, const std::string& path,
                        std::vector<std::string>* out) {
  if (!value.IsSequence()) return reader->Fail(value, path, Expected("a list", path, value));
  std::vector<std::string> items(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!ReadYamlString(reader, value[i], YamlItemPath(path, i), &items[i])) return false;
  }
  *out = std::move(items);
  return true;
}

bool ReadYamlBool(YamlReader* reader, const YAML::Node& value, const std::string& path, bool* out) {
  const std::string text = value.IsScalar() ? value.Scalar() : "";
  if (text == "true" || text == "True" || text == "TRUE") {
    *out = true;
  } else if (text == "false" || text == "False" || text == "FALSE") {
    *out = false;
  } else if (value.IsScalar()) {
    return reader->Fail(value, path, "expected true or false, got \"" + text + "\"");
  } else {
    return reader->Fail(value, path, Expected("true or false", path, value));
  }
  return true;
}

YamlKey YamlStringKey(std::string name, std::string* out) {
  return {std::move(name),
          [out](YamlReader* reader, const YAML::Node& value, const std::string& path) {
            return ReadYamlString(reader, value, path, out);
          }};
}

YamlKey YamlStringListKey(std::string name, std::vector<std::string>* out) {
  return {std::move(name),
          [out](YamlReader* reader, const YAML::Node& value, const std::string& path) {
            return ReadYamlStringList(reader, value, path, out);
          }};
}

YamlKey YamlBoolKey(std::string name, bool* out) {
  return {std::move(name),
          [out](YamlReader* reader, const YAML::Node& value, const std::string& path) {
            return ReadYamlBool(reader, value, path, out);
          }};
}

}  // namespace scx
