// ConnectionGuard: admission at accept time, the deadline and sweep thread.
#include "exporter/http/connection_guard.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace scx {

namespace {

// How often waiting connections beyond the table's threshold are reclaimed.
constexpr std::chrono::milliseconds kSweepInterval{100};
// Candidates for reclaiming peeked at before one accept: enough for a few clients
// waiting for a worker, few enough that a flood of accepts stays cheap.
constexpr int kMaxPeeksPerAccept = 8;

// True when a whole HTTP request header waits unread on `socket`: its client has
// asked and waits for a worker. Reads nothing (MSG_PEEK).
bool RequestWaiting(int socket) {
  char buffer[4096];
  const ssize_t bytes = recv(socket, buffer, sizeof(buffer), MSG_PEEK | MSG_DONTWAIT);
  return bytes > 0 && std::string_view(buffer, static_cast<std::size_t>(bytes)).find("\r\n\r\n") !=
                          std::string_view::npos;
}

}  // namespace

bool PeerOf(const sockaddr* address, std::string* text, int* port) {
  socklen_t length = 0;
  if (address->sa_family == AF_INET) {
    length = sizeof(sockaddr_in);
    *port = ntohs(reinterpret_cast<const sockaddr_in*>(address)->sin_port);
  } else if (address->sa_family == AF_INET6) {
    length = sizeof(sockaddr_in6);
    *port = ntohs(reinterpret_cast<const sockaddr_in6*>(address)->sin6_port);
  } else {
    return false;
  }
  char host[NI_MAXHOST] = "";
  if (getnameinfo(address, length, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) != 0) {
    return false;
  }
  *text = host;
  return true;
}

ConnectionGuard::ConnectionGuard(const ConnectionCaps& caps)
    : table_(caps), deadline_thread_([this] { WatchDeadlines(); }) {}

ConnectionGuard::~ConnectionGuard() {
  {
    MutexLock lock(&mutex_);
    stopping_ = true;
  }
  deadline_changed_.NotifyAll();
  deadline_thread_.join();
}

bool ConnectionGuard::Admit(int socket, const sockaddr* peer) {
  std::string address;
  int port = 0;
  if (!PeerOf(peer, &address, &port)) address = "unknown";
  MutexLock lock(&mutex_);
  const Clock::time_point now = Clock::now();
  SkipAskingCandidatesLocked(now);
  const ConnectionTable::AcceptResult result = table_.Accept(socket, address, now);
  for (int victim : result.reclaim) {
    AbortLocked(victim);
    ++stats_.reclaimed;
  }
  switch (result.admission) {
    case ConnectionTable::Admission::kAccepted:
      ++stats_.accepted;
      return true;
    case ConnectionTable::Admission::kAddressFull:
      ++stats_.refused_address_full;
      break;
    case ConnectionTable::Admission::kServerFull:
      ++stats_.refused_server_full;
      break;
  }
  return false;
}

void ConnectionGuard::Closed(int socket) {
  MutexLock lock(&mutex_);
  table_.Close(socket);
  deadlines_.erase(socket);
}

void ConnectionGuard::RequestStarted(int socket, Clock::time_point deadline) {
  {
    MutexLock lock(&mutex_);
    if (!table_.Contains(socket)) return;
    table_.StartRequest(socket);
    deadlines_[socket] = deadline;
  }
  deadline_changed_.NotifyAll();
}

void ConnectionGuard::RequestEnded(int socket) {
  MutexLock lock(&mutex_);
  table_.EndRequest(socket, Clock::now());
  deadlines_.erase(socket);
}

void ConnectionGuard::Abort(int socket) {
  MutexLock lock(&mutex_);
  AbortLocked(socket);
}

bool ConnectionGuard::Tracks(int socket) const {
  MutexLock lock(&mutex_);
  return table_.Contains(socket);
}

ConnectionGuardStats ConnectionGuard::stats() const {
  MutexLock lock(&mutex_);
  return stats_;
}

void ConnectionGuard::AbortLocked(int socket) {
  // Only sockets civetweb has not closed yet: it reports a close (Closed) before it
  // makes it, under this lock.
  if (table_.Contains(socket)) shutdown(socket, SHUT_RDWR);
}

void ConnectionGuard::SweepLocked() {
  MarkAskingLocked();
  for (int victim : table_.ReclaimExcess(Clock::now())) {
    AbortLocked(victim);
    ++stats_.reclaimed;
  }
}

void ConnectionGuard::MarkAskingLocked() {
  if (table_.live() <= table_.caps().reclaim_from) return;  // nothing would be reclaimed
  for (int socket : table_.Waiting()) {
    if (RequestWaiting(socket)) table_.StartRequest(socket);
  }
}

void ConnectionGuard::SkipAskingCandidatesLocked(Clock::time_point now) {
  if (table_.live() < table_.caps().reclaim_from) return;  // Accept reclaims nothing
  for (int peeks = 0; peeks < kMaxPeeksPerAccept; ++peeks) {
    const int candidate = table_.ReclaimCandidate(now);
    if (candidate < 0 || !RequestWaiting(candidate)) return;
    table_.StartRequest(candidate);
  }
}

void ConnectionGuard::WatchDeadlines() {
  MutexLock lock(&mutex_);
  Clock::time_point next_sweep = Clock::now() + kSweepInterval;
  while (!stopping_) {
    const Clock::time_point now = Clock::now();
    if (now >= next_sweep) {
      SweepLocked();
      next_sweep = now + kSweepInterval;
    }
    Clock::time_point earliest = next_sweep;
    for (auto it = deadlines_.begin(); it != deadlines_.end();) {
      if (it->second > now) {
        earliest = std::min(earliest, it->second);
        ++it;
        continue;
      }
      AbortLocked(it->first);
      ++stats_.deadline_aborts;
      it = deadlines_.erase(it);
    }
    deadline_changed_.WaitUntil(&mutex_, earliest);
  }
}

}  // namespace scx
