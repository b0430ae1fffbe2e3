// The metrics body: the snapshot's per-brain families, then the exporter's own.
#include "exporter/metrics_body.h"

#include <string>
#include <utility>

#include "exporter/render/gzip.h"

namespace scx {

void SetMetricsBody(std::shared_ptr<const Snapshot> snapshot, bool gzip, HttpResponse* response) {
  const SelfMetrics* own = snapshot->own_metrics();
  std::shared_ptr<const std::string> tail =
      own != nullptr ? own->SharedText() : std::make_shared<const std::string>();
  const std::string& member = snapshot->metrics_gzip().bytes;
  if (gzip && !member.empty()) {
    auto closing = std::make_shared<std::string>();
    if (GzipCloseMember(snapshot->metrics_gzip(), *tail, closing.get())) {
      response->content_encoding = "gzip";
      response->streamed_size = member.size() + closing->size();
      response->streamed_body = [snapshot = std::move(snapshot), closing](const BodyWriter& write) {
        return write(snapshot->metrics_gzip().bytes) && write(*closing);
      };
      return;
    }
  }
  // Inflated from the one compressed copy while it is sent: no per-request copy.
  response->streamed_size = snapshot->metrics_size() + tail->size();
  response->streamed_body = [snapshot = std::move(snapshot), tail](const BodyWriter& write) {
    return snapshot->WriteMetricsText(write) && (tail->empty() || write(*tail));
  };
}

}  // namespace scx
