// HttpServer on civetweb's C API: one begin_request callback that checks basic auth
// and dispatches on the exact path; TLS set up from the web config through the
// init_ssl callback.
#include "exporter/http_server.h"

#include <civetweb.h>
#include <crypt.h>
#include <netdb.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "exporter/web_config.h"

namespace scx {

namespace {

constexpr char kAuthenticateHeader[] = "Basic realm=\"skeleton-coherence-exporter\"";
// civetweb serves a connection on one worker thread for its whole life, so an idle
// keep-alive connection pins a worker: keep the idle wait short.
constexpr int kMaxKeepAliveTimeoutMs = 5000;
constexpr size_t kMaxCachedCredentials = 256;
constexpr int kMaxPorts = 4;

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

std::string Trim(const std::string& text) {
  const char* kSpace = " \t";
  size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t begin = 0;
  for (size_t end; (end = text.find(separator, begin)) != std::string::npos; begin = end + 1) {
    parts.push_back(text.substr(begin, end - begin));
  }
  parts.push_back(text.substr(begin));
  return parts;
}

// True when one Accept-Encoding value lists "gzip" with a q-value above 0.
bool ListsGzip(const std::string& accept_encoding) {
  for (const std::string& element : Split(accept_encoding, ',')) {
    std::vector<std::string> params = Split(element, ';');
    if (strcasecmp(Trim(params[0]).c_str(), "gzip") != 0) continue;
    double q = 1.0;
    for (size_t i = 1; i < params.size(); ++i) {
      std::string param = Trim(params[i]);
      if (param.size() > 2 && strncasecmp(param.c_str(), "q=", 2) == 0) {
        q = std::strtod(param.c_str() + 2, nullptr);
      }
    }
    return q > 0.0;
  }
  return false;
}

bool AcceptsGzip(const mg_request_info& info) {
  for (int i = 0; i < info.num_headers; ++i) {
    const mg_header& header = info.http_headers[i];
    if (strcasecmp(header.name, "Accept-Encoding") == 0 && ListsGzip(header.value)) return true;
  }
  return false;
}

bool DecodeBase64(const std::string& in, std::string* out) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string text = in.substr(0, in.find_last_not_of('=') + 1);
  if (in.size() % 4 != 0 || in.size() - text.size() > 2) return false;
  out->clear();
  unsigned bits = 0;
  int bit_count = 0;
  for (char c : text) {
    size_t value = kAlphabet.find(c);
    if (value == std::string::npos) return false;
    bits = (bits << 6) | static_cast<unsigned>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out->push_back(static_cast<char>((bits >> bit_count) & 0xFF));
    }
  }
  return true;
}

std::string Sha256(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  return std::string(reinterpret_cast<char*>(digest), size);
}

std::string OpenSslError() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

int OpenSslVersion(TlsVersion version) {
  return version == TlsVersion::kTls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
}

// Checks basic auth credentials against bcrypt hashes. Successful checks are
// remembered by the SHA-256 of a random per-process salt and "user:password", so
// that a scrape every few seconds does not pay bcrypt each time. Thread-safe.
class BasicAuth {
 public:
  explicit BasicAuth(std::map<std::string, std::string> users)
      : users_(std::move(users)), salt_(32, '\0') {
    if (RAND_bytes(reinterpret_cast<unsigned char*>(salt_.data()), salt_.size()) != 1) {
      salt_.clear();  // no cache rather than a predictable key
    }
  }

  // `authorization` is the Authorization header value, or null.
  bool Check(const char* authorization) {
    std::string user, password;
    if (!ParseBasic(authorization, &user, &password)) return false;
    const std::string key = salt_.empty() ? "" : Sha256(salt_ + user + ":" + password);
    if (!key.empty() && IsCached(key)) return true;
    if (!Verify(user, password)) return false;
    if (!key.empty()) Remember(key);
    return true;
  }

 private:
  static bool ParseBasic(const char* authorization, std::string* user, std::string* password) {
    if (authorization == nullptr || strncasecmp(authorization, "Basic ", 6) != 0) return false;
    std::string decoded;
    if (!DecodeBase64(Trim(authorization + 6), &decoded)) return false;
    size_t colon = decoded.find(':');
    if (colon == std::string::npos || decoded.find('\0') != std::string::npos) return false;
    *user = decoded.substr(0, colon);
    *password = decoded.substr(colon + 1);
    return true;
  }

  // Pays bcrypt even for an unknown user, so that timing does not reveal user names.
  bool Verify(const std::string& user, const std::string& password) const {
    auto it = users_.find(user);
    const std::string& hash = it != users_.end() ? it->second : users_.begin()->second;
    auto data = std::make_unique<crypt_data>();
    const char* computed =
        crypt_rn(password.c_str(), hash.c_str(), data.get(), static_cast<int>(sizeof(*data)));
    bool match = computed != nullptr && std::string(computed).size() == hash.size() &&
                 CRYPTO_memcmp(computed, hash.data(), hash.size()) == 0;
    return match && it != users_.end();
  }

  bool IsCached(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return verified_.count(key) > 0;
  }

  void Remember(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    if (verified_.size() >= kMaxCachedCredentials) verified_.clear();
    verified_.insert(key);
  }

  const std::map<std::string, std::string> users_;  // never empty
  std::string salt_;
  std::mutex mu_;
  std::set<std::string> verified_;  // guarded by mu_
};

// Turns "[host]:port" into civetweb's listening_ports value, and names the host to
// connect to when waking the server (loopback for "all interfaces").
bool ListeningPorts(const std::string& address, bool tls, std::string* ports,
                    std::string* local_host, std::string* error) {
  size_t colon = address.rfind(':');
  const std::string bad = "invalid listen address '" + address + "': ";
  if (colon == std::string::npos) return Fail(error, bad + "expected [host]:port");
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos ||
      std::atoi(port.c_str()) > 65535) {
    return Fail(error, bad + "the port must be a number from 0 to 65535");
  }
  if (!host.empty() && host.front() == '[' && !mg_check_feature(MG_FEATURES_IPV6)) {
    return Fail(error, bad + "this civetweb build has no IPv6 support");
  }
  *ports = (host.empty() ? "" : host + ":") + port + (tls ? "s" : "");
  *local_host = host.empty() || host == "0.0.0.0" ? "127.0.0.1" : host;
  if (host == "[::]") *local_host = "::1";
  if (local_host->front() == '[') *local_host = local_host->substr(1, local_host->size() - 2);
  return true;
}

// mg_stop waits for civetweb's master thread, which notices the stop flag only
// between 2 s polls of the listening socket. Connecting to it ends the poll early;
// keeps doing so until `done`.
void WakeUntilDone(const std::string& host, int port, const std::atomic<bool>& done) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found) != 0) return;
  while (!done) {
    int fd = socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0) {
      connect(fd, found->ai_addr, found->ai_addrlen);
      close(fd);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  freeaddrinfo(found);
}

HttpResponse TextResponse(int status, const std::string& body) {
  HttpResponse response;
  response.status = status;
  response.body = body;
  return response;
}

HttpResponse CallHandler(const HttpHandler& handler, const HttpRequest& request) {
  try {
    HttpResponse response = handler(request);
    if (response.status < 100 || response.status > 599) {
      return TextResponse(500, "Internal Server Error: invalid status\n");
    }
    return response;
  } catch (...) {
    return TextResponse(500, "Internal Server Error\n");
  }
}

void SendResponse(mg_connection* conn, bool head, const HttpResponse& response) {
  mg_response_header_start(conn, response.status);
  mg_response_header_add(conn, "Content-Type", response.content_type.c_str(), -1);
  if (!response.content_encoding.empty()) {
    mg_response_header_add(conn, "Content-Encoding", response.content_encoding.c_str(), -1);
  }
  for (const auto& [name, value] : response.headers) {
    mg_response_header_add(conn, name.c_str(), value.c_str(), -1);
  }
  const std::string length = std::to_string(response.body.size());
  mg_response_header_add(conn, "Content-Length", length.c_str(), -1);
  mg_response_header_send(conn);
  if (!head && !response.body.empty()) {
    mg_write(conn, response.body.data(), response.body.size());
  }
}

}  // namespace

struct HttpServer::Impl {
  struct Route {
    HttpHandler handler;
    bool allow_post = false;
  };

  std::map<std::string, Route> routes;  // read-only once started
  WebConfig web_config;
  std::unique_ptr<BasicAuth> auth;  // null: no authentication
  std::string tls_error;            // why OnInitSsl failed
  mg_context* context = nullptr;
  int port = 0;
  std::string local_host;  // where Stop connects to wake the server

  static int OnBeginRequest(mg_connection* conn) {
    auto* impl = static_cast<Impl*>(mg_get_user_data(mg_get_context(conn)));
    const mg_request_info* info = mg_get_request_info(conn);
    HttpResponse response = impl->Respond(conn, *info);
    SendResponse(conn, strcmp(info->request_method, "HEAD") == 0, response);
    return response.status;
  }

  static int OnInitSsl(void* ssl_ctx, void* user_data) {
    auto* impl = static_cast<Impl*>(user_data);
    return impl->ConfigureTls(static_cast<SSL_CTX*>(ssl_ctx)) ? 1 : -1;
  }

  HttpResponse Respond(mg_connection* conn, const mg_request_info& info) const {
    if (auth != nullptr && !auth->Check(mg_get_header(conn, "Authorization"))) {
      HttpResponse response = TextResponse(401, "Unauthorized\n");
      response.headers["WWW-Authenticate"] = kAuthenticateHeader;
      return response;
    }
    HttpRequest request;
    request.method = info.request_method;
    request.path = info.local_uri != nullptr ? info.local_uri : "";
    request.query = info.query_string != nullptr ? info.query_string : "";
    request.accepts_gzip = AcceptsGzip(info);
    auto it = routes.find(request.path);
    if (it == routes.end()) return TextResponse(404, "Not Found\n");
    const Route& route = it->second;
    if (request.method != "GET" && request.method != "HEAD" &&
        !(route.allow_post && request.method == "POST")) {
      HttpResponse response = TextResponse(405, "Method Not Allowed\n");
      response.headers["Allow"] = route.allow_post ? "GET, HEAD, POST" : "GET, HEAD";
      return response;
    }
    return CallHandler(route.handler, request);
  }

  bool ConfigureTls(SSL_CTX* ctx) {
    const WebConfig& config = web_config;
    if (SSL_CTX_use_certificate_chain_file(ctx, config.cert_file.c_str()) != 1) {
      return TlsFail("cannot load cert_file " + config.cert_file);
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, config.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
      return TlsFail("cannot load key_file " + config.key_file);
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
      return TlsFail("key_file " + config.key_file + " does not match cert_file");
    }
    if (SSL_CTX_set_min_proto_version(ctx, OpenSslVersion(config.min_version)) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, OpenSslVersion(config.max_version)) != 1) {
      return TlsFail("cannot set the TLS version range");
    }
    return ConfigureClientAuth(ctx);
  }

  // Client certificates: verified against client_ca_file, whose names are also sent
  // to the client as the acceptable issuers.
  bool ConfigureClientAuth(SSL_CTX* ctx) {
    const WebConfig& config = web_config;
    if (config.client_auth == ClientAuth::kNoClientCert) {
      SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nullptr);
      return true;
    }
    const char* ca_file = config.client_ca_file.c_str();
    if (SSL_CTX_load_verify_locations(ctx, ca_file, nullptr) != 1) {
      return TlsFail("cannot load client_ca_file " + config.client_ca_file);
    }
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca_file);
    if (names == nullptr)
      return TlsFail("no CA certificate in client_ca_file " + config.client_ca_file);
    SSL_CTX_set_client_CA_list(ctx, names);
    int mode = SSL_VERIFY_PEER;
    if (config.client_auth == ClientAuth::kRequireAndVerifyClientCert) {
      mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    }
    SSL_CTX_set_verify(ctx, mode, nullptr);
    // Sessions that verified a client may be resumed only by this server.
    static const unsigned char kSessionContext[] = "skeleton-coherence-exporter";
    SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
    return true;
  }

  bool TlsFail(const std::string& what) {
    tls_error = what + ": " + OpenSslError();
    return false;
  }

  // Loads the web config and derives civetweb's listening_ports and the auth checker.
  bool Configure(const HttpServerOptions& options, std::string* ports, std::string* error) {
    web_config = WebConfig();
    if (!options.web_config_file.empty() &&
        !LoadWebConfig(options.web_config_file, &web_config, error)) {
      return false;
    }
    if (web_config.tls_enabled() && !CheckTls(options.web_config_file, error)) return false;
    if (!ListeningPorts(options.listen_address, web_config.tls_enabled(), ports, &local_host,
                        error)) {
      return false;
    }
    auth.reset(web_config.basic_auth_users.empty() ? nullptr
                                                   : new BasicAuth(web_config.basic_auth_users));
    return true;
  }

  // Loads the certificate, key and client CAs once into a scratch SSL_CTX, so that
  // bad files are reported plainly before civetweb starts.
  bool CheckTls(const std::string& file, std::string* error) {
    if (!mg_check_feature(MG_FEATURES_TLS)) {
      return Fail(error, file + ": TLS is configured but civetweb was built without TLS");
    }
    std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> scratch(SSL_CTX_new(TLS_server_method()),
                                                              &SSL_CTX_free);
    if (scratch == nullptr || !ConfigureTls(scratch.get())) {
      return Fail(error, file + ": " + tls_error);
    }
    return true;
  }

  bool StartCivetweb(const HttpServerOptions& options, const std::string& ports,
                     std::string* error) {
    const std::string threads = std::to_string(options.num_threads);
    const std::string request_timeout = std::to_string(options.request_timeout_ms);
    const std::string keep_alive_timeout =
        std::to_string(std::min(options.request_timeout_ms, kMaxKeepAliveTimeoutMs));
    const char* civetweb_options[] = {"listening_ports",
                                      ports.c_str(),
                                      "num_threads",
                                      threads.c_str(),
                                      "request_timeout_ms",
                                      request_timeout.c_str(),
                                      "enable_keep_alive",
                                      "yes",
                                      "keep_alive_timeout_ms",
                                      keep_alive_timeout.c_str(),
                                      "tcp_nodelay",
                                      "1",
                                      "enable_directory_listing",
                                      "no",
                                      nullptr};
    mg_callbacks callbacks{};
    callbacks.begin_request = &Impl::OnBeginRequest;
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
    if (context != nullptr) return true;
    std::string message = "cannot serve HTTP on " + options.listen_address + ": " + text;
    if (!tls_error.empty()) message += ": " + tls_error;
    if (!log.empty()) message += " (" + log + ")";
    return Fail(error, message);
  }
};

HttpServer::HttpServer() : impl_(std::make_unique<Impl>()) {}

HttpServer::~HttpServer() { Stop(); }

void HttpServer::Handle(const std::string& path, HttpHandler handler, bool allow_post) {
  impl_->routes[path] = Impl::Route{std::move(handler), allow_post};
}

bool HttpServer::Start(const HttpServerOptions& options, std::string* error) {
  if (impl_->context != nullptr) return Fail(error, "the HTTP server is already running");
  if (options.num_threads < 1 || options.request_timeout_ms < 1) {
    return Fail(error, "the HTTP server needs at least one thread and a positive timeout");
  }
  std::string ports;
  if (!impl_->Configure(options, &ports, error)) return false;
  if (!impl_->StartCivetweb(options, ports, error)) return false;
  mg_server_port bound[kMaxPorts] = {};
  if (mg_get_server_ports(impl_->context, kMaxPorts, bound) < 1) {
    Stop();
    return Fail(error, "cannot serve HTTP on " + options.listen_address + ": no port was bound");
  }
  impl_->port = bound[0].port;
  return true;
}

int HttpServer::port() const { return impl_->port; }

void HttpServer::Stop() {
  if (impl_->context == nullptr) return;
  std::atomic<bool> done{false};
  std::thread waker(WakeUntilDone, impl_->local_host, impl_->port, std::cref(done));
  mg_stop(impl_->context);
  done = true;
  waker.join();
  impl_->context = nullptr;
  impl_->port = 0;
}

}  // namespace scx
