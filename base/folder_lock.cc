// An exclusive flock(2) on "<folder>/lock" (base/folder_lock.h).
#include "base/folder_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <thread>

namespace scx {
namespace {

constexpr std::chrono::milliseconds kRetryEvery{50};

}  // namespace

std::unique_ptr<FolderLock> FolderLock::Acquire(const std::string& folder,
                                                std::chrono::milliseconds wait, bool* busy,
                                                std::string* error) {
  *busy = false;
  const std::string path = folder + "/lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    *error = "cannot open " + path + ": " + strerror(errno);
    return nullptr;
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      *error = "cannot lock " + path + ": " + strerror(errno);
      close(fd);
      return nullptr;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      *busy = true;
      *error = path + " is locked by another process";
      close(fd);
      return nullptr;
    }
    std::this_thread::sleep_for(kRetryEvery);
  }
  return std::unique_ptr<FolderLock>(new FolderLock(fd));
}

FolderLock::~FolderLock() { close(fd_); }

}  // namespace scx
