// The stamp of a small file and when it can be trusted.
#include "engine/stamp_cache.h"

namespace scx {

namespace {

std::int64_t Nanoseconds(const struct timespec& time) {
  return static_cast<std::int64_t>(time.tv_sec) * 1000 * 1000 * 1000 + time.tv_nsec;
}

}  // namespace

FileStamp StampOfStat(const struct stat& info) {
  FileStamp stamp;
  stamp.device = static_cast<std::uint64_t>(info.st_dev);
  stamp.inode = static_cast<std::uint64_t>(info.st_ino);
  stamp.size = static_cast<std::int64_t>(info.st_size);
  stamp.mtime_ns = Nanoseconds(info.st_mtim);
  stamp.ctime_ns = Nanoseconds(info.st_ctim);
  return stamp;
}

bool StampIsSettled(const FileStamp& stamp, std::int64_t read_started_ns) {
  const std::int64_t settled_before = read_started_ns - kStampSettleNs;
  return stamp.mtime_ns < settled_before && stamp.ctime_ns < settled_before;
}

}  // namespace scx
