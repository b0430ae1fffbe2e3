// m1nd's project_root_display() rule for owners, and the ingest_roots.json parser.
#include "engine/owner_identity.h"

#include <nlohmann/json.hpp>

namespace scx {

namespace {

constexpr std::string_view kLightMemorySuffix = ".light.md";
constexpr std::string_view kAgentMemoryDir = "agent-memory";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string_view LastComponent(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  const std::string_view::size_type slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool IsMemorySidecar(std::string_view path) {
  return EndsWith(path, kLightMemorySuffix) || LastComponent(path) == kAgentMemoryDir;
}

bool ParseIngestRoots(std::string_view text, std::vector<std::string>* roots, std::string* error) {
  roots->clear();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    *error = std::string("not valid JSON: ") + e.what();
    return false;
  }
  if (!doc.is_array()) {
    *error = "not a JSON array of paths";
    return false;
  }
  for (const nlohmann::json& element : doc) {
    if (!element.is_string()) {
      roots->clear();
      *error = "an element is not a string";
      return false;
    }
    roots->push_back(element.get<std::string>());
  }
  return true;
}

OwnerIdentity ResolveOwnerIdentity(const std::vector<std::string>& ingest_roots,
                                   const std::string& workspace_root,
                                   const std::function<bool(const std::string&)>& is_directory) {
  for (const std::string& root : ingest_roots) {
    if (!root.empty() && !IsMemorySidecar(root) && is_directory(root)) {
      return {root, IdentitySource::kIngestRoot};
    }
  }
  if (!workspace_root.empty() && !IsMemorySidecar(workspace_root)) {
    return {workspace_root, IdentitySource::kWorkspaceRoot};
  }
  if (!ingest_roots.empty()) return {ingest_roots.front(), IdentitySource::kAnyIngestRoot};
  return {workspace_root, IdentitySource::kSidecarWorkspace};
}

}  // namespace scx
