// What LISTEN_PID and LISTEN_FDS hand this process (sd_listen_fds(3)'s rules), and
// how a socket's address reads in the log.
#include "exporter/http/systemd_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace scx {
namespace {

TEST(SystemdSocketTest, ListenFdsCountsSocketsFromDescriptorThree) {
  std::vector<int> sockets;
  std::string error;
  ASSERT_TRUE(ParseSystemdSockets("4242", "1", 4242, &sockets, &error)) << error;
  EXPECT_EQ(sockets, (std::vector<int>{3}));
  ASSERT_TRUE(ParseSystemdSockets("4242", "3", 4242, &sockets, &error)) << error;
  EXPECT_EQ(sockets, (std::vector<int>{3, 4, 5}));
}

TEST(SystemdSocketTest, UnsetVariablesSayHowToStart) {
  std::vector<int> sockets = {7};
  std::string error;
  EXPECT_FALSE(ParseSystemdSockets(nullptr, nullptr, 1, &sockets, &error));
  EXPECT_TRUE(sockets.empty());
  EXPECT_NE(std::string::npos, error.find("systemd passed no socket")) << error;
  EXPECT_NE(std::string::npos, error.find(".socket unit")) << error;
  EXPECT_FALSE(ParseSystemdSockets("1", nullptr, 1, &sockets, &error));
}

TEST(SystemdSocketTest, SocketsPassedToAnotherProcessAreNotTaken) {
  std::vector<int> sockets;
  std::string error;
  EXPECT_FALSE(ParseSystemdSockets("4241", "1", 4242, &sockets, &error));
  EXPECT_EQ(error,
            "--web.systemd-socket: the sockets were passed to process 4241 (LISTEN_PID), not to "
            "this one (4242)");
  EXPECT_FALSE(ParseSystemdSockets("", "1", 4242, &sockets, &error));
  EXPECT_FALSE(ParseSystemdSockets("4242x", "1", 4242, &sockets, &error));
  EXPECT_FALSE(ParseSystemdSockets("-4242", "1", 4242, &sockets, &error));
}

TEST(SystemdSocketTest, ACountThatIsNoneOrNotANumberPassesNoSocket) {
  std::vector<int> sockets;
  std::string error;
  for (const char* count : {"0", "", "-1", "1x", " 1", "65", "99999999999999999999"}) {
    EXPECT_FALSE(ParseSystemdSockets("9", count, 9, &sockets, &error)) << count;
    EXPECT_TRUE(sockets.empty()) << count;
    EXPECT_NE(std::string::npos, error.find("passes no socket")) << error;
  }
  EXPECT_TRUE(ParseSystemdSockets("9", "64", 9, &sockets, &error));
}

TEST(SystemdSocketTest, SocketAddressReadsAsAListenAddress) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(0, bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)));
  socklen_t size = sizeof(address);
  ASSERT_EQ(0, getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size));
  EXPECT_EQ(SocketAddress(fd), "127.0.0.1:" + std::to_string(ntohs(address.sin_port)));
  close(fd);
  EXPECT_EQ(SocketAddress(fd), "fd " + std::to_string(fd));  // closed: no address
}

}  // namespace
}  // namespace scx
