// Listen address parsing.
#include "exporter/http/listen_address.h"

#include <cstdlib>

namespace scx {

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
  address->host = host;
  address->port = std::atoi(port.c_str());
  return true;
}

std::string WithPort(const ListenAddress& address, int port) {
  return address.host + ":" + std::to_string(port);
}

}  // namespace scx
