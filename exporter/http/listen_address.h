// --web.listen-address values: "[host]:port" with an optional host ("" or 0.0.0.0
// for every IPv4 interface, an IPv4 address, an IPv6 address in brackets, or a host
// name such as localhost, resolved when the server starts) and a port from 0 to 65535
// (0 picks a free one). Only the syntax is checked here: a bad one is a usage error.
//
// Thread-safety: pure functions.
#ifndef SCX_EXPORTER_HTTP_LISTEN_ADDRESS_H_
#define SCX_EXPORTER_HTTP_LISTEN_ADDRESS_H_

#include <string>

namespace scx {

inline constexpr char kDefaultListenAddress[] = ":9864";

struct ListenAddress {
  std::string host;  // as written, brackets included: "", "0.0.0.0", "127.0.0.1", "[::1]"
  int port = 0;

  bool ipv6() const { return !host.empty() && host.front() == '['; }
};

// Parses `text`. False with `error` naming the address and what is wrong.
bool ParseListenAddress(const std::string& text, ListenAddress* address, std::string* error);

// "host:port" with `port` (the port actually bound), the host as written.
std::string WithPort(const ListenAddress& address, int port);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_LISTEN_ADDRESS_H_
