// Runs a Scanner on its own thread every scan interval and publishes, after each
// completed scan, an immutable Snapshot holding everything the HTTP endpoints serve
// (metrics text and its gzip copy, the JSON view, the landing page). Serving a
// request only copies a shared_ptr: it never reads a file or triggers a scan.
//
// Scans never overlap: the next scan starts one interval after the previous one
// started, or right after it when it took longer than the interval. A reload or
// Stop() wakes the thread at once; Stop() also ends a scan in progress at its next
// step (between discovery steps and between brains) without publishing it.
//
// Logging: one line per brain state change (new, gone, or a different state; warn
// when the new state is mismatch or unreadable, info otherwise), one line per
// discovery problem and per name collision (warn when first seen, debug while it
// persists; a transient problem is logged at debug until it is still there on the
// next scan, then at warn), one warn line per discovery notice while it persists
// (debug after the first), a warn line on every scan that finds no brain at all, and
// a debug summary per scan.
//
// Statistics: every discovery problem (transient ones included) is counted by
// source and makes that scan's last_scan_success 0, as docs/metrics.md says.
#ifndef SCX_EXPORTER_SCAN_LOOP_H_
#define SCX_EXPORTER_SCAN_LOOP_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/scanner.h"
#include "exporter/landing_page.h"
#include "exporter/logger.h"
#include "exporter/metrics_renderer.h"

namespace scx {

inline constexpr std::chrono::milliseconds kDefaultScanInterval{15000};

// What the config decides about scanning; replaced as a whole on reload.
struct ScanSettings {
  DiscoveryConfig discovery;
  StoreReaderOptions store_options;
  std::chrono::milliseconds interval = kDefaultScanInterval;
  // False with --web.disable-exporter-metrics (see ExporterStats::exporter_metrics).
  bool exporter_metrics = true;
};

// Everything served from one completed scan. Never modified once published.
struct Snapshot {
  std::uint64_t scan_number = 0;  // 0: no scan has completed yet
  double scanned_at = 0;          // Unix time at which that scan completed
  std::vector<BrainReport> brains;
  std::string metrics_text;  // Prometheus text format
  std::string metrics_gzip;  // metrics_text gzip-compressed; empty if compression failed
  std::string brains_json;   // BrainsView(brains)
  std::string landing_page;  // HTML
};

class ScanLoop {
 public:
  // `logger` must outlive the loop. No thread runs before Start().
  ScanLoop(const ScanSettings& settings, const LandingPageInfo& page_info, Logger* logger);
  ~ScanLoop();  // Stop()
  ScanLoop(const ScanLoop&) = delete;
  ScanLoop& operator=(const ScanLoop&) = delete;

  // Starts the thread; the first scan begins at once.
  void Start();

  // Wakes the thread, ends a scan in progress at its next step (that scan is not
  // published), joins. Idempotent.
  void Stop();

  // Applies `settings` before the next scan and starts that scan at once. A change
  // of store options makes that scan read every store again; last good verdicts and
  // read error counts are kept.
  void RequestReload(const ScanSettings& settings);

  // Counts a config reload by result and sets config_last_reload_successful; the
  // published metrics show it right away (re-rendered from the last scan).
  void RecordConfigReload(bool success);

  // True once the first scan has completed and its snapshot is published.
  bool ready() const;

  // The latest snapshot; scan_number 0 (with only the landing page) before the
  // first scan completes. Never null.
  std::shared_ptr<const Snapshot> snapshot() const;

  // Waits up to `timeout` for a snapshot with scan_number > `scan_number`. Returns
  // the latest snapshot either way.
  std::shared_ptr<const Snapshot> WaitForSnapshotAfter(std::uint64_t scan_number,
                                                       std::chrono::milliseconds timeout) const;

 private:
  void Run();
  void ApplyPendingSettings();  // with mutex_ held
  bool ShouldStopWaiting() const { return stop_ || pending_settings_.has_value(); }
  void ScanOnce();
  void RecordScan(const ScanResult& result, std::chrono::steady_clock::duration duration);
  void Publish();
  void ReadProcess(ExporterStats* stats);  // process_* values into stats->process
  void LogScan(const ScanResult& result, std::chrono::steady_clock::duration duration);
  void LogChange(const StateChange& change);
  void LogProblems(const std::vector<DiscoveryProblem>& problems);
  void LogNotices(const std::vector<DiscoveryNotice>& notices);
  void LogCollisions(const std::vector<std::string>& collisions);

  const LandingPageInfo page_info_;
  Logger* const logger_;

  // Guarded by mutex_.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool rerender_requested_ = false;
  ScanSettings settings_;
  std::optional<ScanSettings> pending_settings_;
  ExporterStats stats_;

  // Guarded by snapshot_mutex_.
  mutable std::mutex snapshot_mutex_;
  mutable std::condition_variable snapshot_published_;
  std::shared_ptr<const Snapshot> snapshot_;

  // Set by Stop(); read by the scanner between steps.
  std::atomic<bool> scan_stop_{false};

  // Used by the loop thread only.
  std::unique_ptr<Scanner> scanner_;
  ScanResult last_result_;
  std::set<std::string> previous_problems_;
  std::set<std::string> warned_problems_;
  std::set<std::string> warned_notices_;
  std::set<std::string> warned_collisions_;
  bool process_error_logged_ = false;

  std::thread thread_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_SCAN_LOOP_H_
