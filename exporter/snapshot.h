// Everything the HTTP endpoints serve from one completed scan. The per-brain metrics
// are rendered once, when the scan completes, compressed piece by piece as they are
// rendered, and kept gzip-compressed only (about a twentieth of the text), as a gzip
// member left open: a gzip scrape is sent that copy as it is, then the exporter's own
// families (which are not the scan's, and change between scrapes) close the member; a
// plain scrape gets the copy inflated piece by piece while it is sent, then those
// families (exporter/metrics_body.h). The JSON view and the landing page are rendered
// at their first request and then kept with the snapshot. Serving a request never
// copies a body.
//
// Thread-safety: a published Snapshot is immutable apart from its lazily rendered
// views, which are rendered once (std::call_once) and may be read from any thread; the
// SelfMetrics it points to is thread-safe. RenderSnapshot is a pure function apart
// from logging render failures.
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
#include "exporter/render/gzip.h"
#include "exporter/render/landing_page.h"
#include "exporter/render/metrics_renderer.h"
#include "exporter/self_metrics.h"

namespace scx {

class Snapshot {
 public:
  // No scan yet: no metrics, an empty JSON view, the landing page says so.
  Snapshot(LandingPageInfo page_info, Logger* logger);
  // The per-brain metrics as `metrics_gzip` (a gzip member of `metrics_size` bytes of
  // text, left open), or, when compression failed, as `metrics_plain` with
  // `metrics_gzip` empty. `own_metrics` (null: none; not owned, must outlive the
  // snapshot) are the exporter's own families, written after them at each scrape.
  Snapshot(std::shared_ptr<const ScanResult> scan, std::uint64_t scan_number, double scanned_at,
           OpenGzipMember metrics_gzip, std::string metrics_plain, std::size_t metrics_size,
           const SelfMetrics* own_metrics, LandingPageInfo page_info, Logger* logger);
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  std::uint64_t scan_number() const { return scan_number_; }  // 0: no completed scan yet
  double scanned_at() const { return scanned_at_; }           // Unix time the scan completed
  // The brains of the scan, sorted by name; empty before the first scan.
  const std::vector<BrainReport>& brains() const;
  // The scan's orphaned folders (ScanResult::orphans); empty before the first scan.
  const std::vector<OrphanedFolder>& orphans() const;

  // The per-brain metrics text's length in bytes, and the text itself piece by piece
  // (false if `write` stopped it). The whole text at once: MetricsText (tests and
  // tools).
  std::size_t metrics_size() const { return metrics_size_; }
  bool WriteMetricsText(const std::function<bool(std::string_view piece)>& write) const;
  std::string MetricsText() const;
  // The open gzip member of that text; empty bytes when compression failed (then the
  // text is kept as it is and sent to every client uncompressed).
  const OpenGzipMember& metrics_gzip() const { return metrics_gzip_; }
  // The exporter's own families, written after the per-brain ones at each scrape;
  // null when there are none to write.
  const SelfMetrics* own_metrics() const { return own_metrics_; }

  const std::string& brains_json() const;   // BrainsView(brains()), at first use
  const std::string& landing_page() const;  // RenderLandingPage, at first use

 private:
  const std::shared_ptr<const ScanResult> scan_;  // shared with the scan loop
  const std::uint64_t scan_number_ = 0;
  const double scanned_at_ = 0;
  std::size_t metrics_size_ = 0;
  OpenGzipMember metrics_gzip_;
  std::string metrics_plain_;  // only when compression failed
  const SelfMetrics* const own_metrics_ = nullptr;
  const LandingPageInfo page_info_;
  Logger* const logger_;
  mutable std::once_flag brains_json_once_;
  mutable std::string brains_json_;
  mutable std::once_flag landing_page_once_;
  mutable std::string landing_page_;
};

std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info, Logger* logger);

// Renders scan number `scan_number` (from 1), completed at Unix time `scanned_at`, with
// the per-brain series `brain_metrics` asks for.
// `own_metrics` as for the Snapshot.
std::shared_ptr<const Snapshot> RenderSnapshot(std::shared_ptr<const ScanResult> scan,
                                               const BrainMetricsOptions& brain_metrics,
                                               std::uint64_t scan_number, double scanned_at,
                                               const SelfMetrics* own_metrics,
                                               const LandingPageInfo& page_info, Logger* logger);

}  // namespace scx

#endif  // SCX_EXPORTER_SNAPSHOT_H_
