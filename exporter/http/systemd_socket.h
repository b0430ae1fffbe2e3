// systemd socket activation (--web.systemd-socket, as exporter-toolkit offers it): the
// listening sockets systemd opened for the exporter's .socket unit, handed over as
// descriptors 3, 4, ... with LISTEN_PID and LISTEN_FDS in the environment
// (sd_listen_fds(3)). The server then serves them instead of --web.listen-address.
#ifndef SCX_EXPORTER_HTTP_SYSTEMD_SOCKET_H_
#define SCX_EXPORTER_HTTP_SYSTEMD_SOCKET_H_

#include <string>
#include <vector>

namespace scx {

// The first descriptor systemd passes (SD_LISTEN_FDS_START).
inline constexpr int kSystemdFirstSocket = 3;

// The descriptors LISTEN_PID and LISTEN_FDS (null when unset) give the process `self`:
// kSystemdFirstSocket and the LISTEN_FDS - 1 after it. False with a line for people
// when they are unset, name another process or pass no socket.
bool ParseSystemdSockets(const char* listen_pid, const char* listen_fds, long self,
                         std::vector<int>* sockets, std::string* error);

// ParseSystemdSockets of this process's environment. LISTEN_PID, LISTEN_FDS and
// LISTEN_FDNAMES are then unset, and the descriptors made close-on-exec, so that nothing
// this process starts takes them for its own.
bool TakeSystemdSockets(std::vector<int>* sockets, std::string* error);

// The local address of socket `fd` as a listen address is written ("127.0.0.1:9864",
// "[::1]:9864"), or "fd N" when it has none that reads so.
std::string SocketAddress(int fd);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_SYSTEMD_SOCKET_H_
