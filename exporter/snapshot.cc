// Rendering a scan into the served snapshot.
#include "exporter/snapshot.h"

#include <exception>
#include <utility>

#include "exporter/render/json_view.h"
#include "exporter/render/metrics_renderer.h"

namespace scx {

Snapshot::Snapshot(LandingPageInfo page_info, Logger* logger)
    : page_info_(std::move(page_info)), logger_(logger) {}

Snapshot::Snapshot(std::shared_ptr<const ScanResult> scan, std::uint64_t scan_number,
                   double scanned_at, OpenGzipMember metrics_gzip, std::string metrics_plain,
                   std::size_t metrics_size, const SelfMetrics* own_metrics,
                   LandingPageInfo page_info, Logger* logger)
    : scan_(std::move(scan)),
      scan_number_(scan_number),
      scanned_at_(scanned_at),
      metrics_size_(metrics_size),
      metrics_gzip_(std::move(metrics_gzip)),
      metrics_plain_(std::move(metrics_plain)),
      own_metrics_(own_metrics),
      page_info_(std::move(page_info)),
      logger_(logger) {}

const std::vector<BrainReport>& Snapshot::brains() const {
  static const std::vector<BrainReport> kNone;
  return scan_ ? scan_->brains : kNone;
}

const std::vector<OrphanedFolder>& Snapshot::orphans() const {
  static const std::vector<OrphanedFolder> kNone;
  return scan_ ? scan_->orphans : kNone;
}

bool Snapshot::WriteMetricsText(const std::function<bool(std::string_view piece)>& write) const {
  if (metrics_size_ == 0) return true;
  if (metrics_gzip_.bytes.empty()) return write(metrics_plain_);
  return GzipDecompressOpenTo(metrics_gzip_, write);
}

std::string Snapshot::MetricsText() const {
  std::string text;
  text.reserve(metrics_size_);
  WriteMetricsText([&text](std::string_view piece) {
    text.append(piece);
    return true;
  });
  return text;
}

const std::string& Snapshot::brains_json() const {
  std::call_once(brains_json_once_, [this] {
    try {
      brains_json_ = BrainsView(brains(), orphans());
    } catch (const std::exception& e) {
      logger_->Error("rendering the JSON view failed", {{"err", e.what()}});
      brains_json_ = "{\"brains\":[],\"orphaned_folders\":[],\"error\":\"rendering failed\"}";
    }
  });
  return brains_json_;
}

const std::string& Snapshot::landing_page() const {
  std::call_once(landing_page_once_, [this] {
    landing_page_ =
        scan_ ? RenderLandingPage(page_info_, brains(), /*scanned=*/true, scanned_at_, orphans())
              : RenderLandingPage(page_info_, {}, /*scanned=*/false);
  });
  return landing_page_;
}

std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info, Logger* logger) {
  return std::make_shared<const Snapshot>(page_info, logger);
}

std::shared_ptr<const Snapshot> RenderSnapshot(std::shared_ptr<const ScanResult> scan,
                                               const BrainMetricsOptions& brain_metrics,
                                               std::uint64_t scan_number, double scanned_at,
                                               const SelfMetrics* own_metrics,
                                               const LandingPageInfo& page_info, Logger* logger) {
  // Compressed as it is rendered: the whole text is never in memory.
  std::vector<std::string> dropped;
  GzipWriter gzip;
  std::size_t size = 0;
  RenderMetricsTo(*scan, brain_metrics, &dropped, kGzipPieceBytes, [&](std::string_view piece) {
    size += piece.size();
    gzip.Add(piece);
  });
  for (const std::string& series : dropped) {
    logger->Error("duplicate series dropped from the metrics", {{"series", series}});
  }
  OpenGzipMember compressed;
  std::string plain;
  if (!gzip.FinishOpen(&compressed)) {
    logger->Error("gzip compression of the metrics failed; serving them uncompressed");
    plain = RenderMetrics(*scan, nullptr, brain_metrics);
    size = plain.size();
  }
  return std::make_shared<const Snapshot>(std::move(scan), scan_number, scanned_at,
                                          std::move(compressed), std::move(plain), size,
                                          own_metrics, page_info, logger);
}

}  // namespace scx
