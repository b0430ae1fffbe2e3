// Parsed results of small files kept with the stamp each file was read at, so that a
// file whose stamp has not changed since is not opened again. Pure: the caller stats
// and reads the files; this only decides whether a kept result still stands.
//
// Thread-safety: Find may be called from several threads at once while nothing is
// kept, marked or dropped; the other members need one thread.
#ifndef SCX_BASE_STAMP_CACHE_H_
#define SCX_BASE_STAMP_CACHE_H_

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "base/untrusted_file.h"

namespace scx {

// A file's timestamps move in ticks of the filesystem's clock: a rewrite in the same
// tick as a read leaves the stamp the read saw. So a stamp is only trusted once the
// file's last change (mtime and ctime) is this long before the read began.
inline constexpr std::int64_t kStampSettleNs = std::int64_t{2} * 1000 * 1000 * 1000;

// True when a file stamped `stamp` and read after `read_started_ns` (CLOCK_REALTIME
// nanoseconds, as file times are) may be known by its stamp from now on. A stamp in
// the future (FileTimeIsInFuture) is never settled: the file is read every time.
bool StampIsSettled(const FileStamp& stamp, std::int64_t read_started_ns);

// True when a file time (an mtime, say) is past `now_ns`, a clock reading taken after
// the file was stat'ed: the clock was stepped back, or the time set ahead (a backup
// restored with its times). Such a time says nothing of when the file was written.
inline bool FileTimeIsInFuture(std::int64_t time_ns, std::int64_t now_ns) {
  return time_ns > now_ns;
}

// True when a file time is less than kStampSettleNs before `now_ns`, and not after it:
// the file was just written. A time in the future is not "just written" (it would stay
// so for as long as the clock is behind it).
inline bool FileTimeIsRecent(std::int64_t time_ns, std::int64_t now_ns) {
  return time_ns <= now_ns && now_ns - time_ns < kStampSettleNs;
}

// True when a result parsed from a file stamped `kept` stands for the file stat'ed
// now as `now`: the same file, not changed since.
inline bool CanReuseParse(const FileStamp& kept, const FileStamp& now) { return kept == now; }

// Parsed results by path, each with the stamp it was read at. Every walk over the
// files begins with BeginWalk; entries neither kept nor marked seen during the walk
// are dropped by DropUnseen, so the cache never holds more than one walk's files.
// Entries are erased by DropUnseen only: an Entry from Find stays where it is until
// then (Keep of its path may replace what it holds), so a walk may hold on to it while
// other paths, or its own, are kept or forgotten.
template <typename Parsed>
class StampCache {
 public:
  struct Entry {
    FileStamp stamp;
    Parsed parsed;
    // The walk that last met the file: bookkeeping, changed by MarkSeen only.
    mutable std::uint64_t walk = 0;
    bool stands = true;  // false once forgotten: Find ignores it, DropUnseen erases it
  };

  void BeginWalk() { ++walk_; }

  // The entry of `path`, whatever its stamp, or null. Whether it still stands for
  // the file is CanReuseParse(entry->stamp, stamp of the file now).
  const Entry* Find(const std::string& path) const {
    auto it = entries_.find(path);
    return it == entries_.end() || !it->second.stands ? nullptr : &it->second;
  }

  // Marks `entry` (from Find) as met in this walk: it is not dropped.
  void MarkSeen(const Entry& entry) { entry.walk = walk_; }

  // Keeps `parsed`, read from `path` at `stamp`, when the stamp is settled at
  // `read_started_ns`; an unsettled one is forgotten instead (read again next walk).
  void Keep(const std::string& path, const FileStamp& stamp, std::int64_t read_started_ns,
            Parsed parsed) {
    if (!StampIsSettled(stamp, read_started_ns)) return Forget(path);
    Entry& entry = entries_[path];
    entry.stamp = stamp;
    entry.parsed = std::move(parsed);
    entry.walk = walk_;
    entry.stands = true;
  }

  // Forgets `path` (read now with no result worth keeping): Find no longer returns
  // it, and DropUnseen erases it.
  void Forget(const std::string& path) {
    auto it = entries_.find(path);
    if (it != entries_.end()) it->second.stands = false;
  }

  // Erases the entries this walk neither kept nor marked seen, and the forgotten ones.
  void DropUnseen() {
    for (auto it = entries_.begin(); it != entries_.end();) {
      const bool keep = it->second.stands && it->second.walk == walk_;
      it = keep ? std::next(it) : entries_.erase(it);
    }
  }

  // Entries held, forgotten ones included until DropUnseen.
  std::size_t size() const { return entries_.size(); }

 private:
  std::unordered_map<std::string, Entry> entries_;
  std::uint64_t walk_ = 0;
};

}  // namespace scx

#endif  // SCX_BASE_STAMP_CACHE_H_
