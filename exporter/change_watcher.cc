// inotify watches of brain folders, coalesced into "something changed" calls.
#include "exporter/change_watcher.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>

#include "engine/discovery/read_folders.h"
#include "engine/scanner.h"

namespace scx {

namespace {

constexpr std::uint32_t kEvents = IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
                                  IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;

}  // namespace

std::vector<ReadFolder> DirsToWatch(const ScanResult& scan) {
  std::vector<ReadFolder> dirs;
  dirs.reserve(scan.brains.size() + scan.folders_read.size());
  for (const BrainReport& report : scan.brains) {
    dirs.push_back({report.brain().runtime_dir, FolderRole::kBrainFolder});
  }
  dirs.insert(dirs.end(), scan.folders_read.begin(), scan.folders_read.end());
  return dirs;
}

ChangeWatcher::ChangeWatcher(Options options, std::function<void()> on_change)
    : options_(options), on_change_(std::move(on_change)) {}

ChangeWatcher::~ChangeWatcher() { Stop(); }

bool ChangeWatcher::Start(std::string* error) {
  const int flags = IN_NONBLOCK | IN_CLOEXEC;
  inotify_fd_ =
      options_.inotify_init != nullptr ? options_.inotify_init(flags) : inotify_init1(flags);
  if (inotify_fd_ < 0) return Unavailable("inotify_init1", error);
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) {
    Unavailable("eventfd", error);  // before close(), which may change errno
    close(inotify_fd_);
    inotify_fd_ = -1;
    return false;
  }
  thread_ = std::thread([this] { Run(); });
  return true;
}

bool ChangeWatcher::Unavailable(const char* call, std::string* error) {
  *error = std::string(call) + ": " + strerror(errno);
  MutexLock lock(&mutex_);
  limited_ = true;  // every folder is left to the timer
  return false;
}

void ChangeWatcher::Stop() {
  if (thread_.joinable()) {
    const std::uint64_t one = 1;
    if (write(wake_fd_, &one, sizeof(one)) < 0) {
      // Cannot happen for an eventfd below its maximum; the join below would hang.
    }
    thread_.join();
  }
  MutexLock lock(&mutex_);  // SetDirs may be using inotify_fd_ on the scan thread
  if (inotify_fd_ >= 0) close(inotify_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
  inotify_fd_ = wake_fd_ = -1;
}

bool ChangeWatcher::SetDirs(const std::vector<ReadFolder>& dirs) {
  MutexLock lock(&mutex_);
  if (inotify_fd_ < 0) return false;
  std::map<std::string, FolderRole> wanted;  // the first role given a path
  for (const ReadFolder& dir : dirs) wanted.emplace(dir.path, dir.role);
  // Drop what is no longer wanted first, so that its room can be reused.
  for (auto it = by_path_.begin(); it != by_path_.end();) {
    if (wanted.count(it->first)) {
      ++it;
      continue;
    }
    inotify_rm_watch(inotify_fd_, it->second);
    role_by_wd_.erase(it->second);
    it = by_path_.erase(it);
  }
  limited_ = false;
  for (const auto& [path, role] : wanted) {
    if (by_path_.count(path)) continue;
    if (by_path_.size() >= options_.max_watches) {
      limited_ = true;
      break;
    }
    const int wd = inotify_add_watch(inotify_fd_, path.c_str(), kEvents);
    if (wd < 0) {
      if (errno == ENOSPC || errno == ENOMEM) limited_ = true;  // the kernel's limit
      continue;  // gone since the scan, or not a folder: the timer covers it
    }
    by_path_[path] = wd;
    role_by_wd_[wd] = role;
  }
  return !limited_;
}

std::size_t ChangeWatcher::watched() const {
  MutexLock lock(&mutex_);
  return by_path_.size();
}

bool ChangeWatcher::limited() const {
  MutexLock lock(&mutex_);
  return limited_;
}

std::uint64_t ChangeWatcher::triggers() const { return triggers_.load(); }

void ChangeWatcher::Drain(bool* matters) {
  alignas(struct inotify_event) char buffer[16384];
  while (true) {
    const ssize_t length = read(inotify_fd_, buffer, sizeof(buffer));
    if (length <= 0) return;  // EAGAIN: drained
    MutexLock lock(&mutex_);
    for (ssize_t at = 0; at < length;) {
      const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + at);
      at += static_cast<ssize_t>(sizeof(struct inotify_event) + event->len);
      if (event->mask & (IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        *matters = true;  // lost events, or a watched folder went away: rescan
        continue;
      }
      auto role = role_by_wd_.find(event->wd);
      if (role == role_by_wd_.end()) continue;
      const std::string_view name = event->len > 0 ? event->name : "";
      if (ChangeMatters(role->second, name, (event->mask & IN_ISDIR) != 0)) *matters = true;
    }
  }
}

void ChangeWatcher::Run() {
  using Clock = std::chrono::steady_clock;
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {inotify_fd_, POLLIN, 0}};
  bool pending = false;
  Clock::time_point burst_started;
  while (true) {
    // While a burst is pending, wait for it to settle, but never past max_delay.
    int timeout = -1;
    if (pending) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          burst_started + options_.max_delay - Clock::now());
      timeout = static_cast<int>(
          std::max<std::int64_t>(0, std::min<std::int64_t>(options_.settle.count(), left.count())));
    }
    const int ready = poll(fds, 2, timeout);
    if (ready < 0 && errno != EINTR) return;
    if (ready > 0 && (fds[0].revents & POLLIN)) return;  // Stop()
    if (ready > 0 && (fds[1].revents & POLLIN)) {
      const bool was_pending = pending;
      Drain(&pending);
      if (pending && !was_pending) burst_started = Clock::now();
      if (!pending || Clock::now() < burst_started + options_.max_delay) continue;
    }
    if (pending && (ready == 0 || Clock::now() >= burst_started + options_.max_delay)) {
      pending = false;
      triggers_.fetch_add(1);
      on_change_();
    }
  }
}

}  // namespace scx
