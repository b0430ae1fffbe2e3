// Listen address parsing.
#include "exporter/http/listen_address.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstdlib>

namespace scx {

namespace {

// A host name as DNS writes it: labels of letters, digits and '-', not starting or
// ending with '-', joined by dots; at most 253 characters. Resolved when the server
// starts (a name that does not resolve then is a failure to serve, not a usage error).
bool IsHostName(const std::string& host) {
  if (host.empty() || host.size() > 253) return false;
  std::size_t label = 0;
  for (std::size_t i = 0; i <= host.size(); ++i) {
    if (i == host.size() || host[i] == '.') {
      if (label == 0 || label > 63 || host[i - 1] == '-' || host[i - label] == '-') return false;
      label = 0;
      continue;
    }
    const auto c = static_cast<unsigned char>(host[i]);
    if (!std::isalnum(c) && c != '-') return false;
    ++label;
  }
  return true;
}

// "", an IPv4 address, an IPv6 address in brackets, or a host name. A host of digits
// and dots alone must be an IPv4 address ("1.2.3" and "256.1.1.1" are not).
bool IsListenHost(const std::string& host) {
  if (host.empty()) return true;
  unsigned char bytes[16];
  if (host.front() == '[') {
    return host.size() > 2 && host.back() == ']' &&
           inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), bytes) == 1;
  }
  if (host.find_first_not_of("0123456789.") == std::string::npos) {
    return inet_pton(AF_INET, host.c_str(), bytes) == 1;
  }
  return IsHostName(host);
}

}  // namespace

bool ParseListenAddress(const std::string& text, ListenAddress* address, std::string* error) {
  const std::string bad = "invalid listen address '" + text + "': ";
  const std::size_t colon = text.rfind(':');
  if (colon == std::string::npos) {
    *error = bad + "expected [host]:port";
    return false;
  }
  const std::string host = text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  if (port.empty() || port.size() > 5 ||
      port.find_first_not_of("0123456789") != std::string::npos ||
      std::atoi(port.c_str()) > 65535) {
    *error = bad + "the port must be a number from 0 to 65535";
    return false;
  }
  if (!IsListenHost(host)) {
    *error = bad +
             "the host must be empty, an IPv4 address, an IPv6 address in brackets or a host "
             "name";
    return false;
  }
  address->host = host;
  address->port = std::atoi(port.c_str());
  return true;
}

std::string WithPort(const ListenAddress& address, int port) {
  return address.host + ":" + std::to_string(port);
}

}  // namespace scx
