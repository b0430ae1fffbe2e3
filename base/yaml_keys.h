// Reading a YAML mapping strictly from a table of its keys, for both config files
// (--config.file and --web.config.file). Each key is spelled once, in its table, beside
// the function that reads its value. Every error has one form, "FILE:LINE: key 'PATH':
// what is wrong" (YamlError in yaml_file.h): an unknown key lists the known ones, a key
// written twice in one mapping is refused (yaml-cpp keeps both pairs and a lookup finds
// the first, so the second would be ignored without a word), a value of the wrong type
// says what it got, and a missing required key says why it is needed.
//
//   YamlReader reader(file_name);
//   const std::vector<YamlKey> keys = {YamlStringKey("name", &brain.name), ...};
//   if (!ReadYamlMap(&reader, node, "brains[0]", keys)) return reader.error();
//
// Thread-safety: a YamlReader belongs to one thread; the functions keep no state.
#ifndef SCX_BASE_YAML_KEYS_H_
#define SCX_BASE_YAML_KEYS_H_

#include <yaml-cpp/yaml.h>

#include <functional>
#include <string>
#include <vector>

namespace scx {

// The file being read and the first error met in it.
class YamlReader {
 public:
  explicit YamlReader(std::string file_name) : file_name_(std::move(file_name)) {}

  // Records "FILE:LINE: key 'PATH': WHAT" (LINE from `node`; the key part left out
  // when `path` is empty), unless an error is recorded already. Returns false, so that
  // a reader can `return reader->Fail(...)`.
  bool Fail(const YAML::Node& node, const std::string& path, const std::string& what);

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  const std::string& file_name() const { return file_name_; }

 private:
  std::string file_name_;
  std::string error_;
};

// Reads one key's `value`, which errors name `path` ("tls_server_config.cert_file").
// False after reader->Fail.
using YamlValueReader =
    std::function<bool(YamlReader* reader, const YAML::Node& value, const std::string& path)>;

// One row of a key table.
struct YamlKey {
  std::string name;
  YamlValueReader read;
  // Null: the key may be left out. Otherwise its absence is an error, "missing" and,
  // when this is not empty, " (WHY)".
  const char* required = nullptr;
};

// Reads the mapping `map`, which errors name `path` ("" at the top level, else e.g.
// "brains[1]"), by `keys`: the value of each key present is read by its row, in the
// file's order. A null `map` (`key:` with nothing after it) is an empty mapping. False
// (after reader->Fail) when `map` is not a mapping, holds a key that is not in `keys`
// ("unknown key (known keys: a, b, c)", sorted) or holds one twice ("duplicate key
// (first on line N)"), when a row's reader fails, or when a required key is absent.
bool ReadYamlMap(YamlReader* reader, const YAML::Node& map, const std::string& path,
                 const std::vector<YamlKey>& keys);

// Reads a mapping whose keys are data, not names (users, headers): `read` gets each
// entry's key text, value and path ("basic_auth_users.alice"), in the file's order.
// False when `map` (null: empty) is not a mapping, holds a key that is not a string
// or holds one twice, or when `read` fails.
bool ReadYamlEntries(YamlReader* reader, const YAML::Node& map, const std::string& path,
                     const std::function<bool(const std::string& key, const YAML::Node& value,
                                              const std::string& path)>& read);

// The value readers the tables use. A scalar as text; nothing (`key:`) is "".
bool ReadYamlString(YamlReader* reader, const YAML::Node& value, const std::string& path,
                    std::string* out);
// A list of strings (items named PATH[I]); replaces `out`.
bool ReadYamlStringList(YamlReader* reader, const YAML::Node& value, const std::string& path,
                        std::vector<std::string>* out);
// `true` or `false` (also `True`, `TRUE`, `False`, `FALSE`, as YAML 1.2 writes them).
bool ReadYamlBool(YamlReader* reader, const YAML::Node& value, const std::string& path, bool* out);

// Rows that store what they read in `out`, which must outlive the read.
YamlKey YamlStringKey(std::string name, std::string* out);
YamlKey YamlStringListKey(std::string name, std::vector<std::string>* out);
YamlKey YamlBoolKey(std::string name, bool* out);

}  // namespace scx

#endif  // SCX_BASE_YAML_KEYS_H_
