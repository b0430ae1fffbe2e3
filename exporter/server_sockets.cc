// Finds this process's server sockets in /proc/self/fd and shuts them down.
#include "exporter/server_sockets.h"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>

namespace scx {

namespace {

enum class SocketRole { kOther, kListening, kAccepted };

// The local TCP port of `fd`, or -1 when it is not a TCP/IP socket.
int LocalTcpPort(int fd) {
  struct stat status;
  if (fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) return -1;
  int type = 0;
  socklen_t type_size = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_size) != 0 || type != SOCK_STREAM) {
    return -1;
  }
  sockaddr_storage address{};
  socklen_t size = sizeof(address);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) return -1;
  if (address.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
  }
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
  }
  return -1;
}

SocketRole RoleOf(int fd, const std::vector<int>& ports) {
  const int port = LocalTcpPort(fd);
  if (port <= 0 || std::find(ports.begin(), ports.end(), port) == ports.end()) {
    return SocketRole::kOther;
  }
  int listening = 0;
  socklen_t size = sizeof(listening);
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0) return SocketRole::kOther;
  return listening != 0 ? SocketRole::kListening : SocketRole::kAccepted;
}

// Every open descriptor of this process.
std::vector<int> OpenDescriptors() {
  std::vector<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (*end == '\0' && end != entry->d_name && fd != own) fds.push_back(static_cast<int>(fd));
  }
  closedir(dir);
  return fds;
}

int ShutDownAll(const std::vector<int>& fds, const std::vector<int>& ports, SocketRole role) {
  int count = 0;
  for (int fd : fds) {
    if (RoleOf(fd, ports) == role && shutdown(fd, SHUT_RD) == 0) ++count;
  }
  return count;
}

}  // namespace

int ShutDownServerSockets(const std::vector<int>& ports) {
  // Listening sockets first: once they are shut down, no connection can appear
  // that the second pass would miss.
  const int listening = ShutDownAll(OpenDescriptors(), ports, SocketRole::kListening);
  return listening + ShutDownAll(OpenDescriptors(), ports, SocketRole::kAccepted);
}

}  // namespace scx
