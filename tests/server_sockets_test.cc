// Tests for ShutDownServerSockets: it ends a pending wait on the listening socket
// and on an accepted connection of the given port, and leaves client sockets and
// other ports alone. Uses plain sockets on 127.0.0.1, no HTTP server.
#include "exporter/server_sockets.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/http_client.h"

namespace scx {
namespace {

// A listening socket on 127.0.0.1 with a free port; -1 on failure.
int ListenLocal(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(fd, 4) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    if (fd >= 0) close(fd);
    return -1;
  }
  *port = ntohs(address.sin_port);
  return fd;
}

// True when a poll for input on `fd` would return at once.
bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1;
}

class ServerSocketsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    listener_ = ListenLocal(&port_);
    ASSERT_GE(listener_, 0);
    client_ = testing::ConnectLocal(port_);
    ASSERT_GE(client_, 0);
    accepted_ = accept(listener_, nullptr, nullptr);
    ASSERT_GE(accepted_, 0);
    other_listener_ = ListenLocal(&other_port_);
    ASSERT_GE(other_listener_, 0);
    // Nothing is pending anywhere yet: a server thread would be waiting.
    ASSERT_FALSE(Readable(listener_));
    ASSERT_FALSE(Readable(accepted_));
    ASSERT_FALSE(Readable(client_));
  }

  void TearDown() override {
    for (int fd : {listener_, client_, accepted_, other_listener_}) {
      if (fd >= 0) close(fd);
    }
  }

  int port_ = 0;
  int other_port_ = 0;
  int listener_ = -1;
  int client_ = -1;
  int accepted_ = -1;
  int other_listener_ = -1;
};

TEST_F(ServerSocketsTest, EndsTheWaitsOnTheListenerAndTheAcceptedConnection) {
  EXPECT_EQ(ShutDownServerSockets({port_}), 2);
  EXPECT_TRUE(Readable(listener_));
  ASSERT_TRUE(Readable(accepted_));
  char byte;
  EXPECT_EQ(recv(accepted_, &byte, 1, 0), 0);  // end-of-file: the worker drops it
  EXPECT_EQ(testing::ConnectLocal(port_), -1) << "the listener still accepts connections";
}

TEST_F(ServerSocketsTest, ResponsesStillGoOut) {
  ShutDownServerSockets({port_});
  ASSERT_EQ(send(accepted_, "x", 1, MSG_NOSIGNAL), 1);
  char byte = 0;
  ASSERT_EQ(recv(client_, &byte, 1, 0), 1);
  EXPECT_EQ(byte, 'x');
}

TEST_F(ServerSocketsTest, LeavesClientsAndOtherPortsAlone) {
  EXPECT_EQ(ShutDownServerSockets({other_port_}), 1);
  EXPECT_FALSE(Readable(listener_));
  EXPECT_FALSE(Readable(accepted_));
  EXPECT_FALSE(Readable(client_));
  EXPECT_TRUE(Readable(other_listener_));
  EXPECT_EQ(ShutDownServerSockets({}), 0);
}

}  // namespace
}  // namespace scx
