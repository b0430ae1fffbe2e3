// The log lines a scan produces, de-duplicated across scans: one line per brain state
// change (new, gone, or a different state or verdict; warn when the brain enters or
// leaves mismatch or enters unreadable or identity_unknown, info otherwise; a brain
// entering identity_unknown also names its runtime_dir and the note saying why), one line per
// discovery problem and per name collision (warn when first seen, debug while it persists; a
// transient problem is logged at debug until it is still there on the next scan, then at warn), one
// warn line per discovery notice while it persists (debug after the first), one debug line per
// discovery debug note and one info line per orphaned folder when first seen (nothing while they
// persist; again if they come back), one warn line per registry conflict (a record refused or
// demoted, record_trust.h) when first seen (nothing while it persists; again if it comes back), a
// warn line on every scan that finds no brain at all, and a
// debug summary per scan.
//
// Lines about one brain or folder (state changes, problems, notices, orphans, name
// collisions) are rate-limited: at most kBrainLinesPerSecond are written a second,
// whatever the level; a scan that had to drop some ends with one warn line saying
// how many ("brain log lines suppressed"), so that churn of watched folders cannot fill
// a disk with log lines; the metrics and /api/v1/brains still show every brain.
// A brain entering or leaving mismatch (or changing from one mismatch to another) is
// always written, and does not count against the budget: over 1,001 brains the
// budget once went on info lines and dropped 77 of 90 "turned mismatch" lines.
//
// The first scan after a state was restored (ExpectRestoredState) compares with that
// state, not with a scan of this process: a brain whose state differs from the
// restored one is "brain discovered" with `restored=STATE`, and one the state named
// but discovery did not find is "restored brain not found". Never "brain state
// changed from=...": a foreign or shared state file once logged "from=mismatch to=ok"
// for brains this exporter had never judged.
//
// --once logs through it too (Mode::kOnce): one scan, nothing to compare with, so no
// line per brain but the ones a person must act on ("store unreadable", a brain whose
// identity is unknown), and a transient problem warns at once.
//
// Thread-safety: not thread-safe; the scan thread owns it. The Logger it writes to is.
#ifndef SCX_EXPORTER_SCAN_LOG_H_
#define SCX_EXPORTER_SCAN_LOG_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/scanner.h"
#include "exporter/logger.h"

namespace scx {

// New discovery problems logged at warn per source in one scan; past it, one summary
// line says how many more there are (they are logged at debug).
inline constexpr std::size_t kWarnedProblemsPerSource = 5;

// Per-brain lines written a second, at most (see above).
inline constexpr std::int64_t kBrainLinesPerSecond = 100;

class ScanLog {
 public:
  enum class Mode {
    kService,  // a scan loop: lines for what changed since the previous scan
    kOnce,     // --once: a single scan, see above
  };

  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `logger` must outlive this object. `clock` (for tests) says when a line is written.
  explicit ScanLog(Logger* logger, Mode mode = Mode::kService,
                   Clock clock = &std::chrono::steady_clock::now)
      : logger_(logger), mode_(mode), clock_(std::move(clock)) {}

  // Logs what `result` shows that earlier scans did not. `duration_seconds` goes
  // into the debug summary.
  void LogScan(const ScanResult& result, double duration_seconds);

  // The next scan's changes are against a restored state (see above).
  void ExpectRestoredState() { restored_ = true; }

 private:
  // `restored`: the state a restored state gave the brain (LogRestoredChange).
  void LogChange(const StateChange& change, std::string_view restored = {});
  void LogRestoredChange(const StateChange& change);
  void LogOnceBrain(const BrainReport& brain);
  void LogProblems(const std::vector<DiscoveryProblem>& problems);
  void LogNotices(const std::vector<DiscoveryNotice>& notices);
  void LogDebugNotes(const std::vector<DiscoveryNotice>& notes);
  void LogOrphans(const std::vector<OrphanedFolder>& orphans);
  void LogConflicts(const std::vector<RegistryConflict>& conflicts);
  void LogCollisions(const std::vector<std::string>& collisions);
  void LogSummary(const ScanResult& result, double duration_seconds);
  // Writes a line about one brain or folder, unless this second's budget is spent
  // (then it is counted in suppressed_).
  void LogBrainLine(LogLevel level, std::string_view message, const LogFields& fields);

  Logger* const logger_;
  const Mode mode_;
  const Clock clock_;
  bool restored_ = false;  // the next scan's `from` states are restored ones
  std::chrono::steady_clock::time_point window_start_{};  // of the current second
  std::int64_t window_lines_ = 0;                         // brain lines written in it
  std::int64_t suppressed_ = 0;                           // in the current scan
  std::set<std::string> previous_problems_;               // every problem of the last scan
  std::set<std::string> warned_problems_;                 // logged at warn and still present
  std::set<std::string> warned_notices_;
  std::set<std::string> logged_debug_notes_;  // of the last scan (only at debug level)
  std::set<std::string> logged_orphans_;      // of the last scan
  std::set<std::string> logged_conflicts_;    // of the last scan
  std::set<std::string> warned_collisions_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_SCAN_LOG_H_
