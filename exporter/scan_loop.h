// Runs a Scanner on its own thread every scan interval and publishes, after each
// completed scan, an immutable Snapshot (snapshot.h) holding everything the HTTP
// endpoints serve. Serving a request only copies a shared_ptr: it never reads a file
// or triggers a scan. What a scan logs is ScanLog's business (scan_log.h).
//
// Scans never overlap: the next scan starts one interval after the previous one
// started, or right after it when it took longer than the interval. A reload or
// Stop() wakes the thread at once; Stop() also ends a scan in progress at its next
// step (between discovery steps and between brains) without publishing it.
//
// Statistics go to the exporter's own metrics (self_metrics.h): every discovery
// problem (transient ones included) is counted by source and makes that scan's
// last_scan_success 0, as docs/metrics.md says.
//
// Thread-safety: every public method may be called from any thread, except that
// Start and Stop belong to the owner. The scan thread alone uses the scanner, the
// last scan result and the ScanLog.
#ifndef SCX_EXPORTER_SCAN_LOOP_H_
#define SCX_EXPORTER_SCAN_LOOP_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <thread>

#include "base/mutex.h"
#include "engine/scanner.h"
#include "exporter/change_watcher.h"
#include "exporter/logger.h"
#include "exporter/metrics/metrics_renderer.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/render/landing_page.h"
#include "exporter/scan_log.h"
#include "exporter/scan_settings.h"
#include "exporter/snapshot.h"
#include "exporter/snapshot_source.h"
#include "exporter/state_file.h"

namespace scx {

class ScanLoop : public SnapshotSource {
 public:
  // `logger` and `metrics` (where the loop counts its scans and watches, and which
  // its snapshots write after the per-brain families) must outlive the loop and its
  // snapshots. No thread runs before Start().
  ScanLoop(const ScanSettings& settings, const LandingPageInfo& page_info, Logger* logger,
           SelfMetrics* metrics);
  ~ScanLoop() override;  // Stop()
  ScanLoop(const ScanLoop&) = delete;
  ScanLoop& operator=(const ScanLoop&) = delete;

  // Starts the thread; the first scan begins at once.
  void Start();

  // Wakes the thread, ends a scan in progress at its next step (that scan is not
  // published), joins. Idempotent.
  void Stop() SCX_EXCLUDES(mutex_);

  // Applies `settings` before the next scan and starts that scan at once. A change
  // of store options makes that scan read every store again; last good verdicts and
  // read error counts are kept.
  void RequestReload(const ScanSettings& settings) SCX_EXCLUDES(mutex_);

  // Starts a scan at once (one already requested or running counts). Thread-safe.
  void RequestScan() SCX_EXCLUDES(mutex_);

  // After each scan, tells `watcher` (null: none) which folders to watch, and reports
  // its state in the metrics: a watcher whose Start failed is limited, all its folders
  // left to the timer. Call before Start; it must outlive the loop's thread.
  void SetChangeWatcher(ChangeWatcher* watcher);

  // Keeps the scanner's state in `state` (null: none) after each scan that changed a
  // brain's state or label, and takes the state it holds now as the previous scan.
  // Call before Start; it must outlive the loop's thread.
  void SetStateFile(StateFile* state);

  // True once the first scan has completed and its snapshot is published.
  bool ready() const;

  // The latest snapshot; scan_number 0 (with only the landing page) before the
  // first scan completes. Never null.
  std::shared_ptr<const Snapshot> snapshot() const override SCX_EXCLUDES(snapshot_mutex_);

  // Waits up to `timeout` for a snapshot with scan_number > `scan_number`. Returns
  // the latest snapshot either way.
  std::shared_ptr<const Snapshot> WaitForSnapshotAfter(std::uint64_t scan_number,
                                                       std::chrono::milliseconds timeout) const
      SCX_EXCLUDES(snapshot_mutex_);

 private:
  enum class Work { kStop, kScan };

  void Run();
  // Blocks until there is something to do: stop, or a scan (due at `next_scan`, or a
  // reload, whose settings are applied first; `settings` gets the ones to scan with).
  Work WaitForWork(std::chrono::steady_clock::time_point next_scan, ScanSettings* settings)
      SCX_EXCLUDES(mutex_);
  void ApplyPendingSettings() SCX_REQUIRES(mutex_);
  void ScanOnce(const ScanSettings& settings) SCX_EXCLUDES(mutex_);
  void Publish(const BrainMetricsOptions& brain_metrics) SCX_EXCLUDES(snapshot_mutex_);

  const LandingPageInfo page_info_;
  Logger* const logger_;
  SelfMetrics* const metrics_;

  mutable Mutex mutex_;
  CondVar wake_;
  bool stop_ SCX_GUARDED_BY(mutex_) = false;
  bool scan_requested_ SCX_GUARDED_BY(mutex_) = false;  // by RequestScan
  ScanSettings settings_ SCX_GUARDED_BY(mutex_);
  std::optional<ScanSettings> pending_settings_ SCX_GUARDED_BY(mutex_);

  mutable Mutex snapshot_mutex_;
  mutable CondVar snapshot_published_;
  std::shared_ptr<const Snapshot> snapshot_ SCX_GUARDED_BY(snapshot_mutex_);

  // Set by Stop(); read by the scanner between steps.
  std::atomic<bool> scan_stop_{false};

  // The scan thread's own (ApplyPendingSettings also runs there).
  std::unique_ptr<Scanner> scanner_;
  StateFile* state_file_ = nullptr;
  bool state_unsaved_ = false;                     // a change the state file does not hold yet
  std::shared_ptr<const ScanResult> last_result_;  // shared with the snapshot
  std::uint64_t scans_completed_ = 0;              // the last one's scan_number
  double last_scanned_at_ = 0;                     // Unix time the last one completed
  // The exposition formats a new snapshot renders at once: those the scrapes of the
  // previous one asked for, kept while a snapshot goes unscraped (snapshot.h).
  ExpositionFormats render_now_{ExpositionFormat::kText};
  ScanLog scan_log_;
  ChangeWatcher* watcher_ = nullptr;  // set before Start
  bool warned_watch_limit_ = false;
  void UpdateWatches(const ScanResult& result) SCX_EXCLUDES(mutex_);

  std::thread thread_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_SCAN_LOOP_H_
