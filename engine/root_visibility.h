// Whether a root m1nd names a brain after (an ingest root, a workspace root) is a
// directory, as far as this process can tell. m1nd asks "is it an existing directory?"
// on its own host; an exporter in a sandbox (homes hidden by a tmpfs, a pod that mounts
// only m1nd's folders) may not see the repo at all, and must not conclude it is gone.
// So a root that stat() does not find is "absent" only when its surroundings are
// visible; otherwise it is "unseen". The judgement is pure (JudgeMissingRoot); the
// facts it needs are gathered from the disk by ProbeRoot.
#ifndef SCX_ENGINE_ROOT_VISIBILITY_H_
#define SCX_ENGINE_ROOT_VISIBILITY_H_

#include <string>

#include "engine/vocabulary.h"

namespace scx {

enum class RootPresence {
  kDirectory,     // exists and is a directory
  kNotDirectory,  // visibly not a directory: a file there, or missing from a visible folder
  kUnseen,        // this process cannot tell: the part of the file system is hidden
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

// Pure: is a root reported missing really absent? kUnseen (with why) when its parent
// is missing too, or the nearest existing ancestor holds none of the real folder: it
// holds only mount points, or it is empty and a mount point or a tmpfs (a sandbox's
// empty /home). Otherwise the root is missing from a folder this process sees whole:
// kNotDirectory.
RootProbe JudgeMissingRoot(const MissingRootFacts& facts);

// Stats `root` and, when it is missing, its ancestors (a few stats, a statfs and one
// listing of the nearest existing ancestor). A relative or empty root is kNotDirectory
// (m1nd writes absolute paths). Permission errors are kUnseen.
RootProbe ProbeRoot(const std::string& root);

}  // namespace scx

#endif  // SCX_ENGINE_ROOT_VISIBILITY_H_
