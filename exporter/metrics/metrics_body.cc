// The metrics body: the snapshot's per-brain families, then the exporter's own.
#include "exporter/metrics/metrics_body.h"

#include <string>
#include <utility>

#include "exporter/metrics/gzip.h"

namespace scx {

namespace {

// What follows the per-brain families: the exporter's own, and OpenMetrics' end.
std::shared_ptr<const std::string> Tail(const SelfMetrics* own, ExpositionFormat format) {
  std::shared_ptr<const std::string> families =
      own != nullptr ? own->SharedText(format) : std::make_shared<const std::string>();
  if (format != ExpositionFormat::kOpenMetrics) return families;
  return std::make_shared<const std::string>(*families + std::string(kOpenMetricsEof));
}

}  // namespace

void SetMetricsBody(std::shared_ptr<const Snapshot> snapshot, const SelfMetrics* own_metrics,
                    ExpositionFormat format, bool gzip, HttpResponse* response) {
  // Before the text is written, so that a scrape sees itself in flight.
  std::shared_ptr<const void> in_flight =
      own_metrics != nullptr ? own_metrics->StartScrape() : nullptr;
  std::shared_ptr<const std::string> tail = Tail(own_metrics, format);
  const RenderedMetrics& metrics = snapshot->metrics(format);
  if (gzip && !metrics.gzip.bytes.empty()) {
    auto closing = std::make_shared<std::string>();
    if (GzipCloseMember(metrics.gzip, *tail, closing.get())) {
      response->content_encoding = "gzip";
      response->streamed_size = metrics.gzip.bytes.size() + closing->size();
      // `metrics` lives as long as the snapshot the body holds.
      response->streamed_body = [snapshot = std::move(snapshot), &metrics, closing,
                                 in_flight = std::move(in_flight)](const BodyWriter& write) {
        return write(metrics.gzip.bytes) && write(*closing);
      };
      return;
    }
  }
  // Inflated from the one compressed copy while it is sent: no per-request copy.
  response->streamed_size = metrics.size + tail->size();
  response->streamed_body = [snapshot = std::move(snapshot), format, tail,
                             in_flight = std::move(in_flight)](const BodyWriter& write) {
    return snapshot->WriteMetricsText(format, write) && (tail->empty() || write(*tail));
  };
}

}  // namespace scx
