// What this process can see of the files m1nd names, so that nothing it cannot see is
// ever reported as gone, in three parts:
// - roots: whether a root m1nd names a brain after is a directory (ProbeRoot,
//   JudgeMissingRoot);
// - m1nd's view: how one m1nd process sees the file system compared with this
//   process, by evidence (GatherOwnerViewFacts, JudgeOwnerView), which decides the
//   rule for a missing root;
// - runtime dirs: whether a brain's runtime dir is seen, so that a missing store is
//   told from one this process cannot see (ProbeRuntimeDir, ProbeGone).
// Each part's judgement is pure; the probes only stat, list and read /proc.
//
// Thread-safety: pure functions and plain values.
#ifndef SCX_ENGINE_DISCOVERY_VISIBILITY_H_
#define SCX_ENGINE_DISCOVERY_VISIBILITY_H_

#include <cstdint>
#include <string>

#include "engine/vocabulary.h"

namespace scx {

// ---------------------------------------------------------------------------------
// Roots.
//
// Whether a root m1nd names a brain after (an ingest root, a workspace root) is a
// directory, as far as this process can tell. m1nd asks "is it an existing directory?"
// on its own host; an exporter in a sandbox (homes hidden by a tmpfs, a pod that mounts
// only m1nd's folders) may not see the repo at all, and must not conclude it is gone.
// Which rule decides a root that stat() does not find depends on what is known of the
// exporter's view (below): shared with m1nd's (the host rule: absent, whatever
// its parent), unknown (the shape rule: "absent" only when its surroundings are
// visible, otherwise "unseen"), or declared a sandbox (never absent). The judgement is
// pure (JudgeMissingRoot); the facts it needs are gathered from the disk by ProbeRoot.

enum class RootPresence {
  kDirectory,     // exists and is a directory
  kNotDirectory,  // visibly not a directory: a file there, or missing from a visible folder
  kUnseen,        // this process cannot tell: the part of the file system is hidden
};

// How this process sees the file system compared with m1nd, as the deployment
// declares it (--discovery.view): kAuto decides per m1nd process from evidence
// (below).
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

// ---------------------------------------------------------------------------------
// m1nd's view.
//
// How one m1nd process sees the file system, compared with this process, by
// evidence: the registry entry names m1nd's pid and when it started. When that pid is
// still the process that wrote the entry (its start time says so), and this process
// shares its mount namespace and root, a root missing here is missing for m1nd too
// (the host rule). When it does not, but may look through /proc/<pid>/root (root, or
// m1nd's own user), the root is looked up in m1nd's own view. When nothing can be read
// (the pid gone or reused, /proc/<pid> hidden, EACCES, another pid namespace), the
// deployment's declared view decides: the shape rule for kAuto, "never absent" for
// kSandbox. A declared kHost needs no evidence. The pid is asked only on behalf of a
// record whose file's owner could have written it as m1nd: m1nd writes its own pid, so
// the process must be that owner's (or the record root's); another user's pid in a
// record is no evidence, never a question asked of that process' view (it would make
// the exporter, as root, an oracle of paths in another mount namespace). Facts are gathered by
// GatherOwnerViewFacts and judged, purely, by JudgeOwnerView.

// How long after the registry entry's started_at_ms m1nd's process may appear to have
// started: /proc's start time is the boot time (whole seconds, and moved by clock
// adjustments since boot) plus clock ticks. A pid reused after m1nd exited belongs to a
// process started later than that.
inline constexpr std::int64_t kStartTimeSlackMs = 2000;

// What /proc tells of the process a registry entry names. Gathered from the disk.
struct OwnerViewFacts {
  std::uint32_t pid = 0;                // 0: no process is known (a static or glob brain)
  std::uint64_t record_started_ms = 0;  // the entry's started_at_ms
  std::uint32_t record_owner = 0;       // the uid owning the entry's file
  bool process_exists = false;          // /proc/<pid> exists
  std::uint32_t process_owner = 0;      // the uid owning /proc/<pid>: the process' user
  std::string process_error;            // why /proc/<pid> or its start time is unknown
  bool start_known = false;
  std::int64_t process_started_ms = 0;  // wall clock, from /proc/<pid>/stat and btime
  // Both /proc/self/ns/mnt and /proc/<pid>/ns/mnt were read (readlink).
  bool namespaces_read = false;
  bool same_namespace = false;
  std::string namespace_error;
  // /proc/<pid>/root can be followed (stat): m1nd's view can be looked into.
  bool root_readable = false;
  bool same_root = false;  // /proc/<pid>/root is this process's root (device, inode)
  std::string root_error;
};

// How the roots of one owner (and of the project brains it hosts) are probed.
enum class ViewRule {
  kHost,       // locally, the host rule
  kOwnerRoot,  // through /proc/<pid>/root: m1nd's own view
  kShape,      // locally, the shape rule: nothing is known
  kNever,      // locally; a missing root is never absent (a declared sandbox)
};

struct OwnerView {
  ViewRule rule = ViewRule::kShape;
  std::uint32_t pid = 0;  // for kOwnerRoot
  // Which evidence was used, or why none could be: for identity_note.
  std::string evidence;
};

// Pure: the view `declared` and the facts give.
OwnerView JudgeOwnerView(DiscoveryView declared, const OwnerViewFacts& facts);

// Reads /proc for the process `pid` (0: none) whose registry entry, a file owned by
// `record_owner`, says it started at `started_at_ms`: a stat; then, for a process of
// that owner (any, for root's entry), a few readlinks, a stat and two small reads.
OwnerViewFacts GatherOwnerViewFacts(std::uint32_t pid, std::uint64_t started_at_ms,
                                    std::uint32_t record_owner);

// The view of an owner, gathering facts only when `declared` needs them.
OwnerView ViewOfOwner(DiscoveryView declared, std::uint32_t pid, std::uint64_t started_at_ms,
                      std::uint32_t record_owner);

// Is `root` an existing directory as `view` can tell? kUnseen answers say, in why,
// which evidence was used or why none could be.
RootProbe ProbeRootInView(const OwnerView& view, const std::string& root);

// Looks `root` up in the file system as the process `pid` sees it, through
// /proc/<pid>/root (openat2 with RESOLVE_IN_ROOT, so that its absolute symlinks are
// m1nd's too; a plain lookup where openat2 is missing). Missing there: kNotDirectory.
RootProbe ProbeRootThroughProcess(std::uint32_t pid, const std::string& root);

// ---------------------------------------------------------------------------------
// Runtime dirs.
//
// Whether this process sees a brain's runtime dir, so that a missing store can be
// told from a store it cannot see. "Absent" (no store, no verdict, silent) is only a
// store file missing from a runtime dir that is there and can be listed; a runtime dir
// that is missing, cannot be listed, or was emptied while it held a store (an unmounted
// volume, a hostPath the pod lacks) is "unseen": the brain keeps its last verdict,
// marked stale. And a brain discovery no longer finds is "gone" only when its runtime
// dir is missing from a folder this process sees. The judgements are pure; the facts
// come from ProbeRuntimeDir and ProbeGone.

// What ProbeRuntimeDir found of a runtime dir whose store file is missing.
struct RuntimeDirFacts {
  int stat_errno = 0;     // of stat(runtime_dir): 0 when it succeeded
  bool is_dir = false;    // it exists and is a directory
  int list_errno = 0;     // of listing it: 0 when it could be listed
  bool is_empty = false;  // listed, and holds nothing but "." and ".."
};

// Pure: why a runtime dir with a missing store is unseen, or empty when the store is
// really absent. `held_a_store`: the brain had a store (a verdict) before, so an
// emptied folder is taken for an unmounted one rather than a new brain. The reason
// has no subject ("is missing: ..."): the caller names the folder. Discovery asks the
// same of the folders it reads (an owner's ingest folder, its runtime root), with
// `held_a_store` false.
std::string WhyRuntimeDirUnseen(const RuntimeDirFacts& facts, bool held_a_store);

// Stats `runtime_dir` and checks it can be searched; lists it when `held_a_store`.
RuntimeDirFacts ProbeRuntimeDir(const std::string& runtime_dir, bool held_a_store);

// What ProbeGone found of a runtime dir discovery no longer names.
struct GoneFacts {
  int stat_errno = 0;  // of stat(runtime_dir)
  // Its parent folder can be listed, or the nearest existing folder above it can and
  // holds something (an empty one is what an unmount leaves).
  bool parent_listable = false;
};

// Pure: the runtime dir was removed: missing from a folder this process sees.
bool IsGone(const GoneFacts& facts);

GoneFacts ProbeGone(const std::string& runtime_dir);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_VISIBILITY_H_
