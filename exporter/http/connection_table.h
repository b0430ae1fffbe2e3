// The open connections of an HTTP server by client address, and what to do with a
// new one: accept it, refuse it (its address is at its cap, or the server is full
// and nothing can be reclaimed), and which connections to reclaim first. civetweb
// gives each connection a worker thread for its whole life, so a connection that
// waits (for its first request header, for the TLS handshake, or idle between
// keep-alive requests) holds a worker while doing nothing. Once the open
// connections reach a little below the workers (reclaim_from), each new one takes
// the place of a waiting one: the longest waiting of the address holding the most
// connections, once it has waited reclaim_after (a client that has just connected
// is about to send its request); at once, whatever its age, when the newcomer's
// address holds fewer connections than that address, so that a client holding
// none is never refused for want of room however young the flood. Connections
// beyond the workers wait in civetweb's queue; ReclaimExcess, on a timer, shuts the
// waiting ones beyond reclaim_from down as they age, so the queue drains within
// reclaim_after and a tick. A connection inside a request is never reclaimed (its
// response has its own deadline). Pure logic: the caller owns the sockets and the
// clock.
//
// Thread-safety: none; the caller serializes.
#ifndef SCX_EXPORTER_HTTP_CONNECTION_TABLE_H_
#define SCX_EXPORTER_HTTP_CONNECTION_TABLE_H_

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace scx {

struct ConnectionCaps {
  int max_connections = 1;  // open at once, all addresses (a new one beyond: refused)
  int max_per_address = 0;  // open at once from one address; 0: no cap
  // Open connections from which waiting ones are reclaimed, one per new connection
  // (a little below the workers: connections beyond them wait for one).
  int reclaim_from = 1;
  // Only connections that have waited this long are reclaimed: a client that has just
  // connected (or just had an answer) is about to send its request.
  std::chrono::milliseconds reclaim_after{0};
};

// Caps for at most `max_connections` open connections (at least 1), at most
// `max_per_address` from one address (0: no cap), served by `workers` threads:
// waiting connections are reclaimed once fewer than a sixteenth of the workers (at
// least 1, at most 64) would be free (counting at most `max_connections`), when they
// have waited 250 ms.
ConnectionCaps CapsFor(int max_connections, int workers, int max_per_address);

// The connections a process may keep open when it may open `descriptors` (its
// RLIMIT_NOFILE) and keeps `reserve` of them for everything else (listeners, logs,
// the files and folders a scan opens). At least 1.
int MaxConnectionsFor(long long descriptors, int reserve);

class ConnectionTable {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Admission { kAccepted, kAddressFull, kServerFull };

  struct AcceptResult {
    Admission admission = Admission::kAccepted;
    std::vector<int> reclaim;  // connections to close now (waiting ones), by id
  };

  explicit ConnectionTable(const ConnectionCaps& caps) : caps_(caps) {}

  // A new connection `id` (its socket) from `address`, waiting for its first request.
  // When refused, it is not recorded: the caller closes it.
  AcceptResult Accept(int id, const std::string& address, Clock::time_point now);

  // Waiting connections to close now so that at most reclaim_from stay open (those
  // that have waited reclaim_after, as Accept picks them). Called on a timer: once
  // every worker holds a connection, civetweb accepts no more, so Accept alone would
  // never run again.
  std::vector<int> ReclaimExcess(Clock::time_point now);

  // The connection ended (whatever the reason). Unknown ids are ignored.
  void Close(int id);

  // A request arrived on `id` (not reclaimable until it ends), or its response
  // ended and it waits for the next one.
  void StartRequest(int id);
  void EndRequest(int id, Clock::time_point now);

  // The connection Accept or ReclaimExcess would reclaim next: the longest waiting
  // one (if it has waited reclaim_after) of the address with the most open
  // connections that has one; -1 if none. The caller may first take it out of the
  // running (StartRequest) when it is not idle after all.
  int ReclaimCandidate(Clock::time_point now) const;

  bool Contains(int id) const { return connections_.count(id) != 0; }
  // The connections waiting (not in a request, not reclaimed).
  std::vector<int> Waiting() const;
  // Open connections that were not reclaimed.
  int live() const { return static_cast<int>(connections_.size()) - reclaiming_; }
  int OpenFrom(const std::string& address) const;
  const ConnectionCaps& caps() const { return caps_; }

 private:
  struct Connection {
    std::string address;
    bool waiting = true;
    bool reclaimed = false;
    Clock::time_point since;  // when it began waiting
  };
  struct Address {
    int open = 0;
    std::set<std::pair<Clock::time_point, int>> waiting;  // oldest first
  };

  // The longest waiting connection, whatever its age, of the address holding the
  // most connections among those holding more than `held` that have a waiting one;
  // -1 if none.
  int YoungCandidateAbove(int held) const;
  void Reclaim(int id);
  void StopWaiting(int id, Connection* connection);

  ConnectionCaps caps_;
  std::map<int, Connection> connections_;
  std::map<std::string, Address> addresses_;
  int reclaiming_ = 0;
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_CONNECTION_TABLE_H_
