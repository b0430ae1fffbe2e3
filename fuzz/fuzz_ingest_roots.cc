// libFuzzer target: the ingest roots (engine/m1nd_files.h, ParseIngestRootsAsM1nd,
// ingest_roots.json) on any bytes, and FileNameOf on every root read and on the text
// itself as a path.
// Invariants of the parse: it returns, never throws, and gives the same result twice;
// roots read => nothing ignored; torn => no roots and a reason; torn exactly when the
// text is not JSON as serde reads it (nlohmann's grammar, no UTF-8 byte-order mark, no
// token deeper than 128: fuzz/json_text_facts.h); nothing ignored exactly when the
// text is a JSON array of strings, whose strings are the roots; roots written back
// with nlohmann read back the same, and with an element of another type (null, bool,
// number, array, object) are all ignored.
// Invariants of FileNameOf (Rust's Path::file_name): the name has no '/', is never "."
// or ".."; it is the last of the path's components once "" and "." are dropped, empty
// when there is none or it is ".."; appending "/." or "/" changes nothing (for any
// path, one ending in ".." included), appending "/.." gives no name, and appending a
// name gives that name.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/m1nd_files.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/json_text_facts.h"

namespace {

using Json = nlohmann::json;

// Path::file_name spelled the slow way: split at '/', drop "" and ".", take the last.
std::string ReferenceFileName(std::string_view path) {
  std::vector<std::string_view> components;
  size_t begin = 0;
  while (begin <= path.size()) {
    size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view component = path.substr(begin, end - begin);
    if (!component.empty() && component != ".") components.push_back(component);
    begin = end + 1;
  }
  if (components.empty() || components.back() == "..") return std::string();
  return std::string(components.back());
}

void CheckFileNameOf(std::string_view path) {
  const std::string name(scx::FileNameOf(path));
  SCX_FUZZ_CHECK(name.find('/') == std::string::npos);
  SCX_FUZZ_CHECK(name != "." && name != "..");
  SCX_FUZZ_CHECK(name == ReferenceFileName(path));
  const std::string base(path);
  SCX_FUZZ_CHECK(scx::FileNameOf(base + "/.") == name);
  SCX_FUZZ_CHECK(scx::FileNameOf(base + "/") == name);
  SCX_FUZZ_CHECK(scx::FileNameOf(base + "/./") == name);
  SCX_FUZZ_CHECK(scx::FileNameOf(base + "/..").empty());
  SCX_FUZZ_CHECK(scx::FileNameOf(base + "/ingest_roots.json") == "ingest_roots.json");
  if (!name.empty()) {
    SCX_FUZZ_CHECK(scx::FileNameOf(name) == name);
    SCX_FUZZ_CHECK(scx::FileNameOf("/home/dev/" + name + "/") == name);
  }
}

void CheckSameParse(const scx::IngestRootsParse& a, const scx::IngestRootsParse& b) {
  SCX_FUZZ_CHECK(a.roots == b.roots && a.ignored_because == b.ignored_because && a.torn == b.torn);
}

void CheckConsistent(const scx::IngestRootsParse& parse) {
  if (!parse.roots.empty()) SCX_FUZZ_CHECK(parse.ignored_because.empty());
  if (parse.torn) SCX_FUZZ_CHECK(parse.roots.empty() && !parse.ignored_because.empty());
}

void CheckRoundTrip(const std::vector<std::string>& roots) {
  Json doc = Json(roots);
  for (const std::string& text : {doc.dump(), doc.dump(2)}) {
    const scx::IngestRootsParse again = scx::ParseIngestRootsAsM1nd(text);
    CheckConsistent(again);
    SCX_FUZZ_CHECK(again.roots == roots && again.ignored_because.empty() && !again.torn);
  }
  doc.push_back(nullptr);
  const scx::IngestRootsParse with_null = scx::ParseIngestRootsAsM1nd(doc.dump());
  CheckConsistent(with_null);
  SCX_FUZZ_CHECK(with_null.roots.empty() && !with_null.ignored_because.empty() && !with_null.torn);
  // Any element of another type: ignored, not torn; one nested around the depth limit
  // (fuzz/json_text_facts.h): torn beyond it.
  for (const Json& value :
       {Json(true), Json(7), Json(7.5), Json::array({"/a"}), Json::object({{"root", "/a"}})}) {
    doc.back() = value;
    const scx::IngestRootsParse other = scx::ParseIngestRootsAsM1nd(doc.dump());
    CheckConsistent(other);
    SCX_FUZZ_CHECK(other.roots.empty() && !other.ignored_because.empty() && !other.torn);
  }
  doc.erase(doc.size() - 1);
  for (int depth = scx_fuzz::kSerdeContainerLimit - 2; depth <= scx_fuzz::kSerdeContainerLimit + 1;
       ++depth) {
    Json deep = doc;
    deep.push_back(nullptr);
    std::string text = deep.dump();
    text.erase(text.rfind("null"));  // "[...," or "["
    text += std::string(depth - 1, '[') + "\"/a\"" + std::string(depth, ']');
    const scx::IngestRootsParse nested = scx::ParseIngestRootsAsM1nd(text);
    CheckConsistent(nested);
    SCX_FUZZ_CHECK(nested.roots.empty() && !nested.ignored_because.empty());
    SCX_FUZZ_CHECK(nested.torn == (depth >= scx_fuzz::kSerdeContainerLimit));
    SCX_FUZZ_CHECK(nested.torn == !scx_fuzz::FactsOf(text).JsonLikeSerde());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const scx::IngestRootsParse parse = scx::ParseIngestRootsAsM1nd(text);
  CheckSameParse(parse, scx::ParseIngestRootsAsM1nd(std::string(text)));
  CheckConsistent(parse);

  const scx_fuzz::JsonTextFacts facts = scx_fuzz::FactsOf(text);
  SCX_FUZZ_CHECK(parse.torn == !facts.JsonLikeSerde());
  if (facts.JsonLikeSerde()) {
    const Json doc = scx_fuzz::DocumentOf(text);
    bool strings = doc.is_array();
    std::vector<std::string> expected;
    for (size_t i = 0; strings && i < doc.size(); ++i) {
      strings = doc[i].is_string();
      if (strings) expected.push_back(doc[i].get<std::string>());
    }
    SCX_FUZZ_CHECK(parse.ignored_because.empty() == strings);
    SCX_FUZZ_CHECK(parse.roots == (strings ? expected : std::vector<std::string>()));
  }
  if (parse.ignored_because.empty()) CheckRoundTrip(parse.roots);

  for (const std::string& root : parse.roots) CheckFileNameOf(root);
  CheckFileNameOf(text.substr(0, 512));
  return 0;
}
