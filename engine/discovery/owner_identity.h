// Which root names an m1nd brain, exactly as m1nd's project_root_display() decides it:
// ingest roots first, then the brain's workspace root (an owner's workspace_root, a
// hosted project brain's manifest root), skipping memory sidecars. Pure logic: the one
// question it asks the disk ("is this an existing directory?") is passed in by the
// caller, whose answer may be "I cannot see it" (visibility.h); then the identity
// is undecided unless every answer leads to the same slug.
#ifndef SCX_ENGINE_DISCOVERY_OWNER_IDENTITY_H_
#define SCX_ENGINE_DISCOVERY_OWNER_IDENTITY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/discovery/visibility.h"
#include "engine/vocabulary.h"

namespace scx {

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
  kUnknown,            // undecided: an ingest root that could decide it cannot be seen
};

inline constexpr Term<IdentitySource> kIdentitySources[] = {
    {IdentitySource::kConfigDisplayName, "display_name"},
    {IdentitySource::kConfigProjectRoot, "project_root"},
    {IdentitySource::kManifest, "manifest"},
    {IdentitySource::kIngestRoot, "ingest_root"},
    {IdentitySource::kWorkspaceRoot, "workspace_root"},
    {IdentitySource::kAnyIngestRoot, "first_ingest_root"},
    {IdentitySource::kSidecarWorkspace, "sidecar_workspace_root"},
    {IdentitySource::kUnknown, "unknown"},
};

inline const char* IdentitySourceName(IdentitySource source) {
  return NameOf(kIdentitySources, source);
}

// A memory sidecar: a path ending in ".light.md", or whose last normal component (as
// Rust's Path::file_name() sees it: trailing '/' and "/." ignored) is "agent-memory".
// m1nd never names a brain after one if it can help it.
bool IsMemorySidecar(std::string_view path);

struct OwnerIdentity {
  // The identity root; empty when undecided, or when every input was empty.
  std::string root;
  IdentitySource source = IdentitySource::kWorkspaceRoot;
  // When source is kUnknown: which root could not be seen and why, for people.
  std::string undecided_because;
};

// How a caller answers "is this root an existing directory?".
using RootProber = std::function<RootProbe(const std::string& root)>;

// m1nd's rule: (1) the first ingest root that is a directory and not a sidecar;
// (2) else `workspace_root` unless it is a sidecar (or empty), named
// `workspace_source`; (3) else the first ingest root; (4) else `workspace_root`.
// A non-sidecar ingest root met before the answer that `probe` cannot see (kUnseen)
// might be the one rule 1 picks: unless it and the answer give the same slug, the
// identity is undecided (kUnknown). With the same slug the verdict is the same either
// way, and the answer given is the one for unseen roots that do not exist.
OwnerIdentity ResolveOwnerIdentity(
    const std::vector<std::string>& ingest_roots, const std::string& workspace_root,
    const RootProber& probe, IdentitySource workspace_source = IdentitySource::kWorkspaceRoot);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_OWNER_IDENTITY_H_
