// Instant detection: watches, with inotify, the folders the last scan read (each
// brain's runtime dir, and the folders discovery reports reading: engine/discovery/read_folders.h)
// and calls back when a change there matters, as engine's ChangeMatters says: which
// files and folders those are is discovery's to know, not the watcher's. Bursts are
// coalesced into one call. The number of watches is bounded: past the bound (or the
// kernel's limit, or without any inotify instance) the rest is left to the timer scan,
// which always stays on as the safety net. inotify opens nothing: the brains' files are
// never opened, let alone for writing.
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
#include "engine/discovery/read_folders.h"

namespace scx {

// The folders to watch after `scan`: every brain's runtime dir (its files), then every
// folder its discovery read (ScanResult::folders_read).
struct ScanResult;
std::vector<ReadFolder> DirsToWatch(const ScanResult& scan);

class ChangeWatcher {
 public:
  struct Options {
    std::size_t max_watches = 8192;             // beyond it: the timer alone
    std::chrono::milliseconds settle{100};      // quiet time that ends a burst
    std::chrono::milliseconds max_delay{1000};  // a burst never holds a call longer
    // A seam for tests: stands in for inotify_init1(2) when set.
    int (*inotify_init)(int flags) = nullptr;
  };

  ChangeWatcher(Options options, std::function<void()> on_change);
  ~ChangeWatcher();  // Stop()
  ChangeWatcher(const ChangeWatcher&) = delete;
  ChangeWatcher& operator=(const ChangeWatcher&) = delete;

  // Creates the inotify instance and starts the thread. False (with `error`) when the
  // kernel refuses (every instance taken: EMFILE): then only the timer scans, and the
  // watcher says it is limited.
  bool Start(std::string* error);
  void Stop();

  // Watches exactly `dirs` from now on (at most max_watches of them). Folders that do
  // not exist are skipped. Returns false when some could not be watched because a
  // limit was reached (they are left to the timer).
  bool SetDirs(const std::vector<ReadFolder>& dirs);

  std::size_t watched() const;  // folders watched now
  // The last SetDirs hit a limit, or Start failed (nothing can be watched).
  bool limited() const;
  std::uint64_t triggers() const;  // callbacks made so far

 private:
  // Start's failure: `call` failed (errno). Sets *error; nothing can be watched.
  bool Unavailable(const char* call, std::string* error);
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
  std::map<std::string, int> by_path_ SCX_GUARDED_BY(mutex_);    // path -> watch
  std::map<int, FolderRole> role_by_wd_ SCX_GUARDED_BY(mutex_);  // watch -> role
  bool limited_ SCX_GUARDED_BY(mutex_) = false;
  std::atomic<std::uint64_t> triggers_{0};
};

}  // namespace scx

#endif  // SCX_EXPORTER_CHANGE_WATCHER_H_
