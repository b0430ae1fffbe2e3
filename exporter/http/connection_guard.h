// The sockets side of an HttpServer's connection limits: sees each connection as
// civetweb's master thread accepts it (the accept_connection callback of the
// project's civetweb patch, scripts/civetweb-patches/0002-*), refuses it or
// reclaims waiting ones by the rules of ConnectionTable, and aborts a response past
// its deadline. No libc call is wrapped or interposed.
//
// A connection is aborted with shutdown(2): the worker serving it (or the one that
// takes it from civetweb's queue) sees the end at once (a read returns 0, a write
// fails) and closes it through civetweb's usual path. The guard touches a socket
// (shutdown, a peek) only under its lock and only while it tracks it: from the
// accept callback, which runs before any worker has the socket, to Closed, which
// civetweb's connection_close callback calls before civetweb closes the socket. So
// the guard never touches a number after its close, nor one reused by another
// file. Every 100 ms it also reclaims waiting connections beyond the table's
// threshold; a connection whose whole request header already waits unread (a
// client waiting for a worker, not an idle one) counts as inside a request and is
// not reclaimed.
//
// Thread-safety: every method may be called from any thread.
#ifndef SCX_EXPORTER_HTTP_CONNECTION_GUARD_H_
#define SCX_EXPORTER_HTTP_CONNECTION_GUARD_H_

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "exporter/http/connection_table.h"

struct sockaddr;

namespace scx {

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

  // Starts the thread that aborts late responses and reclaims on a timer; throws
  // std::system_error when no thread can be started.
  explicit ConnectionGuard(const ConnectionCaps& caps);
  ~ConnectionGuard();  // stops its thread
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // A connection was accepted on `socket` from `peer`: true when it goes on to be
  // served (it is tracked until Closed), false when it is refused (the caller closes
  // it; it is not tracked). May reclaim waiting connections.
  bool Admit(int socket, const sockaddr* peer) SCX_EXCLUDES(mutex_);

  // The connection on `socket` is about to be closed: the guard forgets it and never
  // touches the number again. Unknown sockets are ignored.
  void Closed(int socket) SCX_EXCLUDES(mutex_);

  // A request arrived on `socket`; its response must be written by `deadline`, or
  // the connection is aborted. RequestEnded: the response was written (or failed).
  void RequestStarted(int socket, Clock::time_point deadline) SCX_EXCLUDES(mutex_);
  void RequestEnded(int socket) SCX_EXCLUDES(mutex_);

  // Aborts the connection on `socket` if the guard still tracks it (a preempted
  // scrape).
  void Abort(int socket) SCX_EXCLUDES(mutex_);

  // True while the guard tracks `socket`. For tests.
  bool Tracks(int socket) const SCX_EXCLUDES(mutex_);

  ConnectionGuardStats stats() const SCX_EXCLUDES(mutex_);

 private:
  void WatchDeadlines() SCX_EXCLUDES(mutex_);
  void AbortLocked(int socket) SCX_REQUIRES(mutex_);
  void SweepLocked() SCX_REQUIRES(mutex_);
  // Waiting connections whose whole request header is already in the socket's
  // receive buffer are marked as in a request (see the file comment): every one on a
  // sweep, the next candidates (a few at most) before an accept reclaims one.
  void MarkAskingLocked() SCX_REQUIRES(mutex_);
  void SkipAskingCandidatesLocked(Clock::time_point now) SCX_REQUIRES(mutex_);

  mutable Mutex mutex_;
  CondVar deadline_changed_;
  ConnectionTable table_ SCX_GUARDED_BY(mutex_);
  std::map<int, Clock::time_point> deadlines_ SCX_GUARDED_BY(mutex_);
  ConnectionGuardStats stats_ SCX_GUARDED_BY(mutex_);
  bool stopping_ SCX_GUARDED_BY(mutex_) = false;
  std::thread deadline_thread_;  // last: starts once the rest is ready
};

// The client's numeric address as civetweb writes it (getnameinfo, NI_NUMERICHOST),
// and its port; false for a family other than IPv4 and IPv6.
bool PeerOf(const sockaddr* address, std::string* text, int* port);

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_CONNECTION_GUARD_H_
