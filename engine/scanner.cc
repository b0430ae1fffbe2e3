// One scan of every brain: discovery, change detection, store read and verdict.
#include "engine/scanner.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/permute.h"
#include "base/stamp_cache.h"
#include "engine/discovery/paths.h"
#include "engine/discovery/runtime_dir_pairing.h"
#include "engine/discovery/visibility.h"

namespace scx {

namespace {

// Errors decided by the file's bytes alone: an unchanged file would fail again, so
// it is not re-read. Other errors (io, not_regular) are retried every scan.
bool IsContentError(StoreError error) {
  return error == StoreError::kParse || error == StoreError::kSchema ||
         error == StoreError::kTooLarge;
}

std::shared_ptr<const Coherence> VerdictOf(const Brain& brain, const StoreContents& contents) {
  std::optional<Coherence> verdict =
      CheckCoherence(brain.project_root, brain.display_name, &contents.digest);
  if (!verdict) return nullptr;
  return std::make_shared<const Coherence>(std::move(*verdict));
}

// A verdict depends on the store and on these facts of the brain only.
bool SameIdentity(const Brain& a, const Brain& b) {
  return a.project_root == b.project_root && a.display_name == b.display_name &&
         (a.identity_source == IdentitySource::kUnknown) ==
             (b.identity_source == IdentitySource::kUnknown);
}

// A store reported missing (kAbsent) is absent only in a runtime dir this process
// sees: otherwise it is unseen, a read error that keeps the last verdict.
void CheckAbsentStore(const Brain& brain, bool held_a_store, StoreError* error,
                      std::string* message) {
  if (*error != StoreError::kAbsent) return;
  std::string why =
      WhyRuntimeDirUnseen(ProbeRuntimeDir(brain.runtime_dir, held_a_store), held_a_store);
  if (why.empty()) return;
  *error = StoreError::kUnseen;
  *message = "the runtime dir " + brain.runtime_dir + " " + why;
}

BrainState StateOfVerdict(const Coherence* verdict) {
  if (!verdict) return BrainState::kAbsent;
  return verdict->status == CoherenceStatus::kOk ? BrainState::kOk : BrainState::kMismatch;
}

bool SameVerdict(const Coherence* a, const Coherence* b) {
  if ((a == nullptr) != (b == nullptr)) return false;
  if (a == nullptr) return true;
  return a->status == b->status && a->expected_slug == b->expected_slug &&
         a->found_slug == b->found_slug;
}

}  // namespace

const Brain& BrainReport::brain() const {
  static const Brain* const kNone = new Brain();
  return shared_brain != nullptr ? *shared_brain : *kNone;
}

Brain* BrainReport::mutable_brain() {
  auto own = std::make_shared<Brain>(brain());
  Brain* brain = own.get();
  shared_brain = std::move(own);
  return brain;
}

const SkeletonProvenance& BrainReport::provenance() const {
  static const SkeletonProvenance* const kNone = new SkeletonProvenance();
  return skeleton_provenance != nullptr ? *skeleton_provenance : *kNone;
}

std::uint64_t ReadErrorCounts::operator[](StoreError error) const {
  if (counts_ == nullptr) return 0;
  std::size_t index = 0;
  for (const Term<StoreError>& term : kStoreErrors) {
    if (!IsReadError(term.value)) continue;
    if (term.value == error) return (*counts_)[index];
    ++index;
  }
  return 0;
}

void ReadErrorCounts::Add(StoreError error, std::uint64_t scans) {
  if (!IsReadError(error) || scans == 0) return;
  auto counts = std::make_shared<Counts>(counts_ != nullptr ? *counts_ : Counts{});
  std::size_t index = 0;
  for (const Term<StoreError>& term : kStoreErrors) {
    if (!IsReadError(term.value)) continue;
    if (term.value == error) (*counts)[index] += scans;
    ++index;
  }
  counts_ = std::move(counts);
}

bool ReadErrorCounts::operator==(const ReadErrorCounts& other) const {
  static const Counts kZero{};
  return (counts_ != nullptr ? *counts_ : kZero) ==
         (other.counts_ != nullptr ? *other.counts_ : kZero);
}

Scanner::Scanner(StoreReaderOptions options) : Scanner(options, nullptr) {}

Scanner::Scanner(StoreReaderOptions options, std::function<std::int64_t()> now_ns)
    : options_(options), discovery_cache_(DiscoveryCache::Options{{}, std::move(now_ns)}) {}

void Scanner::SetOptions(const StoreReaderOptions& options) {
  options_ = options;
  for (Record& record : records_) {
    record.stamp = FileStamp();  // no real file has this stamp: read again
    record.failed.reset();
  }
}

Scanner::Fetched Scanner::FetchStore(const Brain& brain, const Record& record,
                                     const StoreReaderOptions& options) {
  const std::string path = brain.runtime_dir + "/" + kStoreFileName;
  const bool held_a_store = record.has_good_read || record.verdict != nullptr;
  Fetched fetched;
  // With a stamp to compare, one stat tells an unchanged store (read nothing);
  // without one, the store is opened at once and stamped by the read's fstat.
  // An unsettled stamp is no stamp to compare: the store is read again.
  const bool good_settled = record.has_good_read && record.stamp_settled;
  const bool failure_settled = record.failed && record.failed->settled;
  if (good_settled || failure_settled) {
    FileStamp stamp;
    fetched.error = StatStore(path, &stamp, &fetched.message);
    CheckAbsentStore(brain, held_a_store, &fetched.error, &fetched.message);
    if (fetched.error != StoreError::kNone) return fetched;
    if (good_settled && stamp == record.stamp) {
      fetched.unchanged = true;
      return fetched;
    }
    if (failure_settled && stamp == record.failed->stamp) {
      fetched.same_failure = true;
      return fetched;
    }
  }
  fetched.read = std::make_unique<StoreReadResult>(ReadStore(path, options));
  CheckAbsentStore(brain, held_a_store, &fetched.read->error, &fetched.read->message);
  return fetched;
}

BrainReport Scanner::ApplyFetched(std::shared_ptr<const Brain> shared_brain, const Brain* before,
                                  Record* record_of_brain, Fetched fetched) {
  const Brain& brain = *shared_brain;
  Record& record = *record_of_brain;
  BrainReport report;
  report.shared_brain = std::move(shared_brain);
  const std::shared_ptr<const Coherence> last_verdict = record.verdict;

  bool new_contents = false;
  StoreError error = fetched.error;
  std::string message = std::move(fetched.message);
  if (fetched.unchanged) {
    ++unchanged_;
  } else if (fetched.same_failure) {
    ++unchanged_;
    error = record.failed->error;
    message = record.failed->message;
  } else if (fetched.read != nullptr) {
    StoreReadResult& read = *fetched.read;
    error = read.error;
    message = std::move(read.message);
    if (error == StoreError::kNone) {
      ++parsed_;
      record.has_good_read = true;
      record.stamp = read.stamp;
      record.stamp_settled = SettledRead(brain, read.stamp);
      record.contents = std::move(read.contents);
      record.contents_mtime_ns = read.stamp.mtime_ns;
      new_contents = true;
      record.failed.reset();
    } else if (IsContentError(error)) {
      record.failed = std::make_unique<ContentFailure>(
          ContentFailure{read.stamp, SettledRead(brain, read.stamp), error, message});
    }
  }

  if (error == StoreError::kAbsent) {
    // No store: no verdict, and nothing old to keep showing.
    record.has_good_read = false;
    record.failed.reset();
    record.contents = StoreContents();
    record.verdict.reset();
    report.store = StorePresence::kAbsent;
    report.state = BrainState::kAbsent;
  } else if (error != StoreError::kNone) {
    record.read_errors_total.Add(error);
    report.store = StorePresence::kUnreadable;
    report.state = BrainState::kUnreadable;
    report.read_error = error;
    report.read_error_message = std::move(message);
  } else {
    report.store = StorePresence::kPresent;
  }

  const bool identity_known = brain.identity_source != IdentitySource::kUnknown;
  if (!identity_known) {
    // Without an identity there is no verdict to stand behind, except that a brain
    // known to serve a foreign skeleton stays a mismatch (stale) until it is judged.
    if (!IsMismatch(record.verdict.get())) record.verdict.reset();
  } else if (record.has_good_read &&
             (new_contents || before == nullptr || !SameIdentity(*before, brain))) {
    // The verdict is worked out again only when the read or the brain's identity is
    // new; a record with a good read kept from the previous scan has its `before`.
    record.verdict = VerdictOf(brain, record.contents);
    ++verdicts_computed_;
  }
  // Else the last verdict stands: of the last good read, or one restored (Restore)
  // for a store not read well since.
  report.coherence = record.verdict;
  report.verdict_stale =
      report.coherence != nullptr && (error != StoreError::kNone || brain.carried_over ||
                                      !identity_known || !record.has_good_read);
  if (record.has_good_read) {
    report.has_store_facts = true;
    report.store_version = record.contents.store_version;
    report.block_count = record.contents.block_count;
  }
  if (error == StoreError::kNone) report.state = StateOfVerdict(report.coherence.get());
  if (!identity_known && error != StoreError::kAbsent) report.state = BrainState::kIdentityUnknown;
  TrackMismatchSince(last_verdict.get(), &record, &report);
  report.read_errors_total = record.read_errors_total;
  record.state = report.state;
  return report;
}

bool Scanner::SettledRead(const Brain& brain, const FileStamp& stamp) {
  if (StampIsSettled(stamp, reads_started_ns_)) return true;
  // Past the scan's start: written during the scan, or in the future. The clock now,
  // after every read of the scan, tells which (rare: no clock read for most stores).
  if (stamp.mtime_ns > reads_started_ns_ &&
      FileTimeIsInFuture(stamp.mtime_ns, discovery_cache_.now_ns())) {
    stamp_notices_.push_back(DiscoveryNotice{
        brain.runtime_dir + "/" + kStoreFileName,
        "mtime is in the future (the clock is behind the file): the store is read again "
        "every scan until the clock passes it"});
  }
  return false;
}

void Scanner::TrackMismatchSince(const Coherence* last, Record* record, BrainReport* report) {
  const Coherence* verdict = report->coherence.get();
  if (verdict == nullptr || verdict->status != CoherenceStatus::kMismatch) {
    record->mismatch_tracked = false;
    return;
  }
  // While tracked, `last` is the mismatch the previous scan reported.
  if (!record->mismatch_tracked || last->expected_slug != verdict->expected_slug ||
      last->found_slug != verdict->found_slug) {
    // A verdict always comes from the last good read.
    record->mismatch_tracked = true;
    record->mismatch_since_ns = record->contents_mtime_ns;
  }
  report->mismatch_since = static_cast<double>(record->mismatch_since_ns) / 1e9;
}

void Scanner::Restore(std::vector<RememberedBrain> remembered) {
  std::stable_sort(remembered.begin(), remembered.end(),
                   [](const RememberedBrain& a, const RememberedBrain& b) {
                     return a.brain.name < b.brain.name;
                   });
  auto brains = std::make_shared<std::vector<Brain>>();
  std::vector<Record> records;
  std::set<std::string> runtime_dirs;
  for (RememberedBrain& entry : remembered) {
    if (entry.brain.name.empty() || entry.brain.runtime_dir.empty()) continue;
    if (!brains->empty() && brains->back().name == entry.brain.name) continue;
    if (!runtime_dirs.insert(entry.brain.runtime_dir).second) continue;
    Record record;
    record.state = entry.state;
    if (IsMismatch(entry.mismatch.get())) {
      record.verdict = std::move(entry.mismatch);
      record.mismatch_tracked = true;
      record.mismatch_since_ns = entry.mismatch_since_ns;
    } else {
      // Only a label: nothing to judge it by until discovery finds it again.
      Brain& brain = entry.brain;
      brain.project_root.clear();
      brain.display_name.clear();
      brain.identity_note.clear();
      brain.identity_source = IdentitySource::kUnknown;
      brain.origin.reset();
    }
    entry.brain.carried_over = false;
    brains->push_back(std::move(entry.brain));
    records.push_back(std::move(record));
  }
  brains_ = std::move(brains);
  records_ = std::move(records);
}

bool Scanner::HoldLostMismatches(const DiscoveryConfig& config,
                                 const std::vector<std::size_t>& earlier,
                                 std::vector<Brain>* brains,
                                 std::vector<DiscoveryProblem>* problems) {
  std::vector<bool> found(records_.size(), false);
  for (std::size_t index : earlier) {
    if (index != kNoRecord) found[index] = true;
  }
  std::vector<Brain> held;
  for (std::size_t i = 0; i < records_.size(); ++i) {
    if (found[i] || !IsMismatch(records_[i].verdict.get())) continue;
    const Brain& brain = (*brains_)[i];
    bool still_watched = false;  // its source is still configured
    switch (brain.source) {
      case BrainSource::kStatic:
        break;  // the config no longer names it
      case BrainSource::kRegistryOwner:
      case BrainSource::kRegistryProject:
        for (const std::string& registry : config.registries) {
          still_watched |= brain.origin != nullptr && CleanDir(registry) == *brain.origin;
        }
        break;
      case BrainSource::kGlob:
        still_watched = !config.runtime_globs.empty();
        break;
    }
    if (!still_watched || IsGone(ProbeGone(brain.runtime_dir))) continue;
    const auto same_name = std::lower_bound(
        brains->begin(), brains->end(), brain.name,
        [](const Brain& other, const std::string& name) { return other.name < name; });
    if (same_name != brains->end() && same_name->name == brain.name) continue;
    problems->push_back(DiscoveryProblem{
        brain.source == BrainSource::kGlob ? DiscoveryProblemSource::kGlob
                                           : DiscoveryProblemSource::kRegistry,
        brain.runtime_dir,
        "brain " + brain.name +
            " is no longer found, but its runtime dir is not gone: its mismatch is kept, stale",
        /*transient=*/false});
    held.push_back(brain);
    held.back().carried_over = true;
  }
  if (held.empty()) return false;
  for (Brain& brain : held) brains->push_back(std::move(brain));
  std::sort(brains->begin(), brains->end(),
            [](const Brain& a, const Brain& b) { return a.name < b.name; });
  return true;
}

std::vector<std::size_t> Scanner::RecordsOf(const std::vector<Brain>& brains) const {
  // records_[i] is brains_[i]'s: the record of a brain is its previous brain's.
  static_assert(kNoRecord == kNoPrevious, "no previous brain, no record");
  return PairByRuntimeDir(*brains_, brains);
}

void Scanner::HandOnRecords(const std::vector<std::size_t>& earlier) {
  const std::size_t before = records_.size();
  const std::size_t slots = std::max(before, earlier.size());
  records_.resize(slots);  // new records past the old ones, when there are more brains
  // order[k]: the record that goes to k. A brain without a record of its own gets one
  // no brain takes: a dropped one (reset below) or a new one.
  std::vector<std::size_t> order(slots, kNoRecord);
  std::vector<bool> taken(slots, false);
  for (std::size_t i = 0; i < earlier.size(); ++i) {
    if (earlier[i] == kNoRecord) continue;
    order[i] = earlier[i];
    taken[earlier[i]] = true;
  }
  std::size_t spare = 0;
  for (std::size_t k = 0; k < slots; ++k) {
    if (order[k] != kNoRecord) continue;
    while (taken[spare]) ++spare;
    order[k] = spare;
    taken[spare] = true;
  }
  PermuteInPlace(std::move(order), &records_);
  records_.resize(earlier.size());
  for (std::size_t i = 0; i < earlier.size(); ++i) {
    if (earlier[i] == kNoRecord) records_[i] = Record();
  }
}

std::vector<Scanner::Seen> Scanner::SeenByName(const std::vector<Brain>& brains,
                                               std::vector<StateChange>* gone) const {
  // Both lists are sorted by name: one walk pairs them.
  std::vector<Seen> seen(brains.size());
  const std::vector<Brain>& before = *brains_;
  std::size_t previous = 0;
  auto report_gone = [this, &before, gone](std::size_t index) {
    StateChange change;
    change.brain = before[index].name;
    change.from = records_[index].state;
    gone->push_back(std::move(change));
  };
  for (std::size_t i = 0; i < brains.size(); ++i) {
    while (previous < before.size() && before[previous].name < brains[i].name) {
      report_gone(previous++);
    }
    if (previous < before.size() && before[previous].name == brains[i].name) {
      const Record& record = records_[previous++];
      seen[i] = Seen{true, record.state, record.verdict};
    }
  }
  while (previous < before.size()) report_gone(previous++);
  return seen;
}

// Whose skeleton each brain serves (a signal beside the verdict).
void Scanner::AddProvenance(const std::vector<Record>& records,
                            std::vector<BrainReport>* reports) const {
  std::vector<ServedSkeletonOf> served;
  served.reserve(reports->size());
  for (std::size_t i = 0; i < reports->size(); ++i) {
    const BrainReport& report = (*reports)[i];
    ServedSkeletonOf entry;
    entry.brain = report.brain().name;
    if (report.coherence) {  // a verdict comes from the last good read
      entry.skeleton_id = records[i].contents.digest.skeleton_id;
      entry.expected_slug = report.coherence->expected_slug;
      entry.mismatch = report.coherence->status == CoherenceStatus::kMismatch;
    }  // else no verdict: nothing to compare
    served.push_back(entry);
  }
  std::vector<std::shared_ptr<const SkeletonProvenance>> provenance =
      FindSkeletonProvenance(served, allowed_ambiguity_);
  for (size_t i = 0; i < reports->size(); ++i) {
    (*reports)[i].skeleton_provenance = std::move(provenance[i]);
  }
}

ScanResult Scanner::Scan(const DiscoveryConfig& config, const std::atomic<bool>* stop) {
  auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  // The CPUs the process may use are read once a scan, for all of its loops.
  const Parallelism parallelism = WithUsableCpus(parallelism_);
  Discovery discovery = DiscoverBrains(config, *brains_, stop, parallelism, &discovery_cache_);
  ScanResult result;
  if (discovery.stopped || stopped()) {
    result.stopped = true;
    return result;
  }
  result.problems = std::move(discovery.problems);
  result.notices = std::move(discovery.notices);
  result.debug_notes = std::move(discovery.debug_notes);
  result.orphans = std::move(discovery.orphans);
  result.conflicts = std::move(discovery.conflicts);
  result.name_collisions = std::move(discovery.name_collisions);
  result.folders_read = std::move(discovery.folders_read);
  parsed_ = 0;
  unchanged_ = 0;
  verdicts_computed_ = 0;
  reads_started_ns_ = discovery_cache_.walk_started_ns();  // before any store is read
  stamp_notices_.clear();

  // Every brain's record of the previous scan, found here on the scan thread; the
  // fetch threads only read them, and only this thread changes them, after the fetch.
  // The reports point into this list, kept as brains_ for the next scan.
  // Not shrunk to fit: that would copy every brain, while the served scan's are held
  // too (discovery reserves about one brain a listed folder).
  auto shared_brains = std::make_shared<std::vector<Brain>>(std::move(discovery.brains));
  std::vector<std::size_t> earlier = RecordsOf(*shared_brains);
  if (HoldLostMismatches(config, earlier, shared_brains.get(), &result.problems)) {
    earlier = RecordsOf(*shared_brains);
  }
  const std::vector<Brain>& brains = *shared_brains;
  const Record new_record{};
  std::vector<Fetched> fetched(brains.size());
  const StoreReaderOptions& options = options_;
  auto fetch = [this, &brains, &earlier, &new_record, &fetched, &options](std::size_t i) {
    const Record& record = earlier[i] == kNoRecord ? new_record : records_[earlier[i]];
    fetched[i] = FetchStore(brains[i], record, options);
  };
  const bool fetched_all = ParallelFor(brains.size(), parallelism, fetch, stop);
  ReleaseStoreReaderMemory();  // the helper threads gave back theirs as they ended
  if (!fetched_all) {
    result.stopped = true;
    return result;
  }

  // From here on the scan completes. The previous scan's states by name, taken
  // before the records move to this scan's brains.
  std::vector<StateChange> gone;
  std::vector<Seen> seen = SeenByName(brains, &gone);
  HandOnRecords(earlier);
  result.brains.reserve(brains.size());
  for (std::size_t i = 0; i < brains.size(); ++i) {
    const Brain* before = earlier[i] != kNoRecord ? &(*brains_)[earlier[i]] : nullptr;
    BrainReport report = ApplyFetched(std::shared_ptr<const Brain>(shared_brains, &brains[i]),
                                      before, &records_[i], std::move(fetched[i]));
    if (!seen[i].seen || seen[i].state != report.state ||
        !SameVerdict(seen[i].coherence.get(), report.coherence.get())) {
      StateChange change;
      change.brain = brains[i].name;
      if (seen[i].seen) change.from = seen[i].state;
      change.to = report.state;
      change.coherence = report.coherence;
      if (report.state == BrainState::kUnreadable) {
        change.read_error = report.read_error;
        change.read_error_message = report.read_error_message;
      }
      if (report.state == BrainState::kIdentityUnknown) {
        change.runtime_dir = brains[i].runtime_dir;
        change.identity_note = brains[i].identity_note;
      }
      result.changes.push_back(std::move(change));
    }
    result.brains.push_back(std::move(report));
  }
  for (StateChange& change : gone) result.changes.push_back(std::move(change));
  for (DiscoveryNotice& notice : stamp_notices_) result.notices.push_back(std::move(notice));
  // What this scan no longer needs goes before the provenance is worked out: the
  // previous scan's brains, the fetches.
  std::vector<Fetched>().swap(fetched);
  std::vector<Seen>().swap(seen);
  brains_ = std::move(shared_brains);
  AddProvenance(records_, &result.brains);

  result.stores_parsed = parsed_;
  result.stores_unchanged = unchanged_;
  result.verdicts_computed = verdicts_computed_;
  return result;
}

}  // namespace scx
