// HttpServer's --web.max-requests and repeated --web.listen-address machinery: a
// route limited to N requests in flight answers 503 to one more while other routes
// keep serving; no limit admits them all; the routes without a limit of their own
// share one (max_other_requests), which leaves the limited route alone; several listen
// addresses get one listener each, all serving the same routes. Real sockets on
// 127.0.0.1 only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "exporter/http/http_server.h"
#include "tests/http_client.h"
#include "tests/test_process.h"

namespace scx {
namespace {

using testing::HttpGet;
using testing::HttpResult;
using testing::WaitFor;

constexpr std::chrono::milliseconds kWait{5000};

// A handler that holds every request until Release(), counting those inside.
class Gate {
 public:
  HttpResponse Enter() {
    std::unique_lock<std::mutex> lock(mutex_);
    ++inside_;
    released_.wait_for(lock, kWait, [this] { return open_; });  // bounded: never hangs
    --inside_;
    HttpResponse response;
    response.body = "passed\n";
    return response;
  }
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      open_ = true;
    }
    released_.notify_all();
  }
  int inside() {
    std::lock_guard<std::mutex> lock(mutex_);
    return inside_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable released_;
  int inside_ = 0;
  bool open_ = false;
};

class HttpServerLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Handle("/metrics", [this](const HttpRequest&) { return gate_.Enter(); });
    server_.Handle("/-/healthy", [](const HttpRequest&) { return TextResponse(200, "Healthy"); });
    server_.Handle("/held", [this](const HttpRequest&) { return gate_.Enter(); });
    server_.Handle("/exempt", [](const HttpRequest&) { return TextResponse(200, "ok"); });
  }

  void TearDown() override {
    gate_.Release();
    for (std::thread& client : clients_) client.join();
    server_.Stop();
  }

  void Start(int max_in_flight, int max_other_requests = 0) {
    server_.LimitInFlight("/metrics", max_in_flight);
    HttpServerOptions options;
    options.listen_addresses = {"127.0.0.1:0"};
    options.num_threads = 8;
    options.max_other_requests = max_other_requests;
    std::string error;
    ASSERT_TRUE(server_.Start(options, &error)) << error;
  }

  // Starts `count` requests of `path` that wait at the gate, and waits until all are
  // inside.
  void HoldScrapes(int count, const std::string& path = "/metrics") {
    const int before = gate_.inside();
    for (int i = 0; i < count; ++i) {
      clients_.emplace_back([this, path] {
        HttpResult result = HttpGet(server_.port(), path);
        EXPECT_EQ(result.status, 200) << result.error;
      });
    }
    ASSERT_TRUE(WaitFor([&] { return gate_.inside() == before + count; }, kWait)) << gate_.inside();
  }

  Gate gate_;
  HttpServer server_;
  std::vector<std::thread> clients_;
};

TEST_F(HttpServerLimitsTest, OneBeyondTheLimitGets503AndOtherRoutesStillServe) {
  Start(2);
  HoldScrapes(2);
  const HttpResult refused = HttpGet(server_.port(), "/metrics");
  EXPECT_EQ(refused.status, 503);
  EXPECT_EQ(refused.body,
            "{\"status\":\"error\",\"errorType\":\"unavailable\",\"error\":\"limit of "
            "concurrent requests reached (2), try again later\"}\n");
  EXPECT_EQ(refused.Header("Content-Type"), "application/json");
  EXPECT_EQ(HttpGet(server_.port(), "/-/healthy").status, 200);
  EXPECT_EQ(gate_.inside(), 2);  // the refused scrape never reached the handler

  // Once the two are answered, scrapes are admitted again.
  gate_.Release();
  for (std::thread& client : clients_) client.join();
  clients_.clear();
  const HttpResult again = HttpGet(server_.port(), "/metrics");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(again.body, "passed\n");
}

TEST_F(HttpServerLimitsTest, ZeroMeansNoLimit) {
  Start(0);
  HoldScrapes(3);
  // A fourth one reaches the handler too (released at once: the gate opens first).
  gate_.Release();
  EXPECT_EQ(HttpGet(server_.port(), "/metrics").status, 200);
}

TEST_F(HttpServerLimitsTest, RequestsThatFailEarlierDoNotCount) {
  Start(1);
  HoldScrapes(1);
  // 404 and 405 are answered before the limit is looked at.
  EXPECT_EQ(HttpGet(server_.port(), "/nope").status, 404);
  EXPECT_EQ(HttpGet(server_.port(), "/metrics", {}, "DELETE").status, 405);
  EXPECT_EQ(HttpGet(server_.port(), "/metrics").status, 503);
}

// Slow readers of the landing page or the API held every worker once; now they share
// max_other_requests, and the scrapes keep their own slots and workers.
TEST_F(HttpServerLimitsTest, TheOtherRoutesShareOneLimitThatLeavesTheScrapesAlone) {
  server_.ExemptFromOtherLimit("/exempt");
  Start(2, /*max_other_requests=*/2);
  HoldScrapes(2, "/held");
  const HttpResult refused = HttpGet(server_.port(), "/-/healthy");
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("limit of concurrent requests reached (2)"), std::string::npos)
      << refused.body;
  EXPECT_EQ(HttpGet(server_.port(), "/exempt").status, 200);  // a health check, say
  HoldScrapes(2);                                             // the scrapes' own two slots
  EXPECT_EQ(HttpGet(server_.port(), "/metrics").status, 503);
  gate_.Release();
  for (std::thread& client : clients_) client.join();
  clients_.clear();
  EXPECT_EQ(HttpGet(server_.port(), "/-/healthy").status, 200);
}

TEST(HttpServerListenersTest, EveryListenAddressGetsItsOwnListener) {
  HttpServer server;
  server.Handle("/metrics", [](const HttpRequest&) { return TextResponse(200, "up 1\n"); });
  HttpServerOptions options;
  options.listen_addresses = {"127.0.0.1:0", "127.0.0.1:0", "127.0.0.1:0"};
  std::string error;
  ASSERT_TRUE(server.Start(options, &error)) << error;
  const std::vector<int> ports = server.ports();
  ASSERT_EQ(ports.size(), 3u);
  EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), 3u);
  EXPECT_EQ(server.port(), ports[0]);
  for (int port : ports) {
    const HttpResult result = HttpGet(port, "/metrics");
    EXPECT_EQ(result.status, 200) << port << ": " << result.error;
    EXPECT_EQ(result.body, "up 1\n");
  }
  server.Stop();
  EXPECT_TRUE(server.ports().empty());
}

TEST(HttpServerListenersTest, OneBadAddressAmongSeveralFailsNamingIt) {
  HttpServer server;
  HttpServerOptions options;
  options.listen_addresses = {"127.0.0.1:0", "127.0.0.1:http"};
  std::string error;
  EXPECT_FALSE(server.Start(options, &error));
  EXPECT_NE(error.find("'127.0.0.1:http'"), std::string::npos) << error;
  EXPECT_EQ(server.port(), 0);

  options.listen_addresses = {};
  EXPECT_FALSE(server.Start(options, &error));
  EXPECT_EQ(error, "no listen address");
}

TEST(HttpServerListenersTest, TheSamePortTwiceFailsNamingBoth) {
  const int port = testing::FindFreePort();
  ASSERT_GT(port, 0);
  const std::string address = "127.0.0.1:" + std::to_string(port);
  HttpServer server;
  HttpServerOptions options;
  options.listen_addresses = {address, address};
  std::string error;
  EXPECT_FALSE(server.Start(options, &error));
  EXPECT_NE(error.find(address + " and " + address), std::string::npos) << error;
  EXPECT_TRUE(server.ports().empty());
}

}  // namespace
}  // namespace scx
