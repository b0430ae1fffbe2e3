// DiscoveryCache: the parses of m1nd's small files that discovery keeps between
// scans, each with the stamp of the file it was read from, so that a file found
// unchanged is only stat'ed. Bookkeeping only: the stat and the read are the loader's
// (LoadSmallFile, disk_access.h). discovery.h re-exports it: a caller makes one,
// hands it to every DiscoverBrains and may read size(); the walk looks files up in
// it and remembers what it found.
#ifndef SCX_ENGINE_DISCOVERY_CACHE_H_
#define SCX_ENGINE_DISCOVERY_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/stamp_cache.h"
#include "base/untrusted_file.h"
#include "engine/discovery/disk_access.h"
#include "engine/m1nd_files.h"

namespace scx {

// What the cache keeps of a project brain folder's project_brain.json: its parse, and
// the stamp of the folder when it was found to hold no ingest_roots.json. Most project
// brains have none, and a warm discovery would otherwise look for one in every folder
// at every scan; any file made in the folder since changes its mtime and ctime
// (CanReuseParse of that stamp and the folder's now). The absence lives in the
// manifest's entry rather than in an entry of its own, which cost a hash-map node per
// brain folder, and goes with it.
struct KeptManifest : ManifestParse {
  std::optional<FileStamp> no_ingest_roots_at;
};

// ParseProjectBrainManifest, as the cache keeps it (no absence known yet).
KeptManifest ParseKeptManifest(std::string_view text);

// What discovery keeps between scans: every registry instance file, ingest_roots.json
// and project_brain.json it parsed, with the stamp it was read at (device, inode,
// size, mtime and ctime, see stamp_cache.h). A file whose stamp is unchanged is not
// opened: its parse stands, a failed one included (a torn manifest is reported, and
// its brain carried over, as if read again). A changed or new file is read; a file
// changed less than kStampSettleNs before the discovery began, or stamped in the
// future (the clock was stepped back), is read again next time. Files a complete
// discovery did not meet are forgotten. Read errors (no file, not a regular file, too
// large, I/O) are never kept: such a file is tried every time. Owned by the caller
// (the Scanner); used by one discovery at a time.
//
// Thread-safety: the Find* members may be called from several threads at once while
// nothing is remembered; every other member needs one thread.
class DiscoveryCache {
 public:
  // Seams for tests. Empty members take the defaults.
  struct Options {
    // How a small file is read: ReadUntrustedFile. Called from several threads at once.
    std::function<UntrustedFileResult(const std::string& path, std::int64_t max_bytes,
                                      std::string* contents)>
        read_file;
    // Now, in CLOCK_REALTIME nanoseconds (the clock of file times).
    std::function<std::int64_t()> now_ns;
  };

  DiscoveryCache();
  explicit DiscoveryCache(Options options);
  DiscoveryCache(const DiscoveryCache&) = delete;
  DiscoveryCache& operator=(const DiscoveryCache&) = delete;

  // How many files' parses are kept.
  std::size_t size() const;

  // ---- A walk over the files, one per discovery

  // Begins a walk: reads the clock (walk_started_ns) before the walk reads anything.
  void BeginWalk();
  // Ends a complete walk: forgets every file it did not meet. A stopped walk did not
  // meet every file and is not ended (the next BeginWalk starts afresh).
  void DropUnseen();
  // When the current walk began, by Options::now_ns: a parse read during the walk is
  // kept only once its file's stamp is settled at that time (StampIsSettled).
  std::int64_t walk_started_ns() const { return walk_started_ns_; }
  // Now, by Options::now_ns: for a file time past walk_started_ns (written during the
  // walk, or in the future).
  std::int64_t now_ns() const { return options_.now_ns(); }
  // How small files are read: Options::read_file (empty: ReadUntrustedFile).
  const ReadFileFunction& read_file() const { return options_.read_file; }

  // ---- Look-ups: what is kept for a file whatever its stamp, or null. LoadSmallFile
  // tells whether it still stands for the file as a stat finds it now. Files are known
  // by their path, but a project_brain.json by its folder's RuntimeKey: one per brain
  // folder, and short enough to need no allocation of its own.

  const KeptParse<KeptManifest>* FindManifest(const std::string& folder_key) const;
  const KeptParse<InstanceRecordParse>* FindInstance(const std::string& path) const;
  const KeptParse<IngestRootsParse>* FindIngestRoots(const std::string& path) const;
  // The stamp the folder of RuntimeKey `folder_key` had when it was found to hold no
  // ingest_roots.json (KeptManifest), or null: so that a warm walk makes no path of
  // it. It stands while CanReuseParse of it and the folder's stamp now.
  const FileStamp* FindIngestRootsAbsence(const std::string& folder_key) const;

  // ---- Remembering what LoadSmallFile found at `path` (a manifest: in the folder of
  // `folder_key`) during this walk: a kept parse is marked met, a parse read now is
  // kept with its stamp (once settled), a read error forgets the file.

  void RememberManifest(const std::string& folder_key, const Loaded<KeptManifest>& loaded);
  void RememberInstance(const std::string& path, const Loaded<InstanceRecordParse>& loaded);
  void RememberIngestRoots(const std::string& path, const Loaded<IngestRootsParse>& loaded);

  // ---- Remembering what a project brain folder showed of its ingest_roots.json, after
  // its manifest was remembered in this walk (the absence is kept in the manifest's
  // entry: without one, or with a stamp not settled yet, it is not kept)

  // The folder of RuntimeKey `folder_key`, stamped `folder_stamp` now, has no
  // ingest_roots.json.
  void RememberIngestRootsAbsent(const std::string& folder_key, const FileStamp& folder_stamp);
  // The folder of `folder_key` has an ingest_roots.json, or its stamp is unknown.
  void ForgetIngestRootsAbsence(const std::string& folder_key);

 private:
  // Sets what the manifest entry of `folder_key` (if any) knows of its folder's
  // ingest_roots.json.
  void SetIngestRootsAbsence(const std::string& folder_key,
                             const std::optional<FileStamp>& folder_stamp);

  Options options_;
  std::int64_t walk_started_ns_ = 0;
  StampCache<KeptManifest> manifests_;  // by folder key
  StampCache<InstanceRecordParse> instances_;
  StampCache<IngestRootsParse> ingest_roots_;
};

// How small files are read with `cache` (may be null): ReadUntrustedFile without one.
const ReadFileFunction& ReaderOf(const DiscoveryCache* cache);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_CACHE_H_
