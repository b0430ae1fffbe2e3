// What both YAML config files (--config.file and --web.config.file) share: reading
// the file safely, parsing it, refusing duplicate keys, resolving the paths written
// in it, and the error format "FILE:LINE: key 'KEY': what is wrong".
//
// Thread-safety: functions without shared state.
#ifndef SCX_BASE_YAML_FILE_H_
#define SCX_BASE_YAML_FILE_H_

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace scx {

// A config file is a few kilobytes; anything near this is a mistake (the main
// config allows more, see kMaxConfigFileBytes in exporter/config.h).
inline constexpr std::int64_t kMaxYamlFileBytes = std::int64_t{1} << 20;

// What a YAML file may hold once its aliases are expanded. An alias (`*a`) stands
// for the whole node its anchor (`&a`) names; yaml-cpp shares that node, and the
// copies are made by whoever walks the tree, so ten lines of `b: &b [*a, *a, ...]`
// (the "billion laughs") stand for gigabytes. Text without aliases stays far below
// both bounds: a file within the size bound cannot hold many more values than this,
// and a static list of brains needs a handful of values a brain.
inline constexpr std::int64_t kMaxYamlNodes = 1'000'000;
inline constexpr std::int64_t kMaxYamlScalarBytes = std::int64_t{16} << 20;

// The size of a YAML tree as a reader walking it sees it, every alias expanded.
struct YamlTreeSize {
  std::int64_t nodes = 0;         // scalars, lists, mappings and nulls, keys included
  std::int64_t scalar_bytes = 0;  // the text of the scalars
};

// Walks `root` with every alias expanded, without recursion and without copying,
// into `size`, and stops as soon as a count passes its `bound` (a cycle, `&a [*a]`,
// passes any bound). True when both counts stay within their bounds.
bool MeasureYamlTree(const YAML::Node& root, const YamlTreeSize& bound, YamlTreeSize* size);

// How LoadYamlFile reads a file.
struct YamlFileLimits {
  std::int64_t max_bytes = kMaxYamlFileBytes;
  std::string too_large_hint;  // appended to the error of a file over max_bytes
};

// The first key that a mapping in `root` (at any depth, aliases expanded) holds
// twice: yaml-cpp keeps both pairs, and a lookup finds the first, so a second
// `cert_file` would be ignored without a word. Keys are compared as text (`1` and
// `"1"` are the same key to a config reader); keys that are not scalars are left
// out. False with `error` "FILE:LINE: key 'PATH': duplicate key (first on line N)",
// PATH as the config errors name keys (`brains[1].name`,
// `tls_server_config.cert_file`). `root` must be within the bounds of
// MeasureYamlTree: the walk expands every alias.
bool CheckNoDuplicateKeys(const YAML::Node& root, const std::string& file_name, std::string* error);

// Our configs nest four levels at most. yaml-cpp parses by recursion (about 400
// bytes of stack per level; a ~100 KiB thread stack overflows near 220 levels), so
// deeper text is refused before yaml-cpp sees it.
inline constexpr int kMaxYamlNesting = 64;

// Reads and parses `path`. Only a regular file of at most `limits.max_bytes` is read:
// a directory, a FIFO (never waited on), a socket or a device is refused. False with
// `error` starting with "PATH:" (and the line, for invalid YAML).
bool LoadYamlFile(const std::string& path, const YamlFileLimits& limits, YAML::Node* root,
                  std::string* error);

// Parses YAML text; `file_name` names it in the error. Text whose nesting may exceed
// kMaxYamlNesting (see YamlNestingBound) is refused with the first line that does.
// The parse itself runs on a thread of its own with an 8 MiB stack, where yaml-cpp's
// own depth guard (about 500 levels) ends text the bound misjudges with an error,
// whatever the caller's stack. A tree over kMaxYamlNodes or kMaxYamlScalarBytes once
// its aliases are expanded (MeasureYamlTree) is refused before anyone walks it, and
// so is a mapping with a duplicate key (CheckNoDuplicateKeys).
bool ParseYamlText(const std::string& text, const std::string& file_name, YAML::Node* root,
                   std::string* error);

// An upper bound of the nesting depth of YAML `text`, computed from the text alone
// without recursion: on each line, the open flow brackets ('[', '{') plus the
// line's block indentation (the column after leading spaces and "- " / "? "
// indicators) plus 2, since block nesting needs a new column for at least every
// second level. Quoted scalars and comments are skipped. `deepest_line` (may be
// null) gets the 1-based line where the bound is highest.
int YamlNestingBound(const std::string& text, int* deepest_line);

// `path` as written in the file `file_name`: a relative path is taken relative to
// the file's folder, made absolute. Absolute paths, "~..." (left for discovery to
// expand) and the empty string are returned as they are.
std::string ResolveYamlPath(const std::string& file_name, const std::string& path);

// "FILE:LINE: key 'KEY': WHAT", LINE from `mark` (a node's Mark(); left out when
// unknown) and the key part left out when `key` is empty.
std::string YamlError(const std::string& file_name, const YAML::Mark& mark, const std::string& key,
                      const std::string& what);

// How errors name the value of `key` in the mapping at `path` ("KEY" at the top level,
// else "PATH.KEY"), and the item `index` of the list at `path` ("PATH[I]").
std::string YamlKeyPath(const std::string& path, const std::string& key);
std::string YamlItemPath(const std::string& path, std::size_t index);

// What is wrong with a key written a second time: "duplicate key (first on line N)",
// N from `first`, the Mark() of its first appearance ("duplicate key" when unknown).
std::string DuplicateKeyProblem(const YAML::Mark& first);

// How a YAML node is described in errors: "nothing", "a scalar", "a list", "a mapping".
const char* YamlKind(const YAML::Node& node);

}  // namespace scx

#endif  // SCX_BASE_YAML_FILE_H_
