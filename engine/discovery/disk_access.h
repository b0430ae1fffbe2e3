// How discovery reads the disk: it lists a folder, opens one to stat what is in it,
// and reads one of m1nd's small files whole through untrusted_file (read-only,
// non-blocking, regular files only, closed at once), or knows it by a kept parse when
// a stat finds the file unchanged. Never writes or locks. Internal to engine/.
#ifndef SCX_ENGINE_DISCOVERY_DISK_ACCESS_H_
#define SCX_ENGINE_DISCOVERY_DISK_ACCESS_H_

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"

namespace scx {

// Registry entries and manifests are a few hundred bytes; anything this large is
// not one of them and is not read.
inline constexpr std::int64_t kMaxSmallFileBytes = std::int64_t{1} << 20;

// strerror(error).
std::string ErrnoText(int error);

// What a listing or a read found: kMissing when nothing is there, kError for any
// other failure (with a message).
enum class ReadStatus { kOk, kMissing, kError };

// Lists the entry names of `dir` (without "." and ".."), sorted. kMissing when the
// folder does not exist.
ReadStatus ListDir(const std::string& dir, std::vector<std::string>* names, std::string* error);

// A folder opened to stat what is in it; AT_FDCWD when it could not be opened.
class FolderFd {
 public:
  explicit FolderFd(const std::string& folder)
      : fd_(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {}
  ~FolderFd() {
    if (fd_ >= 0) close(fd_);
  }
  FolderFd(const FolderFd&) = delete;
  FolderFd& operator=(const FolderFd&) = delete;

  int get() const { return fd_ >= 0 ? fd_ : AT_FDCWD; }

 private:
  const int fd_;
};

// How a small file is read (DiscoveryCache::Options::read_file): ReadUntrustedFile's
// signature; an empty function stands for ReadUntrustedFile itself.
using ReadFileFunction =
    std::function<UntrustedFileResult(const std::string&, std::int64_t, std::string*)>;

// Reads a small file of a brain whole through `read_file` (ReadUntrustedFile when empty:
// read-only, non-blocking, regular files only, closed before returning), and gives
// the stamp and owner (uid) of what was read. kMissing only when nothing is there.
ReadStatus ReadSmallFile(const std::string& path, const ReadFileFunction& read_file,
                         std::string* contents, FileStamp* stamp, std::uint32_t* owner,
                         std::string* error);

// A parse kept for a file by the DiscoveryCache, with the stamp it was read at.
template <typename Parsed>
using KeptParse = typename StampCache<Parsed>::Entry;

// A small file's parse: read now, or kept from a read of the file as it still is.
template <typename Parsed>
struct Loaded {
  ReadStatus status = ReadStatus::kOk;
  std::string error;  // when status is kError
  // From the cache (the file was only stat'ed); null when read now.
  const KeptParse<Parsed>* kept = nullptr;
  Parsed read;      // the parse of the read, when read now with status kOk
  FileStamp stamp;  // of the read, when read now with status kOk
  // The file's owner (uid) as the read's fstat or the stat that found it unchanged
  // saw it, with status kOk: who wrote it (record_trust.h).
  std::uint32_t owner = 0;

  // The parse, when status is kOk.
  const Parsed& parsed() const { return kept != nullptr ? kept->parsed : read; }
};

// Reads and parses `path` with `parse`, unless `entry` (what the cache keeps for
// `path`; may be null) holds the parse of the file as a stat finds it now; the stat is
// of `name` in the folder `dir_fd` (AT_FDCWD: of `path`). Changes nothing, so that
// several threads may load different files at once; the cache's Remember* then
// record the outcome.
template <typename Parsed>
Loaded<Parsed> LoadSmallFile(const std::string& path, const KeptParse<Parsed>* entry,
                             const ReadFileFunction& read_file, Parsed (*parse)(std::string_view),
                             int dir_fd = AT_FDCWD, const std::string* name = nullptr) {
  Loaded<Parsed> loaded;
  // Without an entry there is nothing to compare: the file is read at once.
  if (entry != nullptr) {
    struct stat info;
    const char* at = name != nullptr ? name->c_str() : path.c_str();
    if (fstatat(dir_fd, at, &info, 0) == 0 && S_ISREG(info.st_mode) &&
        CanReuseParse(entry->stamp, StampOfStat(info))) {
      loaded.kept = entry;
      loaded.owner = info.st_uid;
      return loaded;
    }
  }
  std::string text;
  loaded.status =
      ReadSmallFile(path, read_file, &text, &loaded.stamp, &loaded.owner, &loaded.error);
  if (loaded.status == ReadStatus::kOk) loaded.read = parse(text);
  return loaded;
}

// Now, in CLOCK_REALTIME nanoseconds (the clock of file times).
std::int64_t RealtimeNowNs();

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_DISK_ACCESS_H_
