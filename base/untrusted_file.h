// Reading files that someone else controls (a brain's store and small files, a
// registry record, /proc, a TLS key) read-only, non-blocking, regular files only,
// size-capped; never writes, locks or keeps anything open. Used by the store reader,
// discovery, the config's YAML and certificate files, the state file and the CPU
// limits in /proc and /sys.
//
// Thread-safety: the functions share no state; an UntrustedFileBuffer belongs to its caller.
#ifndef SCX_BASE_UNTRUSTED_FILE_H_
#define SCX_BASE_UNTRUSTED_FILE_H_

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace scx {

enum class UntrustedFileError {
  kNone,
  kAbsent,      // no file (a dangling symlink is kNotRegular, not kAbsent)
  kIo,          // stat/open/read failed for another reason, or out of memory
  kTooLarge,    // larger than the cap, on disk or while being read
  kNotRegular,  // a directory, FIFO, socket, device, dangling or looping symlink
  // A link (symbolic, or a hard link of another owner's file) that leaves the files of
  // the owner of the folder holding it: not read (LinkRule::kOwnerOfFolder only).
  kForeignLink,
};

// How ReadUntrustedFile treats a path that is a link.
enum class LinkRule {
  kFollow,  // opened wherever it leads
  // Read only what stays with the owner of the folder holding the path (the brain's
  // runtime dir): a symbolic link is followed only to a file of that owner (uid), and a
  // file with more than one hard link is read only when that owner owns it. Anything
  // else is kForeignLink, whatever the link leads to (a file of another owner, a missing
  // file in another's folder, a folder that cannot be searched), with one message, so
  // that the answer tells nothing of the other owner's files. A symbolic link that
  // cannot be opened and never leaves the owner's folders (to nothing there, a loop) is
  // classified as without this rule. A file with a single link is read whoever owns it
  // (m1nd replaces its files by rename: they have one).
  kOwnerOfFolder,
};

// Memory a file is read into, owned by the caller. ReadUntrustedFile reads straight into
// data(), growing it through Reserve; it never zero-fills or copies more than `keep`.
class UntrustedFileBuffer {
 public:
  virtual ~UntrustedFileBuffer() = default;
  // Makes room for at least `capacity` bytes, keeping the first `keep`. False when
  // out of memory. Never shrinks.
  virtual bool Reserve(std::size_t capacity, std::size_t keep) = 0;
  virtual char* data() = 0;
  virtual std::size_t capacity() const = 0;
};

struct UntrustedFileResult {
  UntrustedFileError error = UntrustedFileError::kNone;
  std::string message;    // what went wrong, without the path; empty on success
  bool has_info = false;  // `info` holds the last successful stat or fstat of the path
  struct stat info = {};
  std::size_t size = 0;  // bytes read; meaningful only when error == kNone
  int read_calls = 0;    // read(2) calls that returned (one for a file read whole)
};

// What change detection compares, for stores and for discovery's small files alike.
// m1nd replaces the store by rename, so every write changes the inode; ctime catches a
// rewrite in place that leaves size and mtime as they were (within one timestamp
// tick, or with mtime set back by utimensat): nobody can set ctime back.
struct FileStamp {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileStamp& other) const {
    return device == other.device && inode == other.inode && size == other.size &&
           mtime_ns == other.mtime_ns && ctime_ns == other.ctime_ns;
  }
  bool operator!=(const FileStamp& other) const { return !(*this == other); }
};

// The stamp of a file as stat(2) or fstat(2) gave it.
FileStamp StampOfStat(const struct stat& info);

// Stats `path` (following symlinks) without opening it. kNone for a regular file.
UntrustedFileResult StatUntrustedFile(const std::string& path);

// Opens `path` with O_RDONLY | O_NONBLOCK | O_NOCTTY, fstats the descriptor and, for a
// regular file only, reads it to its end into `buffer`; then closes it. What is read
// is the file that was opened, whatever replaces the path meanwhile; `info` is its
// fstat. The end is a zero-byte read, or a short read once the fstat'ed size is in
// (a file that grew is read on). Never reads more than `max_bytes` + 1 bytes: a file
// over `max_bytes` (at the fstat or by growing while being read) is kTooLarge. On
// success the data is buffer->data()[0, size).
//
// With LinkRule::kOwnerOfFolder, a path that is no link costs nothing more (it is
// opened with O_NOFOLLOW); a symbolic link costs a stat of the folder and an fstat.
UntrustedFileResult ReadUntrustedFile(const std::string& path, std::int64_t max_bytes,
                                      UntrustedFileBuffer* buffer,
                                      LinkRule links = LinkRule::kFollow);

// The same into a string, which holds exactly the file on success and is empty on
// any error.
UntrustedFileResult ReadUntrustedFile(const std::string& path, std::int64_t max_bytes,
                                      std::string* contents);

}  // namespace scx

#endif  // SCX_BASE_UNTRUSTED_FILE_H_
