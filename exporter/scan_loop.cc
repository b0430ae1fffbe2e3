// The scan thread: when to scan, what to count, and publishing the snapshots.
#include "exporter/scan_loop.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "exporter/heap.h"
#include "exporter/process_metrics.h"

namespace scx {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

double UnixTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::uint64_t NonNegative(std::int64_t count) {
  return static_cast<std::uint64_t>(std::max<std::int64_t>(count, 0));
}

// Adds one completed scan to `stats`.
void CountScan(const ScanResult& result, Clock::duration duration, ExporterStats* stats) {
  ++stats->scans_total;
  stats->last_scan_duration_seconds = Seconds(duration);
  stats->last_scan_timestamp_seconds = UnixTimeNow();
  stats->last_scan_success = result.problems.empty();
  for (const DiscoveryProblem& problem : result.problems) {
    ++stats->discovery_errors_total[problem.source];
  }
  stats->stores_parsed_total += NonNegative(result.stores_parsed);
  stats->stores_unchanged_total += NonNegative(result.stores_unchanged);
}

}  // namespace

ScanLoop::ScanLoop(const ScanSettings& settings, const LandingPageInfo& page_info, Logger* logger)
    : page_info_(page_info),
      logger_(logger),
      settings_(settings),
      snapshot_(InitialSnapshot(page_info, logger)),
      scanner_(std::make_unique<Scanner>(settings.store_options)),
      scan_log_(logger) {
  scanner_->SetAllowedAmbiguity(settings.allowed_ambiguity);
  MutexLock lock(&mutex_);
  stats_.version = page_info.version;
  stats_.revision = page_info.revision;
  stats_.scan_interval_seconds = Seconds(settings.interval);
}

ScanLoop::~ScanLoop() { Stop(); }

void ScanLoop::Start() {
  if (thread_.joinable()) return;
  thread_ = std::thread([this] { Run(); });
}

void ScanLoop::Stop() {
  scan_stop_ = true;
  {
    MutexLock lock(&mutex_);
    stop_ = true;
  }
  wake_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

void ScanLoop::RequestReload(const ScanSettings& settings) {
  {
    MutexLock lock(&mutex_);
    pending_settings_ = settings;
  }
  wake_.NotifyAll();
}

void ScanLoop::SetTlsCertificateNotAfter(std::optional<std::int64_t> not_after) {
  MutexLock lock(&mutex_);
  stats_.tls_certificate_not_after_seconds = not_after;
}

void ScanLoop::RecordConfigReload(bool success) {
  {
    MutexLock lock(&mutex_);
    if (success) {
      ++stats_.config_reloads_success_total;
    } else {
      ++stats_.config_reloads_failure_total;
    }
    stats_.config_last_reload_successful = success;
    render_requested_ = true;
  }
  wake_.NotifyAll();
}

bool ScanLoop::ready() const { return snapshot()->scan_number() > 0; }

std::shared_ptr<const Snapshot> ScanLoop::snapshot() const {
  MutexLock lock(&snapshot_mutex_);
  return snapshot_;
}

std::shared_ptr<const Snapshot> ScanLoop::WaitForSnapshotAfter(
    std::uint64_t scan_number, std::chrono::milliseconds timeout) const {
  const Clock::time_point deadline = Clock::now() + timeout;
  MutexLock lock(&snapshot_mutex_);
  while (snapshot_->scan_number() <= scan_number &&
         snapshot_published_.WaitUntil(&snapshot_mutex_, deadline)) {
  }
  return snapshot_;
}

void ScanLoop::Run() {
  Clock::time_point next_scan = Clock::now();
  ScanSettings settings;
  for (;;) {
    switch (WaitForWork(next_scan, &settings)) {
      case Work::kStop:
        return;
      case Work::kRender:
        if (scanned_) Publish();
        break;
      case Work::kScan: {
        const Clock::time_point started = Clock::now();
        ScanOnce(settings.discovery);
        next_scan = std::max(started + settings.interval, Clock::now());
        break;
      }
    }
  }
}

ScanLoop::Work ScanLoop::WaitForWork(Clock::time_point next_scan, ScanSettings* settings) {
  MutexLock lock(&mutex_);
  while (!stop_ && !pending_settings_ && !render_requested_ && !scan_requested_ &&
         Clock::now() < next_scan) {
    wake_.WaitUntil(&mutex_, next_scan);
  }
  if (stop_) return Work::kStop;
  if (scan_requested_) {
    scan_requested_ = false;
    ++stats_.watch_triggered_scans_total;
  } else if (!pending_settings_ && Clock::now() < next_scan) {
    render_requested_ = false;
    return Work::kRender;
  }
  ApplyPendingSettings();
  render_requested_ = false;  // the scan publishes anyway
  *settings = settings_;
  return Work::kScan;
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
  if (!(settings.allowed_ambiguity == settings_.allowed_ambiguity)) {
    scanner_->SetAllowedAmbiguity(settings.allowed_ambiguity);
  }
  settings_ = std::move(settings);
  stats_.scan_interval_seconds = Seconds(settings_.interval);
}

void ScanLoop::ScanOnce(const DiscoveryConfig& discovery) {
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
  scan_log_.LogScan(result, Seconds(duration));
  {
    MutexLock lock(&mutex_);
    CountScan(result, duration, &stats_);
  }
  UpdateWatches(result, discovery);
  // Logged above and used nowhere else: not kept for as long as the scan is served
  // (after a first scan of 10,000 brains, 10,000 of them).
  result.changes = std::vector<StateChange>();
  last_result_ = std::make_shared<const ScanResult>(std::move(result));
  scanned_ = true;
  Publish();
}

void ScanLoop::RequestScan() {
  {
    MutexLock lock(&mutex_);
    scan_requested_ = true;
  }
  wake_.NotifyAll();
}

void ScanLoop::SetChangeWatcher(ChangeWatcher* watcher) { watcher_ = watcher; }

void ScanLoop::UpdateWatches(const ScanResult& result, const DiscoveryConfig& discovery) {
  if (watcher_ == nullptr) return;
  watcher_->SetDirs(DirsToWatch(result, discovery));
  const bool limited = watcher_->limited();
  if (limited && !warned_watch_limit_) {
    logger_->Warn("not every brain folder can be watched; the rest waits for the timer scan",
                  {{"watched", std::to_string(watcher_->watched())}});
  }
  warned_watch_limit_ = limited;
  MutexLock lock(&mutex_);
  stats_.watched_dirs = watcher_->watched();
  stats_.watch_limited = limited;
}

void ScanLoop::Publish() {
  ExporterStats stats;
  {
    MutexLock lock(&mutex_);
    stats = stats_;
    stats.exporter_metrics = settings_.exporter_metrics;
  }
  if (stats.exporter_metrics) ReadProcess(&stats);
  std::shared_ptr<const Snapshot> snapshot =
      RenderSnapshot(last_result_, stats, page_info_, logger_);
  {
    MutexLock lock(&snapshot_mutex_);
    snapshot_.swap(snapshot);
  }
  snapshot_published_.NotifyAll();
  snapshot.reset();  // the previous one, unless a response still holds it
  ReleaseFreeHeap();
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

}  // namespace scx
