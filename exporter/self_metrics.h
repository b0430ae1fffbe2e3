// The exporter's own metrics (docs/metrics.md, "The exporter itself" and "The exporter
// process"). The scan loop's, the reloads' and the watches' counters and gauges live
// in a prometheus-cpp Registry, are updated where they happen (several threads) and
// written by prometheus-cpp's
// TextSerializer at each scrape, after the per-brain families that the snapshot
// rendered once for its scan (exporter/metrics_body.h). The process collector's
// families are read from /proc at each scrape, as the client libraries read them, and
// written after those by the renderer's own text writer (prometheus-cpp has no process
// collector, and its counters cannot be set to a value read elsewhere).
//
// Thread-safety: every method may be called from any thread, several at once
// (prometheus-cpp's metrics are atomic and its families lock).
#ifndef SCX_EXPORTER_SELF_METRICS_H_
#define SCX_EXPORTER_SELF_METRICS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/scanner.h"
#include "exporter/logger.h"

namespace scx {

class SelfMetrics {
 public:
  struct Options {
    std::string version;  // the labels of skeleton_coherence_exporter_build_info
    std::string revision;
    // False with --web.disable-exporter-metrics: Text() is empty (counting goes on).
    bool enabled = true;
    // Whether Text() reads /proc for the process_* families.
    bool process = true;
  };

  // `logger` (a warn line when /proc cannot be read, once until it can again) must
  // outlive it.
  SelfMetrics(const Options& options, Logger* logger);
  ~SelfMetrics();
  SelfMetrics(const SelfMetrics&) = delete;
  SelfMetrics& operator=(const SelfMetrics&) = delete;

  // A completed scan of `seconds` wall time that ended at Unix time `finished_at`:
  // counts it and sets what the last scan decides
  // (success, brains by state, orphaned folders).
  void RecordScan(const ScanResult& result, double seconds, double finished_at);
  // A scan started at once by a change seen with inotify.
  void RecordWatchTriggeredScan();
  void SetScanInterval(double seconds);
  // What the change watcher watches after a scan.
  void SetWatches(std::uint64_t watched_dirs, bool limited);
  // A config load on reload, by result; also sets config_last_reload_successful.
  void RecordConfigReload(bool success);
  // The served certificate's notAfter (Unix seconds); empty without TLS, and then
  // there is no such family.
  void SetTlsCertificateNotAfter(std::optional<std::int64_t> not_after_seconds);

  // The exporter's families now, in the order of docs/metrics.md (each family's
  // series sorted by their labels), then the process collector's; "" when disabled.
  std::string Text() const;

 private:
  struct Impl;
  const std::unique_ptr<Impl> impl_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_SELF_METRICS_H_
