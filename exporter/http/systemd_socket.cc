// Socket activation: the descriptors systemd passes, and their addresses for the log.
#include "exporter/http/systemd_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace scx {

namespace {

// A whole decimal number in [1, max], else false.
bool ParsePositive(const char* text, long max, long* value) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  char* end = nullptr;
  errno = 0;
  const long parsed = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || parsed < 1 || parsed > max) return false;
  *value = parsed;
  return true;
}

// The most descriptors taken: more than any .socket unit of this exporter declares.
constexpr long kMaxSystemdSockets = 64;

}  // namespace

bool ParseSystemdSockets(const char* listen_pid, const char* listen_fds, long self,
                         std::vector<int>* sockets, std::string* error) {
  sockets->clear();
  if (listen_pid == nullptr || listen_fds == nullptr) {
    *error =
        "--web.systemd-socket: systemd passed no socket (LISTEN_PID and LISTEN_FDS are not "
        "set): start the exporter through its .socket unit, or listen with "
        "--web.listen-address";
    return false;
  }
  long pid = 0;
  if (!ParsePositive(listen_pid, 0x7fffffffL, &pid) || pid != self) {
    *error = std::string("--web.systemd-socket: the sockets were passed to process ") + listen_pid +
             " (LISTEN_PID), not to this one (" + std::to_string(self) + ")";
    return false;
  }
  long count = 0;
  if (!ParsePositive(listen_fds, kMaxSystemdSockets, &count)) {
    *error = std::string("--web.systemd-socket: LISTEN_FDS='") + listen_fds +
             "' passes no socket (a count from 1 to " + std::to_string(kMaxSystemdSockets) + ")";
    return false;
  }
  for (long i = 0; i < count; ++i) sockets->push_back(kSystemdFirstSocket + static_cast<int>(i));
  return true;
}

bool TakeSystemdSockets(std::vector<int>* sockets, std::string* error) {
  const bool ok = ParseSystemdSockets(std::getenv("LISTEN_PID"), std::getenv("LISTEN_FDS"),
                                      static_cast<long>(getpid()), sockets, error);
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  unsetenv("LISTEN_FDNAMES");
  for (const int fd : *sockets) {
    const int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) != 0) {
      *error = "--web.systemd-socket: descriptor " + std::to_string(fd) + " is not open";
      return false;
    }
  }
  return ok;
}

std::string SocketAddress(int fd) {
  sockaddr_storage address{};
  socklen_t size = sizeof(address);
  char text[INET6_ADDRSTRLEN] = "";
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
    if (address.ss_family == AF_INET) {
      const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
      if (inet_ntop(AF_INET, &v4->sin_addr, text, sizeof(text)) != nullptr) {
        return std::string(text) + ":" + std::to_string(ntohs(v4->sin_port));
      }
    } else if (address.ss_family == AF_INET6) {
      const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
      if (inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof(text)) != nullptr) {
        return "[" + std::string(text) + "]:" + std::to_string(ntohs(v6->sin6_port));
      }
    }
  }
  return "fd " + std::to_string(fd);
}

}  // namespace scx
