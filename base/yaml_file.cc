// Reading, parsing and error formatting for the YAML config files.
#include "base/yaml_file.h"

#include <pthread.h>
#include <sys/stat.h>
#include <yaml-cpp/depthguard.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "base/untrusted_file.h"

namespace scx {

namespace {

// Why a path that exists cannot be read as a config file.
std::string NotRegularReason(const UntrustedFileResult& result) {
  if (!result.has_info) return result.message;
  if (S_ISDIR(result.info.st_mode)) return "is a directory";
  if (S_ISFIFO(result.info.st_mode)) return "is a FIFO, not a regular file";
  return "not a regular file";
}

std::string ReadFailure(const UntrustedFileResult& result, const YamlFileLimits& limits) {
  switch (result.error) {
    case UntrustedFileError::kNotRegular:
      return NotRegularReason(result);
    case UntrustedFileError::kTooLarge:
      return "larger than " + std::to_string(limits.max_bytes) + " bytes" + limits.too_large_hint;
    default:
      return result.message;
  }
}

// The column after a line's leading spaces and block "- " / "? " indicators: each
// indicator opens a collection one column further in.
std::size_t BlockIndentEnd(const std::string& text, std::size_t pos, std::size_t end) {
  while (pos < end) {
    const char c = text[pos];
    const bool indicator = (c == '-' || c == '?') && (pos + 1 == end || text[pos + 1] == ' ');
    if (c != ' ' && !indicator) break;
    ++pos;
  }
  return pos;
}

// yaml-cpp stops at its own depth guard (about 500 levels) with DeepRecursion, which
// needs about 512 KiB of stack; the parse gets a thread with room to spare, so that
// text the nesting bound misjudges cannot overflow the caller's stack (an HTTP
// worker's is ~100 KiB).
constexpr std::size_t kParseStackBytes = std::size_t{8} << 20;

// Runs `call` on a new thread with a `stack_bytes` stack and waits for it. False
// (`call` not run) when no such thread could be made.
bool RunOnOwnStack(std::size_t stack_bytes, const std::function<void()>& call) {
  pthread_attr_t attributes;
  if (pthread_attr_init(&attributes) != 0) return false;
  pthread_t thread;
  const bool created = pthread_attr_setstacksize(&attributes, stack_bytes) == 0 &&
                       pthread_create(
                           &thread, &attributes,
                           [](void* argument) -> void* {
                             (*static_cast<const std::function<void()>*>(argument))();
                             return nullptr;
                           },
                           const_cast<std::function<void()>*>(&call)) == 0;
  pthread_attr_destroy(&attributes);
  if (created) pthread_join(thread, nullptr);
  return created;
}

std::string TooDeep(const std::string& file_name, const YAML::Mark& mark) {
  return YamlError(file_name, mark, "",
                   "nested too deeply: more than " + std::to_string(kMaxYamlNesting) +
                       " levels of lists and mappings (indentation counts one level per "
                       "column)");
}

std::string TooLargeExpanded(const std::string& file_name) {
  return YamlError(file_name, YAML::Mark::null_mark(), "",
                   "too large once its aliases are expanded: more than " +
                       std::to_string(kMaxYamlNodes) + " values or " +
                       std::to_string(kMaxYamlScalarBytes) + " bytes of text");
}

// Adds `node` to `size`; false once a count passes its bound.
bool Count(const YAML::Node& node, const YamlTreeSize& bound, YamlTreeSize* size) {
  ++size->nodes;
  if (node.IsScalar()) size->scalar_bytes += static_cast<std::int64_t>(node.Scalar().size());
  return size->nodes <= bound.nodes && size->scalar_bytes <= bound.scalar_bytes;
}

// A collection still to be checked, and how errors name it. Never assigned to: a
// YAML::Node's operator= writes into the node it refers to (std::swap, and so
// std::reverse or std::sort, would rewrite the tree), so these are only constructed.
struct PendingCollection {
  YAML::Node node;
  std::string path;
};

// The collections among the keys and values of `map` (in the file's order) to
// `children`; false, with `error`, at the first key `map` holds twice.
bool CheckMapKeys(const PendingCollection& map, const std::string& file_name,
                  std::vector<PendingCollection>* children, std::string* error) {
  std::map<std::string, YAML::Mark> first_seen;  // key -> where it first appears
  for (const auto& entry : map.node) {
    const bool scalar_key = entry.first.IsScalar();
    const std::string key = scalar_key ? entry.first.Scalar() : "?";
    if (scalar_key) {
      const auto [seen, inserted] = first_seen.emplace(key, entry.first.Mark());
      if (!inserted) {
        *error = YamlError(file_name, entry.first.Mark(), YamlKeyPath(map.path, key),
                           DuplicateKeyProblem(seen->second));
        return false;
      }
    }
    if (entry.first.IsMap() || entry.first.IsSequence()) {
      children->push_back({entry.first, YamlKeyPath(map.path, "?")});
    }
    if (entry.second.IsMap() || entry.second.IsSequence()) {
      children->push_back({entry.second, YamlKeyPath(map.path, key)});
    }
  }
  return true;
}

// The collections among the items of `list` (in the file's order) to `children`.
void ListChildren(const PendingCollection& list, std::vector<PendingCollection>* children) {
  std::size_t index = 0;
  for (const YAML::Node& item : list.node) {
    if (item.IsMap() || item.IsSequence()) {
      children->push_back({item, YamlItemPath(list.path, index)});
    }
    ++index;
  }
}

// YAML::Load, with its exceptions turned into `error`. Never throws.
bool LoadYamlText(const std::string& text, const std::string& file_name, YAML::Node* root,
                  std::string* error) {
  try {
    *root = YAML::Load(text);
    return true;
  } catch (const YAML::DeepRecursion& e) {
    *error = YamlError(file_name, e.mark, "", "nested too deeply for the YAML parser");
  } catch (const YAML::Exception& e) {
    *error = YamlError(file_name, e.mark, "", "invalid YAML: " + e.msg);
  } catch (const std::exception& e) {
    *error =
        YamlError(file_name, YAML::Mark::null_mark(), "", std::string("cannot parse: ") + e.what());
  }
  return false;
}

}  // namespace

int YamlNestingBound(const std::string& text, int* deepest_line) {
  int best = 0;
  int best_line = 0;
  int flow_depth = 0;  // open '[' and '{', across lines
  int flow_base = 0;   // the block bound of the line where the outermost flow opened
  char quote = 0;      // the quote character while inside a quoted scalar
  int line = 1;
  for (std::size_t start = 0; start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::size_t pos = start;
    int bound = flow_depth > 0 ? flow_base + flow_depth : 0;
    if (quote == 0 && flow_depth == 0) {
      pos = BlockIndentEnd(text, start, end);
      bound = static_cast<int>(pos - start) + 2;
    }
    char previous = ' ';  // a line starts as if after a space
    for (; pos < end; ++pos) {
      const char c = text[pos];
      if (quote != 0) {
        if ((quote == '"' && c == '\\') ||
            (c == quote && quote == '\'' && pos + 1 < end && text[pos + 1] == '\'')) {
          ++pos;  // skip an escaped character, or the second ' of '' in single quotes
        } else if (c == quote) {
          quote = 0;
        }
        previous = c;
        continue;
      }
      // Where a scalar or a collection may begin: after blanks, and in a flow
      // collection after its indicators too.
      const bool token_start = previous == ' ' || previous == '\t' ||
                               (flow_depth > 0 && (previous == '[' || previous == '{' ||
                                                   previous == ',' || previous == ':'));
      if (c == '#' && (previous == ' ' || previous == '\t')) break;  // a comment
      if ((c == '\'' || c == '"') && token_start) {
        quote = c;
      } else if ((c == '[' || c == '{') && (flow_depth > 0 || token_start)) {
        if (flow_depth == 0) flow_base = bound;
        ++flow_depth;
        bound = std::max(bound, flow_base + flow_depth);
      } else if ((c == ']' || c == '}') && flow_depth > 0) {
        --flow_depth;
      }
      previous = c;
    }
    if (bound > best) {
      best = bound;
      best_line = line;
    }
    start = end + 1;
  }
  if (deepest_line != nullptr) *deepest_line = best_line;
  return best;
}

bool MeasureYamlTree(const YAML::Node& root, const YamlTreeSize& bound, YamlTreeSize* size) {
  *size = YamlTreeSize();
  // Handles to the shared nodes, nothing copied; each pop counts one node, so the
  // list holds at most the node bound plus the children of one collection.
  std::vector<YAML::Node> pending = {root};
  while (!pending.empty()) {
    const YAML::Node node = pending.back();
    pending.pop_back();
    if (!Count(node, bound, size)) return false;
    if (node.IsSequence()) {
      for (const YAML::Node& item : node) pending.push_back(item);
    } else if (node.IsMap()) {
      for (const auto& entry : node) {
        pending.push_back(entry.first);
        pending.push_back(entry.second);
      }
    }
  }
  return true;
}

bool CheckNoDuplicateKeys(const YAML::Node& root, const std::string& file_name,
                          std::string* error) {
  // Only collections are queued, each with its path; scalars are never held.
  std::vector<PendingCollection> pending = {{root, ""}};
  std::vector<PendingCollection> children;
  while (!pending.empty()) {
    const PendingCollection collection = pending.back();
    pending.pop_back();
    children.clear();
    if (collection.node.IsMap()) {
      if (!CheckMapKeys(collection, file_name, &children, error)) return false;
    } else if (collection.node.IsSequence()) {
      ListChildren(collection, &children);
    }
    // Queued last first, so that the walk follows the file's order.
    for (auto child = children.rbegin(); child != children.rend(); ++child) {
      pending.push_back(*child);
    }
  }
  return true;
}

bool LoadYamlFile(const std::string& path, const YamlFileLimits& limits, YAML::Node* root,
                  std::string* error) {
  std::string text;
  const UntrustedFileResult result = ReadUntrustedFile(path, limits.max_bytes, &text);
  if (result.error != UntrustedFileError::kNone) {
    *error = path + ": cannot read: " + ReadFailure(result, limits);
    return false;
  }
  return ParseYamlText(text, path, root, error);
}

bool ParseYamlText(const std::string& text, const std::string& file_name, YAML::Node* root,
                   std::string* error) {
  int deepest_line = 0;
  if (YamlNestingBound(text, &deepest_line) > kMaxYamlNesting) {
    YAML::Mark mark;
    mark.line = deepest_line - 1;
    *error = TooDeep(file_name, mark);
    return false;
  }
  bool parsed = false;
  const std::function<void()> parse = [&] { parsed = LoadYamlText(text, file_name, root, error); };
  if (!RunOnOwnStack(kParseStackBytes, parse)) parse();  // no thread: the caller's stack
  if (!parsed) return false;
  YamlTreeSize size;
  if (!MeasureYamlTree(*root, {kMaxYamlNodes, kMaxYamlScalarBytes}, &size)) {
    *root = YAML::Node();
    *error = TooLargeExpanded(file_name);
    return false;
  }
  if (!CheckNoDuplicateKeys(*root, file_name, error)) {
    *root = YAML::Node();
    return false;
  }
  return true;
}

std::string ResolveYamlPath(const std::string& file_name, const std::string& path) {
  if (path.empty() || path[0] == '/' || path[0] == '~') return path;
  std::error_code ignored;
  const std::filesystem::path file = std::filesystem::absolute(file_name, ignored);
  return (file.lexically_normal().parent_path() / path).string();
}

std::string YamlKeyPath(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string YamlItemPath(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string DuplicateKeyProblem(const YAML::Mark& first) {
  if (first.is_null()) return "duplicate key";
  return "duplicate key (first on line " + std::to_string(first.line + 1) + ")";
}

std::string YamlError(const std::string& file_name, const YAML::Mark& mark, const std::string& key,
                      const std::string& what) {
  std::string text = file_name;
  if (!mark.is_null()) text += ":" + std::to_string(mark.line + 1);
  text += ": ";
  if (!key.empty()) text += "key '" + key + "': ";
  return text + what;
}

const char* YamlKind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "an undefined value";
  }
}

}  // namespace scx
