// What a handler is given and returns: the request as the handlers see it, and the
// response they build (a body of their own, a shared one, or one streamed). Plain
// data, known to the server (http_server.h) and the error answers (http_error.h).
#ifndef SCX_EXPORTER_HTTP_HTTP_MESSAGE_H_
#define SCX_EXPORTER_HTTP_HTTP_MESSAGE_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "exporter/http/query_string.h"

namespace scx {

struct HttpRequest {
  std::string method;  // "GET", "HEAD", "POST"
  std::string path;    // without the query string
  std::string query;   // without the '?', as sent
  QueryParams params;  // the query's name=value pairs, decoded (query_string.h)
  bool accepts_gzip = false;
  std::string accept;  // the Accept header; empty when there is none
};

// Hands one piece of a streamed body to the connection; false when it cannot be sent
// (the client went away).
using BodyWriter = std::function<bool(std::string_view piece)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";  // empty: no Content-Type
  std::string content_encoding;                            // e.g. "gzip"; empty for identity
  std::string body;                                        // not sent for HEAD, but its length is
  std::map<std::string, std::string> headers;              // extra headers (e.g. Allow, Vary)
  // A body owned elsewhere and shared by every reader (a rendered snapshot): sent as
  // it is, without a copy per request. When set, it is the body and `body` is unused.
  std::shared_ptr<const std::string> shared_body;
  // A body made while it is sent (e.g. inflated from the one gzip copy kept), for
  // bodies too large to build per request. When set, it is the body: exactly
  // `streamed_size` bytes (the Content-Length), handed to the writer piece by piece.
  // It returns false when it stopped early (the client went away).
  std::function<bool(const BodyWriter& write)> streamed_body;
  std::size_t streamed_size = 0;
  // The connection is closed after this response (Connection: close), whatever the
  // client asked: for a request whose unread bytes must not be taken for the next one.
  bool close_connection = false;

  std::string_view Body() const { return shared_body ? *shared_body : body; }
};

// A plain text response ("text/plain; charset=utf-8").
HttpResponse TextResponse(int status, std::string body);

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_HTTP_MESSAGE_H_
