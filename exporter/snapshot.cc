// Rendering a scan into the served snapshot.
#include "exporter/snapshot.h"

#include <exception>
#include <utility>

#include "exporter/metrics/metrics_renderer.h"
#include "exporter/render/json_view.h"

namespace scx {

Snapshot::Snapshot(LandingPageInfo page_info, Logger* logger)
    : page_info_(std::move(page_info)), logger_(logger) {}

Snapshot::Snapshot(std::shared_ptr<const ScanResult> scan, const BrainMetricsOptions& brain_metrics,
                   std::uint64_t scan_number, double scanned_at, LandingPageInfo page_info,
                   Logger* logger, std::size_t brains_json_reserve)
    : scan_(std::move(scan)),
      brain_metrics_(brain_metrics),
      scan_number_(scan_number),
      scanned_at_(scanned_at),
      page_info_(std::move(page_info)),
      logger_(logger),
      brains_json_size_(brains_json_reserve) {}

const std::vector<BrainReport>& Snapshot::brains() const {
  static const std::vector<BrainReport> kNone;
  return scan_ ? scan_->brains : kNone;
}

const std::vector<OrphanedFolder>& Snapshot::orphans() const {
  static const std::vector<OrphanedFolder> kNone;
  return scan_ ? scan_->orphans : kNone;
}

const RenderedMetrics& Snapshot::metrics(ExpositionFormat format) const {
  formats_asked_.fetch_or(1u << static_cast<unsigned>(format), std::memory_order_relaxed);
  return Rendered(format);
}

const RenderedMetrics& Snapshot::Rendered(ExpositionFormat format) const {
  const auto f = static_cast<std::size_t>(format);
  std::call_once(metrics_once_[f], [this, format, f] {
    if (scan_) metrics_[f] = Render(format);
  });
  return metrics_[f];
}

ExpositionFormats Snapshot::FormatsAsked() const {
  const unsigned asked = formats_asked_.load(std::memory_order_relaxed);
  ExpositionFormats formats;
  for (std::size_t f = 0; f < kExpositionFormats; ++f) {
    if ((asked & (1u << f)) != 0) formats.push_back(static_cast<ExpositionFormat>(f));
  }
  return formats;
}

// Compressed as it is rendered: the whole text is never in memory.
RenderedMetrics Snapshot::Render(ExpositionFormat format) const {
  std::vector<std::string> dropped;
  GzipWriter gzip;
  RenderedMetrics rendered;
  RenderMetricsTo(*scan_, brain_metrics_, format, &dropped, kGzipPieceBytes,
                  [&](std::string_view piece) {
                    rendered.size += piece.size();
                    gzip.Add(piece);
                  });
  for (const std::string& series : dropped) {
    logger_->Error("duplicate series dropped from the metrics", {{"series", series}});
  }
  if (!gzip.FinishOpen(&rendered.gzip)) {
    logger_->Error("gzip compression of the metrics failed; serving them uncompressed");
    rendered.plain = RenderMetrics(*scan_, nullptr, brain_metrics_, format, rendered.size);
    rendered.size = rendered.plain.size();
  }
  return rendered;
}

bool Snapshot::WriteMetricsText(ExpositionFormat format,
                                const std::function<bool(std::string_view piece)>& write) const {
  const RenderedMetrics& rendered = Rendered(format);
  if (rendered.size == 0) return true;
  if (rendered.gzip.bytes.empty()) return write(rendered.plain);
  return GzipDecompressOpenTo(rendered.gzip, write);
}

std::string Snapshot::MetricsText(ExpositionFormat format) const {
  std::string text;
  text.reserve(metrics_size(format));
  WriteMetricsText(format, [&text](std::string_view piece) {
    text.append(piece);
    return true;
  });
  return text;
}

const std::string& Snapshot::brains_json() const {
  std::call_once(brains_json_once_, [this] {
    try {
      brains_json_ = BrainsView(brains(), orphans(), brains_json_size());
    } catch (const std::exception& e) {
      logger_->Error("rendering the JSON view failed", {{"err", e.what()}});
      brains_json_ = "{\"brains\":[],\"orphaned_folders\":[],\"error\":\"rendering failed\"}";
    }
    brains_json_size_.store(brains_json_.size(), std::memory_order_relaxed);
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

std::string Snapshot::FilteredBrainsJson(const BrainFilter& filter) const {
  return FilteredBrainsView(brains(), orphans(), filter);
}

std::string Snapshot::FilteredLandingPage(const BrainFilter& filter) const {
  if (!scan_) return landing_page();
  return RenderLandingPage(page_info_, brains(), /*scanned=*/true, scanned_at_, orphans(), filter);
}

// `text` gzip-compressed into `*out` (left empty, and logged, when that fails).
void Snapshot::Compress(const std::string& text, const char* what, std::string* out) const {
  if (!GzipCompress(text, out)) {
    logger_->Error("gzip compression failed; serving it uncompressed", {{"body", what}});
  }
}

const std::string& Snapshot::brains_json_gzip() const {
  std::call_once(brains_json_gzip_once_,
                 [this] { Compress(brains_json(), "brains JSON", &brains_json_gzip_); });
  return brains_json_gzip_;
}

const std::string& Snapshot::landing_page_gzip() const {
  std::call_once(landing_page_gzip_once_,
                 [this] { Compress(landing_page(), "landing page", &landing_page_gzip_); });
  return landing_page_gzip_;
}

std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info, Logger* logger) {
  return std::make_shared<const Snapshot>(page_info, logger);
}

std::shared_ptr<const Snapshot> RenderSnapshot(std::shared_ptr<const ScanResult> scan,
                                               const BrainMetricsOptions& brain_metrics,
                                               std::uint64_t scan_number, double scanned_at,
                                               const LandingPageInfo& page_info, Logger* logger,
                                               const ExpositionFormats& render_now,
                                               std::size_t brains_json_reserve) {
  auto snapshot = std::make_shared<Snapshot>(std::move(scan), brain_metrics, scan_number,
                                             scanned_at, page_info, logger, brains_json_reserve);
  for (const ExpositionFormat format : render_now) snapshot->RenderNow(format);
  return snapshot;
}

}  // namespace scx
