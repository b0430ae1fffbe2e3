// Tests for HttpServer at the edges of HTTP/1.1, each answered as Go's net/http (the
// server promhttp and node_exporter run on) answers it: the absolute request form,
// folded and very many header fields. Over real sockets on 127.0.0.1.
#include <gtest/gtest.h>

#include <string>

#include "exporter/http/http_server.h"
#include "tests/http_client.h"

namespace scx {
namespace {

using testing::RawExchange;

// A request timeout well beyond every exchange's wait: a request the server holds
// open (waiting for a body, say) shows as an exchange that receives nothing.
constexpr int kLongRequestTimeoutMs = 60000;
constexpr int kExchangeTimeoutMs = 3000;

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
};

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

// A folded header line (obs-fold) ended civetweb's header parsing, so every field after
// it, Connection: close included, was dropped. RFC 9112 5.2 lets a server refuse it.
TEST_F(HttpServerEdgesTest, AFoldedHeaderIs400AndCloses) {
  const std::string raw = Exchange(
      "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n"
      "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 400) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
}

// civetweb keeps 64 header fields: beyond them, Connection: close was dropped.
TEST_F(HttpServerEdgesTest, MoreHeaderFieldsThanKeptAre431AndClose) {
  std::string many = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 200; ++i) many += "X-Field-" + std::to_string(i) + ": v\r\n";
  const std::string raw =
      Exchange(many + "Connection: close\r\n\r\n" + "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_EQ(StatusOf(raw), 431) << raw;
  EXPECT_EQ(CountResponses(raw), 1u) << raw;
}

TEST_F(HttpServerEdgesTest, AsManyHeaderFieldsAsKeptAreServed) {
  std::string fields = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n";
  for (int i = 2; i < kMaxRequestHeaderFields; ++i) {
    fields += "X-Field-" + std::to_string(i) + ": v\r\n";
  }
  const std::string raw = Exchange(fields + "\r\n");
  ASSERT_EQ(StatusOf(raw), 200) << raw;
}

}  // namespace
}  // namespace scx
