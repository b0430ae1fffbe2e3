// HttpServer on civetweb's C API: one begin_request callback that checks basic auth,
// dispatches on the exact path, gives each response its write deadline and reports it
// to the HttpEvents; a connection_close callback that keeps the ConnectionGuard's table
// exact and reports failed TLS handshakes; TLS set up from the web config through the
// init_ssl callback.
#include "exporter/http/http_server.h"

#include <civetweb.h>
#include <openssl/crypto.h>
#include <strings.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include "exporter/http/basic_auth.h"
#include "exporter/http/connection_guard.h"
#include "exporter/http/http_error.h"
#include "exporter/http/http_headers.h"
#include "exporter/http/rate_limiter.h"
#include "exporter/http/slot_gate.h"
#include "exporter/http/systemd_socket.h"
#include "exporter/http/tls_setup.h"
#include "exporter/http/web_config.h"

namespace scx {

namespace {

constexpr char kAuthenticateHeader[] = "Basic realm=\"skeleton-coherence-exporter\"";
// civetweb serves a connection on one worker thread for its whole life, so an idle
// keep-alive connection pins a worker: keep the idle wait short.
constexpr int kMaxKeepAliveTimeoutMs = 5000;
// Connections the kernel may hold before civetweb accepts them (capped by
// net.core.somaxconn), so that a burst of connections is queued, not refused.
constexpr char kListenBacklog[] = "4096";
// What a thread that cannot be started most likely means, for the error.
constexpr char kThreadLimitHint[] =
    ": the process may not start that many threads (its RLIMIT_NPROC, ulimit -u, or its "
    "container's pids limit)";
// At most this many accepted connections wait in civetweb's queue for a worker.
constexpr int kMaxConnectionQueue = 4096;

// civetweb's log messages while mg_start2 runs on this thread (they explain why a
// port cannot be bound); outside Start they are dropped, never printed.
thread_local std::string* t_start_log = nullptr;

int OnLogMessage(const mg_connection* /*conn*/, const char* message) {
  if (t_start_log != nullptr && message != nullptr) {
    if (!t_start_log->empty()) *t_start_log += "; ";
    *t_start_log += message;
  }
  return 1;
}

bool Fail(std::string* error, const std::string& message) {
  if (error != nullptr) *error = message;
  return false;
}

bool AcceptsGzip(const mg_request_info& info) {
  for (int i = 0; i < info.num_headers; ++i) {
    const mg_header& header = info.http_headers[i];
    if (strcasecmp(header.name, "Accept-Encoding") == 0 && AcceptEncodingAllowsGzip(header.value)) {
      return true;
    }
  }
  return false;
}

// civetweb's listening_ports value for `addresses`: one listener each, comma-separated.
bool ListeningPorts(const std::vector<std::string>& addresses, bool tls, std::string* ports,
                    std::string* error) {
  if (addresses.empty()) return Fail(error, "no listen address");
  ports->clear();
  for (const std::string& text : addresses) {
    ListenAddress address;
    if (!ParseListenAddress(text, &address, error)) return false;
    if (address.ipv6() && !mg_check_feature(MG_FEATURES_IPV6)) {
      return Fail(error,
                  "invalid listen address '" + text + "': this civetweb build has no IPv6 support");
    }
    if (!ports->empty()) *ports += ",";
    *ports += (address.host.empty() ? "" : address.host + ":") + std::to_string(address.port) +
              (tls ? "s" : "");
  }
  return true;
}

// civetweb's listening_ports value for descriptors already listening (patched civetweb:
// scripts/civetweb-patches/0004).
std::string InheritedPorts(const std::vector<int>& sockets, bool tls) {
  std::string ports;
  for (const int fd : sockets) {
    if (!ports.empty()) ports += ",";
    ports += "fd:" + std::to_string(fd) + (tls ? "s" : "");
  }
  return ports;
}

// What the server listens on, for messages: its addresses, or its descriptors.
std::vector<std::string> Listeners(const HttpServerOptions& options) {
  if (options.listen_sockets.empty()) return options.listen_addresses;
  std::vector<std::string> listeners;
  for (const int fd : options.listen_sockets) {
    listeners.push_back("systemd socket " + SocketAddress(fd));
  }
  return listeners;
}

// "a, b and c" for messages.
std::string JoinAddresses(const std::vector<std::string>& addresses) {
  std::string text;
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (i > 0) text += i + 1 == addresses.size() ? " and " : ", ";
    text += addresses[i];
  }
  return text;
}

// The scrape slots of one route: a SlotGate and the socket of each holder, so that a
// preempted holder can be aborted.
class RouteSlots {
 public:
  explicit RouteSlots(int capacity) : gate_(capacity) {}

  // A slot for a request from `address` on `socket` (-1: unknown); 0 when refused.
  // A holder preempted to make room is aborted through `guard`.
  SlotGate::Ticket Acquire(const std::string& address, int socket, ConnectionGuard* guard) {
    // The holder is aborted under this lock: it has not released its slot yet, so
    // it has not closed its connection either, and the number is still its own.
    std::lock_guard<std::mutex> lock(mutex_);
    const SlotGate::Decision decision = gate_.Acquire(address);
    if (decision.ticket != 0) sockets_[decision.ticket] = socket;
    if (auto it = sockets_.find(decision.preempted); it != sockets_.end()) {
      if (it->second >= 0 && guard != nullptr) guard->Abort(it->second);
      sockets_.erase(it);
    }
    return decision.ticket;
  }

  void Release(SlotGate::Ticket ticket) {
    std::lock_guard<std::mutex> lock(mutex_);
    gate_.Release(ticket);
    sockets_.erase(ticket);
  }

  int capacity() const { return gate_.capacity(); }

 private:
  std::mutex mutex_;
  SlotGate gate_;
  std::map<SlotGate::Ticket, int> sockets_;
};

// The request path percent-decoded from `raw`. civetweb is told not to decode it
// (decode_url=no): it decodes into a C string, so "/api/v1/brains/x%00junk" reached
// the handlers as "/api/v1/brains/x". False when the decoded path holds a NUL.
bool DecodePath(const char* raw, std::string* path) {
  const std::string_view encoded = raw != nullptr ? raw : "";
  std::string decoded(encoded.size() + 1, '\0');
  const int length = mg_url_decode(encoded.data(), static_cast<int>(encoded.size()), decoded.data(),
                                   static_cast<int>(decoded.size()), 0);
  if (length < 0) return false;
  decoded.resize(static_cast<std::size_t>(length));
  if (decoded.find('\0') != std::string::npos) return false;
  *path = std::move(decoded);
  return true;
}

// The values of every `name` field of the request, in order.
std::vector<std::string> FieldValues(const mg_request_info& info, const char* name) {
  std::vector<std::string> values;
  for (int i = 0; i < info.num_headers; ++i) {
    const mg_header& header = info.http_headers[i];
    if (strcasecmp(header.name, name) == 0) values.emplace_back(header.value);
  }
  return values;
}

// What reading a request body found.
enum class BodyRead { kOk, kMalformed, kTooLarge };

// Reads and drops the request body (the handlers take none), so that a request with
// a body civetweb cannot decode (a malformed chunked encoding, a body shorter than
// its Content-Length) is refused before its handler runs. Only POST routes do this.
BodyRead DrainBody(mg_connection* conn) {
  char buffer[4096];
  std::size_t total = 0;
  for (;;) {
    const int read = mg_read(conn, buffer, sizeof(buffer));
    if (read == 0) return BodyRead::kOk;
    if (read < 0) return BodyRead::kMalformed;
    total += static_cast<std::size_t>(read);
    if (total > kMaxRequestBodyBytes) return BodyRead::kTooLarge;
  }
}

// Holds a slot of `slots` until it goes away (the response has been sent).
class SlotHold {
 public:
  SlotHold(RouteSlots* slots, SlotGate::Ticket ticket) : slots_(slots), ticket_(ticket) {}
  ~SlotHold() { slots_->Release(ticket_); }
  SlotHold(const SlotHold&) = delete;
  SlotHold& operator=(const SlotHold&) = delete;

 private:
  RouteSlots* slots_;
  SlotGate::Ticket ticket_;
};

HttpResponse CallHandler(const HttpHandler& handler, const HttpRequest& request) {
  try {
    HttpResponse response = handler(request);
    if (response.status < 100 || response.status > 599) {
      return ErrorResponse(500, "internal server error: invalid status");
    }
    return response;
  } catch (...) {
    return ErrorResponse(500, "internal server error");
  }
}

// Header fields as name and value, in the order they are sent.
using HeaderFields = std::vector<std::pair<std::string, std::string>>;
// The web config's http_server_config.headers, the same on every response.
using ExtraHeaders = HeaderFields;

// civetweb's additional_header option: the lines it adds to the answers it makes
// itself, should any bypass OnHttpError (which sends its error pages with them).
std::string HeaderLines(const ExtraHeaders& headers) {
  std::string lines;
  for (const auto& [name, value] : headers) {
    lines.append(name).append(": ").append(value).append("\r\n");
  }
  return lines;
}

// The header fields of `response`, whose body is `size` bytes: the extra headers first,
// each replacing the response's own of that name (a handler's default
// Content-Security-Policy gives way to the operator's), Content-Length last. civetweb
// adds Date and Connection.
HeaderFields FieldsOf(const HttpResponse& response, std::size_t size,
                      const ExtraHeaders& extra_headers) {
  HeaderFields fields = extra_headers;
  if (!response.content_type.empty()) fields.emplace_back("Content-Type", response.content_type);
  if (!response.content_encoding.empty()) {
    fields.emplace_back("Content-Encoding", response.content_encoding);
  }
  for (const auto& [name, value] : response.headers) {
    const bool replaced =
        std::any_of(extra_headers.begin(), extra_headers.end(), [&name = name](const auto& extra) {
          return strcasecmp(extra.first.c_str(), name.c_str()) == 0;
        });
    if (!replaced) fields.emplace_back(name, value);
  }
  fields.emplace_back("Content-Length", std::to_string(size));
  return fields;
}

// What mg_response_header_start returns on a connection civetweb took for a websocket
// handshake (Connection: Upgrade, Upgrade: websocket). This build has no websocket
// support, so civetweb goes on serving it as a plain request, but its response header
// functions refuse to write a status line or a field for it; the body still goes out.
constexpr int kNotAPlainRequest = -2;

// The current time as an HTTP Date field spells it (RFC 9110 5.6.7).
std::string HttpDateNow() {
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return date;
}

// The response head civetweb writes, written by hand for such a connection; civetweb
// closes it after the response, hence "Connection: close".
std::string HandWrittenHead(mg_connection* conn, int status, const HeaderFields& fields) {
  std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + mg_get_response_code_text(conn, status) + "\r\n";
  for (const auto& [name, value] : fields) head.append(name).append(": ").append(value) += "\r\n";
  head.append("Date: ").append(HttpDateNow()) += "\r\nConnection: close\r\n\r\n";
  return head;
}

void SendResponse(mg_connection* conn, bool head, const HttpResponse& response,
                  const ExtraHeaders& extra_headers) {
  const std::string_view body = response.Body();
  const std::size_t size = response.streamed_body ? response.streamed_size : body.size();
  const HeaderFields fields = FieldsOf(response, size, extra_headers);
  // Before the header: civetweb's Connection field follows it.
  if (response.close_connection) mg_disable_keep_alive(conn);
  if (mg_response_header_start(conn, response.status) == kNotAPlainRequest) {
    const std::string written = HandWrittenHead(conn, response.status, fields);
    mg_write(conn, written.data(), written.size());
  } else {
    for (const auto& [name, value] : fields) {
      mg_response_header_add(conn, name.c_str(), value.c_str(), -1);
    }
    mg_response_header_send(conn);
  }
  if (head || size == 0) return;
  if (!response.streamed_body) {
    mg_write(conn, body.data(), body.size());
    return;
  }
  response.streamed_body(
      [conn](std::string_view piece) { return mg_write(conn, piece.data(), piece.size()) > 0; });
}

}  // namespace

struct HttpServer::Impl {
  struct Route {
    std::string pattern;  // the path or prefix it was registered with
    HttpHandler handler;
    bool allow_post = false;
    std::unique_ptr<RouteSlots> slots;  // null: no limit of its own
    bool exempt = false;                // from max_other_requests
  };

  // Written by the owner before Start, read by workers while running.
  std::map<std::string, Route> routes;
  std::map<std::string, Route> prefix_routes;  // by prefix

  // The exact route for `path`, else the one with the longest prefix of it; null if none.
  const Route* FindRoute(const std::string& path) const {
    if (auto it = routes.find(path); it != routes.end()) return &it->second;
    const Route* found = nullptr;
    std::size_t longest = 0;
    for (const auto& [prefix, route] : prefix_routes) {
      if (path.compare(0, prefix.size(), prefix) == 0 && prefix.size() >= longest) {
        found = &route;
        longest = prefix.size();
      }
    }
    return found;
  }
  WebConfig web_config;
  TlsFiles tls_files;  // read in Configure, handed to OpenSSL in OnInitSsl, then cleared
  std::optional<std::int64_t> tls_not_after;  // the served certificate's notAfter
  std::unique_ptr<BasicAuth> auth;            // null: no authentication
  std::unique_ptr<RateLimiter> rate_limiter;  // the web config's rate_limit; null: none
  std::vector<int> basic_auth_costs;          // of the users' hashes, distinct
  std::string tls_error;                      // why OnInitSsl failed; written during Start
  mg_context* context = nullptr;
  std::vector<int> ports;                  // bound; empty when stopped
  std::unique_ptr<ConnectionGuard> guard;  // while running
  // HttpServerOptions::max_other_requests of the last Start; null: no limit.
  std::unique_ptr<RouteSlots> other_slots;
  std::chrono::milliseconds write_timeout{kDefaultWriteTimeoutMs};
  HttpEvents* events = nullptr;  // HttpServerOptions::events of the last Start

  static Impl* Of(const mg_connection* conn) {
    return static_cast<Impl*>(mg_get_user_data(mg_get_context(conn)));
  }

  static int OnBeginRequest(mg_connection* conn) {
    Impl* impl = Of(conn);
    const mg_request_info* info = mg_get_request_info(conn);
    const int socket = mg_get_connection_socket(conn);
    if (socket >= 0) {
      impl->guard->RequestStarted(socket, std::chrono::steady_clock::now() + impl->write_timeout);
    }
    std::optional<SlotHold> slot;  // held until the response is sent
    HttpResponse response = impl->Respond(conn, *info, socket, &slot);
    // Counted before it is sent (its body is already rendered, so a scrape never counts
    // itself): a client that has read response N finds it counted in response N + 1.
    if (impl->events != nullptr) impl->events->OnRequest(impl->HandlerOf(*info), response.status);
    SendResponse(conn, strcmp(info->request_method, "HEAD") == 0, response,
                 impl->web_config.headers);
    if (socket >= 0) impl->guard->RequestEnded(socket);
    return response.status;
  }

  // civetweb 1.15 calls init_connection once a connection is ready for its first
  // request: right after a TLS handshake succeeded (never when it failed), at once
  // without TLS. The mark it leaves in the connection's user data lasts until
  // connection_close has run (civetweb clears it then, and the worker's connection
  // starts with none), so a TLS connection closed without it never completed its
  // handshake. civetweb logs some such failures and not others (a silent client, a
  // stop): this counts them all.
  static int OnInitConnection(const mg_connection* /*conn*/, void** conn_data) {
    static char handshake_done;
    *conn_data = &handshake_done;
    return 0;
  }

  // civetweb's master thread, for every connection it accepts (the project's
  // civetweb patch): the guard admits it or refuses it (civetweb closes it then).
  static int OnAcceptConnection(const mg_context* context, int socket, const sockaddr* remote) {
    auto* impl = static_cast<Impl*>(mg_get_user_data(context));
    return impl->guard->Admit(socket, remote) ? 0 : 1;
  }

  // Before civetweb closes the connection's socket: the guard lets go of it first.
  static void OnConnectionClose(const mg_connection* conn) {
    Impl* impl = Of(conn);
    if (impl == nullptr) return;
    const int socket = mg_get_connection_socket(conn);
    if (impl->guard != nullptr && socket >= 0) impl->guard->Closed(socket);
    if (impl->events != nullptr && impl->web_config.tls_enabled() &&
        mg_get_user_connection_data(conn) == nullptr) {
      impl->events->OnTlsHandshakeFailure();
    }
  }

  // civetweb's own refusals, of a request it could not parse (400; 431 for too many
  // header fields; 505 for another HTTP version), carry the JSON error body too, and
  // end the connection as civetweb's own error page does.
  static int OnHttpError(mg_connection* conn, int status, const char* message) {
    HttpResponse response = ErrorResponse(status, message != nullptr ? message : "");
    response.close_connection = true;
    SendResponse(conn, /*head=*/false, response, Of(conn)->web_config.headers);
    return 0;  // handled: civetweb sends nothing more
  }

  // The registered path or prefix of the route `info`'s path takes, for the events.
  std::string HandlerOf(const mg_request_info& info) const {
    std::string path;
    const Route* route = DecodePath(info.local_uri, &path) ? FindRoute(path) : nullptr;
    return route != nullptr ? route->pattern : kUnmatchedHandler;
  }

  // Basic auth's verdict on the request (allowed without basic auth); a failure is
  // reported to the events.
  AuthResult Authenticate(mg_connection* conn, const mg_request_info& info) const {
    if (auth == nullptr) return AuthResult::kAllowed;
    AuthFailure failure = AuthFailure::kBadHeader;
    const AuthResult result =
        auth->Check(mg_get_header(conn, "Authorization"), info.remote_addr, &failure);
    if (result != AuthResult::kAllowed && events != nullptr) events->OnAuthFailure(failure);
    return result;
  }

  // The answer to a body DrainBody did not take, after which the connection is closed:
  // the rest of the body is not read.
  static HttpResponse BodyRefusal(BodyRead body) {
    HttpResponse response =
        body == BodyRead::kMalformed
            ? ErrorResponse(400, "malformed request body")
            : ErrorResponse(413, "request body too large: at most " +
                                     std::to_string(kMaxRequestBodyBytes) + " bytes");
    response.close_connection = true;
    return response;
  }

  // The answer to a request beyond the web config's rate_limit, none within it:
  // exporter-toolkit's 429, with the seconds until a token comes back.
  std::optional<HttpResponse> RateLimited() const {
    if (rate_limiter == nullptr) return std::nullopt;
    std::chrono::steady_clock::duration wait{};
    if (rate_limiter->Allow(std::chrono::steady_clock::now(), &wait)) return std::nullopt;
    HttpResponse response = ErrorResponse(429, "too many requests: rate_limit of the web config");
    const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait).count();
    response.headers["Retry-After"] = std::to_string(std::max<std::int64_t>(seconds, 1));
    return response;
  }

  // As the Prometheus client libraries answer beyond MaxRequestsInFlight.
  static HttpResponse TooManyRequests(int limit) {
    return ErrorResponse(503, "limit of concurrent requests reached (" + std::to_string(limit) +
                                  "), try again later");
  }

  static int OnInitSsl(void* ssl_ctx, void* user_data) {
    auto* impl = static_cast<Impl*>(user_data);
    return ConfigureServerTls(ssl_ctx, impl->web_config, impl->tls_files, &impl->tls_error) ? 1
                                                                                            : -1;
  }

  HttpResponse Respond(mg_connection* conn, const mg_request_info& info, int socket,
                       std::optional<SlotHold>* slot) const {
    // As net/http: before authentication and routing (it reads the request so).
    if (ContentLengthsDiffer(FieldValues(info, "Content-Length"))) {
      HttpResponse response = ErrorResponse(400, "differing Content-Length headers");
      response.close_connection = true;  // where its body ends is anyone's guess
      return response;
    }
    if (strcmp(info.request_method, "OPTIONS") == 0 && info.local_uri != nullptr &&
        strcmp(info.local_uri, "*") == 0) {
      HttpResponse response;  // net/http's serverHandler answers it itself
      response.content_type.clear();
      return response;
    }
    // As exporter-toolkit: every request takes a token, before authentication.
    if (std::optional<HttpResponse> refusal = RateLimited()) return std::move(*refusal);
    const AuthResult auth_result = Authenticate(conn, info);
    if (auth_result == AuthResult::kBusy) {
      // No bcrypt slot came free in time (a flood of wrong passwords, most likely).
      HttpResponse response = ErrorResponse(429, "too many requests: retry later");
      response.headers["Retry-After"] = "1";
      return response;
    }
    if (auth_result == AuthResult::kDenied) {
      HttpResponse response = ErrorResponse(401, "unauthorized");
      response.headers["WWW-Authenticate"] = kAuthenticateHeader;
      return response;
    }
    HttpRequest request;
    if (!DecodePath(info.local_uri, &request.path)) {
      return ErrorResponse(400, "the path holds a NUL byte");
    }
    request.method = info.request_method;
    request.query = info.query_string != nullptr ? info.query_string : "";
    request.params = ParseQuery(request.query);
    request.accepts_gzip = AcceptsGzip(info);
    if (const char* accept = mg_get_header(conn, "Accept")) request.accept = accept;
    const Route* found = FindRoute(request.path);
    if (found == nullptr) return ErrorResponse(404, "not found");
    const Route& route = *found;
    if (request.method != "GET" && request.method != "HEAD" &&
        !(route.allow_post && request.method == "POST")) {
      HttpResponse response = ErrorResponse(405, "method not allowed");
      response.headers["Allow"] = route.allow_post ? "GET, HEAD, POST" : "GET, HEAD";
      return response;
    }
    if (request.method == "POST") {
      // A declared length too large is refused unread, at once: reading it first kept
      // the connection until the request timeout when the body never came.
      const BodyRead body = info.content_length > static_cast<long long>(kMaxRequestBodyBytes)
                                ? BodyRead::kTooLarge
                                : DrainBody(conn);
      if (body != BodyRead::kOk) return BodyRefusal(body);
    }
    RouteSlots* slots = route.slots != nullptr ? route.slots.get()
                        : route.exempt         ? nullptr
                                               : other_slots.get();
    if (slots != nullptr) {
      const SlotGate::Ticket ticket = slots->Acquire(info.remote_addr, socket, guard.get());
      if (ticket == 0) return TooManyRequests(slots->capacity());
      slot->emplace(slots, ticket);
    }
    return CallHandler(route.handler, request);
  }

  // Everything Start checks before it binds (HttpServer::CheckOptions): loads the web
  // config into `config`, reads and test-loads its TLS files into `files`, and derives
  // civetweb's listening_ports.
  static bool LoadOptions(const HttpServerOptions& options, WebConfig* config, TlsFiles* files,
                          std::string* listening_ports, std::string* error) {
    *config = WebConfig();
    if (!options.web_config_file.empty() &&
        !LoadWebConfig(options.web_config_file, config, error)) {
      return false;
    }
    if (config->tls_enabled() && !CheckServerTls(options.web_config_file, *config, files, error)) {
      return false;
    }
    if (!options.listen_sockets.empty()) {
      *listening_ports = InheritedPorts(options.listen_sockets, config->tls_enabled());
      return true;
    }
    return ListeningPorts(options.listen_addresses, config->tls_enabled(), listening_ports, error);
  }

  // Loads the web config and derives civetweb's listening_ports and the auth checker.
  bool Configure(const HttpServerOptions& options, std::string* listening_ports,
                 std::string* error) {
    tls_not_after.reset();
    if (!LoadOptions(options, &web_config, &tls_files, listening_ports, error)) return false;
    if (web_config.tls_enabled()) {
      std::int64_t not_after = 0;
      if (CertificateNotAfter(tls_files.cert_pem, &not_after)) tls_not_after = not_after;
    }
    auth.reset(web_config.basic_auth_users.empty() ? nullptr
                                                   : new BasicAuth(web_config.basic_auth_users));
    rate_limiter.reset(web_config.rate_limited() ? new RateLimiter(web_config.rate_limit_interval,
                                                                   web_config.rate_limit_burst)
                                                 : nullptr);
    basic_auth_costs = DistinctBcryptCosts(web_config.basic_auth_users);
    return true;
  }

  bool StartCivetweb(const HttpServerOptions& options, const std::string& listening_ports,
                     std::string* error) {
    const std::string threads = std::to_string(options.num_threads);
    const std::string request_timeout = std::to_string(options.request_timeout_ms);
    const std::string keep_alive_timeout =
        std::to_string(std::min(options.request_timeout_ms, kMaxKeepAliveTimeoutMs));
    const std::string additional_header = HeaderLines(web_config.headers);
    // Accepted connections wait here for a worker; the guard keeps them few (those
    // beyond the workers wait only while every other connection is in a request).
    const std::string queue = std::to_string(
        options.max_connections > 0 ? std::min(options.max_connections, kMaxConnectionQueue)
                                    : kMaxConnectionQueue);
    const char* civetweb_options[] = {"additional_header",
                                      additional_header.c_str(),
                                      "listening_ports",
                                      listening_ports.c_str(),
                                      "num_threads",
                                      threads.c_str(),
                                      "request_timeout_ms",
                                      request_timeout.c_str(),
                                      "enable_keep_alive",
                                      "yes",
                                      "keep_alive_timeout_ms",
                                      keep_alive_timeout.c_str(),
                                      "listen_backlog",
                                      kListenBacklog,
                                      "connection_queue",
                                      queue.c_str(),
                                      "tcp_nodelay",
                                      "1",
                                      "enable_directory_listing",
                                      "no",
                                      "decode_url",
                                      "no",
                                      nullptr};
    mg_callbacks callbacks{};
    callbacks.begin_request = &Impl::OnBeginRequest;
    callbacks.accept_connection = &Impl::OnAcceptConnection;
    callbacks.connection_close = &Impl::OnConnectionClose;
    callbacks.init_connection = &Impl::OnInitConnection;
    callbacks.http_error = &Impl::OnHttpError;
    callbacks.log_message = &OnLogMessage;
    if (web_config.tls_enabled()) callbacks.init_ssl = &Impl::OnInitSsl;
    mg_init_data init{&callbacks, this, civetweb_options};

    unsigned code = 0;
    char text[256] = "";
    mg_error_data start_error{&code, text, sizeof(text)};
    std::string log;
    tls_error.clear();
    t_start_log = &log;
    context = mg_start2(&init, &start_error);
    t_start_log = nullptr;
    ForgetTlsFiles();
    if (context != nullptr && log.find("Cannot start worker thread") != std::string::npos) {
      // civetweb runs on with the workers it could start; this server does not.
      mg_stop(context);
      context = nullptr;
      return Fail(error, "cannot start " + threads + " HTTP worker threads (" + log + ")" +
                             kThreadLimitHint);
    }
    if (context != nullptr) return true;
    std::string message = "cannot serve HTTP on " + JoinAddresses(Listeners(options)) + ": " + text;
    if (!tls_error.empty()) message += ": " + tls_error;
    if (!log.empty()) message += " (" + log + ")";
    if (message.find("Cannot create") != std::string::npos) message += kThreadLimitHint;
    return Fail(error, message);
  }

  // The key is in OpenSSL's context now (civetweb calls init_ssl only in mg_start2).
  void ForgetTlsFiles() {
    OPENSSL_cleanse(tls_files.key_pem.data(), tls_files.key_pem.size());
    tls_files = TlsFiles();
  }

  // The ports civetweb actually bound; false unless there is one per address.
  bool ReadBoundPorts(size_t expected) {
    std::vector<mg_server_port> bound(expected + 1);
    const int count = mg_get_server_ports(context, static_cast<int>(bound.size()), bound.data());
    ports.clear();
    for (int i = 0; i < count; ++i) ports.push_back(bound[i].port);
    return ports.size() == expected;
  }
};

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(const std::string& path, HttpHandler handler, bool allow_post) {
  Impl::Route& route = impl_->routes[path];
  route.pattern = path;
  route.handler = std::move(handler);
  route.allow_post = allow_post;
  route.slots.reset();
}

void HttpServer::HandlePrefix(const std::string& prefix, HttpHandler handler) {
  Impl::Route& route = impl_->prefix_routes[prefix];
  route.pattern = prefix;
  route.handler = std::move(handler);
}

void HttpServer::LimitInFlight(const std::string& path, int max_in_flight) {
  auto route = impl_->routes.find(path);
  if (route == impl_->routes.end()) return;
  route->second.slots = max_in_flight > 0 ? std::make_unique<RouteSlots>(max_in_flight) : nullptr;
  route->second.exempt = max_in_flight <= 0;  // no limit at all
}

void HttpServer::ExemptFromOtherLimit(const std::string& path) {
  auto route = impl_->routes.find(path);
  if (route != impl_->routes.end()) route->second.exempt = true;
}

bool HttpServer::CheckOptions(const HttpServerOptions& options, std::string* error) {
  WebConfig config;
  TlsFiles files;
  std::string listening_ports;
  const bool ok = Impl::LoadOptions(options, &config, &files, &listening_ports, error);
  OPENSSL_cleanse(files.key_pem.data(), files.key_pem.size());
  return ok;
}

bool HttpServer::Start(const HttpServerOptions& options, std::string* error) {
  if (impl_->context != nullptr) return Fail(error, "the HTTP server is already running");
  if (options.num_threads < 1 || options.request_timeout_ms < 1 || options.write_timeout_ms < 1) {
    return Fail(error, "the HTTP server needs at least one thread and positive timeouts");
  }
  std::string listening_ports;
  if (!impl_->Configure(options, &listening_ports, error)) return false;
  const int max_connections =
      options.max_connections > 0 ? options.max_connections : std::numeric_limits<int>::max();
  try {
    impl_->guard = std::make_unique<ConnectionGuard>(
        CapsFor(max_connections, options.num_threads, options.max_connections_per_address));
  } catch (const std::system_error& failure) {
    return Fail(error, std::string("cannot start the HTTP server's deadline thread (") +
                           failure.what() + ")" + kThreadLimitHint);
  }
  impl_->other_slots = options.max_other_requests > 0
                           ? std::make_unique<RouteSlots>(options.max_other_requests)
                           : nullptr;
  impl_->write_timeout = std::chrono::milliseconds(options.write_timeout_ms);
  impl_->events = options.events;
  if (!impl_->StartCivetweb(options, listening_ports, error)) {
    impl_->guard.reset();
    return false;
  }
  if (!impl_->ReadBoundPorts(Listeners(options).size())) {
    Stop();
    return Fail(error, "cannot serve HTTP on " + JoinAddresses(Listeners(options)) +
                           ": not every address was bound");
  }
  return true;
}

std::optional<std::int64_t> HttpServer::tls_certificate_not_after() const {
  return impl_->tls_not_after;
}

std::vector<int> HttpServer::basic_auth_costs() const { return impl_->basic_auth_costs; }

int HttpServer::port() const { return impl_->ports.empty() ? 0 : impl_->ports.front(); }

std::vector<int> HttpServer::ports() const { return impl_->ports; }

ConnectionGuardStats HttpServer::connection_stats() const {
  return impl_->guard != nullptr ? impl_->guard->stats() : ConnectionGuardStats();
}

void HttpServer::Stop() {
  if (impl_->context == nullptr) return;
  mg_stop(impl_->context);
  impl_->context = nullptr;
  impl_->ports.clear();
  impl_->guard.reset();  // after mg_stop: no callback can reach it any more
}

}  // namespace scx
