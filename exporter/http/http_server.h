// A small HTTP server on civetweb: exact-path GET/HEAD (and POST where allowed)
// handlers, several worker threads, request timeouts, optional TLS, basic auth and a
// rate limit (429 beyond it, before authentication, as exporter-toolkit) from a
// Prometheus-style web config file. Knows nothing about brains or metrics.
// Its own refusals (400, 401, 404, 405, 413, 429, 503, 500) and civetweb's (a request
// it cannot parse: 400, 431, 505) carry the JSON error body of http_error.h, as the
// handlers' errors do.
//
// The edges of HTTP/1.1 are answered as Go's net/http (promhttp's server) answers them
// (docs/security.md, "HTTP edges"): differing Content-Length headers are refused 400
// and the connection closed (equal ones count as one); "OPTIONS *" is answered 200
// with an empty body, before authentication; an absolute-form request ("GET
// http://host/metrics") is served as its path; a websocket upgrade request is served
// as a plain one (this server speaks no websocket), then its connection closed.
//
// Thread-safety: Handle, Start and Stop are called from one thread (the owner).
// Handlers run on civetweb's worker threads, several at once, and must be
// thread-safe; they are never called once Stop has returned.
#ifndef SCX_EXPORTER_HTTP_HTTP_SERVER_H_
#define SCX_EXPORTER_HTTP_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exporter/http/connection_guard.h"
#include "exporter/http/http_events.h"
#include "exporter/http/http_message.h"
#include "exporter/http/listen_address.h"

namespace scx {

// Workers by default: with the threads of the scan and the service, the process
// stays under 128 threads (docs/performance.md, "Cost on the host").
inline constexpr int kDefaultHttpThreads = 96;
// A POST's body is read and dropped before its handler runs (no handler takes one);
// a larger one is answered 413 (at once, unread, when its Content-Length says so),
// one civetweb cannot decode (a malformed chunked encoding) 400; both close the
// connection. A path with an encoded NUL ("%00") is answered 400.
inline constexpr std::size_t kMaxRequestBodyBytes = std::size_t{64} * 1024;
// civetweb keeps this many header fields of a request (MG_MAX_HEADERS); a request with
// more is answered 431 (net/http takes any number within 1 MB of header). civetweb is
// patched for it (scripts/civetweb-patches), and to answer a folded header line 400.
inline constexpr int kMaxRequestHeaderFields = 64;
inline constexpr int kDefaultRequestTimeoutMs = 5000;
// Prometheus' default scrape timeout: a response not written by then helps nobody.
inline constexpr int kDefaultWriteTimeoutMs = 10000;

struct HttpServerOptions {
  // One listener each (see listen_address.h), all serving the same handlers.
  std::vector<std::string> listen_addresses = {kDefaultListenAddress};
  // When not empty: serve these descriptors, already bound and listening (systemd
  // socket activation, systemd_socket.h), instead of listen_addresses. Closed by Stop.
  std::vector<int> listen_sockets;
  std::string web_config_file;  // empty: plain HTTP, no auth
  // civetweb serves each connection on one worker thread for the connection's whole
  // life; accepted connections beyond the workers wait in civetweb's queue. The
  // connection guard reclaims waiting (idle) connections once the open ones near
  // this number, so a scrape finds a worker (docs/security.md has the limits).
  int num_threads = kDefaultHttpThreads;
  // A connection must deliver a complete request header within this time of being
  // accepted (idle keep-alive connections: of the previous response), or it is
  // closed. Also bounds the TLS handshake and the sending of a response.
  int request_timeout_ms = kDefaultRequestTimeoutMs;
  // A response must be written within this time of its request's arrival, however
  // slowly the client reads; then the connection is aborted (and its scrape slot
  // freed). civetweb's own write timeout restarts at every byte of progress.
  int write_timeout_ms = kDefaultWriteTimeoutMs;
  // Connections open at once; one more is closed at once. 0: no cap. Keep it below
  // the descriptors the process may open (MaxConnectionsFor). Connections beyond the
  // workers wait for one; when the workers run short, waiting connections of the
  // address holding the most are reclaimed (connection_table.h).
  int max_connections = 0;
  // Connections open at once from one client address; one more is closed at once.
  // 0: no cap.
  int max_connections_per_address = 0;
  // Requests handled at once on the routes without a limit of their own
  // (LimitInFlight), together, shared fairly among client addresses as a route's
  // limit is: one beyond gets 503 unless it can take a greedier address's slot. So
  // slow readers of the other routes cannot take every worker. 0: no limit.
  int max_other_requests = 0;
  // Told of every request answered, auth failure and failed TLS handshake (null:
  // nobody). Not owned; must outlive the server's run (until Stop returns).
  HttpEvents* events = nullptr;
};

class HttpServer {
 public:
  HttpServer();
  ~HttpServer();  // stops the server
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Registers `handler` for exactly `path`. GET and HEAD always; POST only when
  // `allow_post`. Other methods get 405. Unregistered paths get 404. Call before Start.
  void Handle(const std::string& path, HttpHandler handler, bool allow_post = false);

  // Registers `handler` (GET and HEAD) for every path that starts with `prefix` and
  // has no exact route; the longest matching prefix wins. Call before Start.
  void HandlePrefix(const std::string& prefix, HttpHandler handler);

  // At most `max_in_flight` requests for `path` are handled at once (from the request
  // to the last byte of the response), shared fairly among client addresses
  // (slot_gate.h): one beyond that gets 503 at once, unless its address holds less
  // than its share while another holds more, and then the oldest request of the
  // greediest address is aborted to make room. 0 means no limit (nor the shared one of
  // HttpServerOptions::max_other_requests; a route never given a limit shares it). Call
  // after Handle and before Start. The worker threads (HttpServerOptions::num_threads)
  // must outnumber the limit for it to be reached before requests queue.
  void LimitInFlight(const std::string& path, int max_in_flight);

  // Takes `path` out of HttpServerOptions::max_other_requests: for a route whose
  // answers are a few bytes, written at once whoever reads them (a health check), so
  // that it never gets 503 for want of a slot. Call after Handle and before Start.
  void ExemptFromOtherLimit(const std::string& path);

  // Everything Start checks before it binds, without binding, starting a thread or
  // keeping anything: the web config file (its keys and values, the bcrypt hashes'
  // form, the TLS files read, loaded into a scratch context and matching) and the
  // listen addresses (their syntax, IPv6 support). False with `error` as Start would
  // set it. What fails here is the operator's to fix (a usage error); what fails
  // after it in Start is binding (a port in use, a name that does not resolve).
  static bool CheckOptions(const HttpServerOptions& options, std::string* error);

  // Binds and starts the worker threads. Returns false with `error` set when the
  // address cannot be bound, the web config is invalid (CheckOptions), or not every
  // thread could be started (nothing is left running then).
  bool Start(const HttpServerOptions& options, std::string* error);

  // The port actually bound for the first listen address (useful with port 0). 0
  // before Start.
  int port() const;

  // The ports bound, one per listen address, in their order. Empty before Start.
  std::vector<int> ports() const;

  // The notAfter (seconds since the epoch) of the certificate served, read at the
  // last Start; empty without TLS. Certificates are loaded at start only.
  std::optional<std::int64_t> tls_certificate_not_after() const;

  // The distinct bcrypt costs of the basic auth users loaded at the last Start
  // (empty without basic auth). More than one: answer times tell users apart.
  std::vector<int> basic_auth_costs() const;

  // What the connection limits have done so far (zero before Start).
  ConnectionGuardStats connection_stats() const;

  // Stops serving: requests being handled finish, idle connections are dropped.
  // Returns within civetweb's poll slice (SOCKET_TIMEOUT_QUANTUM, 200 ms in the
  // build scripts/install-deps.sh makes) plus the joining of the workers, which
  // grows with their number (docs/performance.md). Idempotent.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_HTTP_SERVER_H_
