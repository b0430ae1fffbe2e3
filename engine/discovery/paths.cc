// Discovery's rules for paths (paths.h).
#include "engine/discovery/paths.h"

#include <inttypes.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>

namespace scx {

std::string StripTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string ExpandHome(const std::string& path) {
  if (path.empty() || path[0] != '~') return path;
  if (path.size() > 1 && path[1] != '/') return path;  // "~user/...": left as is
  const char* home = getenv("HOME");
  if (home == nullptr || *home == '\0') return path;
  std::string base = StripTrailingSlashes(home);
  std::string rest = path.substr(1);  // "" or "/..."
  if (base == "/" && !rest.empty()) return rest;
  return base + rest;
}

std::string CleanDir(const std::string& path) { return StripTrailingSlashes(ExpandHome(path)); }

std::string DirKey(const std::string& path) {
  std::string expanded = ExpandHome(path);
  if (expanded.empty()) return expanded;
  return StripTrailingSlashes(std::filesystem::path(expanded).lexically_normal().string());
}

std::string ResolveInRegistry(const std::string& registry, const std::string& path) {
  std::string expanded = ExpandHome(path);
  if (expanded.empty() || expanded.front() == '/') return CleanDir(expanded);
  std::filesystem::path joined = std::filesystem::path(registry) / expanded;
  return StripTrailingSlashes(joined.lexically_normal().string());
}

std::string RealDir(const std::string& path) {
  std::string clean = DirKey(path);
  char* real = realpath(clean.c_str(), nullptr);
  if (real == nullptr) return clean;
  std::string resolved = real;
  free(real);
  return resolved;
}

std::string InodeKey(const struct stat& info) {
  // "i" and both numbers in hex: short enough for std::string to keep inline (no
  // allocation) on common filesystems, where discovery makes one per brain folder.
  char key[40];
  std::snprintf(key, sizeof(key), "i%" PRIx64 ":%" PRIx64, static_cast<std::uint64_t>(info.st_dev),
                static_cast<std::uint64_t>(info.st_ino));
  return key;
}

std::string RuntimeKey(const std::string& path) {
  std::optional<std::uint32_t> owner;
  return RuntimeKey(path, &owner);
}

std::string RuntimeKey(const std::string& path, std::optional<std::uint32_t>* owner) {
  struct stat info;
  if (stat(path.c_str(), &info) == 0) {
    *owner = info.st_uid;
    return InodeKey(info);
  }
  owner->reset();
  return "path " + DirKey(path);
}

std::string JoinPath(const std::string& dir, const std::string& name) {
  if (!dir.empty() && dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::string_view RootKeyView(const std::string& root, std::deque<std::string>* normalized) {
  std::string_view view = root;
  if (root.find("/.") == std::string::npos && root.find("//") == std::string::npos &&
      (root.empty() || root.front() != '.')) {
    while (view.size() > 1 && view.back() == '/') view.remove_suffix(1);
    return view;
  }
  normalized->push_back(
      StripTrailingSlashes(std::filesystem::path(root).lexically_normal().string()));
  return normalized->back();
}

}  // namespace scx
