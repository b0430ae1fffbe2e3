// Tests for ConnectionGuard on real sockets (loopback): a connection is tracked from
// its admission until civetweb reports its close, and never touched after; a refused
// one is never tracked; the cap per address holds; and a connection whose whole
// request header waits unread is not reclaimed as idle.
#include "exporter/http/connection_guard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "tests/http_client.h"
#include "tests/test_process.h"

namespace scx {
namespace {

using std::chrono::milliseconds;

// A listening socket on 127.0.0.1 at a free port; -1 on failure.
int Listen(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 16) != 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  *port = ntohs(address.sin_port);
  return fd;
}

// A client connection to 127.0.0.1:`port`, and the server's side of it, accepted
// and handed to `guard` as civetweb's master thread hands it (Admit).
struct Connection {
  int client = -1;
  int server = -1;
  bool admitted = false;
};

Connection Accept(int listener, int port, ConnectionGuard* guard) {
  Connection connection;
  connection.client = testing::ConnectLocal(port);
  sockaddr_in peer{};
  socklen_t length = sizeof(peer);
  connection.server = accept(listener, reinterpret_cast<sockaddr*>(&peer), &length);
  if (connection.server >= 0) {
    connection.admitted = guard->Admit(connection.server, reinterpret_cast<sockaddr*>(&peer));
  }
  return connection;
}

// Each test listens on 127.0.0.1 at a free port, accepting for the guard it makes.
class ConnectionGuardTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_GE(listener_, 0); }
  void TearDown() override {
    if (listener_ >= 0) close(listener_);
  }
  Connection Connect(ConnectionGuard* guard) { return Accept(listener_, port_, guard); }

  int port_ = 0;
  int listener_ = Listen(&port_);
};

// True when the server shut the connection down (the client reads end of file).
bool ShutDown(int client) {
  char byte;
  return recv(client, &byte, 1, MSG_DONTWAIT) == 0;
}

void CloseBoth(const Connection& connection) {
  if (connection.server >= 0) close(connection.server);
  if (connection.client >= 0) close(connection.client);
}

TEST_F(ConnectionGuardTest, AConnectionIsTrackedFromItsAdmissionToItsReportedClose) {
  ConnectionGuard guard(CapsFor(100, 100, 0));
  Connection connection = Connect(&guard);
  ASSERT_GE(connection.server, 0);
  EXPECT_TRUE(connection.admitted);
  EXPECT_TRUE(guard.Tracks(connection.server));
  guard.Closed(connection.server);  // as civetweb's connection_close, before its close
  EXPECT_FALSE(guard.Tracks(connection.server));
  // Never touched again: an abort of the number does nothing, even while it is open.
  guard.Abort(connection.server);
  EXPECT_FALSE(ShutDown(connection.client));
  guard.Closed(connection.server);  // twice, or an unknown number: ignored
  guard.Closed(-1);
  EXPECT_EQ(guard.stats().accepted, 1);
  CloseBoth(connection);
}

TEST_F(ConnectionGuardTest, ATrackedConnectionIsAbortedWithShutdown) {
  ConnectionGuard guard(CapsFor(100, 100, 0));
  Connection connection = Connect(&guard);
  ASSERT_TRUE(connection.admitted);
  guard.Abort(connection.server);
  EXPECT_TRUE(testing::WaitFor([&] { return ShutDown(connection.client); }, milliseconds(2000)));
  EXPECT_TRUE(guard.Tracks(connection.server));  // until civetweb reports the close
  guard.Closed(connection.server);
  CloseBoth(connection);
}

TEST_F(ConnectionGuardTest, ARefusedConnectionIsNeverTracked) {
  ConnectionGuard guard(CapsFor(100, 100, /*max_per_address=*/1));
  Connection first = Connect(&guard);
  Connection second = Connect(&guard);  // the same address: over its cap
  EXPECT_TRUE(first.admitted);
  EXPECT_FALSE(second.admitted);
  EXPECT_FALSE(guard.Tracks(second.server));
  EXPECT_EQ(guard.stats().refused_address_full, 1);
  guard.Closed(first.server);
  Connection third = Connect(&guard);  // room again
  EXPECT_TRUE(third.admitted);
  guard.Closed(third.server);
  for (const Connection& connection : {first, second, third}) CloseBoth(connection);
}

TEST_F(ConnectionGuardTest, ADeadlinePassedAbortsTheResponse) {
  ConnectionGuard guard(CapsFor(100, 100, 0));
  Connection connection = Connect(&guard);
  ASSERT_TRUE(connection.admitted);
  guard.RequestStarted(connection.server, ConnectionGuard::Clock::now() + milliseconds(50));
  EXPECT_TRUE(testing::WaitFor([&] { return ShutDown(connection.client); }, milliseconds(2000)));
  EXPECT_EQ(guard.stats().deadline_aborts, 1);
  Connection answered = Connect(&guard);
  guard.RequestStarted(answered.server, ConnectionGuard::Clock::now() + milliseconds(50));
  guard.RequestEnded(answered.server);  // written in time: not aborted
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_FALSE(ShutDown(answered.client));
  guard.Closed(connection.server);
  guard.Closed(answered.server);
  CloseBoth(connection);
  CloseBoth(answered);
}

TEST_F(ConnectionGuardTest, AClientWaitingForAWorkerIsNotReclaimedAsIdle) {
  ConnectionCaps caps;
  caps.max_connections = 100;
  caps.reclaim_from = 1;  // reclaim waiting connections beyond one
  caps.reclaim_after = milliseconds(0);
  ConnectionGuard guard(caps);
  std::vector<Connection> asking;
  for (int i = 0; i < 2; ++i) {
    asking.push_back(Connect(&guard));
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
    ASSERT_EQ(send(asking.back().client, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
  }
  Connection idle = Connect(&guard);
  Connection partial = Connect(&guard);  // half a header, as slowloris sends
  const std::string half = "GET /metrics HTTP/1.1\r\nHost: local";
  ASSERT_EQ(send(partial.client, half.data(), half.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(half.size()));
  EXPECT_TRUE(testing::WaitFor([&] { return ShutDown(idle.client) && ShutDown(partial.client); },
                               milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(300));  // three more sweeps
  for (const Connection& connection : asking) EXPECT_FALSE(ShutDown(connection.client));
  for (const Connection* connection : {&asking[0], &asking[1], &idle, &partial}) {
    guard.Closed(connection->server);
    CloseBoth(*connection);
  }
}

}  // namespace
}  // namespace scx
