// Whether a root m1nd names a brain after (an ingest root, a workspace root) is a
// directory, as far as this process can tell. m1nd asks "is it an existing directory?"
// on its own host; an exporter in a sandbox (homes hidden by a tmpfs, a pod that mounts
// only m1nd's folders) may not see the repo at all, and must not conclude it is gone.
// Which rule decides a root that stat() does not find depends on what is known of the
// exporter's view (owner_view.h): shared with m1nd's (the host rule: absent, whatever
// its parent), unknown (the shape rule: "absent" only when its surroundings are
// visible, otherwise "unseen"), or declared a sandbox (never absent). The judgement is
// pure (JudgeMissingRoot); the facts it needs are gathered from the disk by ProbeRoot.
#ifndef SCX_ENGINE_DISCOVERY_ROOT_VISIBILITY_H_
#define SCX_ENGINE_DISCOVERY_ROOT_VISIBILITY_H_

#include <string>

#include "engine/vocabulary.h"

namespace scx {

enum class RootPresence {
  kDirectory,     // exists and is a directory
  kNotDirectory,  // visibly not a directory: a file there, or missing from a visible folder
  kUnseen,        // this process cannot tell: the part of the file system is hidden
};

// How this process sees the file system compared with m1nd, as the deployment
// declares it (--discovery.view): kAuto decides per m1nd process from evidence
// (owner_view.h).
enum class DiscoveryView {
  kAuto,     // by evidence per owner; without any, the shape rule
  kHost,     // it sees the file system as m1nd does: the host rule
  kSandbox,  // parts are hidden from it: absent only on m1nd's own evidence
};

inline constexpr Term<DiscoveryView> kDiscoveryViews[] = {
    {DiscoveryView::kAuto, "auto"},
    {DiscoveryView::kHost, "host"},
    {DiscoveryView::kSandbox, "sandbox"},
};

inline const char* DiscoveryViewName(DiscoveryView view) { return NameOf(kDiscoveryViews, view); }

// How a root missing from this process's view is judged.
enum class MissingRootRule {
  // Nothing is known of the view: absent only when its surroundings are visible.
  kShape,
  // This process sees as m1nd does: absent, whatever its parent; only the traces a
  // sandbox of this process leaves (an empty tmpfs, a scaffold of mounts) still hide it.
  kHost,
  // Declared a sandbox and m1nd's own view could not be read: never absent.
  kNever,
};

struct RootProbe {
  RootPresence presence = RootPresence::kUnseen;
  std::string why;  // for kUnseen: what hides it, for logs and the --once explanation
};

// What ProbeRoot learned about a root that stat() reported missing (ENOENT).
struct MissingRootFacts {
  bool parent_exists = false;  // the root's parent folder exists
  std::string ancestor;        // the nearest existing ancestor
  bool ancestor_on_tmpfs = false;
  bool ancestor_is_mount_point = false;  // its device differs from its parent's
  bool ancestor_empty = false;
  // It has entries and every one is a mount point (another device): a folder made only
  // to hold mounts, as a container runtime or systemd's BindPaths= make.
  bool ancestor_holds_only_mounts = false;
};

// Pure: is a root reported missing really absent? Under kShape, kUnseen (with why)
// when its parent is missing too, or the nearest existing ancestor holds none of the
// real folder: it holds only mount points, or it is empty and a mount point or a tmpfs
// (a sandbox's empty /home). Otherwise the root is missing from a folder this process
// sees whole: kNotDirectory. kHost drops the first condition (a parent deleted with
// it is as gone for m1nd), kNever makes every missing root kUnseen.
RootProbe JudgeMissingRoot(const MissingRootFacts& facts,
                           MissingRootRule rule = MissingRootRule::kShape);

// Stats `root` and, when it is missing, its ancestors (a few stats, a statfs and one
// listing of the nearest existing ancestor), judged by `rule`. An empty root is
// kNotDirectory; a relative one is kUnseen (m1nd resolves it in its own working
// folder). Permission errors are kUnseen.
RootProbe ProbeRoot(const std::string& root, MissingRootRule rule = MissingRootRule::kShape);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_ROOT_VISIBILITY_H_
