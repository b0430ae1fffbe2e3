// The HTTP endpoints, serving from the latest snapshot.
#include "exporter/handlers.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "exporter/http/http_error.h"
#include "exporter/http/inline_source_hash.h"
#include "exporter/metrics/content_negotiation.h"
#include "exporter/metrics/gzip.h"
#include "exporter/metrics/metrics_body.h"
#include "exporter/metrics/prometheus_text.h"
#include "exporter/render/brain_filter.h"
#include "exporter/render/document_page.h"
#include "exporter/render/endpoints.h"
#include "exporter/render/json_view.h"
#include "exporter/render/landing_page.h"
#include "exporter/runbook_document.h"
#include "exporter/snapshot.h"

namespace scx {

namespace {

constexpr char kHtmlContentType[] = "text/html; charset=utf-8";
constexpr char kJsonContentType[] = "application/json";
constexpr char kRunbookTitle[] = "Runbook · Skeleton Coherence Exporter";

// Safe defaults of the HTML pages (docs/security.md, "HTML pages"): no MIME sniffing,
// and a Content-Security-Policy that allows the page's own inline style and script, by
// their hashes, and nothing else (no other script, no plugin, no frame around it, no
// form, no <base>). The web config's http_server_config.headers replace either.
constexpr char kNoSniff[] = "nosniff";
constexpr char kPolicyTail[] = "; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const std::string& LandingPagePolicy() {
  static const std::string policy = "default-src 'none'; style-src " +
                                    InlineSourceHash(LandingPageStyle()) + "; script-src " +
                                    InlineSourceHash(LandingPageScript()) + kPolicyTail;
  return policy;
}

const std::string& RunbookPolicy() {
  static const std::string policy =
      "default-src 'none'; style-src " + InlineSourceHash(DocumentPageStyle()) + kPolicyTail;
  return policy;
}

HttpResponse HtmlPage(HttpResponse response, const std::string& policy) {
  response.headers["X-Content-Type-Options"] = kNoSniff;
  response.headers["Content-Security-Policy"] = policy;
  return response;
}

// JSON is never sniffed as HTML either.
HttpResponse JsonDocument(HttpResponse response) {
  response.headers["X-Content-Type-Options"] = kNoSniff;
  return response;
}

// An empty body holding one of kMaxFilteredViews slots, or null when every one is
// held. Its deleter gives the slot back when its last reader is done: once the response
// made with it has been sent (or at once, should the render fail).
std::shared_ptr<std::string> FilteredViewBody(const std::shared_ptr<std::atomic<int>>& held) {
  int now = held->load();
  do {
    if (now >= kMaxFilteredViews) return nullptr;
  } while (!held->compare_exchange_weak(now, now + 1));
  return std::shared_ptr<std::string>(new std::string, [held](const std::string* body) {
    delete body;
    held->fetch_sub(1);
  });
}

HttpResponse TooManyFilteredViews() {
  HttpResponse response =
      ErrorResponse(503, "too many filtered views at once (" + std::to_string(kMaxFilteredViews) +
                             "): retry, or ask for the whole view");
  response.headers["Retry-After"] = "1";
  return response;
}

// `response` with its body moved into `held`, a FilteredViewBody.
HttpResponse InHeldBody(HttpResponse response, std::shared_ptr<std::string> held) {
  *held = std::move(response.body);
  response.body.clear();
  response.shared_body = std::move(held);
  return response;
}

// Every endpoint that serves a scan answers this until the first one completes.
HttpResponse FirstScanPending() { return ErrorResponse(503, kFirstScanPending); }

bool FirstScanDone(const Snapshot& snapshot) { return snapshot.scan_number() > 0; }

// One body of a snapshot, for a response: it keeps the snapshot alive while it is
// sent, so every reader shares the one rendered copy.
std::shared_ptr<const std::string> SharedPart(const std::shared_ptr<const Snapshot>& snapshot,
                                              const std::string& part) {
  return std::shared_ptr<const std::string>(snapshot, &part);
}

// The bodies below depend on Accept-Encoding: caches must keep one per encoding.
constexpr char kVaryEncoding[] = "Accept-Encoding";

// A body made for this request, gzip-compressed when the request accepts it (plain if
// compression fails).
HttpResponse MadeResponse(const char* content_type, std::string body, const HttpRequest& request) {
  HttpResponse response;
  response.content_type = content_type;
  response.headers["Vary"] = kVaryEncoding;
  std::string zipped;
  if (request.accepts_gzip && GzipCompress(body, &zipped)) {
    response.content_encoding = "gzip";
    response.body = std::move(zipped);
  } else {
    response.body = std::move(body);
  }
  return response;
}

// One of the snapshot's bodies (`Snapshot::*plain`) or, when the request accepts
// gzip, its compressed copy (`Snapshot::*zipped`: compressed once, at the first such
// request; the plain body when that failed). No copy either way.
using SnapshotPart = const std::string& (Snapshot::*)() const;
HttpResponse SharedResponse(const char* content_type,
                            const std::shared_ptr<const Snapshot>& snapshot, SnapshotPart plain,
                            SnapshotPart zipped, const HttpRequest& request) {
  HttpResponse response;
  response.content_type = content_type;
  response.headers["Vary"] = kVaryEncoding;
  const std::string* body = &((*snapshot).*plain)();
  if (request.accepts_gzip && !((*snapshot).*zipped)().empty()) {
    body = &((*snapshot).*zipped)();
    response.content_encoding = "gzip";
  }
  response.shared_body = SharedPart(snapshot, *body);
  return response;
}

// The brain named `name`, else the one whose name is shown as `name`: a name too long
// for a label (or not valid UTF-8) is shown cut (kMaxLabelValueBytes, a marker after
// it), in /metrics and the JSON views alike, and asked for as shown. Null if none.
const BrainReport* FindBrain(const Snapshot& snapshot, const std::string& name) {
  for (const BrainReport& brain : snapshot.brains()) {
    if (brain.brain().name == name) return &brain;
  }
  for (const BrainReport& brain : snapshot.brains()) {
    const std::string& own = brain.brain().name;
    if (!IsExportedAsIs(own) && SanitizedLabelValue(own) == name) return &brain;
  }
  return nullptr;
}

}  // namespace

Handlers::Handlers(const SnapshotSource* snapshots, const SelfMetrics* own_metrics,
                   ReloadRequester* reloads, bool enable_lifecycle)
    : snapshots_(snapshots),
      own_metrics_(own_metrics),
      reloads_(reloads),
      enable_lifecycle_(enable_lifecycle) {}

// The runbook goes first: a --web.telemetry-path of /runbook keeps serving the metrics.
std::vector<std::string> Handlers::Register(const std::string& telemetry_path, HttpServer* server) {
  server->Handle(kRunbookPath, [](const HttpRequest&) { return Runbook(); });
  server->Handle(telemetry_path, [this](const HttpRequest& r) { return Metrics(r); });
  server->Handle(kLandingPagePath, [this](const HttpRequest& r) { return LandingPage(r); });
  server->Handle(kBrainsApiPath, [this](const HttpRequest& r) { return Brains(r); });
  server->HandlePrefix(std::string(kBrainsApiPath) + "/",
                       [this](const HttpRequest& r) { return OneBrain(r); });
  server->Handle(kHealthyPath, [](const HttpRequest&) { return Healthy(); });
  server->Handle(kReadyPath, [this](const HttpRequest&) { return Ready(); });
  server->Handle(
      kReloadPath, [this](const HttpRequest& r) { return Reload(r); }, /*allow_post=*/true);
  // A few bytes each, written at once: a slow reader cannot hold a worker with them,
  // and a liveness probe must not get 503 while slow readers hold the other slots.
  for (const char* path : {kHealthyPath, kReadyPath, kReloadPath}) {
    if (path != telemetry_path) server->ExemptFromOtherLimit(path);
  }
  return {kRunbookPath,
          telemetry_path,
          kLandingPagePath,
          kBrainsApiPath,
          std::string(kBrainsApiPath) + "/",
          kHealthyPath,
          kReadyPath,
          kReloadPath};
}

HttpResponse Handlers::Metrics(const HttpRequest& request) const {
  const std::shared_ptr<const Snapshot> snapshot = snapshots_->snapshot();
  if (!FirstScanDone(*snapshot)) return FirstScanPending();
  const NegotiatedFormat format = NegotiateExposition(request.accept);
  HttpResponse response;
  response.content_type = std::string(format.content_type);
  response.headers["Vary"] = "Accept, Accept-Encoding";
  SetMetricsBody(snapshot, own_metrics_, format.format, request.accepts_gzip, &response);
  return response;
}

// The whole fleet is the snapshot's page, rendered once; part of it (`?state=`,
// `?limit=`) is rendered for the request.
HttpResponse Handlers::LandingPage(const HttpRequest& request) const {
  BrainFilter filter;
  std::string error;
  if (!ParseBrainFilter(request.params, &filter, &error)) return ErrorResponse(400, error);
  const std::shared_ptr<const Snapshot> snapshot = snapshots_->snapshot();
  if (!filter.empty()) {
    std::shared_ptr<std::string> body = FilteredViewBody(filtered_views_);
    if (body == nullptr) return TooManyFilteredViews();
    return HtmlPage(
        InHeldBody(MadeResponse(kHtmlContentType, snapshot->FilteredLandingPage(filter), request),
                   std::move(body)),
        LandingPagePolicy());
  }
  return HtmlPage(SharedResponse(kHtmlContentType, snapshot, &Snapshot::landing_page,
                                 &Snapshot::landing_page_gzip, request),
                  LandingPagePolicy());
}

HttpResponse Handlers::Brains(const HttpRequest& request) const {
  const std::shared_ptr<const Snapshot> snapshot = snapshots_->snapshot();
  if (!FirstScanDone(*snapshot)) return FirstScanPending();
  BrainFilter filter;
  std::string error;
  if (!ParseBrainFilter(request.params, &filter, &error)) return ErrorResponse(400, error);
  if (!filter.empty()) {
    std::shared_ptr<std::string> body = FilteredViewBody(filtered_views_);
    if (body == nullptr) return TooManyFilteredViews();
    return JsonDocument(
        InHeldBody(MadeResponse(kJsonContentType, snapshot->FilteredBrainsJson(filter), request),
                   std::move(body)));
  }
  return JsonDocument(SharedResponse(kJsonContentType, snapshot, &Snapshot::brains_json,
                                     &Snapshot::brains_json_gzip, request));
}

// The name is matched exactly against the brains of the last scan (never used as a
// path); a brain literally named "x/north" wins over the north view of "x".
HttpResponse Handlers::OneBrain(const HttpRequest& request) const {
  static constexpr std::string_view kNorthSuffix = "/north";
  const std::shared_ptr<const Snapshot> snapshot = snapshots_->snapshot();
  if (!FirstScanDone(*snapshot)) return FirstScanPending();
  const std::string name = request.path.substr(std::string_view(kBrainsApiPath).size() + 1);
  if (const BrainReport* brain = FindBrain(*snapshot, name)) {
    return JsonDocument(
        MadeResponse(kJsonContentType, BrainDetailView(*brain, snapshot->scanned_at()), request));
  }
  if (name.size() > kNorthSuffix.size() && EndsWith(name, kNorthSuffix)) {
    const std::string base = name.substr(0, name.size() - kNorthSuffix.size());
    if (const BrainReport* brain = FindBrain(*snapshot, base)) {
      return JsonDocument(MadeResponse(kJsonContentType, BrainNorthView(*brain), request));
    }
  }
  return ErrorResponse(404, "no brain named \"" + name + "\"");
}

HttpResponse Handlers::Runbook() {
  static const std::shared_ptr<const std::string> page =
      std::make_shared<const std::string>(RenderDocumentPage(kRunbookTitle, RunbookHtml()));
  HttpResponse response;
  response.content_type = kHtmlContentType;
  response.shared_body = page;
  return HtmlPage(std::move(response), RunbookPolicy());
}

HttpResponse Handlers::Healthy() { return TextResponse(200, "Healthy"); }

HttpResponse Handlers::Ready() const {
  return FirstScanDone(*snapshots_->snapshot()) ? TextResponse(200, "Ready") : FirstScanPending();
}

// Prometheus' rules: POST only, and only with --web.enable-lifecycle.
HttpResponse Handlers::Reload(const HttpRequest& request) {
  if (request.method != "POST") {
    HttpResponse response = ErrorResponse(405, "only POST reloads the config");
    response.headers["Allow"] = "POST";
    return response;
  }
  if (!enable_lifecycle_) return ErrorResponse(403, "lifecycle API is not enabled");
  const ReloadTicket ticket = reloads_->Request("http");
  if (ticket.load == 0) return ErrorResponse(503, "shutting down");
  if (ticket.immediate) {
    const std::optional<ReloadOutcome> outcome = reloads_->WaitFor(ticket.load, kReloadAnswerWait);
    if (outcome && outcome->success) return TextResponse(200, "Config reloaded.\n");
    if (outcome) return ErrorResponse(500, "reload failed: " + outcome->error);
  }
  return TextResponse(202,
                      "Reload queued; its result shows in "
                      "skeleton_coherence_exporter_config_last_reload_successful and the log.\n");
}

}  // namespace scx
