// Tests for HttpServer at the edges of HTTP/1.1, each answered as Go's net/http (the
// server promhttp and node_exporter run on) answers it: a websocket upgrade request, a
// declared body too large, duplicate Content-Length headers, the absolute and asterisk
// request forms, folded and very many header fields; and the framings RFC 9112 refuses
// (whitespace before a colon, a Content-Length that is not a number, two
// Transfer-Encodings, Content-Length beside Transfer-Encoding), none of which may smuggle
// a second request. Over real sockets on 127.0.0.1.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "exporter/http/http_error.h"
#include "exporter/http/http_server.h"
#include "tests/http_client.h"

namespace scx {
namespace {

using testing::HttpGet;
using testing::RawExchange;

// A request timeout well beyond every exchange's wait: a request the server holds
// open (waiting for a body, say) shows as an exchange that receives nothing.
constexpr int kLongRequestTimeoutMs = 60000;
constexpr int kExchangeTimeoutMs = 3000;

constexpr char kWebsocketHeaders[] =
    "Host: x\r\n"
    "Connection: Upgrade\r\n"
    "Upgrade: websocket\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
    "Sec-WebSocket-Version: 13\r\n";

// The status code of the first response in `raw`; 0 when it does not start with one.
int StatusOf(const std::string& raw) {
  if (raw.rfind("HTTP/1.1 ", 0) != 0 || raw.size() < 12) return 0;
  return std::stoi(raw.substr(9, 3));
}

// The body of the only response in `raw` (after its header).
std::string BodyOf(const std::string& raw) {
  const size_t end = raw.find("\r\n\r\n");
  return end == std::string::npos ? "" : raw.substr(end + 4);
}

bool HasHeader(const std::string& raw, const std::string& line) {
  return raw.substr(0, raw.find("\r\n\r\n") + 2).find("\r\n" + line + "\r\n") != std::string::npos;
}

size_t CountResponses(const std::string& raw) {
  size_t count = 0;
  for (size_t at = raw.find("HTTP/1.1 "); at != std::string::npos;
       at = raw.find("HTTP/1.1 ", at + 1)) {
    ++count;
  }
  return count;
}

class HttpServerEdgesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Handle("/metrics", [](const HttpRequest&) { return TextResponse(200, "scx_up 1\n"); });
    server_.Handle(
        "/-/reload",
        [this](const HttpRequest&) {
          ++reloads_;
          return TextResponse(200, "reloaded\n");
        },
        /*allow_post=*/true);
    HttpServerOptions options;
    options.listen_addresses = {"127.0.0.1:0"};
    options.num_threads = 4;
    options.request_timeout_ms = kLongRequestTimeoutMs;
    std::string error;
    ASSERT_TRUE(server_.Start(options, &error)) << error;
  }

  std::string Exchange(const std::string& request) {
    return RawExchange(server_.port(), request, kExchangeTimeoutMs);
  }

  HttpServer server_;
  std::atomic<int> reloads_{0};
};

// civetweb takes such a request for a websocket handshake and refuses to write a
// status line or headers for it; net/http serves the path.
TEST_F(HttpServerEdgesTest, AWebsocketUpgradeGetsTheNormalResponse) {
  const std::string raw =
      Exchange(std::string("GET /metrics HTTP/1.1\r\n") + kWebsocketHeaders + "\r\n");
  ASSERT_EQ(StatusOf(raw), 200) << raw;
  EXPECT_TRUE(HasHeader(raw, "Content-Length: 9")) << raw;
  EXPECT_TRUE(HasHeader(raw, "Content-Type: text/plain; charset=utf-8")) << raw;
  EXPECT_TRUE(HasHeader(raw, "Connection: close")) << raw;
  EXPECT_EQ(BodyOf(raw), "scx_up 1\n");
}

TEST_F(HttpServerEdgesTest, AWebsocketUpgradeGetsTheNormalErrorsAndHeadResponses) {
  const std::string missing =
      Exchange(std::string("GET /nope HTTP/1.1\r\n") + kWebsocketHeaders + "\r\n");
  ASSERT_EQ(StatusOf(missing), 404) << missing;
  EXPECT_EQ(BodyOf(missing), ErrorBody(404, "not found"));
  const std::string head =
      Exchange(std::string("HEAD /metrics HTTP/1.1\r\n") + kWebsocketHeaders + "\r\n");
  ASSERT_EQ(StatusOf(head), 200) << head;
  EXPECT_TRUE(HasHeader(head, "Content-Length: 9")) << head;
  EXPECT_EQ(BodyOf(head), "");
}

// The body is never sent: the 413 comes from the declared length alone, and the
// connection is closed (the body, were it sent, is never read).
TEST_F(HttpServerEdgesTest, ADeclaredBodyTooLargeIs413AtOnceAndCloses) {
  const std::string declared = std::to_string(kMaxRequestBodyBytes + 1);
  const std::string raw =
      Exchange("POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: " + declared + "\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 413) << raw;
  EXPECT_TRUE(HasHeader(raw, "Connection: close")) << raw;
  EXPECT_EQ(BodyOf(raw), ErrorBody(413, "request body too large: at most " +
                                            std::to_string(kMaxRequestBodyBytes) + " bytes"));
  EXPECT_EQ(reloads_.load(), 0);
}

TEST_F(HttpServerEdgesTest, ABodyOfTheLimitIsStillRead) {
  const std::string body(kMaxRequestBodyBytes, 'x');
  const std::string raw = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
      "Content-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body);
  ASSERT_EQ(StatusOf(raw), 200) << raw.substr(0, 200);
  EXPECT_EQ(reloads_.load(), 1);
}

// As net/http: differing values are refused (a request smuggling vector), equal ones
// are taken as one.
TEST_F(HttpServerEdgesTest, DifferingContentLengthsAre400AndClose) {
  const std::string raw = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 28\r\n\r\n"
      "GET /metrics HTTP/1.1\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 400) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
  EXPECT_TRUE(HasHeader(raw, "Connection: close")) << raw;
  EXPECT_EQ(BodyOf(raw), ErrorBody(400, "differing Content-Length headers"));
  EXPECT_EQ(reloads_.load(), 0);
}

TEST_F(HttpServerEdgesTest, EqualContentLengthsAreOne) {
  const std::string raw = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 4\r\n"
      "Content-Length:  4 \r\n\r\nbody");
  ASSERT_EQ(StatusOf(raw), 200) << raw;
  EXPECT_EQ(reloads_.load(), 1);
}

// net/http serves an absolute-form request as its path, whatever host it names.
TEST_F(HttpServerEdgesTest, AnAbsoluteFormRequestIsServedAsItsPath) {
  const std::string port = std::to_string(server_.port());
  for (const std::string& target :
       {"http://127.0.0.1:" + port + "/metrics", std::string("http://example.com/metrics"),
        std::string("http://example.com:1/metrics")}) {
    const std::string raw =
        Exchange("GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    ASSERT_EQ(StatusOf(raw), 200) << target << ": " << raw;
    EXPECT_EQ(BodyOf(raw), "scx_up 1\n") << target;
  }
}

// net/http's server answers "OPTIONS *" itself: 200 with an empty body.
TEST_F(HttpServerEdgesTest, OptionsAsteriskIs200WithAnEmptyBody) {
  const std::string raw = Exchange("OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 200) << raw;
  EXPECT_TRUE(HasHeader(raw, "Content-Length: 0")) << raw;
  EXPECT_EQ(raw.find("Content-Type:"), std::string::npos) << raw;
  EXPECT_EQ(BodyOf(raw), "");
}

// Any other request for "*" finds no route.
TEST_F(HttpServerEdgesTest, GetAsteriskIs404) {
  const std::string raw = Exchange("GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 404) << raw;
}

// A folded header line (obs-fold) ended civetweb's header parsing, so every field after
// it, Connection: close included, was dropped. RFC 9112 5.2 lets a server refuse it.
TEST_F(HttpServerEdgesTest, AFoldedHeaderIs400AndCloses) {
  const std::string raw = Exchange(
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n"
      "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 400) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
  EXPECT_TRUE(HasHeader(raw, "Content-Type: application/json")) << raw;
  EXPECT_EQ(BodyOf(raw), ErrorBody(400, "Bad request"));
}

// civetweb keeps 64 header fields: beyond them, Connection: close was dropped.
TEST_F(HttpServerEdgesTest, MoreHeaderFieldsThanKeptAre431AndClose) {
  std::string many = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 200; ++i) many += "X-Field-" + std::to_string(i) + ": v\r\n";
  const std::string raw =
      Exchange(many + "Connection: close\r\n\r\n" + "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 431) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
  EXPECT_EQ(BodyOf(raw), ErrorBody(431, "Too many header fields (at most " +
                                            std::to_string(kMaxRequestHeaderFields) + ")"));
}

TEST_F(HttpServerEdgesTest, AsManyHeaderFieldsAsKeptAreServed) {
  std::string fields = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  for (int i = 2; i < kMaxRequestHeaderFields; ++i) {
    fields += "X-Field-" + std::to_string(i) + ": v\r\n";
  }
  const std::string raw = Exchange(fields + "\r\n");
  ASSERT_EQ(StatusOf(raw), 200) << raw;
}

// A second request hidden behind each framing below: never served.
constexpr char kSmuggled[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

// "Content-Length : 5" was one field to civetweb (it dropped the space) and may be
// none to a proxy in front of it (RFC 9112 5.1: a server must refuse it).
TEST_F(HttpServerEdgesTest, WhitespaceBeforeAColonIs400AndCloses) {
  for (const std::string& field :
       {std::string("Content-Length : 0"), std::string("Transfer-Encoding : chunked")}) {
    const std::string raw = Exchange("POST /-/reload HTTP/1.1\r\nHost: x\r\n" + field +
                                     "\r\n\r\n0\r\n\r\n" + kSmuggled);
    ASSERT_EQ(StatusOf(raw), 400) << field << ": " << raw;
    EXPECT_EQ(CountResponses(raw), 1u) << field << ": " << raw;
    EXPECT_TRUE(HasHeader(raw, "Connection: close")) << raw;
    EXPECT_EQ(BodyOf(raw), ErrorBody(400, "Bad request")) << field;
  }
  // A tab there fails civetweb's request parsing before its version is known: its 400
  // says HTTP/1.0.
  const std::string tab = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length\t: 0\r\n\r\n" + std::string(kSmuggled));
  EXPECT_EQ(tab.rfind("HTTP/1.0 400 ", 0), 0u) << tab;
  EXPECT_EQ(tab.find("scx_up"), std::string::npos) << tab;
  EXPECT_EQ(reloads_.load(), 0);
}

// RFC 9112 8.6: one or more digits. strtoll took a sign, and "5x" as 5.
TEST_F(HttpServerEdgesTest, AContentLengthThatIsNotANumberIs400AndCloses) {
  for (const char* value : {"+4", "-1", "4x", "0x4", "", "4 4", "1e2", "99999999999999999999999"}) {
    const std::string raw =
        Exchange(std::string("POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: ") + value +
                 "\r\n\r\nbody" + kSmuggled);
    ASSERT_EQ(StatusOf(raw), 400) << "'" << value << "': " << raw;
    EXPECT_EQ(CountResponses(raw), 1u) << "'" << value << "': " << raw;
    EXPECT_EQ(BodyOf(raw), ErrorBody(400, "Bad request: invalid Content-Length")) << value;
  }
  EXPECT_EQ(reloads_.load(), 0);
}

// civetweb used the first; a proxy may use the last.
TEST_F(HttpServerEdgesTest, TwoTransferEncodingsAre400AndClose) {
  const std::string raw = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
      "Transfer-Encoding: identity\r\n\r\n0\r\n\r\n" +
      std::string(kSmuggled));
  ASSERT_EQ(StatusOf(raw), 400) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
  EXPECT_EQ(BodyOf(raw), ErrorBody(400, "Bad request: more than one Transfer-Encoding"));
  EXPECT_EQ(reloads_.load(), 0);
}

// Read by its Transfer-Encoding (RFC 9112 6.3), then closed: what a Content-Length
// reader would take for the body's end is never read as a request.
TEST_F(HttpServerEdgesTest, ContentLengthBesideTransferEncodingIsServedThenClosed) {
  const std::string raw = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n"
      "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
      std::string(kSmuggled));
  ASSERT_EQ(StatusOf(raw), 200) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
  EXPECT_TRUE(HasHeader(raw, "Connection: close")) << raw;
  EXPECT_EQ(reloads_.load(), 1);
}

// The honest forms beside them: a chunked body, then a second request on the same
// connection, both served; a Content-Length with trailing whitespace is a number.
TEST_F(HttpServerEdgesTest, AChunkedBodyKeepsTheConnectionForTheNextRequest) {
  const std::string raw = Exchange(
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4\r\nbody\r\n0\r\n\r\n"
      "POST /-/reload HTTP/1.1\r\nHost: x\r\nContent-Length: 4 \r\n\r\nbody"
      "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(CountResponses(raw), 3u) << raw;
  EXPECT_EQ(StatusOf(raw), 200) << raw;
  EXPECT_EQ(reloads_.load(), 2);
  EXPECT_NE(raw.find("scx_up 1\n"), std::string::npos) << raw;
}

}  // namespace
}  // namespace scx
