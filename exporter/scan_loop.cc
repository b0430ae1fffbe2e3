// The scan thread and the snapshots it publishes.
#include "exporter/scan_loop.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

#include "exporter/gzip.h"
#include "exporter/json_view.h"

namespace scx {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

std::string FormatSeconds(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.6f", seconds);
  return buffer;
}

double UnixTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool IsAlarming(const std::optional<BrainState>& state) {
  return state == BrainState::kMismatch || state == BrainState::kUnreadable;
}

std::string ProblemKey(const DiscoveryProblem& problem) {
  return problem.source + '\n' + problem.path + '\n' + problem.message;
}

}  // namespace

ScanLoop::ScanLoop(const ScanSettings& settings, const LandingPageInfo& page_info, Logger* logger)
    : page_info_(page_info),
      logger_(logger),
      settings_(settings),
      scanner_(std::make_unique<Scanner>(settings.store_options)) {
  stats_.version = page_info.version;
  stats_.revision = page_info.revision;
  stats_.scan_interval_seconds = Seconds(settings.interval);
  auto initial = std::make_shared<Snapshot>();
  initial->landing_page = RenderLandingPage(page_info_, {}, /*scanned=*/false);
  snapshot_ = std::move(initial);
}

ScanLoop::~ScanLoop() { Stop(); }

void ScanLoop::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void ScanLoop::Stop() {
  scan_stop_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ScanLoop::RequestReload(const ScanSettings& settings) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_settings_ = settings;
  }
  wake_.notify_all();
}

void ScanLoop::RecordConfigReload(bool success) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (success) {
      ++stats_.config_reloads_success_total;
    } else {
      ++stats_.config_reloads_failure_total;
    }
    stats_.config_last_reload_successful = success;
    rerender_requested_ = true;
  }
  wake_.notify_all();
}

bool ScanLoop::ready() const { return snapshot()->scan_number > 0; }

std::shared_ptr<const Snapshot> ScanLoop::snapshot() const {
  std::lock_guard<std::mutex> lock(snapshot_mutex_);
  return snapshot_;
}

std::shared_ptr<const Snapshot> ScanLoop::WaitForSnapshotAfter(
    std::uint64_t scan_number, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(snapshot_mutex_);
  snapshot_published_.wait_for(lock, timeout, [&] { return snapshot_->scan_number > scan_number; });
  return snapshot_;
}

void ScanLoop::Run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    ApplyPendingSettings();
    const std::chrono::milliseconds interval = settings_.interval;
    lock.unlock();
    const Clock::time_point started = Clock::now();
    ScanOnce();
    const Clock::time_point next_scan = std::max(started + interval, Clock::now());
    lock.lock();
    while (!ShouldStopWaiting()) {
      if (rerender_requested_) {
        rerender_requested_ = false;
        lock.unlock();
        if (snapshot()->scan_number > 0) Publish();
        lock.lock();
        continue;
      }
      if (wake_.wait_until(lock, next_scan) == std::cv_status::timeout) break;
    }
  }
}

void ScanLoop::ApplyPendingSettings() {
  if (!pending_settings_) return;
  ScanSettings settings = std::move(*pending_settings_);
  pending_settings_.reset();
  if (settings.store_options.max_bytes != settings_.store_options.max_bytes) {
    logger_->Info("store options changed; every store is read again",
                  {{"max_store_bytes", std::to_string(settings.store_options.max_bytes)}});
    scanner_->SetOptions(settings.store_options);
  }
  settings_ = std::move(settings);
  stats_.scan_interval_seconds = Seconds(settings_.interval);
}

void ScanLoop::ScanOnce() {
  DiscoveryConfig discovery;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    discovery = settings_.discovery;
  }
  const Clock::time_point started = Clock::now();
  ScanResult result;
  try {
    result = scanner_->Scan(discovery, &scan_stop_);
  } catch (const std::exception& e) {
    // The scanner does not throw for anything on disk; keep serving the last scan.
    logger_->Error("scan failed", {{"err", e.what()}});
    return;
  }
  if (result.stopped) {
    logger_->Debug("scan stopped before it finished",
                   {{"brains", std::to_string(result.brains.size())}});
    return;
  }
  const Clock::duration duration = Clock::now() - started;
  LogScan(result, duration);
  RecordScan(result, duration);
  last_result_ = std::move(result);
  Publish();
}

void ScanLoop::RecordScan(const ScanResult& result, Clock::duration duration) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.scans_total;
  stats_.last_scan_duration_seconds = Seconds(duration);
  stats_.last_scan_timestamp_seconds = UnixTimeNow();
  stats_.last_scan_success = result.problems.empty();
  for (const DiscoveryProblem& problem : result.problems) {
    ++stats_.discovery_errors_total[problem.source];
  }
  stats_.stores_parsed_total +=
      static_cast<std::uint64_t>(std::max<std::int64_t>(result.stores_parsed, 0));
  stats_.stores_unchanged_total +=
      static_cast<std::uint64_t>(std::max<std::int64_t>(result.stores_unchanged, 0));
}

void ScanLoop::Publish() {
  ExporterStats stats;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stats = stats_;
    stats.exporter_metrics = settings_.exporter_metrics;
  }
  if (stats.exporter_metrics) ReadProcess(&stats);
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->scan_number = stats.scans_total;
  snapshot->scanned_at = stats.last_scan_timestamp_seconds;
  snapshot->brains = last_result_.brains;
  std::vector<std::string> dropped;
  snapshot->metrics_text = RenderMetrics(last_result_, stats, &dropped);
  for (const std::string& series : dropped) {
    logger_->Error("duplicate series dropped from the metrics", {{"series", series}});
  }
  if (!GzipCompress(snapshot->metrics_text, &snapshot->metrics_gzip)) {
    logger_->Error("gzip compression of the metrics failed");
  }
  try {
    snapshot->brains_json = BrainsView(snapshot->brains);
  } catch (const std::exception& e) {
    logger_->Error("rendering the JSON view failed", {{"err", e.what()}});
    snapshot->brains_json = "{\"brains\":[],\"error\":\"rendering failed\"}";
  }
  snapshot->landing_page = RenderLandingPage(page_info_, snapshot->brains, /*scanned=*/true,
                                             stats.last_scan_timestamp_seconds);
  {
    std::lock_guard<std::mutex> lock(snapshot_mutex_);
    snapshot_ = std::move(snapshot);
  }
  snapshot_published_.notify_all();
}

void ScanLoop::ReadProcess(ExporterStats* stats) {
  ProcessStats process;
  std::string error;
  if (ReadProcessStats(&process, &error)) {
    stats->process = process;
    process_error_logged_ = false;
  } else if (!process_error_logged_) {
    logger_->Warn("process metrics unavailable", {{"err", error}});
    process_error_logged_ = true;
  }
}

void ScanLoop::LogScan(const ScanResult& result, Clock::duration duration) {
  for (const StateChange& change : result.changes) LogChange(change);
  LogProblems(result.problems);
  LogNotices(result.notices);
  LogCollisions(result.name_collisions);
  if (result.brains.empty()) {
    // Watching nothing looks healthy from outside; say it on every scan.
    logger_->Warn("no brains found: nothing is watched",
                  {{"problems", std::to_string(result.problems.size())}});
  }
  if (!logger_->Enabled(LogLevel::kDebug)) return;
  std::int64_t counts[4] = {0, 0, 0, 0};
  for (const BrainReport& report : result.brains) ++counts[static_cast<int>(report.state)];
  logger_->Debug("scan completed",
                 {{"brains", std::to_string(result.brains.size())},
                  {"ok", std::to_string(counts[static_cast<int>(BrainState::kOk)])},
                  {"mismatch", std::to_string(counts[static_cast<int>(BrainState::kMismatch)])},
                  {"absent", std::to_string(counts[static_cast<int>(BrainState::kAbsent)])},
                  {"unreadable", std::to_string(counts[static_cast<int>(BrainState::kUnreadable)])},
                  {"problems", std::to_string(result.problems.size())},
                  {"stores_parsed", std::to_string(result.stores_parsed)},
                  {"stores_unchanged", std::to_string(result.stores_unchanged)},
                  {"duration_seconds", FormatSeconds(Seconds(duration))}});
}

void ScanLoop::LogChange(const StateChange& change) {
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
    fields.emplace_back("reason", change.read_error);
    fields.emplace_back("err", change.read_error_message);
  }
  const char* message = !change.from ? "brain discovered"
                        : !change.to ? "brain gone"
                                     : "brain state changed";
  logger_->Log(IsAlarming(change.to) ? LogLevel::kWarn : LogLevel::kInfo, message, fields);
}

void ScanLoop::LogProblems(const std::vector<DiscoveryProblem>& problems) {
  std::set<std::string> current;
  std::set<std::string> still_warned;
  for (const DiscoveryProblem& problem : problems) {
    const std::string key = ProblemKey(problem);
    current.insert(key);
    LogLevel level = LogLevel::kDebug;
    if (warned_problems_.count(key) != 0) {
      still_warned.insert(key);
    } else if (!problem.transient || previous_problems_.count(key) != 0) {
      level = LogLevel::kWarn;
      still_warned.insert(key);
    }
    logger_->Log(level, "discovery problem",
                 {{"source", problem.source},
                  {"path", problem.path},
                  {"err", problem.message},
                  {"transient", problem.transient ? "true" : "false"}});
  }
  previous_problems_ = std::move(current);
  warned_problems_ = std::move(still_warned);
}

void ScanLoop::LogNotices(const std::vector<DiscoveryNotice>& notices) {
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

void ScanLoop::LogCollisions(const std::vector<std::string>& collisions) {
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
