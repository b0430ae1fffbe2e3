// Tests for ConnectionGuard on real sockets (loopback): a socket closed by close() is
// dropped by the guard at once, under its lock (the wrapped close); a close of a
// descriptor no guard tracks takes the lock-free path; and a connection whose whole
// request header waits unread is not reclaimed as idle.
#include "exporter/http/connection_guard.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
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
// through the wrapped accept() (so the guard watching `port` sees it).
struct Connection {
  int client = -1;
  int server = -1;
  ConnectionKey key;
};

Connection Connect(int listener, int port) {
  Connection connection;
  connection.client = testing::ConnectLocal(port);
  sockaddr_in peer{};
  socklen_t length = sizeof(peer);
  connection.server = accept(listener, reinterpret_cast<sockaddr*>(&peer), &length);
  char host[INET_ADDRSTRLEN] = "";
  inet_ntop(AF_INET, &peer.sin_addr, host, sizeof(host));
  connection.key = ConnectionKey{host, ntohs(peer.sin_port), port};
  return connection;
}

// True when the server shut the connection down (the client reads end of file).
bool ShutDown(int client) {
  char byte;
  return recv(client, &byte, 1, MSG_DONTWAIT) == 0;
}

TEST(ConnectionGuardTest, ASocketClosedIsDroppedAtOnce) {
  int port = 0;
  const int listener = Listen(&port);
  ASSERT_GE(listener, 0);
  ConnectionGuard guard(CapsFor(100, 100, 0));
  guard.Watch({port});
  Connection connection = Connect(listener, port);
  ASSERT_GE(connection.server, 0);
  EXPECT_EQ(guard.Find(connection.key), connection.server);
  close(connection.server);  // through the wrapper: dropped before close returns
  EXPECT_EQ(guard.Find(connection.key), -1);
  close(connection.client);
  close(listener);
}

TEST(ConnectionGuardTest, OnlyATrackedSocketIsFlaggedForTheLockedClose) {
  int port = 0;
  const int listener = Listen(&port);
  ASSERT_GE(listener, 0);
  ConnectionGuard guard(CapsFor(100, 100, 0));
  guard.Watch({port});
  const int file = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(file, 0);
  EXPECT_FALSE(ConnectionGuard::MayBeTracked(file));  // a brain's file: no lock to close it
  EXPECT_FALSE(ConnectionGuard::MayBeTracked(listener));
  Connection connection = Connect(listener, port);
  ASSERT_GE(connection.server, 0);
  EXPECT_TRUE(ConnectionGuard::MayBeTracked(connection.server));
  EXPECT_FALSE(ConnectionGuard::MayBeTracked(connection.client));  // not accepted here
  close(connection.server);
  EXPECT_FALSE(ConnectionGuard::MayBeTracked(connection.server));
  EXPECT_EQ(guard.Find(connection.key), -1);
  // civetweb reports a close before it makes it: the guard drops the socket, and the
  // close that follows takes the lock-free path.
  Connection reported = Connect(listener, port);
  ASSERT_GE(reported.server, 0);
  guard.Closed(reported.key);
  EXPECT_FALSE(ConnectionGuard::MayBeTracked(reported.server));
  EXPECT_EQ(close(reported.server), 0);
  EXPECT_EQ(close(file), 0);
  EXPECT_EQ(close(-1), -1);  // close()'s own result and errno, either path
  EXPECT_EQ(errno, EBADF);
  close(connection.client);
  close(reported.client);
  close(listener);
}

TEST(ConnectionGuardTest, AGuardGoneLeavesNoFlag) {
  int port = 0;
  const int listener = Listen(&port);
  ASSERT_GE(listener, 0);
  Connection connection;
  {
    ConnectionGuard guard(CapsFor(100, 100, 0));
    guard.Watch({port});
    connection = Connect(listener, port);
    ASSERT_GE(connection.server, 0);
    EXPECT_TRUE(ConnectionGuard::MayBeTracked(connection.server));
  }
  EXPECT_FALSE(ConnectionGuard::MayBeTracked(connection.server));
  close(connection.server);
  close(connection.client);
  close(listener);
}

TEST(ConnectionGuardTest, AClientWaitingForAWorkerIsNotReclaimedAsIdle) {
  int port = 0;
  const int listener = Listen(&port);
  ASSERT_GE(listener, 0);
  ConnectionCaps caps;
  caps.max_connections = 100;
  caps.reclaim_from = 1;  // reclaim waiting connections beyond one
  caps.reclaim_after = milliseconds(0);
  ConnectionGuard guard(caps);
  guard.Watch({port});
  std::vector<Connection> asking;
  for (int i = 0; i < 2; ++i) {
    asking.push_back(Connect(listener, port));
    const std::string request = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
    ASSERT_EQ(send(asking.back().client, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
  }
  Connection idle = Connect(listener, port);
  Connection partial = Connect(listener, port);  // half a header, as slowloris sends
  const std::string half = "GET /metrics HTTP/1.1\r\nHost: local";
  ASSERT_EQ(send(partial.client, half.data(), half.size(), MSG_NOSIGNAL),
            static_cast<ssize_t>(half.size()));
  EXPECT_TRUE(testing::WaitFor([&] { return ShutDown(idle.client) && ShutDown(partial.client); },
                               milliseconds(5000)));
  std::this_thread::sleep_for(milliseconds(300));  // three more sweeps
  for (const Connection& connection : asking) EXPECT_FALSE(ShutDown(connection.client));
  for (Connection* connection : {&asking[0], &asking[1], &idle, &partial}) {
    close(connection->server);
    close(connection->client);
  }
  close(listener);
}

}  // namespace
}  // namespace scx
