// The body of one scrape of the metrics endpoint: the per-brain families of the latest
// snapshot, rendered once per scan, then the exporter's own families as they are at
// this scrape (SelfMetrics::Text: request counters change between two scrapes of one
// scan). With gzip it is one gzip member: the snapshot's open member, shared by every
// scrape and never copied, closed by the own families compressed alone (a few
// kilobytes, not the whole body again). Without, the snapshot's text inflated while it
// is sent, then the own families.
//
// Thread-safety: called from the HTTP workers, several at once; the body it sets holds
// the snapshot until it has been sent.
#ifndef SCX_EXPORTER_METRICS_BODY_H_
#define SCX_EXPORTER_METRICS_BODY_H_

#include <memory>

#include "exporter/http/http_server.h"
#include "exporter/snapshot.h"

namespace scx {

// Sets `response`'s body (a streamed one, with its length) and, for gzip, its
// Content-Encoding. `gzip`: the request accepts it; a snapshot whose compression
// failed is sent plain either way.
void SetMetricsBody(std::shared_ptr<const Snapshot> snapshot, bool gzip, HttpResponse* response);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_BODY_H_
