// Reads a brain's system block store (`system_blocks.json`) without ever blocking,
// writing or holding it: regular files only, read-only and non-blocking, size-capped.
// Extracts just what the verdict needs; every failure is a typed error, never a throw.
//
// Thread-safety: the functions may be called from several threads at once; each
// thread keeps its own reusable parser and buffer (thread_local).
#ifndef SCX_ENGINE_STORE_READER_H_
#define SCX_ENGINE_STORE_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/untrusted_file.h"
#include "engine/coherence.h"
#include "engine/m1nd_files.h"
#include "engine/vocabulary.h"

namespace scx {

inline constexpr char kStoreSchema[] = "m1nd-system-block-store-v0";

enum class StoreError {
  kNone,
  kAbsent,      // no file or a link to nothing: "no skeleton yet", an honest state
  kIo,          // stat/open/read failed for another reason
  kTooLarge,    // larger than StoreReaderOptions::max_bytes
  kNotRegular,  // a directory, FIFO, socket, device or looping symlink
  kParse,       // not valid JSON (torn write, garbage, too deep)
  kSchema,      // valid JSON of the wrong shape or schema
  kUnseen,      // no file, in a runtime dir this process cannot see (visibility.h)
  // A link that leaves the files of the runtime dir's owner (LinkRule::kOwnerOfFolder):
  // not followed, nothing of it read or published.
  kForeignLink,
};

inline constexpr Term<StoreError> kStoreErrors[] = {
    {StoreError::kNone, "none"},
    {StoreError::kAbsent, "absent"},
    {StoreError::kIo, "io"},
    {StoreError::kTooLarge, "too_large"},
    {StoreError::kNotRegular, "not_regular"},
    {StoreError::kParse, "parse"},
    {StoreError::kSchema, "schema"},
    {StoreError::kUnseen, "unseen"},
    {StoreError::kForeignLink, "foreign_link"},
};

inline const char* StoreErrorName(StoreError error) { return NameOf(kStoreErrors, error); }

// True for the errors that make a store unreadable: the `reason` label values of
// skeleton_coherence_store_read_errors_total (not kNone, not kAbsent).
constexpr bool IsReadError(StoreError error) {
  return error != StoreError::kNone && error != StoreError::kAbsent;
}

// The fields the exporter relies on. `schema`, `store_version`, `skeleton`, `blocks`
// and `unmapped_policy` are required, as in m1nd's SystemBlockStore: a store without
// one of them, or with one null or of the wrong type, cannot be loaded by m1nd and is
// kSchema. That struct also denies unknown top-level fields: besides the five, only
// its optional ones (`unmapped_files`, `unmapped_total`, `candidate_revision`,
// `curating_by`, `curating_until`; skipped unread) may appear, and any other top-level
// key is kSchema too; so are an unknown key in the skeleton, its ratification or a
// block, a skeleton or block state m1nd does not know and a skeleton version above u32.
// The objects nested in a block are skipped unread (docs/verdict.md says what that
// leaves out). `store_version` is m1nd's u64, 0 to 2^64 - 1. `unmapped_policy` must
// be an object of m1nd's two policy fields. The schema is checked,
// not kept (a good read always has kStoreSchema). The block ids are not kept either:
// the digest holds what the verdict needs of them.
struct StoreContents {
  std::uint64_t store_version = 0;
  std::int64_t block_count = 0;
  SkeletonDigest digest;  // the skeleton id and the block ids that can offend
};

// Stores larger than this are refused as too large unless the config says otherwise.
inline constexpr std::int64_t kDefaultMaxStoreBytes = std::int64_t{64} << 20;  // 64 MiB

struct StoreReaderOptions {
  std::int64_t max_bytes = kDefaultMaxStoreBytes;
};

struct StoreReadResult {
  StoreError error = StoreError::kNone;
  std::string message;     // what went wrong, for logs; empty on success
  FileStamp stamp;         // set whenever the path could be stat'ed
  StoreContents contents;  // meaningful only when error == kNone
};

// Stats `path` (following symlinks) without opening it. Returns kNone and fills
// `stamp` for a regular file; kAbsent, kNotRegular or kIo otherwise.
StoreError StatStore(const std::string& path, FileStamp* stamp, std::string* message);

// Stats, opens (O_RDONLY | O_NONBLOCK), reads and parses the store at `path`, which
// is `<runtime dir>/system_blocks.json`: only what stays with the runtime dir's owner
// (LinkRule::kOwnerOfFolder) is read; a link that leaves it is kForeignLink.
StoreReadResult ReadStore(const std::string& path, const StoreReaderOptions& options);

// Gives back what the calling thread keeps for its next read beyond what a store of
// 1 MiB needs (about 7 MiB in all). ReadStore and ParseStore keep their read buffer and
// parser, grown to the largest store the thread has read, because a scan reads many
// stores in a row; a thread done reading for a while calls this (the scanner does after
// each scan). A thread's end gives everything back.
void ReleaseStoreReaderMemory();

// Parses an in-memory store document. Pure: used by ReadStore and by tests. When
// `block_ids` is not null it also receives every block id in file order (tests and
// fuzzers check the digest against them); left empty on failure.
StoreError ParseStore(std::string_view json, StoreContents* contents, std::string* message,
                      std::vector<std::string>* block_ids = nullptr);

}  // namespace scx

#endif  // SCX_ENGINE_STORE_READER_H_
