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

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/parallel_for.h"
#include "engine/coherence.h"
#include "engine/discovery/discovery.h"
#include "engine/discovery/read_folders.h"
#include "engine/skeleton_provenance.h"
#include "engine/store_reader.h"
#include "engine/vocabulary.h"

namespace scx {

// A brain's state after a scan. kAbsent is "no store file" ("no skeleton yet"): no
// verdict. A store m1nd could not load (no skeleton, say) is kUnreadable. A brain with
// a store whose identity this process cannot decide (a repo hidden from it, see
// visibility.h) is kIdentityUnknown: no verdict either, never a mismatch.
enum class BrainState { kOk, kMismatch, kAbsent, kUnreadable, kIdentityUnknown };

inline constexpr Term<BrainState> kBrainStates[] = {
    {BrainState::kOk, "ok"},
    {BrainState::kMismatch, "mismatch"},
    {BrainState::kAbsent, "absent"},
    {BrainState::kUnreadable, "unreadable"},
    {BrainState::kIdentityUnknown, "identity_unknown"},
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

// How many StoreError values are read errors (IsReadError).
constexpr std::size_t CountReadErrors() {
  std::size_t count = 0;
  for (const Term<StoreError>& term : kStoreErrors) count += IsReadError(term.value) ? 1 : 0;
  return count;
}

// Scans in which a brain's store could not be read, since it was first seen, by
// reason: one counter for each read error (IsReadError values), all zero at first.
class ReadErrorCounts {
 public:
  // 0 for the values that are not read errors.
  std::uint64_t operator[](StoreError error) const;
  // Counts `scans` more for `error`; ignored for values that are not read errors.
  void Add(StoreError error, std::uint64_t scans = 1);

  bool operator==(const ReadErrorCounts& other) const;
  bool operator!=(const ReadErrorCounts& other) const { return !(*this == other); }

 private:
  using Counts = std::array<std::uint64_t, CountReadErrors()>;  // in kStoreErrors order
  // Null while every count is zero, as for nearly every brain; shared by the copies
  // (a brain's record and its reports) and replaced, never changed, by Add.
  std::shared_ptr<const Counts> counts_;
};

// What the latest scan knows about one brain.
struct BrainReport {
  // The brain, shared with the scanner's list of the scan's brains: a report holds no
  // copy of its own (a fleet's brains would be kept twice). Read it through brain().
  std::shared_ptr<const Brain> shared_brain;
  BrainState state = BrainState::kAbsent;
  StorePresence store = StorePresence::kAbsent;  // the file as found this scan
  StoreError read_error = StoreError::kNone;     // this scan's error, if unreadable
  // The verdict below is the last good one, kept while the store is unreadable now.
  bool verdict_stale = false;
  bool has_store_facts = false;  // the store facts below are set
  std::string read_error_message;
  // The verdict to export: this scan's, or the last good one when the store is
  // unreadable now (then verdict_stale is true). Null: nothing to export. Shared with
  // the scanner and the next scans' reports while it holds: never changed once made.
  std::shared_ptr<const Coherence> coherence;
  // While the verdict (stale included) is a mismatch: the store file's mtime (Unix
  // seconds) at the first read this process saw of this same foreign verdict. So the
  // brain has served this skeleton at least since then. Empty otherwise.
  std::optional<double> mismatch_since;
  // Facts of the last good read, when there is one to show (has_store_facts).
  std::uint64_t store_version = 0;
  std::int64_t block_count = 0;
  // Whose skeleton it is (owner, sharing, prefix ambiguity): a signal beside the
  // verdict, computed over the whole scan. Never changes `coherence`. Null when there
  // is nothing to say, as for most brains; read it through provenance().
  std::shared_ptr<const SkeletonProvenance> skeleton_provenance;
  ReadErrorCounts read_errors_total;

  // *shared_brain, or an empty Brain when it is null.
  const Brain& brain() const;
  // Gives the report a brain of its own, a copy of brain(), and returns it to be
  // changed (for reports built by hand). Valid until shared_brain changes again.
  Brain* mutable_brain();

  // *skeleton_provenance, or an empty one when it is null.
  const SkeletonProvenance& provenance() const;
};

// A brain whose state differs from the previous scan (or that is new or gone).
struct StateChange {
  std::string brain;
  std::optional<BrainState> from;              // empty: first seen
  std::optional<BrainState> to;                // empty: gone
  std::shared_ptr<const Coherence> coherence;  // the verdict after the change, if any
  StoreError read_error = StoreError::kNone;   // when `to` is kUnreadable
  std::string read_error_message;
  // When `to` is kIdentityUnknown: where the brain lives and why (Brain::identity_note).
  std::string runtime_dir;
  std::string identity_note;
};

struct ScanResult {
  std::vector<BrainReport> brains;  // sorted by brain name
  std::vector<DiscoveryProblem> problems;
  // Discovery's, then one for each store stamped in the future (read every scan).
  std::vector<DiscoveryNotice> notices;
  std::vector<DiscoveryNotice> debug_notes;  // see Discovery::debug_notes
  std::vector<OrphanedFolder> orphans;       // see OrphanedFolder
  std::vector<RegistryConflict> conflicts;   // see RegistryConflict
  std::vector<std::string> name_collisions;
  std::vector<ReadFolder> folders_read;  // see Discovery::folders_read
  std::vector<StateChange> changes;
  std::int64_t stores_parsed = 0;     // stores read and parsed this scan
  std::int64_t stores_unchanged = 0;  // skipped: stamp unchanged since a settled read
  // Verdicts worked out this scan (block by block). A store read this scan, or one
  // whose brain's identity changed, needs one; an unchanged store reuses its verdict.
  std::int64_t verdicts_computed = 0;
  // The scan was stopped before it finished: the result is incomplete and must not
  // be published. The scanner's view of the previous scan is left as it was.
  bool stopped = false;
};

// What a scanner remembers of one brain, to be kept across restarts (the exporter's
// state file): the brain as last discovered, its state and, while it is a mismatch,
// its verdict and since when it has served it.
struct RememberedBrain {
  Brain brain;
  BrainState state = BrainState::kAbsent;
  std::shared_ptr<const Coherence> mismatch;  // null unless the last verdict is a mismatch
  std::int64_t mismatch_since_ns = 0;         // the store's mtime, with `mismatch`
};

class Scanner {
 public:
  explicit Scanner(StoreReaderOptions options = {});
  // A seam for tests: `now_ns` (CLOCK_REALTIME nanoseconds; empty: the real clock) is
  // the clock that tells settled stamps, of the stores and of discovery's files alike.
  Scanner(StoreReaderOptions options, std::function<std::int64_t()> now_ns);

  // Runs one scan. Never throws for bad input on disk. When `stop` (may be null)
  // becomes true the scan ends at the next step (between discovery steps and between
  // brains) with a result marked stopped.
  ScanResult Scan(const DiscoveryConfig& config, const std::atomic<bool>* stop = nullptr);

  // Applies new reader options (a new size cap). Every store is read again at the
  // next scan; the last good verdicts are kept, so a store the new options refuse
  // still shows its last verdict, marked stale.
  void SetOptions(const StoreReaderOptions& options);

  // Prefix ambiguities the config allows (`prefix_ambiguity_allowed`), from the next
  // scan on: reported as allowed, never as a signal.
  void SetAllowedAmbiguity(std::vector<AllowedAmbiguity> allowed) {
    allowed_ambiguity_ = std::move(allowed);
  }

  // Calls `visit` for every brain of the last scan, in name order. Brains without a
  // mismatch carry their name, runtime dir, source and state; identities are needed
  // only to hold a mismatch while discovery cannot find its brain.
  template <typename Visit>
  void ForEachRemembered(const Visit& visit) const {
    for (std::size_t i = 0; i < records_.size(); ++i) {
      const Record& record = records_[i];
      const Coherence* verdict = record.verdict.get();
      const bool mismatch = IsMismatch(verdict);
      visit((*brains_)[i], record.state, mismatch ? verdict : nullptr,
            mismatch && record.mismatch_tracked ? record.mismatch_since_ns : 0);
    }
  }

  // Takes `remembered` (from a state kept across a restart) as the previous scan, so
  // that the next scan keeps their labels and the mismatches stand, stale, until a
  // good read judges them. Only before the first scan; brains with duplicate names
  // or runtime dirs are dropped but the first. A brain restored without a mismatch
  // has no identity of its own (IdentitySource::kUnknown): it is only a label.
  void Restore(std::vector<RememberedBrain> remembered);

  // Sets how many threads the next scans read stores on (stat, open, read, parse).
  // The verdicts, the remembered state and the result are worked out on the scan
  // thread in brain order, whatever the threads. Exposed for tests.
  void SetParallelism(const Parallelism& parallelism) { parallelism_ = parallelism; }

 private:
  // The last read of a store that failed for its content (parse, schema, too large):
  // an unchanged file is not read again.
  struct ContentFailure {
    FileStamp stamp;
    bool settled = false;  // StampIsSettled at the read: an unchanged stamp is trusted
    StoreError error = StoreError::kNone;
    std::string message;
  };

  // What is remembered of one brain between scans; its Brain is in brains_, at the
  // same index. A brain that moves to another runtime dir starts a new record.
  struct Record {
    BrainState state = BrainState::kAbsent;  // as the last scan reported it
    bool has_good_read = false;
    // The last scan's verdict was a mismatch, this foreign verdict served since the
    // store's mtime mismatch_since_ns.
    bool mismatch_tracked = false;
    std::int64_t mismatch_since_ns = 0;
    FileStamp stamp;                     // of the last good read
    bool stamp_settled = false;          // StampIsSettled at that read: trusted if unchanged
    std::int64_t contents_mtime_ns = 0;  // of the last good read; kept by SetOptions
    StoreContents contents;              // of the last good read: its digest, no block ids
    // The verdict of `contents` for the brain's identity (project_root, display_name)
    // in the last scan, as the last scan reported it; null while there is no good
    // read or the store has no skeleton.
    std::shared_ptr<const Coherence> verdict;
    std::unique_ptr<ContentFailure> failed;  // null: no content failure to remember
    ReadErrorCounts read_errors_total;
  };

  // The previous scan's state and verdict of the brain with a given name.
  struct Seen {
    bool seen = false;
    BrainState state = BrainState::kAbsent;
    std::shared_ptr<const Coherence> coherence;
  };

  // What one brain's store gave this scan: the file-reading part of a scan.
  struct Fetched {
    bool unchanged = false;                // the stamp of the last good read: nothing read
    bool same_failure = false;             // the stamp of the last content failure: not read again
    StoreError error = StoreError::kNone;  // of the stat, when nothing was read
    std::string message;
    // Read and parsed: the result. Null for nearly every store of a warm scan (held
    // for every brain at once, a result inline would cost every brain its size).
    std::unique_ptr<StoreReadResult> read;
  };

  static constexpr std::size_t kNoRecord = static_cast<std::size_t>(-1);

  // For each of `brains` (sorted by name), the index in records_ of its runtime dir's
  // record, or kNoRecord; a record goes to one brain at most (PairByRuntimeDir).
  std::vector<std::size_t> RecordsOf(const std::vector<Brain>& brains) const;

  // Reorders records_ for this scan's brains: records_[i] becomes brain i's, the
  // previous scan's record earlier[i] or a new one (kNoRecord); the records of brains
  // gone are dropped. In place: a second list of records would double the scanner's
  // largest table at the peak.
  void HandOnRecords(const std::vector<std::size_t>& earlier);

  // For each of `brains` (sorted by name), what the previous scan saw of its name;
  // appends to `gone` a change for each previous name no brain has any more.
  std::vector<Seen> SeenByName(const std::vector<Brain>& brains,
                               std::vector<StateChange>* gone) const;

  // Stats and reads the store of `brain` as `record` says it must; changes nothing,
  // so that several threads may fetch different brains at once. Only a settled stamp
  // tells an unchanged store: one written in the same tick as its read keeps its stamp.
  static Fetched FetchStore(const Brain& brain, const Record& record,
                            const StoreReaderOptions& options);

  // Turns a fetch into the brain's report, updating `record` and the counters.
  // `before` is the Brain the record had in the previous scan (null: a new record).
  BrainReport ApplyFetched(std::shared_ptr<const Brain> brain, const Brain* before, Record* record,
                           Fetched fetched);

  // Adds to `brains` (sorted by name) a carried-over copy of each brain of the previous
  // scan that discovery no longer finds while it is a mismatch, unless its runtime dir
  // is gone (ProbeGone) or its source is no longer configured; `earlier` is
  // RecordsOf(*brains). Appends a problem for each. Returns whether any was added.
  bool HoldLostMismatches(const DiscoveryConfig& config, const std::vector<std::size_t>& earlier,
                          std::vector<Brain>* brains, std::vector<DiscoveryProblem>* problems);

  // Whether a store read at `stamp` may be known by its stamp from the next scan on
  // (StampIsSettled at this scan's start); a stamp in the future is noted for the log.
  bool SettledRead(const Brain& brain, const FileStamp& stamp);

  // Sets report->mismatch_since, starting the clock when the mismatch is new or
  // names another foreign slug than `last` (the previous scan's verdict) and
  // stopping it when there is no mismatch.
  static void TrackMismatchSince(const Coherence* last, Record* record, BrainReport* report);

  // Sets the provenance of every report, reports[i] being the brain of records[i]
  // (whose last good read gives the skeleton id it serves).
  void AddProvenance(const std::vector<Record>& records, std::vector<BrainReport>* reports) const;

  StoreReaderOptions options_;
  std::vector<AllowedAmbiguity> allowed_ambiguity_;
  Parallelism parallelism_;
  // The previous scan's brains, sorted by name; its reports point into it.
  std::shared_ptr<const std::vector<Brain>> brains_ = std::make_shared<std::vector<Brain>>();
  std::vector<Record> records_;  // records_[i] is brains_[i]'s
  // The small files discovery parsed, by stamp: unchanged ones are not read again.
  DiscoveryCache discovery_cache_;
  // When this scan began reading (its discovery's start), and the stores it found
  // stamped in the future, for ScanResult::notices.
  std::int64_t reads_started_ns_ = 0;
  std::vector<DiscoveryNotice> stamp_notices_;
  std::int64_t parsed_ = 0;
  std::int64_t unchanged_ = 0;
  std::int64_t verdicts_computed_ = 0;
};

}  // namespace scx

#endif  // SCX_ENGINE_SCANNER_H_
