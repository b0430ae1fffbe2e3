// The scan thread: when to scan, what to count, and publishing the snapshots.
#include "exporter/scan_loop.h"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

#include "exporter/heap.h"

namespace scx {

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration duration) { return std::chrono::duration<double>(duration).count(); }

double UnixTimeNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

ScanLoop::ScanLoop(const ScanSettings& settings, const LandingPageInfo& page_info, Logger* logger,
                   SelfMetrics* metrics)
    : page_info_(page_info),
      logger_(logger),
      metrics_(metrics),
      settings_(settings),
      snapshot_(InitialSnapshot(page_info, logger)),
      scanner_(NewScanner(settings)),
      scan_log_(logger) {
  metrics_->SetScanInterval(Seconds(settings.interval));
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
      case Work::kScan: {
        const Clock::time_point started = Clock::now();
        ScanOnce(settings);
        next_scan = std::max(started + settings.interval, Clock::now());
        break;
      }
    }
  }
}

ScanLoop::Work ScanLoop::WaitForWork(Clock::time_point next_scan, ScanSettings* settings) {
  MutexLock lock(&mutex_);
  while (!stop_ && !pending_settings_ && !scan_requested_ && Clock::now() < next_scan) {
    wake_.WaitUntil(&mutex_, next_scan);
  }
  if (stop_) return Work::kStop;
  if (scan_requested_) {
    scan_requested_ = false;
    metrics_->RecordWatchTriggeredScan();
  }
  ApplyPendingSettings();
  *settings = settings_;
  return Work::kScan;
}

void ScanLoop::ApplyPendingSettings() {
  if (!pending_settings_) return;
  ScanSettings settings = std::move(*pending_settings_);
  pending_settings_.reset();
  if (ApplyScanSettings(settings_, settings, scanner_.get())) {
    logger_->Info("store options changed; every store is read again",
                  {{"max_store_bytes", settings.store_options.max_bytes}});
  }
  settings_ = std::move(settings);
  metrics_->SetScanInterval(Seconds(settings_.interval));
}

void ScanLoop::ScanOnce(const ScanSettings& settings) {
  const DiscoveryConfig& discovery = settings.discovery;
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
    logger_->Debug("scan stopped before it finished", {{"brains", result.brains.size()}});
    return;
  }
  const double seconds = Seconds(Clock::now() - started);
  last_scanned_at_ = UnixTimeNow();
  ++scans_completed_;
  scan_log_.LogScan(result, seconds);
  UpdateWatches(result);
  // A brain new, gone or in another state: the state to keep changed (a label
  // changes only with a brain new or gone).
  const bool state_changed = !result.changes.empty();
  // Logged above and used nowhere else: not kept for as long as the scan is served
  // (after a first scan of 10,000 brains, 10,000 of them).
  result.changes = std::vector<StateChange>();
  last_result_ = std::make_shared<const ScanResult>(std::move(result));
  Publish(settings.brain_metrics);
  // Counted once its snapshot is served (a render takes a while; this does not), so
  // that a scrape's own families are of the scan whose brains it serves.
  metrics_->RecordScan(*last_result_, seconds, last_scanned_at_);
  // After the snapshot is served: a scrape never waits for the write.
  state_unsaved_ = state_unsaved_ || state_changed || scans_completed_ == 1;
  if (state_file_ != nullptr && state_unsaved_) {
    state_unsaved_ = !state_file_->Save(*scanner_);
    if (state_unsaved_) metrics_->RecordStateWriteFailure();
  }
}

void ScanLoop::RequestScan() {
  {
    MutexLock lock(&mutex_);
    scan_requested_ = true;
  }
  wake_.NotifyAll();
}

void ScanLoop::SetChangeWatcher(ChangeWatcher* watcher) { watcher_ = watcher; }

void ScanLoop::SetStateFile(StateFile* state) {
  state_file_ = state;
  if (state_file_ == nullptr) return;
  std::vector<RememberedBrain> restored = state_file_->Load();
  if (state_file_->restore_failed()) metrics_->RecordStateRestoreFailure();
  // The first scan compares with this state, not with a verdict of this process.
  if (!restored.empty()) scan_log_.ExpectRestoredState();
  scanner_->Restore(std::move(restored));
}

void ScanLoop::UpdateWatches(const ScanResult& result) {
  if (watcher_ == nullptr) return;
  watcher_->SetDirs(DirsToWatch(result));
  const bool limited = watcher_->limited();
  if (limited && !warned_watch_limit_) {
    logger_->Warn("not every brain folder can be watched; the rest waits for the timer scan",
                  {{"watched", watcher_->watched()}});
  }
  warned_watch_limit_ = limited;
  metrics_->SetWatches(watcher_->watched(), limited);
}

void ScanLoop::Publish(const BrainMetricsOptions& brain_metrics) {
  std::size_t brains_json_reserve = 0;  // the previous JSON view's size, as RenderMetrics'
  {
    MutexLock lock(&snapshot_mutex_);
    ExpositionFormats asked = snapshot_->FormatsAsked();
    if (!asked.empty()) render_now_ = std::move(asked);
    brains_json_reserve = snapshot_->brains_json_size();
  }
  std::shared_ptr<const Snapshot> snapshot =
      RenderSnapshot(last_result_, brain_metrics, scans_completed_, last_scanned_at_, page_info_,
                     logger_, render_now_, brains_json_reserve);
  {
    MutexLock lock(&snapshot_mutex_);
    snapshot_.swap(snapshot);
  }
  snapshot_published_.NotifyAll();
  snapshot.reset();  // the previous one, unless a response still holds it
  ReleaseFreeHeap();
}

}  // namespace scx
