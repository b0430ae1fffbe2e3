// Reads a brain's file: open read-only and non-blocking, fstat the descriptor, read
// to the end straight into the caller's buffer, close. Nothing but a regular file is
// read (a FIFO or a device is closed unread, never waited on); nothing is written,
// locked or left open. Four system calls for a file that fits in its stat'ed size.
#include "base/untrusted_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>

namespace scx {

namespace {

std::string ErrnoMessage(const char* what, int error) {
  return std::string(what) + ": " + std::strerror(error);
}

// Classifies a failed stat/open of `path`.
UntrustedFileError ClassifyErrno(const std::string& path, const char* what, int error,
                                 std::string* message) {
  if (error == ENOENT) {
    // A dangling symlink is not an absent file: something is there, just wrong.
    struct stat link;
    if (lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      *message = "dangling symbolic link";
      return UntrustedFileError::kNotRegular;
    }
    *message = ErrnoMessage(what, error);
    return UntrustedFileError::kAbsent;
  }
  *message = ErrnoMessage(what, error);
  if (error == ELOOP) return UntrustedFileError::kNotRegular;
  // ENXIO: open(2) of a socket; ENXIO or ENODEV: a device without a driver.
  if (error == ENXIO || error == ENODEV) {
    *message = "not a regular file (" + *message + ")";
    return UntrustedFileError::kNotRegular;
  }
  return UntrustedFileError::kIo;
}

// Records a successful stat or fstat; kNotRegular unless it is of a regular file.
UntrustedFileError CheckRegular(const struct stat& info, UntrustedFileResult* result) {
  result->info = info;
  result->has_info = true;
  if (!S_ISREG(info.st_mode)) {
    result->message = "not a regular file";
    return UntrustedFileError::kNotRegular;
  }
  return UntrustedFileError::kNone;
}

// `extra_flags`: O_NOFOLLOW, or 0.
int OpenReadOnly(const std::string& path, int extra_flags = 0) {
  const int kFlags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | extra_flags;
  int fd;
  do {
    fd = open(path.c_str(), kFlags | O_NOATIME);
  } while (fd < 0 && errno == EINTR);
  if (fd >= 0 || errno != EPERM) return fd;
  // O_NOATIME is only allowed to the file's owner (or CAP_FOWNER).
  do {
    fd = open(path.c_str(), kFlags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Closes a descriptor on every path out of ReadUntrustedFile.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    // Linux releases the descriptor even when close() reports EINTR: never retry.
    if (fd_ >= 0) close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;

 private:
  const int fd_;
};

std::string TooLargeMessage(std::int64_t max_bytes) {
  return "larger than the " + std::to_string(max_bytes) + "-byte limit";
}

UntrustedFileError OutOfMemory(UntrustedFileResult* result) {
  result->message = "out of memory";
  return UntrustedFileError::kIo;
}

// Checks what was opened: only a regular file within the cap is read.
UntrustedFileError CheckOpened(int fd, std::int64_t max_bytes, UntrustedFileResult* result) {
  struct stat info;
  if (fstat(fd, &info) != 0) {
    result->message = ErrnoMessage("fstat", errno);
    return UntrustedFileError::kIo;
  }
  const UntrustedFileError error = CheckRegular(info, result);
  if (error != UntrustedFileError::kNone) return error;
  if (info.st_size > max_bytes) {
    result->message = TooLargeMessage(max_bytes) + " (" + std::to_string(info.st_size) + " bytes)";
    return UntrustedFileError::kTooLarge;
  }
  return UntrustedFileError::kNone;
}

// Reads `fd` to its end into `buffer`, sized from the fstat in `result->info`.
UntrustedFileError ReadAll(int fd, std::int64_t max_bytes, UntrustedFileBuffer* buffer,
                           UntrustedFileResult* result) {
  // Reads never go past one byte over the cap: that byte proves the file too large.
  const std::size_t limit = static_cast<std::size_t>(max_bytes) + 1;
  const auto stat_size = static_cast<std::size_t>(result->info.st_size);
  // One byte more than the stat'ed size: a read that fills it shows the file grew.
  if (!buffer->Reserve(stat_size + 1, 0)) return OutOfMemory(result);
  std::size_t used = 0;
  for (;;) {
    if (used >= limit) {
      result->message = TooLargeMessage(max_bytes) + " (grew while being read)";
      return UntrustedFileError::kTooLarge;
    }
    if (used == buffer->capacity()) {
      const std::size_t grown = used > limit / 2 ? limit : used * 2;
      if (!buffer->Reserve(grown, used)) return OutOfMemory(result);
    }
    const std::size_t want = std::min(buffer->capacity(), limit) - used;
    const ssize_t n = read(fd, buffer->data() + used, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      result->message = ErrnoMessage("read", errno);
      return UntrustedFileError::kIo;
    }
    ++result->read_calls;
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    // A short read of a regular file is its end once the stat'ed size is in: no
    // read(2) just to see EOF. Before that size (or for a file stat'ed empty, like
    // those in /proc) only a zero-byte read ends it.
    if (static_cast<std::size_t>(n) < want && stat_size > 0 && used >= stat_size) break;
  }
  result->size = used;
  return UntrustedFileError::kNone;
}

// Adapts a std::string: its size is the capacity.
class StringBuffer final : public UntrustedFileBuffer {
 public:
  explicit StringBuffer(std::string* contents) : contents_(contents) {}
  bool Reserve(std::size_t capacity, std::size_t /*keep*/) override {
    if (capacity <= contents_->size()) return true;
    try {
      contents_->resize(capacity);  // keeps everything
    } catch (const std::bad_alloc&) {
      return false;
    }
    return true;
  }
  char* data() override { return contents_->data(); }
  std::size_t capacity() const override { return contents_->size(); }

 private:
  std::string* contents_;
};

std::int64_t Nanoseconds(const struct timespec& time) {
  return static_cast<std::int64_t>(time.tv_sec) * 1000 * 1000 * 1000 + time.tv_nsec;
}

// ---- LinkRule::kOwnerOfFolder

// One message for every link that leaves the owner's files: what it leads to (another
// owner's file, nothing in another's folder, a folder that cannot be searched) is not
// told apart, so that the exporter's answer reveals nothing of files it may read as
// root and the owner may not.
constexpr char kForeignLinkMessage[] =
    "a link that leaves the files of its folder's owner (the runtime dir's): not followed, "
    "not read";

// Symbolic links followed at most, as the kernel does (MAXSYMLINKS).
constexpr int kMaxLinkHops = 40;

std::string FolderOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The owner of the folder holding `path`; false when it cannot be stat'ed.
bool FolderOwner(const std::string& path, uid_t* owner) {
  struct stat info;
  if (stat(FolderOf(path).c_str(), &info) != 0) return false;
  *owner = info.st_uid;
  return true;
}

// True when the symbolic link at `path`, which could not be opened, stays in folders of
// `owner`: each link of the chain is read (lstat, readlink), and the folder of each
// name on it, up to the last (a name that does not exist, or is no link), is `owner`'s.
// A chain longer than the kernel follows (a loop) that never left them stays too. A
// name that cannot be looked up for another reason than ENOENT is false.
bool LinkStaysWithOwner(const std::string& path, uid_t owner) {
  std::string current = path;
  for (int hop = 0; hop <= kMaxLinkHops; ++hop) {
    uid_t folder_owner = 0;
    if (!FolderOwner(current, &folder_owner) || folder_owner != owner) return false;
    struct stat info;
    if (lstat(current.c_str(), &info) != 0) return errno == ENOENT;
    if (!S_ISLNK(info.st_mode)) return true;
    char target[4096];
    const ssize_t length = readlink(current.c_str(), target, sizeof(target));
    if (length <= 0 || static_cast<std::size_t>(length) >= sizeof(target)) return false;
    const std::string_view next(target, static_cast<std::size_t>(length));
    if (next.front() == '/') {
      current.assign(next);
    } else {
      std::string folder = FolderOf(current);
      folder += '/';
      folder += next;
      current = std::move(folder);
    }
  }
  return true;
}

UntrustedFileError ForeignLink(UntrustedFileResult* result) {
  result->has_info = false;  // nothing of the target is kept, not even its stamp
  result->message = kForeignLinkMessage;
  return UntrustedFileError::kForeignLink;
}

// A file with several hard links that its folder's owner does not own: one of them may
// be another owner's file, linked here.
bool IsForeignHardLink(const std::string& path, const struct stat& info) {
  if (info.st_nlink <= 1) return false;
  uid_t owner = 0;
  return !FolderOwner(path, &owner) || info.st_uid != owner;
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

UntrustedFileResult StatUntrustedFile(const std::string& path) {
  UntrustedFileResult result;
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    result.error = ClassifyErrno(path, "stat", errno, &result.message);
  } else {
    result.error = CheckRegular(info, &result);
  }
  return result;
}

namespace {

// Opens the symbolic link `path` (LinkRule::kOwnerOfFolder) when it leads to a file of
// its folder's owner: the descriptor, or -1 with result->error set.
int OpenLinkOfOwner(const std::string& path, UntrustedFileResult* result) {
  uid_t owner = 0;
  if (!FolderOwner(path, &owner)) {
    result->error = ForeignLink(result);
    return -1;
  }
  const int fd = OpenReadOnly(path);
  if (fd < 0) {
    const int error = errno;
    result->error = LinkStaysWithOwner(path, owner)
                        ? ClassifyErrno(path, "open", error, &result->message)
                        : ForeignLink(result);
    return -1;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || info.st_uid != owner) {
    close(fd);
    result->error = ForeignLink(result);
    return -1;
  }
  return fd;
}

bool IsSymlink(const std::string& path) {
  struct stat info;
  return lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
}

}  // namespace

UntrustedFileResult ReadUntrustedFile(const std::string& path, std::int64_t max_bytes,
                                      UntrustedFileBuffer* buffer, LinkRule links) {
  UntrustedFileResult result;
  max_bytes = std::max<std::int64_t>(max_bytes, 0);
  const bool owner_only = links == LinkRule::kOwnerOfFolder;
  int fd = OpenReadOnly(path, owner_only ? O_NOFOLLOW : 0);
  if (fd < 0) {
    const int error = errno;
    // O_NOFOLLOW refuses a symbolic link with ELOOP.
    if (!owner_only || error != ELOOP || !IsSymlink(path)) {
      result.error = ClassifyErrno(path, "open", error, &result.message);
      return result;
    }
    fd = OpenLinkOfOwner(path, &result);
    if (fd < 0) return result;
  }
  FdCloser closer(fd);
  result.error = CheckOpened(fd, max_bytes, &result);
  if (owner_only && result.has_info && IsForeignHardLink(path, result.info)) {
    result.error = ForeignLink(&result);
  }
  if (result.error == UntrustedFileError::kNone)
    result.error = ReadAll(fd, max_bytes, buffer, &result);
  return result;
}

UntrustedFileResult ReadUntrustedFile(const std::string& path, std::int64_t max_bytes,
                                      std::string* contents) {
  contents->clear();
  StringBuffer buffer(contents);
  UntrustedFileResult result = ReadUntrustedFile(path, max_bytes, &buffer);
  contents->resize(result.error == UntrustedFileError::kNone ? result.size : 0);
  return result;
}

}  // namespace scx
