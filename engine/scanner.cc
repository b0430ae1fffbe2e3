// One scan of every brain: discovery, change detection, store read and verdict.
#include "engine/scanner.h"

#include <unordered_set>
#include <utility>

namespace scx {

namespace {

// Errors decided by the file's bytes alone: an unchanged file would fail again, so
// it is not re-read. Other errors (io, not_regular) are retried every scan.
bool IsContentError(StoreError error) {
  return error == StoreError::kParse || error == StoreError::kSchema ||
         error == StoreError::kTooLarge;
}

std::optional<Coherence> VerdictOf(const Brain& brain, const StoreContents& contents) {
  return CheckCoherence(brain.project_root, brain.display_name, &contents.digest);
}

BrainState StateOfVerdict(const std::optional<Coherence>& verdict) {
  if (!verdict) return BrainState::kAbsent;
  return verdict->status == CoherenceStatus::kOk ? BrainState::kOk : BrainState::kMismatch;
}

bool SameVerdict(const std::optional<Coherence>& a, const std::optional<Coherence>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return a->status == b->status && a->expected_slug == b->expected_slug &&
         a->found_slug == b->found_slug;
}

// Whose skeleton each brain serves (a signal beside the verdict).
void AddProvenance(std::vector<BrainReport>* reports) {
  std::vector<ServedSkeletonOf> served;
  served.reserve(reports->size());
  for (const BrainReport& report : *reports) {
    ServedSkeletonOf entry;
    entry.brain = report.brain.name;
    entry.skeleton_id = report.skeleton_id;
    if (report.coherence) {
      entry.expected_slug = report.coherence->expected_slug;
      entry.mismatch = report.coherence->status == CoherenceStatus::kMismatch;
    } else {
      entry.skeleton_id.clear();  // no verdict: nothing to compare
    }
    served.push_back(std::move(entry));
  }
  std::vector<SkeletonProvenance> provenance = FindSkeletonProvenance(served);
  for (size_t i = 0; i < reports->size(); ++i) (*reports)[i].provenance = std::move(provenance[i]);
}

}  // namespace

Scanner::Scanner(StoreReaderOptions options) : options_(options) {}

void Scanner::SetOptions(const StoreReaderOptions& options) {
  options_ = options;
  for (auto& [runtime_dir, memory] : memory_) {
    memory.stamp = FileStamp();  // no real file has this stamp: read again
    memory.failed_content = false;
  }
}

Scanner::Fetched Scanner::FetchStore(const Brain& brain, const Memory& memory,
                                     const StoreReaderOptions& options) {
  const std::string path = brain.runtime_dir + "/" + kStoreFileName;
  Fetched fetched;
  // With a stamp to compare, one stat tells an unchanged store (read nothing);
  // without one, the store is opened at once and stamped by the read's fstat.
  if (memory.has_good_read || memory.failed_content) {
    FileStamp stamp;
    fetched.error = StatStore(path, &stamp, &fetched.message);
    if (fetched.error != StoreError::kNone) return fetched;
    if (memory.has_good_read && stamp == memory.stamp) {
      fetched.unchanged = true;
      return fetched;
    }
    if (memory.failed_content && stamp == memory.failed_stamp) {
      fetched.same_failure = true;
      return fetched;
    }
  }
  fetched.was_read = true;
  fetched.read = ReadStore(path, options);
  return fetched;
}

BrainReport Scanner::ScanBrain(const Brain& brain) {
  Memory& memory = memory_[brain.runtime_dir];
  return ApplyFetched(brain, &memory, FetchStore(brain, memory, options_));
}

BrainReport Scanner::ApplyFetched(const Brain& brain, Memory* memory_of_brain, Fetched fetched) {
  Memory& memory = *memory_of_brain;
  BrainReport report;
  report.brain = brain;

  StoreError error = fetched.error;
  std::string message = std::move(fetched.message);
  if (fetched.unchanged) {
    ++unchanged_;
  } else if (fetched.same_failure) {
    ++unchanged_;
    error = memory.failed_error;
    message = memory.failed_message;
  } else if (fetched.was_read) {
    StoreReadResult& read = fetched.read;
    error = read.error;
    message = std::move(read.message);
    if (error == StoreError::kNone) {
      ++parsed_;
      memory.has_good_read = true;
      memory.stamp = read.stamp;
      memory.contents = std::move(read.contents);
      memory.contents_mtime_ns = read.stamp.mtime_ns;
      memory.verdict_identity.clear();  // new contents: a new verdict
      memory.failed_content = false;
    } else if (IsContentError(error)) {
      memory.failed_content = true;
      memory.failed_stamp = read.stamp;
      memory.failed_error = error;
      memory.failed_message = message;
    }
  }

  if (error == StoreError::kAbsent) {
    // No store: no verdict, and nothing old to keep showing.
    memory.has_good_read = false;
    memory.failed_content = false;
    memory.contents = StoreContents();
    memory.verdict_identity.clear();
    report.store = StorePresence::kAbsent;
    report.state = BrainState::kAbsent;
  } else if (error != StoreError::kNone) {
    ++memory.read_errors_total[error];
    report.store = StorePresence::kUnreadable;
    report.state = BrainState::kUnreadable;
    report.read_error = error;
    report.read_error_message = message;
  } else {
    report.store = StorePresence::kPresent;
  }

  if (memory.has_good_read) {
    report.coherence = CachedVerdict(brain, &memory);
    report.verdict_stale = report.coherence.has_value() && error != StoreError::kNone;
    report.has_store_facts = true;
    report.store_version = memory.contents.store_version;
    report.block_count = memory.contents.block_count;
    report.skeleton_id = memory.contents.digest.skeleton_id;
  }
  if (error == StoreError::kNone) report.state = StateOfVerdict(report.coherence);
  TrackMismatchSince(&memory, &report);
  report.read_errors_total = memory.read_errors_total;
  return report;
}

const std::optional<Coherence>& Scanner::CachedVerdict(const Brain& brain, Memory* memory) {
  std::string identity = brain.project_root + '\0' + brain.display_name;
  if (memory->verdict_identity != identity) {
    memory->verdict = VerdictOf(brain, memory->contents);
    memory->verdict_identity = std::move(identity);
    ++verdicts_computed_;
  }
  return memory->verdict;
}

void Scanner::TrackMismatchSince(Memory* memory, BrainReport* report) {
  const std::optional<Coherence>& verdict = report->coherence;
  if (!verdict || verdict->status != CoherenceStatus::kMismatch) {
    memory->mismatch_key.clear();
    return;
  }
  std::string key = verdict->expected_slug + '\n' + verdict->found_slug;
  if (key != memory->mismatch_key) {
    // A verdict always comes from the last good read.
    memory->mismatch_key = std::move(key);
    memory->mismatch_since_ns = memory->contents_mtime_ns;
  }
  report->mismatch_since = static_cast<double>(memory->mismatch_since_ns) / 1e9;
}

ScanResult Scanner::Scan(const DiscoveryConfig& config, const std::atomic<bool>* stop) {
  auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  Discovery discovery = DiscoverBrains(config, previous_brains_, stop, parallelism_);
  ScanResult result;
  if (discovery.stopped || stopped()) {
    result.stopped = true;
    return result;
  }
  result.problems = std::move(discovery.problems);
  result.notices = std::move(discovery.notices);
  result.name_collisions = std::move(discovery.name_collisions);
  parsed_ = 0;
  unchanged_ = 0;
  verdicts_computed_ = 0;

  // Every brain's Memory, found (or made) here on the scan thread; the fetch threads
  // only read them, and only this thread changes them, after the fetch.
  const std::vector<Brain>& brains = discovery.brains;
  std::vector<Memory*> memories;
  memories.reserve(brains.size());
  memory_.reserve(brains.size());
  for (const Brain& brain : brains) memories.push_back(&memory_[brain.runtime_dir]);
  std::vector<Fetched> fetched(brains.size());
  const StoreReaderOptions& options = options_;
  auto fetch = [&brains, &memories, &fetched, &options](std::size_t i) {
    fetched[i] = FetchStore(brains[i], *memories[i], options);
  };
  if (!ParallelFor(brains.size(), parallelism_, fetch, stop)) {
    result.stopped = true;
    return result;
  }

  std::map<std::string, Previous> states;
  result.brains.reserve(brains.size());
  for (std::size_t i = 0; i < brains.size(); ++i) {
    BrainReport report = ApplyFetched(brains[i], memories[i], std::move(fetched[i]));
    states[brains[i].name] =
        Previous{report.state, report.coherence,
                 report.state == BrainState::kUnreadable ? report.read_error : StoreError::kNone,
                 report.read_error_message};
    result.brains.push_back(std::move(report));
  }
  // Forget the runtime dirs no brain has any more.
  const std::unordered_set<const Memory*> live(memories.begin(), memories.end());
  for (auto it = memory_.begin(); it != memory_.end();) {
    it = live.count(&it->second) ? std::next(it) : memory_.erase(it);
  }
  AddProvenance(&result.brains);

  result.changes = ChangesSince(states);
  result.stores_parsed = parsed_;
  result.stores_unchanged = unchanged_;
  result.verdicts_computed = verdicts_computed_;
  previous_brains_ = std::move(discovery.brains);
  previous_ = std::move(states);
  return result;
}

std::vector<StateChange> Scanner::ChangesSince(const std::map<std::string, Previous>& now) const {
  std::vector<StateChange> changes;
  for (const auto& [name, current] : now) {
    auto before = previous_.find(name);
    if (before != previous_.end() && before->second.state == current.state &&
        SameVerdict(before->second.coherence, current.coherence)) {
      continue;
    }
    StateChange change;
    change.brain = name;
    if (before != previous_.end()) change.from = before->second.state;
    change.to = current.state;
    change.coherence = current.coherence;
    change.read_error = current.read_error;
    change.read_error_message = current.read_error_message;
    changes.push_back(std::move(change));
  }
  for (const auto& [name, before] : previous_) {
    if (now.count(name)) continue;
    StateChange change;
    change.brain = name;
    change.from = before.state;
    changes.push_back(std::move(change));
  }
  return changes;
}

}  // namespace scx
