// A small HTTP server on civetweb: exact-path GET/HEAD (and POST where allowed)
// handlers, several worker threads, request timeouts, optional TLS and basic auth
// from a Prometheus-style web config file. Knows nothing about brains or metrics.
#ifndef SCX_EXPORTER_HTTP_SERVER_H_
#define SCX_EXPORTER_HTTP_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>

namespace scx {

struct HttpRequest {
  std::string method;  // "GET", "HEAD", "POST"
  std::string path;    // without the query string
  std::string query;   // without the '?'
  bool accepts_gzip = false;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string content_encoding;                // e.g. "gzip"; empty for identity
  std::string body;                            // not sent for HEAD, but its length is
  std::map<std::string, std::string> headers;  // extra headers (e.g. Allow, Vary)
};

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  std::string listen_address = ":9864";  // "[host]:port"; port 0 picks a free one
  std::string web_config_file;           // empty: plain HTTP, no auth
  int num_threads = 4;
  int request_timeout_ms = 10000;
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

  // Binds and starts the worker threads. Returns false with `error` set when the
  // address cannot be bound or the web config is invalid.
  bool Start(const HttpServerOptions& options, std::string* error);

  // The port actually bound (useful with port 0). 0 before Start.
  int port() const;

  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_SERVER_H_
