// Atomic replacement of a small file: write, fsync, rename, fsync the folder.
#include "base/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "base/strings.h"

namespace scx {

namespace {

std::string Failed(const char* what, const std::string& path) {
  return std::string(what) + " " + path + ": " + strerror(errno);
}

bool WriteAll(int fd, std::string_view contents) {
  while (!contents.empty()) {
    const ssize_t written = write(fd, contents.data(), contents.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    contents.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

}  // namespace

bool WriteFileAtomically(const std::string& path, std::string_view contents, std::string* error) {
  const std::string temporary = path + ".tmp";
  // A stale temporary file (a crash mid-write) or anything planted at its name, a
  // symbolic link included, is removed first: unlink removes a link, never what it
  // points at. The file is then created anew, never opened through a link (O_NOFOLLOW)
  // nor shared with whoever made a file there in between (O_EXCL).
  if (unlink(temporary.c_str()) != 0 && errno != ENOENT) {
    *error = Failed("cannot remove the stale", temporary);
    return false;
  }
  const int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = Failed("cannot create", temporary);
    return false;
  }
  bool ok = WriteAll(fd, contents);
  if (!ok) *error = Failed("cannot write", temporary);
  if (ok && fsync(fd) != 0) {
    *error = Failed("cannot flush", temporary);
    ok = false;
  }
  if (close(fd) != 0 && ok) {
    *error = Failed("cannot close", temporary);
    ok = false;
  }
  if (ok && rename(temporary.c_str(), path.c_str()) != 0) {
    *error = Failed("cannot rename over", path);
    ok = false;
  }
  if (!ok) {
    unlink(temporary.c_str());
    return false;
  }
  std::string folder = ParentFolder(path);
  if (folder.empty()) folder = ".";
  const int dir = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    fsync(dir);  // best effort: the new file is in place either way
    close(dir);
  }
  return true;
}

}  // namespace scx
