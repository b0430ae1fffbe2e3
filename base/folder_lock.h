// An exclusive lock on a folder of the process' own, held while the process runs:
// flock(2) on "<folder>/lock", which the kernel releases when the process ends, however
// it ends (no stale lock to clean up). Two exporters given one --storage.path would
// overwrite each other's state; the second one is refused instead. flock locks belong
// to an open file description, so a second FolderLock on the same folder in the same
// process conflicts too (as the tests use it).
//
// Thread-safety: Acquire is a function of its arguments; a FolderLock is not shared.
#ifndef SCX_BASE_FOLDER_LOCK_H_
#define SCX_BASE_FOLDER_LOCK_H_

#include <chrono>
#include <memory>
#include <string>

namespace scx {

class FolderLock {
 public:
  // Locks `folder` (which must exist), waiting up to `wait` for a holder to go (a
  // restart whose old process is still stopping). Null with a one-line reason in
  // *error when another holds it past the wait (then *busy is true) or the lock file
  // cannot be opened or locked (not followed through a link; *busy false).
  static std::unique_ptr<FolderLock> Acquire(const std::string& folder,
                                             std::chrono::milliseconds wait, bool* busy,
                                             std::string* error);

  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

 private:
  explicit FolderLock(int fd) : fd_(fd) {}
  const int fd_;
};

}  // namespace scx

#endif  // SCX_BASE_FOLDER_LOCK_H_
