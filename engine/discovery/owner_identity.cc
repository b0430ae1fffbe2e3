// m1nd's project_root_display() rule, with roots this process cannot see.
#include "engine/discovery/owner_identity.h"

#include "base/strings.h"
#include "engine/m1nd_files.h"
#include "engine/slug.h"

namespace scx {

namespace {

constexpr std::string_view kLightMemorySuffix = ".light.md";
constexpr std::string_view kAgentMemoryDir = "agent-memory";

// Rules 2 to 4, once no ingest root is a directory.
OwnerIdentity Fallback(const std::vector<std::string>& ingest_roots,
                       const std::string& workspace_root, IdentitySource workspace_source) {
  if (!workspace_root.empty() && !IsMemorySidecar(workspace_root)) {
    return {workspace_root, workspace_source, std::string()};
  }
  if (!ingest_roots.empty()) {
    return {ingest_roots.front(), IdentitySource::kAnyIngestRoot, std::string()};
  }
  return {workspace_root, IdentitySource::kSidecarWorkspace, std::string()};
}

std::string SlugOfRoot(const std::string& root) { return SanitizeSlug(BasenameOf(root)); }

}  // namespace

bool IsMemorySidecar(std::string_view path) {
  return EndsWith(path, kLightMemorySuffix) || FileNameOf(path) == kAgentMemoryDir;
}

OwnerIdentity ResolveOwnerIdentity(const std::vector<std::string>& ingest_roots,
                                   const std::string& workspace_root, const RootProber& probe,
                                   IdentitySource workspace_source) {
  struct Unseen {
    const std::string* root;
    std::string why;
  };
  std::vector<Unseen> unseen;  // roots rule 1 might pick, in order
  OwnerIdentity answer;
  bool found = false;
  for (const std::string& root : ingest_roots) {
    if (root.empty() || IsMemorySidecar(root)) continue;
    const RootProbe seen = probe(root);
    if (seen.presence == RootPresence::kDirectory) {
      answer = {root, IdentitySource::kIngestRoot, std::string()};
      found = true;
      break;
    }
    if (seen.presence == RootPresence::kUnseen) {
      unseen.push_back(Unseen{&root, seen.why});
    }
  }
  if (!found) answer = Fallback(ingest_roots, workspace_root, workspace_source);
  if (unseen.empty()) return answer;
  const std::string slug = SlugOfRoot(answer.root);
  for (const Unseen& root : unseen) {
    if (SlugOfRoot(*root.root) != slug) {
      return {std::string(), IdentitySource::kUnknown,
              "cannot tell whether ingest root " + *root.root +
                  " is a directory as m1nd sees it: " + root.why};
    }
  }
  return answer;
}

}  // namespace scx
