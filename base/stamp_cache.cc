// When the stamp of a small file can be trusted.
#include "base/stamp_cache.h"

namespace scx {

bool StampIsSettled(const FileStamp& stamp, std::int64_t read_started_ns) {
  const std::int64_t settled_before = read_started_ns - kStampSettleNs;
  return stamp.mtime_ns < settled_before && stamp.ctime_ns < settled_before;
}

}  // namespace scx
