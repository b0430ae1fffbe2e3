// Which root names an m1nd owner's bound brain, exactly as m1nd's
// project_root_display() decides it: ingest roots first, then the instance's
// workspace_root, skipping memory sidecars. Pure logic: the one question it asks the
// disk ("is this an existing directory?") is passed in by the caller.
#ifndef SCX_ENGINE_OWNER_IDENTITY_H_
#define SCX_ENGINE_OWNER_IDENTITY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vocabulary.h"

namespace scx {

// The file in which m1nd keeps the roots it ingested, beside its graph snapshot.
inline constexpr char kIngestRootsFileName[] = "ingest_roots.json";

// Which rule named a brain. Shown to operators (`identity_source`) so that they can
// see why a slug is expected.
enum class IdentitySource {
  kConfigDisplayName,  // static brain: its configured display_name
  kConfigProjectRoot,  // static brain: its configured project_root
  kManifest,           // project brain: project_root of its project_brain.json
  kIngestRoot,         // owner, rule 1: first ingest root that is a real directory, not a sidecar
  kWorkspaceRoot,      // owner, rule 2: workspace_root, not a sidecar
  kAnyIngestRoot,      // owner, rule 3: first ingest root of any kind
  kSidecarWorkspace,   // owner, rule 4: workspace_root although it is a sidecar
};

inline constexpr Term<IdentitySource> kIdentitySources[] = {
    {IdentitySource::kConfigDisplayName, "display_name"},
    {IdentitySource::kConfigProjectRoot, "project_root"},
    {IdentitySource::kManifest, "manifest"},
    {IdentitySource::kIngestRoot, "ingest_root"},
    {IdentitySource::kWorkspaceRoot, "workspace_root"},
    {IdentitySource::kAnyIngestRoot, "first_ingest_root"},
    {IdentitySource::kSidecarWorkspace, "sidecar_workspace_root"},
};

inline const char* IdentitySourceName(IdentitySource source) {
  return NameOf(kIdentitySources, source);
}

// A memory sidecar: a path ending in ".light.md", or whose last component (trailing
// '/' ignored) is "agent-memory". m1nd never names a brain after one if it can help it.
bool IsMemorySidecar(std::string_view path);

// Parses ingest_roots.json: a JSON array of path strings. False with `error` set for
// anything else (m1nd could not load it either).
bool ParseIngestRoots(std::string_view text, std::vector<std::string>* roots, std::string* error);

struct OwnerIdentity {
  std::string root;  // the identity root; empty only when every input was empty
  IdentitySource source = IdentitySource::kWorkspaceRoot;
};

// m1nd's rule: (1) the first ingest root that `is_directory` and is not a sidecar;
// (2) else `workspace_root` unless it is a sidecar (or empty); (3) else the first
// ingest root; (4) else `workspace_root`.
OwnerIdentity ResolveOwnerIdentity(const std::vector<std::string>& ingest_roots,
                                   const std::string& workspace_root,
                                   const std::function<bool(const std::string&)>& is_directory);

}  // namespace scx

#endif  // SCX_ENGINE_OWNER_IDENTITY_H_
