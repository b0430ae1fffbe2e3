// Everything the HTTP endpoints serve from one completed scan, rendered once: the
// metrics text and its gzip copy, the JSON view and the landing page. Serving a
// request then only copies a shared_ptr.
//
// Thread-safety: a published Snapshot is immutable and may be read from any
// thread. RenderSnapshot is a pure function apart from logging render failures.
#ifndef SCX_EXPORTER_SNAPSHOT_H_
#define SCX_EXPORTER_SNAPSHOT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/scanner.h"
#include "exporter/landing_page.h"
#include "exporter/logger.h"
#include "exporter/metrics_renderer.h"

namespace scx {

struct Snapshot {
  std::uint64_t scan_number = 0;  // 0: no scan has completed yet
  double scanned_at = 0;          // Unix time at which that scan completed
  // The scan rendered, shared with the scan loop (not copied); null before the first.
  std::shared_ptr<const ScanResult> scan;
  std::string metrics_text;  // Prometheus text format
  std::string metrics_gzip;  // metrics_text gzip-compressed; empty if compression failed
  std::string brains_json;   // BrainsView(brains)
  std::string landing_page;  // HTML

  // The brains of `scan`, sorted by name; empty before the first scan.
  const std::vector<BrainReport>& brains() const;
};

// The snapshot served before the first scan completes: the landing page only.
std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info);

// Renders `scan` with `stats` (scan_number is stats.scans_total). Failures to
// compress or render are logged to `logger` and leave that part empty or minimal.
std::shared_ptr<const Snapshot> RenderSnapshot(std::shared_ptr<const ScanResult> scan,
                                               const ExporterStats& stats,
                                               const LandingPageInfo& page_info, Logger* logger);

}  // namespace scx

#endif  // SCX_EXPORTER_SNAPSHOT_H_
