// Turns the latest scan and the exporter's own statistics into the metrics of
// docs/metrics.md, in Prometheus text format. Pure: no I/O, no clock, no globals.
#ifndef SCX_EXPORTER_RENDER_METRICS_RENDERER_H_
#define SCX_EXPORTER_RENDER_METRICS_RENDERER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scanner.h"
#include "exporter/render/process_stats.h"
#include "exporter/render/prometheus_text.h"  // kMaxLabelValueBytes

namespace scx {

// What the exporter knows about itself, kept by the scan loop across scans.
struct ExporterStats {
  std::string version;
  std::string revision;
  std::uint64_t scans_total = 0;
  double last_scan_duration_seconds = 0;
  double last_scan_timestamp_seconds = 0;  // Unix time
  bool last_scan_success = false;
  double scan_interval_seconds = 0;
  std::map<DiscoveryProblemSource, std::uint64_t> discovery_errors_total;
  std::uint64_t stores_parsed_total = 0;
  std::uint64_t stores_unchanged_total = 0;
  std::uint64_t config_reloads_success_total = 0;
  std::uint64_t config_reloads_failure_total = 0;
  bool config_last_reload_successful = true;
  // Instant detection (exporter/change_watcher.h): folders watched after the last
  // scan, whether a limit left some to the timer, and scans started by a change.
  std::uint64_t watched_dirs = 0;
  bool watch_limited = false;
  std::uint64_t watch_triggered_scans_total = 0;
  // The notAfter of the TLS certificate served (seconds since the epoch); empty
  // without TLS, and then no family is rendered.
  std::optional<std::int64_t> tls_certificate_not_after_seconds;
  // False with --web.disable-exporter-metrics: neither the skeleton_coherence_exporter_*
  // families nor the process_* ones are rendered; the per-brain families stay.
  bool exporter_metrics = true;
  // The process collector's values, read at render time; empty when /proc could not
  // be read (then no process_* family is rendered).
  std::optional<ProcessStats> process;
};

// Every metric family of docs/metrics.md in Prometheus text exposition format 0.0.4,
// in the order of that document (the exporter's and the process's only when
// stats.exporter_metrics); a family with no sample (e.g. no brain has a verdict) is
// left out. A sample whose label set already exists in its family is dropped (it would
// make the whole scrape invalid) and described in `dropped` (may be null). Brains are
// unique by name, so nothing is dropped unless that guarantee breaks.
// Written straight into the returned string: no object per sample.
std::string RenderMetrics(const ScanResult& scan, const ExporterStats& stats,
                          std::vector<std::string>* dropped);

// The reserve RenderMetrics makes for its text, so that the string is not grown (and
// copied) while written: the bytes of each line a brain gets (label values capped as
// written, not escaped; numbers of a usual width) and a fixed size for the HELP and
// TYPE lines and the exporter's and process's families, plus, `with_slack`, 1/32 for
// longer numbers and escapes. Kept by hand beside the families:
// tests/metrics_renderer_test.cc checks, without the slack, that it covers every family
// of brains with every fact (testing::EveryFact, tests/brain_reports.h).
std::size_t EstimateMetricsBytes(const ScanResult& scan, bool with_slack = true);

// The same text, handed to `sink` in order in pieces of about `piece_bytes` (a piece
// ends after a brain's samples or a family once it holds that many bytes, so the
// whole text is never in memory at once; the last piece may be shorter).
void RenderMetricsTo(const ScanResult& scan, const ExporterStats& stats,
                     std::vector<std::string>* dropped, std::size_t piece_bytes,
                     const std::function<void(std::string_view piece)>& sink);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_METRICS_RENDERER_H_
