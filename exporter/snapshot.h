// Everything the HTTP endpoints serve from one completed scan. The per-brain metrics
// are rendered at most once per exposition format (the text format, OpenMetrics),
// compressed piece by piece as they are rendered, and kept gzip-compressed only (about
// a twentieth of the text), as a gzip member left open: a gzip scrape is sent that copy
// as it is, then the exporter's own families (which are not the scan's, and change
// between scrapes) close the member; a plain scrape gets the copy inflated piece by
// piece while it is sent, then those families (exporter/metrics/metrics_body.h). The formats
// the scan loop asks for are rendered when the scan completes (those the scrapes of
// the previous snapshot asked for), any other at its first request, so a scan costs
// one render whichever format Prometheus scrapes. The JSON view and the landing page
// are rendered at their first request and then kept with the snapshot; the JSON view
// into a string of the previous snapshot's JSON size, carried from snapshot to
// snapshot (brains_json_size), and each is compressed at its first gzip request, once.
// Serving a request never copies a body.
//
// Thread-safety: a published Snapshot is immutable apart from its lazily rendered
// parts, which are rendered once (std::call_once) and may be read from any thread, and
// the formats asked of it (atomic).
// RenderSnapshot is a pure function apart from logging render failures.
#ifndef SCX_EXPORTER_SNAPSHOT_H_
#define SCX_EXPORTER_SNAPSHOT_H_

#include <array>
#include <atomic>
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
#include "exporter/metrics/gzip.h"
#include "exporter/metrics/metrics_renderer.h"
#include "exporter/render/brain_filter.h"
#include "exporter/render/landing_page.h"

namespace scx {

// The per-brain metrics in one format: a gzip member of `size` bytes of text, left
// open, or, when compression failed, the text as it is in `plain` (`gzip.bytes` empty).
struct RenderedMetrics {
  OpenGzipMember gzip;
  std::string plain;
  std::size_t size = 0;
};

// The formats RenderSnapshot renders before it returns.
using ExpositionFormats = std::vector<ExpositionFormat>;

class Snapshot {
 public:
  // No scan yet: no metrics, an empty JSON view, the landing page says so.
  Snapshot(LandingPageInfo page_info, Logger* logger);
  // `scan`'s per-brain metrics are rendered with `brain_metrics` at their first use
  // in each format (RenderSnapshot renders some at once). `brains_json_reserve`: the
  // bytes to reserve for the JSON view (an earlier snapshot's brains_json_size; 0:
  // none).
  Snapshot(std::shared_ptr<const ScanResult> scan, const BrainMetricsOptions& brain_metrics,
           std::uint64_t scan_number, double scanned_at, LandingPageInfo page_info, Logger* logger,
           std::size_t brains_json_reserve = 0);
  Snapshot(const Snapshot&) = delete;
  Snapshot& operator=(const Snapshot&) = delete;

  std::uint64_t scan_number() const { return scan_number_; }  // 0: no completed scan yet
  double scanned_at() const { return scanned_at_; }           // Unix time the scan completed
  // The brains of the scan, sorted by name; empty before the first scan.
  const std::vector<BrainReport>& brains() const;
  // The scan's orphaned folders (ScanResult::orphans); empty before the first scan.
  const std::vector<OrphanedFolder>& orphans() const;

  // The per-brain metrics in `format`, rendered at the first call for that format
  // (empty before the first scan). Counts the format as asked (FormatsAsked).
  const RenderedMetrics& metrics(ExpositionFormat format) const;
  // The formats metrics() was called for, in the order of ExpositionFormat.
  ExpositionFormats FormatsAsked() const;
  // Renders the per-brain metrics in `format` unless done, without counting it as
  // asked (RenderSnapshot).
  void RenderNow(ExpositionFormat format) const { Rendered(format); }

  // The per-brain metrics text's length in bytes, and the text itself piece by piece
  // (false if `write` stopped it). The whole text at once: MetricsText (tests and
  // tools).
  std::size_t metrics_size(ExpositionFormat format = ExpositionFormat::kText) const {
    return Rendered(format).size;
  }
  // The open gzip member of that text; empty bytes when compression failed (then the
  // text is kept as it is and sent to every client uncompressed).
  const OpenGzipMember& metrics_gzip(ExpositionFormat format = ExpositionFormat::kText) const {
    return Rendered(format).gzip;
  }
  bool WriteMetricsText(ExpositionFormat format,
                        const std::function<bool(std::string_view piece)>& write) const;
  std::string MetricsText(ExpositionFormat format = ExpositionFormat::kText) const;

  const std::string& brains_json() const;   // BrainsView(brains()), at first use
  const std::string& landing_page() const;  // RenderLandingPage, at first use
  // Those two as one gzip member each, compressed at the first gzip request and
  // shared by every later one; empty when compression failed (then they are sent
  // plain).
  const std::string& brains_json_gzip() const;
  const std::string& landing_page_gzip() const;
  // The JSON view and the landing page of part of the fleet (`?state=...&limit=...`),
  // rendered at each call: FilteredBrainsView, RenderLandingPage with `filter`.
  std::string FilteredBrainsJson(const BrainFilter& filter) const;
  std::string FilteredLandingPage(const BrainFilter& filter) const;
  // The JSON view's size once rendered, else the reserve this snapshot was given: what
  // the next snapshot reserves for its own. Any thread.
  std::size_t brains_json_size() const { return brains_json_size_.load(std::memory_order_relaxed); }

 private:
  const RenderedMetrics& Rendered(ExpositionFormat format) const;  // at the first call
  RenderedMetrics Render(ExpositionFormat format) const;
  void Compress(const std::string& text, const char* what, std::string* out) const;

  const std::shared_ptr<const ScanResult> scan_;  // shared with the scan loop
  const BrainMetricsOptions brain_metrics_;
  const std::uint64_t scan_number_ = 0;
  const double scanned_at_ = 0;
  const LandingPageInfo page_info_;
  Logger* const logger_;
  mutable std::array<std::once_flag, kExpositionFormats> metrics_once_;
  mutable std::array<RenderedMetrics, kExpositionFormats> metrics_;
  mutable std::atomic<unsigned> formats_asked_{0};  // bit i: ExpositionFormat i
  mutable std::once_flag brains_json_once_;
  mutable std::string brains_json_;
  mutable std::atomic<std::size_t> brains_json_size_{0};
  mutable std::once_flag landing_page_once_;
  mutable std::string landing_page_;
  mutable std::once_flag brains_json_gzip_once_;
  mutable std::string brains_json_gzip_;
  mutable std::once_flag landing_page_gzip_once_;
  mutable std::string landing_page_gzip_;
};

std::shared_ptr<const Snapshot> InitialSnapshot(const LandingPageInfo& page_info, Logger* logger);

// Renders scan number `scan_number` (from 1), completed at Unix time `scanned_at`, with
// the per-brain series `brain_metrics` asks for, in the formats `render_now` (the
// others at their first request). `brains_json_reserve` as for the Snapshot.
std::shared_ptr<const Snapshot> RenderSnapshot(
    std::shared_ptr<const ScanResult> scan, const BrainMetricsOptions& brain_metrics,
    std::uint64_t scan_number, double scanned_at, const LandingPageInfo& page_info, Logger* logger,
    const ExpositionFormats& render_now = {ExpositionFormat::kText},
    std::size_t brains_json_reserve = 0);

}  // namespace scx

#endif  // SCX_EXPORTER_SNAPSHOT_H_
