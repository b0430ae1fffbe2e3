// Everything the HTTP endpoints serve from one completed scan. The metrics are
// rendered once, when the scan completes, compressed piece by piece as they are
// rendered, and kept gzip-compressed only (about a twentieth of the text): a gzip scrape is sent
// that copy as it is, a plain one gets it inflated piece by piece while it is sent. The JSON view
// and the landing page are rendered at their first request and then kept with the snapshot. Serving
// a request never copies a body.
//
// Thread-safety: a published Snapshot is immutable apart from its lazily rendered
// views, which are rendered once (std::call_once) and may be read from any thread.
// RenderSnapshot is a pure function apart from logging render failures.
#ifndef SCX_EXPORTER_SNAPSHOT_H_
#define SCX_EXPORTER_SNAPSHOT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scanner.h"
#include "exporter/logger.h"
#include "exporter/render/landing_page.h"
#include "exporter/render/metrics_renderer.h"

namespace scx {

class Snapshot {
 public:
  // No scan yet: no metrics, an empty JSON view, the landing page says so.
  Snapshot(LandingPageInfo page_info, Logger* logger);
  // The metrics as `metrics_gzip` (one gzip member of `metrics_size` bytes of text),
  // or, when compression failed, as `metrics_plain` with `metrics_gzip` empty.
  Snapshot(std::shared_ptr<const ScanResult> scan, std::uint64_t scan_number, double scanned_at,
           std::string metrics_gzip, std::string metrics_plain, std::size_t metrics_size,
           LandingPageInfo page_info, Logger* logger);
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  std::uint64_t scan_number() const { return scan_number_; }  // 0: no completed scan yet
  double scanned_at() const { return scanned_at_; }           // Unix time the scan completed
  // The brains of the scan, sorted by name; empty before the first scan.
  const std::vector<BrainReport>& brains() const;
  // The scan's orphaned folders (ScanResult::orphans); empty before the first scan.
  const std::vector<OrphanedFolder>& orphans() const;

  // The metrics text's length in bytes, and the text itself piece by piece (false if
  // `write` stopped it). The whole text at once: MetricsText (tests and tools).
  std::size_t metrics_size() const { return metrics_size_; }
  bool WriteMetricsText(const std::function<bool(std::string_view piece)>& write) const;
  std::string MetricsText() const;
  // The gzip member of the text; empty when compression failed (then the text is kept
  // as it is and sent to every client uncompressed).
  const std::string& metrics_gzip() const { return metrics_gzip_; }

  const std::string& brains_json() const;   // BrainsView(brains()), at first use
  const std::string& landing_page() const;  // RenderLandingPage, at first use

 private:
  const std::shared_ptr<const ScanResult> scan_;  // shared with the scan loop
  const std::uint64_t scan_number_ = 0;
  const double scanned_at_ = 0;
  std::size_t metrics_size_ = 0;
  std::string metrics_gzip_;
  std::string metrics_plain_;  // only when compression failed
  const LandingPageInfo page_info_;
  Logger* const logger_;
  mutable std::once_flag brains_json_once_;
  mutable std::string brains_json_;
  mutable std::once_flag landing_page_once_;
  mutable std::string landing_page_;
};

std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info, Logger* logger);

std::shared_ptr<const Snapshot> RenderSnapshot(std::shared_ptr<const ScanResult> scan,
                                               const ExporterStats& stats,
                                               const LandingPageInfo& page_info, Logger* logger);

}  // namespace scx

#endif  // SCX_EXPORTER_SNAPSHOT_H_
