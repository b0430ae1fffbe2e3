// A tiny blocking HTTP/1.1 client for tests: one request per connection to
// 127.0.0.1, with a deadline. Understands Content-Length bodies and bodies that
// end with the connection; not chunked encoding (the exporter never sends it).
#ifndef SCX_TESTS_HTTP_CLIENT_H_
#define SCX_TESTS_HTTP_CLIENT_H_

#include <map>
#include <string>

namespace scx {
namespace testing {

struct HttpResult {
  bool ok = false;    // false: connect, send or receive failed or timed out
  std::string error;  // why, when !ok
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  // The value of header `name` (any case); empty when absent.
  std::string Header(const std::string& name) const;
};

struct HttpClientRequest {
  std::string method = "GET";
  std::string path = "/";
  std::map<std::string, std::string> headers;  // sent as given
  std::string body;                            // Content-Length is added when non-empty
  int timeout_ms = 5000;                       // for the whole exchange
};

HttpResult HttpFetch(int port, const HttpClientRequest& request);

// A GET (or `method`) of `path` with `headers`.
HttpResult HttpGet(int port, const std::string& path,
                   const std::map<std::string, std::string>& headers = {},
                   const std::string& method = "GET");

// Connects a TCP socket to 127.0.0.1:`port`; -1 on failure. The caller closes it.
int ConnectLocal(int port);

// Sends `request` (raw bytes) on a fresh connection and returns every byte received
// until the server closes the connection or `timeout_ms` passes.
std::string RawExchange(int port, const std::string& request, int timeout_ms = 3000);

// The Authorization header value for basic auth: "Basic " + base64(user:password).
std::string BasicAuthorization(const std::string& user, const std::string& password);

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_HTTP_CLIENT_H_
