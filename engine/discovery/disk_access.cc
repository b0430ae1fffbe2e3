// How discovery reads the disk (disk_access.h).
#include "engine/discovery/disk_access.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"

namespace scx {

std::string ErrnoText(int error) { return strerror(error); }

ReadStatus ListDir(const std::string& dir, std::vector<std::string>* names, std::string* error) {
  names->clear();
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    if (errno == ENOENT) return ReadStatus::kMissing;
    *error = "cannot list folder: " + ErrnoText(errno);
    return ReadStatus::kError;
  }
  errno = 0;
  while (struct dirent* entry = readdir(handle)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names->push_back(std::move(name));
    errno = 0;
  }
  int read_errno = errno;
  closedir(handle);
  if (read_errno != 0) {
    *error = "cannot list folder: " + ErrnoText(read_errno);
    return ReadStatus::kError;
  }
  std::sort(names->begin(), names->end());
  return ReadStatus::kOk;
}

ReadStatus ReadSmallFile(const std::string& path, const ReadFileFunction& read_file,
                         std::string* contents, FileStamp* stamp, std::uint32_t* owner,
                         std::string* error) {
  const UntrustedFileResult result = read_file
                                         ? read_file(path, kMaxSmallFileBytes, contents)
                                         : ReadUntrustedFile(path, kMaxSmallFileBytes, contents);
  if (result.error == UntrustedFileError::kNone) {
    *stamp = StampOfStat(result.info);
    *owner = result.info.st_uid;
    return ReadStatus::kOk;
  }
  if (result.error == UntrustedFileError::kAbsent) return ReadStatus::kMissing;
  *error = result.message;
  return ReadStatus::kError;
}

std::int64_t RealtimeNowNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 * 1000 * 1000 + now.tv_nsec;
}

}  // namespace scx
