// The exporter's own metrics (docs/metrics.md, "The exporter itself" and "The exporter
// process"). The scan loop's, the reloads', the watches' and the HTTP server's
// counters and gauges and the scan histogram live in a prometheus-cpp Registry, are
// updated where they happen (several threads) and written at each scrape, after the
// per-brain families that the snapshot rendered once for its scan
// (exporter/metrics/metrics_body.h): by prometheus-cpp's TextSerializer in the text format, by
// exporter/metrics/openmetrics_serializer in OpenMetrics. The process collector's families are
// read from /proc at each scrape, as the client libraries read them (a few small
// files), and written after those by the renderer's own writer (prometheus-cpp has no
// process collector, and its counters cannot be set to a value read elsewhere).
// SelfMetrics is the HTTP server's HttpEvents.
//
// The text is written on a thread of SelfMetrics' own, for whoever asks: scrapes that
// ask at once for one format share one text written after the last of them asked, and
// the many small blocks a serialization allocates and frees stay in that one thread's
// malloc cache.
// Written on each HTTP worker instead, they stayed in every worker's: glibc keeps up
// to 7 freed blocks of each small size per thread, and scrapes on new connections go
// round all the workers. bench/scrape_memory.py measures it: 1.3 to 1.7 MiB more RSS
// after scrapes on new connections without the thread (docs/performance.md, "Measured
// and not taken").
//
// Thread-safety: every method may be called from any thread, several at once
// (prometheus-cpp's metrics are atomic and its families lock; the writer's queue has
// its mutex).
#ifndef SCX_EXPORTER_METRICS_SELF_METRICS_H_
#define SCX_EXPORTER_METRICS_SELF_METRICS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/scanner.h"
#include "exporter/http/http_events.h"
#include "exporter/logger.h"
#include "exporter/metrics/prometheus_text.h"
#include "exporter/version.h"

namespace scx {

// The upper bounds (seconds) of skeleton_coherence_exporter_scan_seconds: 1-2.5-5
// steps from 1 ms (a warm scan of a few brains) to 10 s, then 30 s and 60 s (the
// longest scan interval worth having; a scan past it is in +Inf). What scans of
// large fleets take is in docs/performance.md.
inline constexpr double kScanSecondsBuckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                 0.5,   1,      2.5,   5,    10,    30,   60};

class SelfMetrics : public HttpEvents {
 public:
  struct Options {
    BuildInfo build;  // the labels of skeleton_coherence_exporter_build_info
    // False with --web.disable-exporter-metrics: Text() is empty (counting goes on).
    bool enabled = true;
    // Whether the process_* families are read (at each text; never when not
    // `enabled`).
    bool process = true;
  };

  // `logger` (a warn line when /proc cannot be read, once until it can again) must
  // outlive it.
  SelfMetrics(const Options& options, Logger* logger);
  ~SelfMetrics() override;
  SelfMetrics(const SelfMetrics&) = delete;
  SelfMetrics& operator=(const SelfMetrics&) = delete;

  // A completed scan of `seconds` wall time that ended at Unix time `finished_at`:
  // counts it, observes it in the histogram, sets what the last scan decides
  // (success, brains by state, orphaned folders).
  void RecordScan(const ScanResult& result, double seconds, double finished_at);
  // A scan started at once by a change seen with inotify.
  void RecordWatchTriggeredScan();
  void RecordStateWriteFailure();
  // The state existed at start but could not be restored (StateFile::restore_failed).
  void RecordStateRestoreFailure();
  void SetScanInterval(double seconds);
  // What the change watcher watches after a scan.
  void SetWatches(std::uint64_t watched_dirs, bool limited);
  // A config load on reload, by result; also sets config_last_reload_successful.
  void RecordConfigReload(bool success);
  // The served certificate's notAfter (Unix seconds); empty without TLS, and then
  // there is no such family.
  void SetTlsCertificateNotAfter(std::optional<std::int64_t> not_after_seconds);
  // The scheme of skeleton_coherence_exporter_runbook_info: "https" when the listeners
  // serve TLS, else "http" (the default). The shipped rules build every alert's
  // runbook link from it and the target's `instance`.
  void SetRunbookScheme(const std::string& scheme);

  // The series of skeleton_coherence_exporter_http_requests_total that exist from the
  // start, at 0, so that the first request of each shows as an increase: codes 200,
  // 500 and 503 (as promhttp initialises its handler's) for each of `handlers`, the
  // paths the endpoints are registered at.
  void InitializeRequestCounts(const std::vector<std::string>& handlers);

  // One scrape of the metrics endpoint starts: it counts in
  // skeleton_coherence_exporter_scrapes_in_flight until the returned token is
  // released (held by the response until its body is sent).
  std::shared_ptr<const void> StartScrape() const;

  // HttpEvents.
  void OnRequest(const std::string& handler, int status) override;
  void OnAuthFailure(AuthFailure reason) override;
  void OnTlsHandshakeFailure() override;

  // The exporter's families now, in `format` and the order of docs/metrics.md (each
  // family's series sorted by their labels), then the process collector's, read from
  // /proc now; "" when disabled. No "# EOF": the per-brain families come first and
  // the caller ends the exposition. Written after the call began (by the writer
  // thread, shared with the calls that asked for the same format at the same time).
  std::shared_ptr<const std::string> SharedText(
      ExpositionFormat format = ExpositionFormat::kText) const;
  std::string Text(ExpositionFormat format = ExpositionFormat::kText) const {
    return *SharedText(format);
  }

 private:
  struct Impl;
  const std::unique_ptr<Impl> impl_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_SELF_METRICS_H_
