// The exporter's HTTP endpoints: the metrics, the landing page, the JSON API, the
// runbook, /-/healthy, /-/ready and /-/reload. Each is a function of a request that
// reads the scan loop's latest snapshot (SnapshotSource), with the exporter's own
// metrics (SelfMetrics) for the metrics, or asks for a reload (ReloadRequester): no
// file, socket or thread of its own, so tests call them with fakes. Every error they
// give is the JSON body of exporter/http/http_error.h; the endpoints that serve a scan
// give the same 503 until the first scan completes.
//
// Thread-safety: the handlers run on the HTTP workers, several at once; they only
// read snapshots and ask the (thread-safe) reloads. Register is called by the owner
// before the server starts.
#ifndef SCX_EXPORTER_HANDLERS_H_
#define SCX_EXPORTER_HANDLERS_H_

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "exporter/http/http_server.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/reload_requester.h"
#include "exporter/snapshot_source.h"

namespace scx {

inline constexpr char kFirstScanPending[] = "the first scan has not completed yet";

// Filtered views (`/?state=`, `/api/v1/brains?state=`, `?limit=`) are rendered per
// request, each up to a copy of the whole fleet's page. At most this many of their
// bodies are held at once, from the render until the last byte is sent; one more is
// answered 503 with Retry-After: 1 at once, before any render. So a crowd of them (or
// of slow readers of them) holds a few pages of memory and leaves the cores to the
// scrapes; the unfiltered views are the snapshot's shared copy and need no slot.
inline constexpr int kMaxFilteredViews = 4;

class Handlers {
 public:
  // How long POST /-/reload waits for the load it started before answering 202.
  static constexpr std::chrono::milliseconds kReloadAnswerWait{1000};

  // None is owned; each must outlive the handlers and every server they are
  // registered on. `own_metrics` (null: none) are written after the snapshot's
  // per-brain families at each scrape. Without `enable_lifecycle`, POST /-/reload is
  // refused (403).
  Handlers(const SnapshotSource* snapshots, const SelfMetrics* own_metrics,
           ReloadRequester* reloads, bool enable_lifecycle);
  Handlers(const Handlers&) = delete;
  Handlers& operator=(const Handlers&) = delete;

  // Registers every endpoint on `server`, the metrics at `telemetry_path`, the rest at
  // the paths of exporter/render/endpoints.h. Call before server->Start. Returns the
  // paths registered (the `handler` label values of the request counts).
  std::vector<std::string> Register(const std::string& telemetry_path, HttpServer* server);

  // The metrics, in the format the Accept header prefers (exporter/metrics/content_negotiation.h),
  // gzip when the request accepts it.
  HttpResponse Metrics(const HttpRequest& request) const;
  // LandingPage, Brains and OneBrain give gzip when the request accepts it, and say
  // Vary: Accept-Encoding. The first two take `?state=S[,S...]` and `?limit=N`
  // (exporter/render/brain_filter.h) for part of the fleet: on the page N rows a
  // state, in the list N brains in all (with "omitted"); either malformed is 400.
  //
  // The HTML landing page; before the first scan it says so (200, not an error).
  HttpResponse LandingPage(const HttpRequest& request) const;
  // GET /api/v1/brains: every brain, or those the query asks for.
  HttpResponse Brains(const HttpRequest& request) const;
  // GET /api/v1/brains/{brain} and /api/v1/brains/{brain}/north; 404 for no brain.
  HttpResponse OneBrain(const HttpRequest& request) const;
  // GET /runbook: docs/runbook.md of this build as HTML, rendered once and shared; it
  // needs no scan.
  static HttpResponse Runbook();
  // "Healthy", always.
  static HttpResponse Healthy();
  // "Ready" once the first scan has completed.
  HttpResponse Ready() const;
  // POST /-/reload: 200 or 500 with the result of the load it started, 202 when the
  // request joined a queued load or the load took longer than kReloadAnswerWait.
  HttpResponse Reload(const HttpRequest& request);

 private:
  const SnapshotSource* const snapshots_;
  const SelfMetrics* const own_metrics_;
  ReloadRequester* const reloads_;
  const bool enable_lifecycle_;
  // Filtered view bodies held now (kMaxFilteredViews). Shared with the bodies, which
  // give their slot back when the last reader lets go, whenever that is.
  const std::shared_ptr<std::atomic<int>> filtered_views_ = std::make_shared<std::atomic<int>>(0);
};

}  // namespace scx

#endif  // SCX_EXPORTER_HANDLERS_H_
