// libFuzzer target: the registry's instance records (engine/m1nd_files.h,
// ParseInstanceRecord) on any bytes, and IsInstanceFileName on them as a file name.
// Invariants: it returns, never throws, and gives the same result twice; a refusal
// says why, an acceptance says nothing; a text with a UTF-8 byte-order mark is never
// a record; a record is exactly a text that is JSON as serde reads it
// (fuzz/json_text_facts.h), with no top-level key twice and the fields m1nd's struct
// declares of their types (the header's contract, restated here from the document
// nlohmann reads); its fields are the document's; written back with nlohmann (compact
// and pretty, as m1nd writes it, with an unknown key added) it reads back the same,
// and with any required field removed it is refused for that field; each field given
// a value of every JSON type is accepted exactly when the contract allows that type,
// and given twice is refused.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/m1nd_files.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/json_text_facts.h"

namespace {

using Json = nlohmann::json;

constexpr const char* kRequiredStrings[] = {"instance_id",  "workspace_root",   "runtime_root",
                                            "graph_source", "plasticity_state", "mode",
                                            "status"};
constexpr const char* kRequiredUnsigned[] = {"pid", "started_at_ms", "last_heartbeat_ms"};

bool UnsignedUpTo(const Json& value, std::uint64_t max) {
  return value.is_number_unsigned() && value.get<std::uint64_t>() <= max;
}

// The header's contract for a record, read from nlohmann's document.
bool MeetsRecordContract(const Json& doc) {
  if (!doc.is_object()) return false;
  for (const char* key : kRequiredStrings) {
    if (!doc.contains(key) || !doc.at(key).is_string()) return false;
  }
  if (!doc.contains("pid") ||
      !UnsignedUpTo(doc.at("pid"), std::numeric_limits<std::uint32_t>::max())) {
    return false;
  }
  for (const char* key : {"started_at_ms", "last_heartbeat_ms"}) {
    if (!doc.contains(key) || !doc.at(key).is_number_unsigned()) return false;
  }
  auto absent_null_or = [&](const char* key, auto&& is_type) {
    return !doc.contains(key) || doc.at(key).is_null() || is_type(doc.at(key));
  };
  if (!absent_null_or("bind", [](const Json& v) { return v.is_string(); })) return false;
  if (!absent_null_or("port", [](const Json& v) {
        return UnsignedUpTo(v, std::numeric_limits<std::uint16_t>::max());
      })) {
    return false;
  }
  if (!absent_null_or("owner_live", [](const Json& v) { return v.is_boolean(); })) return false;
  if (!absent_null_or("brain_kind", [](const Json& v) { return v.is_string(); })) return false;
  if (doc.contains("stale") && !doc.at("stale").is_boolean()) return false;
  if (doc.contains("conflicts")) {
    const Json& conflicts = doc.at("conflicts");
    if (!conflicts.is_array()) return false;
    for (const Json& element : conflicts) {
      if (!element.is_string()) return false;
    }
  }
  return true;
}

bool SameRecord(const scx::InstanceRecord& a, const scx::InstanceRecord& b) {
  return a.instance_id == b.instance_id && a.workspace_root == b.workspace_root &&
         a.runtime_root == b.runtime_root && a.graph_source == b.graph_source && a.mode == b.mode &&
         a.has_brain_kind == b.has_brain_kind && a.brain_kind == b.brain_kind &&
         a.last_heartbeat_ms == b.last_heartbeat_ms;
}

void CheckSameParse(const scx::InstanceRecordParse& a, const scx::InstanceRecordParse& b) {
  SCX_FUZZ_CHECK(a.ok == b.ok);
  SCX_FUZZ_CHECK(a.error == b.error);
  if (a.ok) SCX_FUZZ_CHECK(SameRecord(a.record, b.record));
}

// The record as m1nd writes it: its fields, and the others with values of their types.
Json Written(const scx::InstanceRecord& record) {
  Json doc = Json::object();
  doc["instance_id"] = record.instance_id;
  doc["workspace_root"] = record.workspace_root;
  doc["runtime_root"] = record.runtime_root;
  doc["graph_source"] = record.graph_source;
  doc["plasticity_state"] = record.runtime_root + "/plasticity_state.json";
  doc["pid"] = std::numeric_limits<std::uint32_t>::max();
  doc["bind"] = "127.0.0.1";
  doc["port"] = 1337;
  doc["started_at_ms"] = std::uint64_t{1767484800000};
  doc["last_heartbeat_ms"] = record.last_heartbeat_ms;
  doc["mode"] = record.mode;
  doc["status"] = "running";
  doc["owner_live"] = true;
  doc["stale"] = false;
  doc["conflicts"] = Json::array({record.workspace_root});
  doc["brain_kind"] = record.has_brain_kind ? Json(record.brain_kind) : Json(nullptr);
  return doc;
}

// What ParseInstanceRecord should say of `text`, from the facts and the contract.
bool ExpectedOk(std::string_view text) {
  const scx_fuzz::JsonTextFacts facts = scx_fuzz::FactsOf(text);
  return facts.JsonLikeSerde() && !facts.duplicate_top_key &&
         MeetsRecordContract(scx_fuzz::DocumentOf(text));
}

void CheckRoundTrip(const scx::InstanceRecord& record) {
  Json doc = Written(record);
  for (const std::string& text : {doc.dump(), doc.dump(2)}) {
    const scx::InstanceRecordParse again = scx::ParseInstanceRecord(text);
    SCX_FUZZ_CHECK(again.ok && again.error.empty());
    SCX_FUZZ_CHECK(SameRecord(again.record, record));
    SCX_FUZZ_CHECK(!scx::ParseInstanceRecord(std::string(scx_fuzz::kUtf8Bom) + text).ok);
  }
  Json newer = doc;
  newer["m1nd_future_field"] = Json::object({{"nested", Json::array({1, "two", nullptr})}});
  const scx::InstanceRecordParse with_unknown = scx::ParseInstanceRecord(newer.dump());
  SCX_FUZZ_CHECK(with_unknown.ok && SameRecord(with_unknown.record, record));

  for (const char* key : kRequiredStrings) {
    Json missing = doc;
    missing.erase(key);
    const scx::InstanceRecordParse refused = scx::ParseInstanceRecord(missing.dump());
    SCX_FUZZ_CHECK(!refused.ok && refused.error.find(key) != std::string::npos);
  }
  for (const char* key : kRequiredUnsigned) {
    Json missing = doc;
    missing.erase(key);
    const scx::InstanceRecordParse refused = scx::ParseInstanceRecord(missing.dump());
    SCX_FUZZ_CHECK(!refused.ok && refused.error.find(key) != std::string::npos);
  }
}

// Every field of a good record, and an unknown one, given a value of every JSON type
// and the integers at the edges of the fields' ranges: accepted exactly when the
// contract allows it, refused for that field otherwise; the optional fields removed.
void CheckFieldTypes(const scx::InstanceRecord& record) {
  const Json doc = Written(record);
  const Json values[] = {nullptr,
                         true,
                         "s",
                         Json::array(),
                         Json::array({"s"}),
                         Json::array({nullptr}),
                         Json::object(),
                         -1,
                         7.0,
                         0,
                         65535,
                         65536,
                         std::uint64_t{4294967295},
                         std::uint64_t{4294967296},
                         std::numeric_limits<std::uint64_t>::max()};
  std::vector<std::string> keys;
  for (const auto& item : doc.items()) keys.push_back(item.key());
  keys.push_back("m1nd_future_field");
  for (const std::string& key : keys) {
    for (const Json& value : values) {
      Json changed = doc;
      changed[key] = value;
      const std::string text = changed.dump();
      const scx::InstanceRecordParse parse = scx::ParseInstanceRecord(text);
      SCX_FUZZ_CHECK(parse.ok == ExpectedOk(text));
      if (!parse.ok) SCX_FUZZ_CHECK(parse.error.find("\"" + key + "\"") != std::string::npos);
    }
  }
  for (const char* key : {"bind", "port", "owner_live", "stale", "conflicts", "brain_kind"}) {
    Json without = doc;
    without.erase(key);
    SCX_FUZZ_CHECK(scx::ParseInstanceRecord(without.dump()).ok);
  }
  // Any field twice, even with the same value: refused for it; a key twice in a
  // nested object: no matter.
  std::string open_text = doc.dump();
  open_text.pop_back();  // the closing '}'
  for (const auto& item : doc.items()) {
    const std::string text = open_text + ",\"" + item.key() + "\":" + item.value().dump() + "}";
    const scx::InstanceRecordParse twice = scx::ParseInstanceRecord(text);
    SCX_FUZZ_CHECK(!twice.ok && twice.error.find("\"" + item.key() + "\"") != std::string::npos);
    SCX_FUZZ_CHECK(!ExpectedOk(text));
  }
  const std::string nested_twice = open_text + ",\"m1nd_future_field\":{\"pid\":1,\"pid\":2}}";
  SCX_FUZZ_CHECK(scx::ParseInstanceRecord(nested_twice).ok && ExpectedOk(nested_twice));
  // An unknown field nested around the depth limit (fuzz/json_text_facts.h).
  for (int depth = scx_fuzz::kSerdeContainerLimit - 2; depth <= scx_fuzz::kSerdeContainerLimit + 1;
       ++depth) {
    const std::string text = open_text + ",\"m1nd_future_field\":" + std::string(depth - 1, '[') +
                             "0" + std::string(depth - 1, ']') + "}";
    SCX_FUZZ_CHECK(scx::ParseInstanceRecord(text).ok == ExpectedOk(text));
    SCX_FUZZ_CHECK(ExpectedOk(text) == (depth < scx_fuzz::kSerdeContainerLimit));
  }
}

// A registry entry's file name: "<stem>.json" with a non-empty stem.
void CheckFileName(std::string_view name) {
  const std::string_view suffix = scx::kInstanceFileSuffix;
  if (scx::IsInstanceFileName(name)) {
    SCX_FUZZ_CHECK(name.size() > suffix.size());
    SCX_FUZZ_CHECK(name.substr(name.size() - suffix.size()) == suffix);
  }
  const std::string base(name);
  SCX_FUZZ_CHECK(scx::IsInstanceFileName(base + ".json") == !base.empty());
  SCX_FUZZ_CHECK(!scx::IsInstanceFileName(base + ".tmp"));
  SCX_FUZZ_CHECK(!scx::IsInstanceFileName(base + ".json.tmp"));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const scx::InstanceRecordParse parse = scx::ParseInstanceRecord(text);
  CheckSameParse(parse, scx::ParseInstanceRecord(std::string(text)));
  SCX_FUZZ_CHECK(parse.ok == parse.error.empty());

  if (scx_fuzz::FactsOf(text).bom) SCX_FUZZ_CHECK(!parse.ok);
  SCX_FUZZ_CHECK(parse.ok == ExpectedOk(text));

  if (parse.ok) {
    const Json doc = scx_fuzz::DocumentOf(text);
    const scx::InstanceRecord& record = parse.record;
    SCX_FUZZ_CHECK(record.instance_id == doc.at("instance_id").get<std::string>());
    SCX_FUZZ_CHECK(record.workspace_root == doc.at("workspace_root").get<std::string>());
    SCX_FUZZ_CHECK(record.runtime_root == doc.at("runtime_root").get<std::string>());
    SCX_FUZZ_CHECK(record.graph_source == doc.at("graph_source").get<std::string>());
    SCX_FUZZ_CHECK(record.mode == doc.at("mode").get<std::string>());
    SCX_FUZZ_CHECK(record.last_heartbeat_ms == doc.at("last_heartbeat_ms").get<std::uint64_t>());
    const bool brain_kind_is_string =
        doc.contains("brain_kind") && doc.at("brain_kind").is_string();
    SCX_FUZZ_CHECK(record.has_brain_kind == brain_kind_is_string);
    SCX_FUZZ_CHECK(record.brain_kind ==
                   (brain_kind_is_string ? doc.at("brain_kind").get<std::string>() : ""));
    CheckRoundTrip(record);
    CheckFieldTypes(record);
    CheckFileName(record.instance_id);
  }
  CheckFileName(text.substr(0, 256));
  return 0;
}
