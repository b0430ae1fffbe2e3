// What the HTTP server tells its owner as it serves, for the exporter's own metrics:
// each request it answered (by the route it matched and the status sent), each basic
// auth failure by reason, each TLS handshake that failed. An interface, so that this
// layer knows nothing of Prometheus: the application implements it with prometheus-cpp
// counters (exporter/metrics/self_metrics.h), tests with a recorder.
//
// Thread-safety: the server calls it from its worker threads, several at once, on the
// request's path: an implementation must be thread-safe and quick.
#ifndef SCX_EXPORTER_HTTP_HTTP_EVENTS_H_
#define SCX_EXPORTER_HTTP_HTTP_EVENTS_H_

#include <string>

#include "exporter/http/basic_auth.h"

namespace scx {

// The handler of a request whose path matches no route (404) or cannot be decoded
// (400). Registered paths start with '/', so it names none of them.
inline constexpr char kUnmatchedHandler[] = "other";

class HttpEvents {
 public:
  virtual ~HttpEvents() = default;

  // A response is about to be sent (its body is already built, so a /metrics body
  // never counts its own request; the count is in place before the client can read
  // the response, so the next scrape always shows it): `handler` is the path the route
  // was registered with (HttpServer::Handle, or the prefix of HandlePrefix), or
  // kUnmatchedHandler; `status` the HTTP status. Requests civetweb refuses itself
  // before a handler could run (a malformed request line, headers over its buffer)
  // are not reported, as Go's net/http answers those before promhttp sees them.
  virtual void OnRequest(const std::string& handler, int status) = 0;

  // Basic auth did not allow a request (it was answered 401, or 429 when rate limited).
  virtual void OnAuthFailure(AuthFailure reason) = 0;

  // A connection to a TLS listener was closed before its TLS handshake completed: the
  // client spoke something else (plain HTTP), offered nothing the server accepts, sent
  // no valid client certificate where one is required, went away or stayed silent
  // past the request timeout, or the connection was reclaimed or the server stopped
  // while it waited for its handshake.
  virtual void OnTlsHandshakeFailure() = 0;
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_HTTP_EVENTS_H_
