// glob(3) that can be stopped and is bounded: the directories it lists go through
// callbacks (GLOB_ALTDIRFUNC) that end the expansion as soon as a stop is requested
// or it has read more directory entries than allowed. A pattern that loops through
// symlinks (`d/*/*/*/*/*/*` over a folder of links to `.`) otherwise expands to
// millions of paths in one uninterruptible call.
//
// Thread-safety: functions without shared state (each call keeps its count on its
// own thread).
#ifndef SCX_BASE_BOUNDED_GLOB_H_
#define SCX_BASE_BOUNDED_GLOB_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace scx {

enum class GlobStatus {
  kOk,         // `paths` holds every match, sorted
  kNoMatch,    // nothing matched
  kStopped,    // `stop` became true
  kTooMany,    // more than `max_entries` directory entries read
  kNoMemory,   // glob(3) ran out of memory
  kReadError,  // glob(3) failed otherwise
};

struct GlobResult {
  GlobStatus status = GlobStatus::kNoMatch;
  std::vector<std::string> paths;  // only with kOk
  std::int64_t entries_read = 0;   // directory entries read, "." and ".." included
};

// Expands `pattern` with glob(3) and `flags` (GLOB_TILDE, GLOB_ONLYDIR, ...). An
// unreadable directory is skipped, as glob(3) does without GLOB_ERR. `stop` may be
// null.
GlobResult BoundedGlob(const std::string& pattern, int flags, std::int64_t max_entries,
                       const std::atomic<bool>* stop);

}  // namespace scx

#endif  // SCX_BASE_BOUNDED_GLOB_H_
