// De-duplicated logging of scan results.
#include "exporter/scan_log.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

namespace scx {

namespace {

std::string FormatSeconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6f", seconds);
  return buffer;
}

bool IsAlarming(const std::optional<BrainState>& state) {
  return state == BrainState::kMismatch || state == BrainState::kUnreadable;
}

std::string ProblemKey(const DiscoveryProblem& problem) {
  return std::string(DiscoveryProblemSourceName(problem.source)) + '\n' + problem.path + '\n' +
         problem.message;
}

}  // namespace

void ScanLog::LogScan(const ScanResult& result, double duration_seconds) {
  for (const StateChange& change : result.changes) LogChange(change);
  LogProblems(result.problems);
  LogNotices(result.notices);
  LogCollisions(result.name_collisions);
  if (result.brains.empty()) {
    // Watching nothing looks healthy from outside; say it on every scan.
    logger_->Warn("no brains found: nothing is watched",
                  {{"problems", std::to_string(result.problems.size())}});
  }
  if (logger_->Enabled(LogLevel::kDebug)) LogSummary(result, duration_seconds);
}

void ScanLog::LogSummary(const ScanResult& result, double duration_seconds) {
  LogFields fields = {{"brains", std::to_string(result.brains.size())}};
  for (const Term<BrainState>& state : kBrainStates) {
    std::int64_t count = 0;
    for (const BrainReport& report : result.brains) count += report.state == state.value ? 1 : 0;
    fields.emplace_back(state.name, std::to_string(count));
  }
  fields.emplace_back("problems", std::to_string(result.problems.size()));
  fields.emplace_back("stores_parsed", std::to_string(result.stores_parsed));
  fields.emplace_back("stores_unchanged", std::to_string(result.stores_unchanged));
  fields.emplace_back("duration_seconds", FormatSeconds(duration_seconds));
  logger_->Debug("scan completed", fields);
}

void ScanLog::LogChange(const StateChange& change) {
  LogFields fields = {{"brain", change.brain}};
  if (change.from) fields.emplace_back("from", BrainStateName(*change.from));
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
  const char* message = !change.from ? "brain discovered"
                        : !change.to ? "brain gone"
                                     : "brain state changed";
  logger_->Log(IsAlarming(change.to) ? LogLevel::kWarn : LogLevel::kInfo, message, fields);
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
    } else if (!problem.transient || previous_problems_.count(key) != 0) {
      still_warned.insert(key);
      // A flood of one kind (100k folders without a manifest) is summarised below.
      const std::size_t count = ++warned_by_source[DiscoveryProblemSourceName(problem.source)];
      if (count <= kWarnedProblemsPerSource) level = LogLevel::kWarn;
    }
    logger_->Log(level, "discovery problem",
                 {{"source", DiscoveryProblemSourceName(problem.source)},
                  {"path", problem.path},
                  {"err", problem.message},
                  {"transient", problem.transient ? "true" : "false"}});
  }
  for (const auto& [source, count] : warned_by_source) {
    if (count <= kWarnedProblemsPerSource) continue;
    logger_->Warn("more discovery problems of one kind",
                  {{"source", source},
                   {"more", std::to_string(count - kWarnedProblemsPerSource)},
                   {"detail", "only the first " + std::to_string(kWarnedProblemsPerSource) +
                                  " are logged at warn; the rest at debug"}});
  }
  previous_problems_ = std::move(current);
  warned_problems_ = std::move(still_warned);
}

void ScanLog::LogNotices(const std::vector<DiscoveryNotice>& notices) {
  std::set<std::string> current;
  for (const DiscoveryNotice& notice : notices) {
    const std::string key = notice.path + '\n' + notice.message;
    current.insert(key);
    const bool seen = warned_notices_.count(key) != 0;
    logger_->Log(seen ? LogLevel::kDebug : LogLevel::kWarn, "discovery notice",
                 {{"path", notice.path}, {"detail", notice.message}});
  }
  warned_notices_ = std::move(current);
}

void ScanLog::LogCollisions(const std::vector<std::string>& collisions) {
  std::set<std::string> current;
  for (const std::string& collision : collisions) {
    current.insert(collision);
    const bool seen = warned_collisions_.count(collision) != 0;
    logger_->Log(seen ? LogLevel::kDebug : LogLevel::kWarn, "brain name collision",
                 {{"detail", collision}});
  }
  warned_collisions_ = std::move(current);
}

}  // namespace scx
