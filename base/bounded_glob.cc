// glob(3) through GLOB_ALTDIRFUNC callbacks that count entries and watch a stop flag.
#include "base/bounded_glob.h"

#include <dirent.h>
#include <glob.h>
#include <sys/stat.h>

#include <cerrno>

namespace scx {

namespace {

// One expansion's count and limits; glob(3) hands its callbacks no context.
struct GlobWalk {
  const std::atomic<bool>* stop = nullptr;
  std::int64_t max_entries = 0;
  std::int64_t entries = 0;
  GlobStatus ended = GlobStatus::kOk;  // kStopped or kTooMany once the walk must end
};

thread_local GlobWalk* t_walk = nullptr;

// True once the walk must end; records why.
bool MustEnd() {
  GlobWalk& walk = *t_walk;
  if (walk.ended != GlobStatus::kOk) return true;
  if (walk.stop != nullptr && walk.stop->load(std::memory_order_relaxed)) {
    walk.ended = GlobStatus::kStopped;
  } else if (walk.entries > walk.max_entries) {
    walk.ended = GlobStatus::kTooMany;
  }
  return walk.ended != GlobStatus::kOk;
}

void* OpenDir(const char* path) {
  if (MustEnd()) {
    errno = ECANCELED;
    return nullptr;
  }
  return opendir(path);
}

struct dirent* ReadDir(void* dir) {
  if (MustEnd()) return nullptr;
  struct dirent* entry = readdir(static_cast<DIR*>(dir));
  if (entry != nullptr) ++t_walk->entries;
  return entry;
}

void CloseDir(void* dir) { closedir(static_cast<DIR*>(dir)); }

int Stat(const char* path, struct stat* info) { return stat(path, info); }

int Lstat(const char* path, struct stat* info) { return lstat(path, info); }

// Called by glob(3) for a directory it cannot open: abort only when the walk must
// end; other directories are skipped.
int OnError(const char* /*path*/, int /*error*/) { return t_walk->ended != GlobStatus::kOk; }

}  // namespace

GlobResult BoundedGlob(const std::string& pattern, int flags, std::int64_t max_entries,
                       const std::atomic<bool>* stop) {
  GlobWalk walk;
  walk.stop = stop;
  walk.max_entries = max_entries;
  GlobWalk* const outer = t_walk;
  t_walk = &walk;
  glob_t matches = {};
  matches.gl_opendir = &OpenDir;
  matches.gl_readdir = &ReadDir;
  matches.gl_closedir = &CloseDir;
  matches.gl_stat = &Stat;
  matches.gl_lstat = &Lstat;
  const int code = glob(pattern.c_str(), flags | GLOB_ALTDIRFUNC, &OnError, &matches);
  t_walk = outer;
  GlobResult result;
  result.entries_read = walk.entries;
  if (walk.ended != GlobStatus::kOk) {
    result.status = walk.ended;
  } else if (code == 0) {
    result.status = GlobStatus::kOk;
    result.paths.assign(matches.gl_pathv, matches.gl_pathv + matches.gl_pathc);
  } else if (code == GLOB_NOMATCH) {
    result.status = GlobStatus::kNoMatch;
  } else if (code == GLOB_NOSPACE) {
    result.status = GlobStatus::kNoMemory;
  } else {
    result.status = GlobStatus::kReadError;
  }
  globfree(&matches);
  return result;
}

}  // namespace scx
