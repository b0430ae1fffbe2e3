// What the fuzz targets of m1nd's small files (fuzz_instance_record,
// fuzz_project_manifest, fuzz_ingest_roots) know about a text independently of the
// parsers they test: whether nlohmann accepts it as JSON, how deep it nests, whether
// its top-level object repeats a key. Read with nlohmann's SAX interface, not with
// the parse callback engine/m1nd_files.cc uses, so the two readings can disagree.
//
// The rules the parsers apply on top of nlohmann's grammar (engine/m1nd_files.cc,
// ParseLikeSerde), restated here:
//  - a text starting with a UTF-8 byte-order mark is refused (serde_json does);
//  - a text nesting too deep is refused, as serde_json refuses it: kSerdeContainerLimit
//    (128) arrays and objects open at once is too many, 127 are allowed, whatever is
//    inside the innermost one.
#ifndef SCX_FUZZ_JSON_TEXT_FACTS_H_
#define SCX_FUZZ_JSON_TEXT_FACTS_H_

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace scx_fuzz {

inline constexpr int kSerdeContainerLimit = 128;
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

struct JsonTextFacts {
  bool bom = false;                // starts with a UTF-8 byte-order mark
  bool grammar_ok = false;         // nlohmann accepts the text (ignoring the BOM rule)
  int max_containers = 0;          // most arrays and objects open at once, when grammar_ok
  bool duplicate_top_key = false;  // the top-level object has a key twice

  // What the parsers read as JSON at all (the rest is "torn").
  bool JsonLikeSerde() const { return !bom && grammar_ok && max_containers < kSerdeContainerLimit; }
};

namespace internal {

class FactsSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit FactsSax(JsonTextFacts* facts) : facts_(facts) {}

  bool null() override { return Token(); }
  bool boolean(bool) override { return Token(); }
  bool number_integer(number_integer_t) override { return Token(); }
  bool number_unsigned(number_unsigned_t) override { return Token(); }
  bool number_float(number_float_t, const string_t&) override { return Token(); }
  bool string(string_t&) override { return Token(); }
  bool binary(binary_t&) override { return Token(); }
  bool start_object(std::size_t) override { return Open(); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  bool key(string_t& name) override {
    Token();
    if (open_ == 1 && !top_keys_.insert(name).second) facts_->duplicate_top_key = true;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool Token() { return true; }
  bool Open() {
    ++open_;
    facts_->max_containers = std::max(facts_->max_containers, open_);
    return true;
  }
  bool Close() {
    --open_;
    return true;
  }

  JsonTextFacts* facts_;
  int open_ = 0;
  std::set<std::string> top_keys_;
};

}  // namespace internal

inline JsonTextFacts FactsOf(std::string_view text) {
  JsonTextFacts facts;
  facts.bom = text.substr(0, kUtf8Bom.size()) == kUtf8Bom;
  internal::FactsSax sax(&facts);
  facts.grammar_ok = nlohmann::json::sax_parse(text.begin(), text.end(), &sax);
  if (!facts.grammar_ok) {
    facts.max_containers = 0;
    facts.duplicate_top_key = false;
  }
  return facts;
}

// The document nlohmann reads from a text FactsOf accepted (grammar_ok).
inline nlohmann::json DocumentOf(std::string_view text) {
  return nlohmann::json::parse(text.begin(), text.end());
}

}  // namespace scx_fuzz

#endif  // SCX_FUZZ_JSON_TEXT_FACTS_H_
