// One scan of every brain: discovery, change detection by file stamp, store read and
// verdict. Keeps what it needs between scans (last good verdict per brain, read error
// counts) so that an unreadable store never turns a known verdict into nothing.
// Knows nothing about HTTP or Prometheus.
//
// Thread-safety: a Scanner is not thread-safe; one thread uses it (the scan loop's).
// Inside Scan it reads stores on a few threads of its own, joined before Scan
// returns. The result types are plain values.
#ifndef SCX_ENGINE_SCANNER_H_
#define SCX_ENGINE_SCANNER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/coherence.h"
#include "engine/discovery.h"
#include "engine/parallel_for.h"
#include "engine/skeleton_provenance.h"
#include "engine/store_reader.h"
#include "engine/vocabulary.h"

namespace scx {

// A brain's state after a scan. kAbsent is "no store file" ("no skeleton yet"): no
// verdict. A store m1nd could not load (no skeleton, say) is kUnreadable.
enum class BrainState { kOk, kMismatch, kAbsent, kUnreadable };

inline constexpr Term<BrainState> kBrainStates[] = {
    {BrainState::kOk, "ok"},
    {BrainState::kMismatch, "mismatch"},
    {BrainState::kAbsent, "absent"},
    {BrainState::kUnreadable, "unreadable"},
};

inline const char* BrainStateName(BrainState state) { return NameOf(kBrainStates, state); }

// The store file as a scan found it.
enum class StorePresence { kPresent, kAbsent, kUnreadable };

inline constexpr Term<StorePresence> kStorePresences[] = {
    {StorePresence::kPresent, "present"},
    {StorePresence::kAbsent, "absent"},
    {StorePresence::kUnreadable, "unreadable"},
};

inline const char* StorePresenceName(StorePresence presence) {
  return NameOf(kStorePresences, presence);
}

// What the latest scan knows about one brain.
struct BrainReport {
  Brain brain;
  BrainState state = BrainState::kAbsent;
  StorePresence store = StorePresence::kAbsent;  // the file as found this scan
  StoreError read_error = StoreError::kNone;     // this scan's error, if unreadable
  std::string read_error_message;
  // The verdict to export: this scan's, or the last good one when the store is
  // unreadable now (then verdict_stale is true). Empty: nothing to export.
  std::optional<Coherence> coherence;
  bool verdict_stale = false;
  // While the verdict (stale included) is a mismatch: the store file's mtime (Unix
  // seconds) at the first read this process saw of this same foreign verdict. So the
  // brain has served this skeleton at least since then. Empty otherwise.
  std::optional<double> mismatch_since;
  // Facts of the last good read, when there is one to show.
  bool has_store_facts = false;
  std::int64_t store_version = 0;
  std::int64_t block_count = 0;
  std::string skeleton_id;  // of the last good read
  // Whose skeleton it is (owner, sharing, prefix ambiguity): a signal beside the
  // verdict, computed over the whole scan. Never changes `coherence`.
  SkeletonProvenance provenance;
  // Scans in which this brain's store could not be read, since it was first seen,
  // by reason (IsReadError values only).
  std::map<StoreError, std::uint64_t> read_errors_total;
};

// A brain whose state differs from the previous scan (or that is new or gone).
struct StateChange {
  std::string brain;
  std::optional<BrainState> from;             // empty: first seen
  std::optional<BrainState> to;               // empty: gone
  std::optional<Coherence> coherence;         // the verdict after the change, if any
  StoreError read_error = StoreError::kNone;  // when `to` is kUnreadable
  std::string read_error_message;
};

struct ScanResult {
  std::vector<BrainReport> brains;  // sorted by brain name
  std::vector<DiscoveryProblem> problems;
  std::vector<DiscoveryNotice> notices;
  std::vector<std::string> name_collisions;
  std::vector<StateChange> changes;
  std::int64_t stores_parsed = 0;     // stores read and parsed this scan
  std::int64_t stores_unchanged = 0;  // stores skipped: stamp unchanged
  // Verdicts worked out this scan (block by block). A store read this scan, or one
  // whose brain's identity changed, needs one; an unchanged store reuses its verdict.
  std::int64_t verdicts_computed = 0;
  // The scan was stopped before it finished: the result is incomplete and must not
  // be published. The scanner's view of the previous scan is left as it was.
  bool stopped = false;
};

class Scanner {
 public:
  explicit Scanner(StoreReaderOptions options = {});

  // Runs one scan. Never throws for bad input on disk. When `stop` (may be null)
  // becomes true the scan ends at the next step (between discovery steps and between
  // brains) with a result marked stopped.
  ScanResult Scan(const DiscoveryConfig& config, const std::atomic<bool>* stop = nullptr);

  // Applies new reader options (a new size cap). Every store is read again at the
  // next scan; the last good verdicts are kept, so a store the new options refuse
  // still shows its last verdict, marked stale.
  void SetOptions(const StoreReaderOptions& options);

  // Sets how many threads the next scans read stores on (stat, open, read, parse).
  // The verdicts, the remembered state and the result are worked out on the scan
  // thread in brain order, whatever the threads. Exposed for tests.
  void SetParallelism(const Parallelism& parallelism) { parallelism_ = parallelism; }

  // Scans one brain, updating its remembered state. Exposed for tests.
  BrainReport ScanBrain(const Brain& brain);

 private:
  // What is remembered of one runtime dir between scans.
  struct Memory {
    bool has_good_read = false;
    FileStamp stamp;                     // of the last good read
    StoreContents contents;              // of the last good read: its digest, no block ids
    std::int64_t contents_mtime_ns = 0;  // of the last good read; kept by SetOptions
    // The verdict of `contents` for the identity it was worked out for
    // (project_root + '\0' + display_name); empty key: none cached.
    std::string verdict_identity;
    std::optional<Coherence> verdict;
    // The last read that failed for its content (parse, schema, too large): an
    // unchanged file is not read again.
    bool failed_content = false;
    FileStamp failed_stamp;
    StoreError failed_error = StoreError::kNone;
    std::string failed_message;
    std::map<StoreError, std::uint64_t> read_errors_total;
    // The mismatch verdict being served ("expected\nfound"; empty when none) and the
    // store's mtime at the first read that showed it.
    std::string mismatch_key;
    std::int64_t mismatch_since_ns = 0;
  };

  // A brain's state and verdict in the previous scan, for change detection.
  struct Previous {
    BrainState state = BrainState::kAbsent;
    std::optional<Coherence> coherence;
    StoreError read_error = StoreError::kNone;
    std::string read_error_message;
  };

  // What one brain's store gave this scan: the file-reading part of ScanBrain.
  struct Fetched {
    bool unchanged = false;                // the stamp of the last good read: nothing read
    bool same_failure = false;             // the stamp of the last content failure: not read again
    bool was_read = false;                 // read and parsed: `read` holds the result
    StoreError error = StoreError::kNone;  // of the stat, when nothing was read
    std::string message;
    StoreReadResult read;
  };

  // Stats and reads the store of `brain` as `memory` says it must; changes nothing,
  // so that several threads may fetch different brains at once.
  static Fetched FetchStore(const Brain& brain, const Memory& memory,
                            const StoreReaderOptions& options);

  // Turns a fetch into the brain's report, updating `memory` and the counters.
  BrainReport ApplyFetched(const Brain& brain, Memory* memory, Fetched fetched);

  // Sets report->mismatch_since, starting the clock when the mismatch is new or
  // names another foreign slug and resetting it when there is no mismatch.
  static void TrackMismatchSince(Memory* memory, BrainReport* report);

  // The verdict of the last good read for `brain`, worked out again only when the
  // read or the brain's identity is new.
  const std::optional<Coherence>& CachedVerdict(const Brain& brain, Memory* memory);

  std::vector<StateChange> ChangesSince(const std::map<std::string, Previous>& now) const;

  StoreReaderOptions options_;
  Parallelism parallelism_;
  // By runtime dir. Node-based: a Memory stays where it is while others come and go.
  std::unordered_map<std::string, Memory> memory_;
  std::vector<Brain> previous_brains_;
  std::map<std::string, Previous> previous_;  // by brain name
  std::int64_t parsed_ = 0;
  std::int64_t unchanged_ = 0;
  std::int64_t verdicts_computed_ = 0;
};

}  // namespace scx

#endif  // SCX_ENGINE_SCANNER_H_
