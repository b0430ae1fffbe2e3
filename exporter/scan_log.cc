// De-duplicated logging of scan results.
#include "exporter/scan_log.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace scx {

namespace {

// Seconds to the microsecond, as the scan's duration is logged: 0.000137.
double RoundedToMicroseconds(double seconds) { return std::round(seconds * 1e6) / 1e6; }

// States a person must look at: logged at warn when a brain enters them.
bool IsAlarming(const std::optional<BrainState>& state) {
  return state == BrainState::kMismatch || state == BrainState::kUnreadable ||
         state == BrainState::kIdentityUnknown;
}

// A brain entering or leaving mismatch, or going from one mismatch verdict to another
// (a new found_slug): what the alerts page on, logged at warn whatever the budget.
bool IsMismatchTransition(const StateChange& change) {
  return change.from == BrainState::kMismatch || change.to == BrainState::kMismatch;
}

// Where a brain whose identity is unknown lives, and why: for the line that says so.
void AddIdentityUnknownFields(const std::string& runtime_dir, const std::string& note,
                              LogFields* fields) {
  fields->emplace_back("runtime_dir", runtime_dir);
  fields->emplace_back("note", note);
}

// Logs with `log` each of `items` whose key (by `key_of`) was not among `*logged`,
// the keys of the previous call, then keeps this call's keys there: one line when an
// item appears, none while it persists, one again if it comes back.
template <typename Item, typename KeyOf, typename Log>
void LogWhenFirstSeen(const std::vector<Item>& items, KeyOf key_of, Log log,
                      std::set<std::string>* logged) {
  std::set<std::string> current;
  for (const Item& item : items) {
    std::string key = key_of(item);
    if (logged->count(key) == 0 && current.count(key) == 0) log(item);
    current.insert(std::move(key));
  }
  *logged = std::move(current);
}

std::string NoticeKey(const DiscoveryNotice& notice) { return notice.path + '\n' + notice.message; }

std::string OrphanKey(const OrphanedFolder& orphan) {
  return orphan.runtime_dir + '\n' + orphan.project_root + '\n' + orphan.served_runtime_dir;
}

std::string ConflictKey(const RegistryConflict& conflict) {
  return std::string(RegistryConflictReasonName(conflict.reason)) + '\n' + conflict.record_path +
         '\n' + conflict.runtime_dir;
}

std::string ProblemKey(const DiscoveryProblem& problem) {
  return std::string(DiscoveryProblemSourceName(problem.source)) + '\n' + problem.path + '\n' +
         problem.message;
}

}  // namespace

void ScanLog::LogScan(const ScanResult& result, double duration_seconds) {
  if (mode_ == Mode::kOnce) {
    for (const BrainReport& brain : result.brains) LogOnceBrain(brain);
  } else {
    for (const StateChange& change : result.changes) {
      if (restored_) {
        LogRestoredChange(change);
      } else {
        LogChange(change);
      }
    }
    restored_ = false;
  }
  LogProblems(result.problems);
  LogNotices(result.notices);
  LogDebugNotes(result.debug_notes);
  LogOrphans(result.orphans);
  LogConflicts(result.conflicts);
  LogCollisions(result.name_collisions);
  if (suppressed_ > 0) {
    logger_->Warn("brain log lines suppressed",
                  {{"suppressed", suppressed_},
                   {"detail", "at most " + std::to_string(kBrainLinesPerSecond) +
                                  " lines about brains are logged a second (a brain entering "
                                  "or leaving mismatch always is); the metrics and "
                                  "/api/v1/brains show every brain"}});
    suppressed_ = 0;
  }
  if (result.brains.empty()) {
    // Watching nothing looks healthy from outside; say it on every scan.
    logger_->Warn("no brains found: nothing is watched", {{"problems", result.problems.size()}});
  }
  if (logger_->Enabled(LogLevel::kDebug)) LogSummary(result, duration_seconds);
}

void ScanLog::LogBrainLine(LogLevel level, std::string_view message, const LogFields& fields) {
  if (!logger_->Enabled(level)) return;
  const std::chrono::steady_clock::time_point now = clock_();
  if (now - window_start_ >= std::chrono::seconds(1)) {
    window_start_ = now;
    window_lines_ = 0;
  }
  if (window_lines_ >= kBrainLinesPerSecond) {
    ++suppressed_;
    return;
  }
  ++window_lines_;
  logger_->Log(level, message, fields);
}

void ScanLog::LogSummary(const ScanResult& result, double duration_seconds) {
  LogFields fields = {{"brains", result.brains.size()}};
  for (const Term<BrainState>& state : kBrainStates) {
    std::int64_t count = 0;
    for (const BrainReport& report : result.brains) count += report.state == state.value ? 1 : 0;
    fields.emplace_back(state.name, count);
  }
  fields.emplace_back("problems", result.problems.size());
  fields.emplace_back("stores_parsed", result.stores_parsed);
  fields.emplace_back("stores_unchanged", result.stores_unchanged);
  fields.emplace_back("duration_seconds", RoundedToMicroseconds(duration_seconds));
  logger_->Debug("scan completed", fields);
}

// --once: only what a person must act on; the report itself says the rest.
void ScanLog::LogOnceBrain(const BrainReport& brain) {
  if (brain.state == BrainState::kUnreadable) {
    LogBrainLine(LogLevel::kWarn, "store unreadable",
                 {{"brain", brain.brain().name},
                  {"reason", StoreErrorName(brain.read_error)},
                  {"err", brain.read_error_message}});
  } else if (brain.state == BrainState::kIdentityUnknown) {
    LogFields fields = {{"brain", brain.brain().name},
                        {"to", BrainStateName(BrainState::kIdentityUnknown)}};
    AddIdentityUnknownFields(brain.brain().runtime_dir, brain.brain().identity_note, &fields);
    LogBrainLine(LogLevel::kWarn, "brain discovered", fields);
  }
}

void ScanLog::LogRestoredChange(const StateChange& change) {
  if (!change.from) {  // not in the restored state: new either way
    LogChange(change);
    return;
  }
  const std::string_view restored = BrainStateName(*change.from);
  if (!change.to) {
    LogBrainLine(LogLevel::kInfo, "restored brain not found",
                 {{"brain", change.brain}, {"restored", std::string(restored)}});
    return;
  }
  // This process's first verdict: "discovered", the restored state beside it.
  StateChange first = change;
  first.from.reset();
  LogChange(first, restored);
}

void ScanLog::LogChange(const StateChange& change, std::string_view restored) {
  LogFields fields = {{"brain", change.brain}};
  if (change.from) fields.emplace_back("from", BrainStateName(*change.from));
  if (!restored.empty()) fields.emplace_back("restored", std::string(restored));
  if (change.to) fields.emplace_back("to", BrainStateName(*change.to));
  if (change.coherence) {
    fields.emplace_back("expected_slug", change.coherence->expected_slug);
    if (change.coherence->status == CoherenceStatus::kMismatch) {
      fields.emplace_back("found_slug", change.coherence->found_slug);
      if (!change.coherence->reason.empty()) {
        fields.emplace_back("detail", change.coherence->reason);
      }
    }
  }
  if (change.to == BrainState::kUnreadable) {
    fields.emplace_back("reason", StoreErrorName(change.read_error));
    fields.emplace_back("err", change.read_error_message);
  }
  if (change.to == BrainState::kIdentityUnknown) {
    AddIdentityUnknownFields(change.runtime_dir, change.identity_note, &fields);
  }
  const char* message = !change.from ? "brain discovered"
                        : !change.to ? "brain gone"
                                     : "brain state changed";
  if (IsMismatchTransition(change) || restored == BrainStateName(BrainState::kMismatch)) {
    logger_->Warn(message, fields);  // never suppressed, and not counted in the budget
    return;
  }
  LogBrainLine(IsAlarming(change.to) ? LogLevel::kWarn : LogLevel::kInfo, message, fields);
}

void ScanLog::LogProblems(const std::vector<DiscoveryProblem>& problems) {
  std::set<std::string> current;
  std::set<std::string> still_warned;
  std::map<std::string, std::size_t> warned_by_source;  // warn lines this scan
  for (const DiscoveryProblem& problem : problems) {
    const std::string key = ProblemKey(problem);
    current.insert(key);
    LogLevel level = LogLevel::kDebug;
    if (warned_problems_.count(key) != 0) {
      still_warned.insert(key);
    } else if (!problem.transient || previous_problems_.count(key) != 0 ||
               mode_ == Mode::kOnce) {  // --once has no next scan to wait for
      still_warned.insert(key);
      // A flood of one kind (100k folders without a manifest) is summarised below.
      const std::size_t count = ++warned_by_source[DiscoveryProblemSourceName(problem.source)];
      if (count <= kWarnedProblemsPerSource) level = LogLevel::kWarn;
    }
    LogBrainLine(level, "discovery problem",
                 {{"source", DiscoveryProblemSourceName(problem.source)},
                  {"path", problem.path},
                  {"err", problem.message},
                  {"transient", problem.transient}});
  }
  for (const auto& [source, count] : warned_by_source) {
    if (count <= kWarnedProblemsPerSource) continue;
    logger_->Warn("more discovery problems of one kind",
                  {{"source", source},
                   {"more", count - kWarnedProblemsPerSource},
                   {"detail", "only the first " + std::to_string(kWarnedProblemsPerSource) +
                                  " are logged at warn; the rest at debug"}});
  }
  previous_problems_ = std::move(current);
  warned_problems_ = std::move(still_warned);
}

void ScanLog::LogNotices(const std::vector<DiscoveryNotice>& notices) {
  std::set<std::string> current;
  for (const DiscoveryNotice& notice : notices) {
    const std::string key = NoticeKey(notice);
    current.insert(key);
    const bool seen = warned_notices_.count(key) != 0;
    LogBrainLine(seen ? LogLevel::kDebug : LogLevel::kWarn, "discovery notice",
                 {{"path", notice.path}, {"detail", notice.message}});
  }
  warned_notices_ = std::move(current);
}

void ScanLog::LogDebugNotes(const std::vector<DiscoveryNotice>& notes) {
  // The level never changes: below debug there is nothing to remember.
  if (!logger_->Enabled(LogLevel::kDebug)) return;
  LogWhenFirstSeen(
      notes, NoticeKey,
      [this](const DiscoveryNotice& note) {
        LogBrainLine(LogLevel::kDebug, "discovery note",
                     {{"path", note.path}, {"detail", note.message}});
      },
      &logged_debug_notes_);
}

void ScanLog::LogOrphans(const std::vector<OrphanedFolder>& orphans) {
  LogWhenFirstSeen(
      orphans, OrphanKey,
      [this](const OrphanedFolder& orphan) {
        LogBrainLine(LogLevel::kInfo, "orphaned brain folder",
                     {{"runtime_dir", orphan.runtime_dir},
                      {"project_root", orphan.project_root},
                      {"served_runtime_dir", orphan.served_runtime_dir},
                      {"detail",
                       "an older m1nd build left it behind: m1nd serves this project root "
                       "from served_runtime_dir; not watched"}});
      },
      &logged_orphans_);
}

void ScanLog::LogConflicts(const std::vector<RegistryConflict>& conflicts) {
  LogWhenFirstSeen(
      conflicts, ConflictKey,
      [this](const RegistryConflict& conflict) {
        LogBrainLine(LogLevel::kWarn, "registry conflict",
                     {{"reason", RegistryConflictReasonName(conflict.reason)},
                      {"record", conflict.record_path},
                      {"runtime_dir", conflict.runtime_dir},
                      {"detail", conflict.detail}});
      },
      &logged_conflicts_);
}

void ScanLog::LogCollisions(const std::vector<std::string>& collisions) {
  std::set<std::string> current;
  for (const std::string& collision : collisions) {
    current.insert(collision);
    const bool seen = warned_collisions_.count(collision) != 0;
    LogBrainLine(seen ? LogLevel::kDebug : LogLevel::kWarn, "brain name collision",
                 {{"detail", collision}});
  }
  warned_collisions_ = std::move(current);
}

}  // namespace scx
