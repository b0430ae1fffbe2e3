// Ends every wait civetweb's threads may be in, so that mg_stop returns at once.
//
// civetweb's threads poll their sockets in 2 s slices and look at the stop flag only
// between slices: the master thread on the listening sockets, a worker on the
// connection it serves (an idle keep-alive connection, or a client that sent
// nothing yet). Shutting those sockets down for reading ends the poll at once: the
// master sees the stop, a worker reads end-of-file and drops the connection.
// Responses being written still go out (the sending side stays open).
//
// Thread-safety: may be called from any thread.
#ifndef SCX_EXPORTER_SERVER_SOCKETS_H_
#define SCX_EXPORTER_SERVER_SOCKETS_H_

#include <vector>

namespace scx {

// Shuts down for reading every TCP socket of this process whose local port is one
// of `ports`: the listening sockets first (no new connections), then the accepted
// connections. Client sockets (their local port is an ephemeral one) are left
// alone. Returns how many sockets were shut down.
int ShutDownServerSockets(const std::vector<int>& ports);

}  // namespace scx

#endif  // SCX_EXPORTER_SERVER_SOCKETS_H_
