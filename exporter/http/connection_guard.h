// The sockets side of an HttpServer's connection limits: sees each connection as
// civetweb's master thread accepts it, refuses it or reclaims waiting ones by the
// rules of ConnectionTable (closing a refused socket at once, before any worker sees
// it), and aborts a response past its deadline. civetweb 1.15 has no callback at
// accept time, so the build routes civetweb's accept() through this file
// (`-Wl,--wrap=accept` on everything that links scx_http). An accept on a port no
// guard watches, or outside civetweb, passes through unchanged.
//
// A connection is aborted with shutdown(2): the worker serving it sees the end at
// once (a read returns 0, a write fails) and closes it through civetweb's usual
// path. close() is routed through this file too (`-Wl,--wrap=close`): a socket a
// guard tracks is dropped from it and closed under the guard's lock, the lock every
// fstat, peek and shutdown of the guard takes, so the guard never touches a socket
// number after its close, nor shuts one down after its number was reused
// (ThreadSanitizer saw the guard's fstat race civetweb's close before). Every other
// close (a scan thread closing a brain's file) takes no lock: one atomic flag per
// descriptor number says whether a guard tracks it. A number is flagged only while it
// is an accepted socket (it cannot be another file's then), and unflagged before its
// close, so a close that finds no flag cannot be of a socket a guard touches. Every
// 100 ms the guard also drops sockets whose number no longer refers to the inode it
// had (a close made outside the wrapped code), and reclaims waiting connections
// beyond the table's threshold; a connection whose whole request header already
// waits unread (a client waiting for a worker, not an idle one) counts as inside a
// request and is not reclaimed.
//
// Thread-safety: every method may be called from any thread.
#ifndef SCX_EXPORTER_HTTP_CONNECTION_GUARD_H_
#define SCX_EXPORTER_HTTP_CONNECTION_GUARD_H_

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "exporter/http/connection_table.h"

struct sockaddr;

namespace scx {

// How civetweb names a connection in its callbacks (mg_request_info): the client's
// numeric address and port, and the local port it reached.
struct ConnectionKey {
  std::string address;
  int port = 0;
  int local_port = 0;
  bool operator<(const ConnectionKey& other) const {
    return std::tie(address, port, local_port) <
           std::tie(other.address, other.port, other.local_port);
  }
};

// What a guard has done, for tests and the log.
struct ConnectionGuardStats {
  long accepted = 0;
  long refused_address_full = 0;
  long refused_server_full = 0;
  long reclaimed = 0;
  long deadline_aborts = 0;
};

class ConnectionGuard {
 public:
  using Clock = std::chrono::steady_clock;

  explicit ConnectionGuard(const ConnectionCaps& caps);
  ~ConnectionGuard();  // stops watching its ports and its deadline thread
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // Starts taking the accepts on `ports` (the local ports of the server's listeners).
  void Watch(const std::vector<int>& ports);

  // The socket of a connection civetweb names `key`; -1 if unknown.
  int Find(const ConnectionKey& key) const;

  // A request arrived on `socket`; its response must be written by `deadline`, or
  // the connection is aborted. RequestEnded: the response was written (or failed).
  void RequestStarted(int socket, Clock::time_point deadline);
  void RequestEnded(int socket);

  // Aborts the connection on `socket` if it is still open (a preempted scrape).
  void Abort(int socket);

  // civetweb is about to close the connection `key`.
  void Closed(const ConnectionKey& key);

  ConnectionGuardStats stats() const;

  // Called from the accept wrapper for every accepted socket: true when `socket`
  // goes on to civetweb; false when it was refused and closed.
  static bool OnAccept(int socket, const sockaddr* peer);

  // Called from the close wrapper for every close(): closes `socket`, and when a
  // guard tracks it, drops it from that guard and closes it under its lock. close()'s
  // result and errno.
  static int OnClose(int socket);

  // True when a guard may track `socket`, from its flag (false: no guard does).
  // For tests.
  static bool MayBeTracked(int socket);

 private:
  struct Tracked {
    ConnectionKey key;
    unsigned long long inode = 0;
  };

  bool Admit(int socket, const ConnectionKey& key) SCX_EXCLUDES(mutex_);
  // Closes `socket` under the lock if this guard tracks it; false (nothing done)
  // when it does not.
  bool CloseIfTracked(int socket, int* result) SCX_EXCLUDES(mutex_);
  void WatchDeadlines() SCX_EXCLUDES(mutex_);
  void AbortLocked(int socket) SCX_REQUIRES(mutex_);
  void DropLocked(int socket) SCX_REQUIRES(mutex_);
  void SweepLocked() SCX_REQUIRES(mutex_);
  // Waiting connections whose whole request header is already in the socket's
  // receive buffer are marked as in a request (see the file comment): every one on a
  // sweep, the next candidates (a few at most) before an accept reclaims one.
  void MarkAskingLocked() SCX_REQUIRES(mutex_);
  void SkipAskingCandidatesLocked(Clock::time_point now) SCX_REQUIRES(mutex_);
  bool StillOpenLocked(int socket) const SCX_REQUIRES(mutex_);

  mutable Mutex mutex_;
  CondVar deadline_changed_;
  ConnectionTable table_ SCX_GUARDED_BY(mutex_);
  std::map<ConnectionKey, int> sockets_ SCX_GUARDED_BY(mutex_);
  std::map<int, Tracked> tracked_ SCX_GUARDED_BY(mutex_);
  std::map<int, Clock::time_point> deadlines_ SCX_GUARDED_BY(mutex_);
  ConnectionGuardStats stats_ SCX_GUARDED_BY(mutex_);
  bool stopping_ SCX_GUARDED_BY(mutex_) = false;
  std::vector<int> ports_;  // the registry's lock (connection_guard.cc)
  std::thread deadline_thread_;
};

// The client's numeric address as civetweb writes it (getnameinfo, NI_NUMERICHOST),
// and its port; false for a family other than IPv4 and IPv6.
bool PeerOf(const sockaddr* address, std::string* text, int* port);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_CONNECTION_GUARD_H_
