// Parsers of m1nd's small files, accepting what m1nd's serde structs accept.
#include "engine/m1nd_files.h"

#include "engine/slug.h"

#include <limits>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/strings.h"

namespace scx {

namespace {

using Json = nlohmann::json;

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
// How many '[' and '{' the text holds, strings included: an upper bound of how many
// arrays and objects it can open at once.
int CountBrackets(std::string_view text) {
  int count = 0;
  for (const char c : text) count += (c == '[' || c == '{') ? 1 : 0;
  return count;
}

// One field of a record, checked against the type m1nd's struct gives it.
class RecordReader {
 public:
  explicit RecordReader(const Json& doc) : doc_(doc) {}

  const std::string& error() const { return error_; }
  bool ok() const { return error_.empty(); }

  // A required String.
  void RequiredString(const char* key, std::string* value) {
    const Json* field = Find(key);
    if (field == nullptr) return Fail(key, "is missing");
    if (!field->is_string()) return Fail(key, "is not a string");
    if (value != nullptr) *value = field->get<std::string>();
  }

  // A required unsigned integer no larger than `max`.
  void RequiredUnsigned(const char* key, std::uint64_t max, std::uint64_t* value) {
    const Json* field = Find(key);
    if (field == nullptr) return Fail(key, "is missing");
    ReadUnsigned(key, *field, max, value);
  }

  // An Option<String>: absent, null or a string. True when it is a string.
  bool OptionalString(const char* key, std::string* value) {
    const Json* field = Find(key);
    if (field == nullptr || field->is_null()) return false;
    if (!field->is_string()) {
      Fail(key, "is neither null nor a string");
      return false;
    }
    if (value != nullptr) *value = field->get<std::string>();
    return true;
  }

  // An Option<uN>: absent, null or an unsigned integer no larger than `max`.
  void OptionalUnsigned(const char* key, std::uint64_t max) {
    const Json* field = Find(key);
    if (field == nullptr || field->is_null()) return;
    ReadUnsigned(key, *field, max, nullptr);
  }

  // An Option<bool>: absent, null or a bool.
  void OptionalBool(const char* key) {
    const Json* field = Find(key);
    if (field != nullptr && !field->is_null() && !field->is_boolean()) {
      Fail(key, "is neither null nor a boolean");
    }
  }

  // A #[serde(default)] bool: absent or a bool (null is refused).
  void DefaultedBool(const char* key) {
    const Json* field = Find(key);
    if (field != nullptr && !field->is_boolean()) Fail(key, "is not a boolean");
  }

  // A #[serde(default)] Vec<String>: absent or an array of strings.
  void DefaultedStrings(const char* key) {
    const Json* field = Find(key);
    if (field == nullptr) return;
    if (!field->is_array()) return Fail(key, "is not an array");
    for (const Json& element : *field) {
      if (!element.is_string()) return Fail(key, "holds an element that is not a string");
    }
  }

 private:
  const Json* Find(const char* key) const {
    auto it = doc_.find(key);
    return it == doc_.end() ? nullptr : &*it;
  }

  void ReadUnsigned(const char* key, const Json& field, std::uint64_t max, std::uint64_t* value) {
    // serde reads no float (7.0) and no negative number into an unsigned field.
    if (!field.is_number_unsigned()) return Fail(key, "is not an unsigned integer");
    const std::uint64_t number = field.get<std::uint64_t>();
    if (number > max) return Fail(key, "is out of range");
    if (value != nullptr) *value = number;
  }

  void Fail(const char* key, const char* what) {
    if (error_.empty()) error_ = std::string("\"") + key + "\" " + what;
  }

  const Json& doc_;
  std::string error_;
};

constexpr std::uint64_t kMaxU16 = std::numeric_limits<std::uint16_t>::max();
constexpr std::uint64_t kMaxU32 = std::numeric_limits<std::uint32_t>::max();
constexpr std::uint64_t kMaxU64 = std::numeric_limits<std::uint64_t>::max();

}  // namespace

bool IsInstanceFileName(std::string_view name) {
  const std::string_view suffix = kInstanceFileSuffix;
  return name.size() > suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
}

InstanceRecordParse ParseInstanceRecord(std::string_view text) {
  InstanceRecordParse result;
  Json doc;
  if (!ParseLikeSerde(text, /*reject_duplicate_keys=*/true, &doc, &result.error)) return result;
  if (!doc.is_object()) {
    result.error = "not a JSON object";
    return result;
  }
  InstanceRecord& record = result.record;
  RecordReader reader(doc);
  reader.RequiredString("instance_id", &record.instance_id);
  reader.RequiredString("workspace_root", &record.workspace_root);
  reader.RequiredString("runtime_root", &record.runtime_root);
  reader.RequiredString("graph_source", &record.graph_source);
  reader.RequiredString("plasticity_state", nullptr);
  std::uint64_t pid = 0;
  reader.RequiredUnsigned("pid", kMaxU32, &pid);
  record.pid = static_cast<std::uint32_t>(pid);
  reader.OptionalString("bind", nullptr);
  reader.OptionalUnsigned("port", kMaxU16);
  reader.RequiredUnsigned("started_at_ms", kMaxU64, &record.started_at_ms);
  reader.RequiredUnsigned("last_heartbeat_ms", kMaxU64, &record.last_heartbeat_ms);
  reader.RequiredString("mode", &record.mode);
  reader.RequiredString("status", nullptr);
  reader.OptionalBool("owner_live");
  reader.DefaultedBool("stale");
  reader.DefaultedStrings("conflicts");
  record.has_brain_kind = reader.OptionalString("brain_kind", &record.brain_kind);
  if (!reader.ok()) {
    result.error = reader.error();
    return result;
  }
  result.ok = true;
  return result;
}

ManifestParse ParseProjectBrainManifest(std::string_view text) {
  ManifestParse result;
  Json doc;
  if (!ParseLikeSerde(text, /*reject_duplicate_keys=*/false, &doc, &result.error)) {
    result.torn = true;
    return result;
  }
  if (!doc.is_object()) {
    result.error = "not a JSON object";
    return result;
  }
  auto root = doc.find("project_root");
  if (root == doc.end() || !root->is_string()) {
    result.error = "no string \"project_root\"";
    return result;
  }
  result.project_root = root->get<std::string>();
  result.ok = true;
  return result;
}

IngestRootsParse ParseIngestRootsAsM1nd(std::string_view text) {
  IngestRootsParse result;
  Json doc;
  std::string error;
  if (!ParseLikeSerde(text, /*reject_duplicate_keys=*/false, &doc, &error)) {
    result.ignored_because = std::move(error);
    result.torn = true;
    return result;
  }
  if (!doc.is_array()) {
    result.ignored_because = "not a JSON array";
    return result;
  }
  for (const Json& element : doc) {
    if (!element.is_string()) {
      result.roots.clear();
      result.ignored_because = "an element is not a string";
      return result;
    }
    result.roots.push_back(element.get<std::string>());
  }
  return result;
}

std::string_view FileNameOf(std::string_view path) {
  while (!path.empty()) {
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    const std::string_view::size_type slash = path.rfind('/');
    const std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (last == "..") return std::string_view();
    if (!last.empty() && last != ".") return last;
    if (slash == std::string_view::npos) return std::string_view();
    path = path.substr(0, slash);
  }
  return std::string_view();
}

bool CouldBeCanonicalKey(std::string_view root) {
  return !root.empty() && TrimWhiteSpace(root).size() == root.size() && root.back() != '/';
}

bool ParseLikeSerde(std::string_view text, bool reject_duplicate_keys, Json* doc,
                    std::string* error) {
  if (StartsWith(text, kUtf8Bom)) {
    *error = "starts with a byte-order mark";
    return false;
  }
  // Fewer brackets in all than serde's limit cannot nest too deep: then, unless keys
  // are checked too, nlohmann parses without a callback at every token (a cold
  // discovery parses a manifest per project brain).
  if (!reject_duplicate_keys && CountBrackets(text) < kSerdeRecursionLimit) {
    try {
      *doc = Json::parse(text.begin(), text.end());
    } catch (const Json::exception& e) {
      *error = std::string("not valid JSON: ") + e.what();
      return false;
    }
    return true;
  }
  std::set<std::string> keys;
  std::string duplicate;
  bool too_deep = false;
  auto check = [&](int depth, Json::parse_event_t event, Json& parsed) {
    // `depth` counts the containers open around the one starting here.
    if ((event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start) &&
        depth + 1 >= kSerdeRecursionLimit) {
      too_deep = true;
      return false;  // not built: memory stays bounded however deep the text nests
    }
    if (event == Json::parse_event_t::key && depth == 1 && reject_duplicate_keys &&
        parsed.is_string() && !keys.insert(parsed.get<std::string>()).second) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  try {
    *doc = Json::parse(text.begin(), text.end(), check);
  } catch (const Json::exception& e) {
    *error = std::string("not valid JSON: ") + e.what();
    return false;
  }
  if (too_deep) {
    *error = std::to_string(kSerdeRecursionLimit) + " or more arrays and objects nested";
    return false;
  }
  if (!duplicate.empty()) {
    *error = "key \"" + duplicate + "\" appears twice";
    return false;
  }
  return true;
}

}  // namespace scx
