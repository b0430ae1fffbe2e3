// libFuzzer target: a project brain's manifest (engine/m1nd_files.h,
// ParseProjectBrainManifest, project_brain.json) on any bytes.
// Invariants: it returns, never throws, and gives the same result twice; ok means
// not torn and no error, a refusal says why; torn exactly when the text is not JSON as
// serde reads it (nlohmann's grammar, no UTF-8 byte-order mark, no token deeper than
// 128: fuzz/json_text_facts.h); ok exactly when it is a JSON object whose
// "project_root" is a string, which is the root read, whatever the schema; a manifest
// written back with nlohmann (schema v0, v9 or none) reads back the same, and one cut
// short (m1nd writes it without an atomic rename) is torn.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engine/m1nd_files.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/json_text_facts.h"

namespace {

using Json = nlohmann::json;

void CheckConsistent(const scx::ManifestParse& parse) {
  if (parse.ok) {
    SCX_FUZZ_CHECK(!parse.torn && parse.error.empty());
  } else {
    SCX_FUZZ_CHECK(!parse.error.empty() && parse.project_root.empty());
  }
}

void CheckRoundTrip(const std::string& project_root) {
  for (const Json& schema :
       {Json(scx::kProjectBrainSchema), Json("m1nd-project-brain-v9"), Json()}) {
    Json doc = Json::object();
    if (!schema.is_null()) doc["schema"] = schema;
    doc["project_root"] = project_root;
    doc["brain_kind"] = "project";
    doc["created_ms"] = std::uint64_t{1767398400000};
    for (const std::string& text : {doc.dump(), doc.dump(2)}) {
      const scx::ManifestParse again = scx::ParseProjectBrainManifest(text);
      SCX_FUZZ_CHECK(again.ok && again.project_root == project_root);
      // Caught half written: any strict prefix of an object's text is not JSON.
      for (const size_t cut : {size_t{0}, text.size() / 2, text.size() - 1}) {
        const scx::ManifestParse torn = scx::ParseProjectBrainManifest(text.substr(0, cut));
        CheckConsistent(torn);
        SCX_FUZZ_CHECK(!torn.ok && torn.torn);
      }
      const scx::ManifestParse bom =
          scx::ParseProjectBrainManifest(std::string(scx_fuzz::kUtf8Bom) + text);
      SCX_FUZZ_CHECK(!bom.ok && bom.torn);
    }
    // An unknown field nested around the depth limit (fuzz/json_text_facts.h).
    for (int depth = scx_fuzz::kSerdeContainerLimit - 2;
         depth <= scx_fuzz::kSerdeContainerLimit + 1; ++depth) {
      std::string text = doc.dump();
      text.pop_back();  // the closing '}'
      text +=
          ",\"ingest\":" + std::string(depth - 1, '[') + "0" + std::string(depth - 1, ']') + "}";
      const scx::ManifestParse deep = scx::ParseProjectBrainManifest(text);
      CheckConsistent(deep);
      SCX_FUZZ_CHECK(deep.torn == (depth >= scx_fuzz::kSerdeContainerLimit));
      SCX_FUZZ_CHECK(deep.torn == !scx_fuzz::FactsOf(text).JsonLikeSerde());
    }
    // A project_root of every other JSON type: JSON, but not a project brain.
    for (const Json& value : {Json(nullptr), Json(true), Json(7), Json(-1), Json(7.5),
                              Json::array({project_root}), Json::object()}) {
      doc["project_root"] = value;
      const scx::ManifestParse not_a_string = scx::ParseProjectBrainManifest(doc.dump());
      CheckConsistent(not_a_string);
      SCX_FUZZ_CHECK(!not_a_string.ok && !not_a_string.torn);
    }
    // A document of another type, with the root inside.
    for (const Json& other : {Json(project_root), Json::array({doc})}) {
      const scx::ManifestParse not_an_object = scx::ParseProjectBrainManifest(other.dump());
      CheckConsistent(not_an_object);
      SCX_FUZZ_CHECK(!not_an_object.ok && !not_an_object.torn);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const scx::ManifestParse parse = scx::ParseProjectBrainManifest(text);
  const scx::ManifestParse again = scx::ParseProjectBrainManifest(std::string(text));
  SCX_FUZZ_CHECK(parse.ok == again.ok && parse.torn == again.torn && parse.error == again.error &&
                 parse.project_root == again.project_root);
  CheckConsistent(parse);

  const scx_fuzz::JsonTextFacts facts = scx_fuzz::FactsOf(text);
  SCX_FUZZ_CHECK(parse.torn == !facts.JsonLikeSerde());
  if (facts.JsonLikeSerde()) {
    const Json doc = scx_fuzz::DocumentOf(text);
    const bool has_root =
        doc.is_object() && doc.contains("project_root") && doc.at("project_root").is_string();
    SCX_FUZZ_CHECK(parse.ok == has_root);
    if (has_root) SCX_FUZZ_CHECK(parse.project_root == doc.at("project_root").get<std::string>());
  }
  if (parse.ok) CheckRoundTrip(parse.project_root);
  return 0;
}
