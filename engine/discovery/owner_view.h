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
#ifndef SCX_ENGINE_DISCOVERY_OWNER_VIEW_H_
#define SCX_ENGINE_DISCOVERY_OWNER_VIEW_H_

#include <cstdint>
#include <string>

#include "engine/discovery/root_visibility.h"

namespace scx {

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

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_OWNER_VIEW_H_
