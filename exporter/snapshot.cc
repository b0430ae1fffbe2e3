// Rendering a scan into the served snapshot.
#include "exporter/snapshot.h"

#include <exception>

#include "exporter/gzip.h"
#include "exporter/json_view.h"

namespace scx {

const std::vector<BrainReport>& Snapshot::brains() const {
  static const std::vector<BrainReport> kNone;
  return scan ? scan->brains : kNone;
}

std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->landing_page = RenderLandingPage(page_info, {}, /*scanned=*/false);
  return snapshot;
}

std::shared_ptr<const Snapshot> RenderSnapshot(std::shared_ptr<const ScanResult> scan,
                                               const ExporterStats& stats,
                                               const LandingPageInfo& page_info, Logger* logger) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->scan_number = stats.scans_total;
  snapshot->scanned_at = stats.last_scan_timestamp_seconds;
  snapshot->scan = std::move(scan);
  std::vector<std::string> dropped;
  snapshot->metrics_text = RenderMetrics(*snapshot->scan, stats, &dropped);
  for (const std::string& series : dropped) {
    logger->Error("duplicate series dropped from the metrics", {{"series", series}});
  }
  if (!GzipCompress(snapshot->metrics_text, &snapshot->metrics_gzip)) {
    logger->Error("gzip compression of the metrics failed");
  }
  try {
    snapshot->brains_json = BrainsView(snapshot->brains());
  } catch (const std::exception& e) {
    logger->Error("rendering the JSON view failed", {{"err", e.what()}});
    snapshot->brains_json = "{\"brains\":[],\"error\":\"rendering failed\"}";
  }
  snapshot->landing_page = RenderLandingPage(page_info, snapshot->brains(), /*scanned=*/true,
                                             stats.last_scan_timestamp_seconds);
  return snapshot;
}

}  // namespace scx
