// Instant detection: watches the folders whose files decide a verdict (each brain's
// runtime dir, each owner's project-brains/ folder, each registry's instances/) with
// inotify, and calls back when a file that matters there changes: a store renamed into
// place, a manifest or ingest_roots.json written, a project brain folder created or
// removed, a registry instance file written. Bursts are coalesced into one call. The
// number of watches is bounded: past the bound (or the kernel's limit) the rest is left
// to the timer scan, which always stays on as the safety net. inotify opens nothing:
// the brains' files are never opened, let alone for writing.
//
// Thread-safety: SetDirs and the getters may be called from any thread; the callback
// runs on the watcher's own thread.
#ifndef SCX_EXPORTER_CHANGE_WATCHER_H_
#define SCX_EXPORTER_CHANGE_WATCHER_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace scx {

// What a watched folder holds, which decides which of its names matter.
enum class WatchedDirKind {
  kRuntimeDir,     // system_blocks.json, project_brain.json, ingest_roots.json
  kProjectBrains,  // brain folders appearing, disappearing or renamed into place
  kInstances,      // *.json registry entries
};

struct WatchedDir {
  std::string path;
  WatchedDirKind kind = WatchedDirKind::kRuntimeDir;
};

// The folders to watch after a scan: every brain's runtime dir, every registry
// owner's project-brains/ folder, every registry's instances/ folder.
struct ScanResult;
struct DiscoveryConfig;
std::vector<WatchedDir> DirsToWatch(const ScanResult& scan, const DiscoveryConfig& config);

// Whether a change to `name` (a folder when `is_dir`) in a folder of `kind` can change
// a verdict. Pure.
bool ChangeMatters(WatchedDirKind kind, const std::string& name, bool is_dir);

class ChangeWatcher {
 public:
  struct Options {
    std::size_t max_watches = 8192;             // beyond it: the timer alone
    std::chrono::milliseconds settle{100};      // quiet time that ends a burst
    std::chrono::milliseconds max_delay{1000};  // a burst never holds a call longer
  };

  ChangeWatcher(Options options, std::function<void()> on_change);
  ~ChangeWatcher();  // Stop()
  ChangeWatcher(const ChangeWatcher&) = delete;
  ChangeWatcher& operator=(const ChangeWatcher&) = delete;

  // Creates the inotify instance and starts the thread. False (with `error`) when the
  // kernel refuses: then only the timer scans.
  bool Start(std::string* error);
  void Stop();

  // Watches exactly `dirs` from now on (at most max_watches of them). Folders that do
  // not exist are skipped. Returns false when some could not be watched because a
  // limit was reached (they are left to the timer).
  bool SetDirs(const std::vector<WatchedDir>& dirs);

  std::size_t watched() const;     // folders watched now
  bool limited() const;            // the last SetDirs hit a limit
  std::uint64_t triggers() const;  // callbacks made so far

 private:
  void Run();
  void Drain(bool* matters);

  const Options options_;
  const std::function<void()> on_change_;
  int inotify_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: wakes the thread to stop
  std::thread thread_;

  // Guards the maps, limited_, and inotify_fd_ against Stop() closing it while the
  // scan thread calls SetDirs (the watcher's own thread is joined before that).
  mutable Mutex mutex_;
  std::map<std::string, int> by_path_ SCX_GUARDED_BY(mutex_);        // path -> watch
  std::map<int, WatchedDirKind> kind_by_wd_ SCX_GUARDED_BY(mutex_);  // watch -> kind
  bool limited_ SCX_GUARDED_BY(mutex_) = false;
  std::atomic<std::uint64_t> triggers_{0};
};

}  // namespace scx

#endif  // SCX_EXPORTER_CHANGE_WATCHER_H_
