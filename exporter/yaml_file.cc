// Reading, parsing and error formatting for the YAML config files.
#include "exporter/yaml_file.h"

#include <sys/stat.h>

#include <filesystem>

#include "engine/brain_file.h"

namespace scx {

namespace {

// Why a path that exists cannot be read as a config file.
std::string NotRegularReason(const BrainFileResult& result) {
  if (!result.has_info) return result.message;
  if (S_ISDIR(result.info.st_mode)) return "is a directory";
  if (S_ISFIFO(result.info.st_mode)) return "is a FIFO, not a regular file";
  return "not a regular file";
}

std::string ReadFailure(const BrainFileResult& result) {
  switch (result.error) {
    case BrainFileError::kNotRegular:
      return NotRegularReason(result);
    case BrainFileError::kTooLarge:
      return "larger than " + std::to_string(kMaxYamlFileBytes) + " bytes";
    default:
      return result.message;
  }
}

}  // namespace

bool LoadYamlFile(const std::string& path, YAML::Node* root, std::string* error) {
  std::string text;
  const BrainFileResult result = ReadBrainFile(path, kMaxYamlFileBytes, &text);
  if (result.error != BrainFileError::kNone) {
    *error = path + ": cannot read: " + ReadFailure(result);
    return false;
  }
  return ParseYamlText(text, path, root, error);
}

bool ParseYamlText(const std::string& text, const std::string& file_name, YAML::Node* root,
                   std::string* error) {
  try {
    *root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    *error = YamlError(file_name, e.mark, "", "invalid YAML: " + e.msg);
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
