// The body of one scrape of the metrics endpoint, in the negotiated format: the
// per-brain families of the latest snapshot, rendered once per scan and format, then
// the exporter's own families as they are at this scrape (SelfMetrics::SharedText:
// request counters and the process's figures change between two scrapes of one scan),
// then, in OpenMetrics, "# EOF". With gzip it is one gzip member: the snapshot's open
// member, shared by every scrape and never copied, closed by the rest compressed alone
// (a few kilobytes, not the whole body again). Without, the snapshot's text inflated
// while it is sent, then the rest.
//
// Thread-safety: called from the HTTP workers, several at once; the body it sets holds
// the snapshot until it has been sent.
#ifndef SCX_EXPORTER_METRICS_METRICS_BODY_H_
#define SCX_EXPORTER_METRICS_METRICS_BODY_H_

#include <memory>

#include "exporter/http/http_server.h"
#include "exporter/metrics/prometheus_text.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/snapshot.h"

namespace scx {

// Sets `response`'s body (a streamed one, with its length) and, for gzip, its
// Content-Encoding: `snapshot`'s per-brain families, then `own_metrics`' (null: none).
// `gzip`: the request accepts it; a snapshot whose compression failed is sent plain
// either way. The scrape counts as in flight (SelfMetrics::StartScrape) until the
// response lets go of its body.
void SetMetricsBody(std::shared_ptr<const Snapshot> snapshot, const SelfMetrics* own_metrics,
                    ExpositionFormat format, bool gzip, HttpResponse* response);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_METRICS_BODY_H_
