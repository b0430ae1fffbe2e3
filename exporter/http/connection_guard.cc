// ConnectionGuard: the accept wrapper, the registry of guards by local port, the
// deadline thread.
#include "exporter/http/connection_guard.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <string_view>

// The libc close() the wrapper below stands in front of (-Wl,--wrap=close).
extern "C" int __real_close(int socket);

namespace scx {

namespace {

// After accept() fails for want of descriptors or memory the listener stays
// readable, and civetweb's master thread would retry at once, forever: a busy loop
// that takes a core. Waiting a little turns it into a slow retry.
constexpr std::chrono::milliseconds kAcceptFailurePause{10};
// How often sockets closed without a word from civetweb are looked for, and
// waiting connections beyond the table's threshold reclaimed.
constexpr std::chrono::milliseconds kSweepInterval{100};
// Candidates for reclaiming peeked at before one accept: enough for a few clients
// waiting for a worker, few enough that a flood of accepts stays cheap.
constexpr int kMaxPeeksPerAccept = 8;

// The guards by the local port they watch. Its lock is held while a guard admits or
// closes a connection, so a guard is never destroyed during a call; it is taken
// before a guard's own lock.
struct GuardRegistry {
  Mutex mutex;
  std::map<int, ConnectionGuard*> by_port SCX_GUARDED_BY(mutex);
};

GuardRegistry& Guards() {
  static GuardRegistry registry;
  return registry;
}

// One flag per descriptor number below kFlaggedDescriptors: set while a guard tracks
// the socket of that number (the file comment says why a close that finds it clear
// needs no lock). A socket numbered above is looked for in every guard, under their
// locks, as every close was before. Zero-initialized; its pages are touched only
// for the numbers used.
constexpr std::size_t kFlaggedDescriptors = std::size_t{1} << 17;
std::array<std::atomic<bool>, kFlaggedDescriptors> g_tracked_flags;

bool Flaggable(int socket) {
  return socket >= 0 && static_cast<std::size_t>(socket) < kFlaggedDescriptors;
}

void SetTrackedFlag(int socket, bool tracked) {
  if (Flaggable(socket)) g_tracked_flags[static_cast<std::size_t>(socket)].store(tracked);
}

// The inode of the socket `socket` refers to; 0 when it is not an open socket.
unsigned long long SocketInode(int socket) {
  struct stat status {};
  if (fstat(socket, &status) != 0 || !S_ISSOCK(status.st_mode)) return 0;
  return static_cast<unsigned long long>(status.st_ino);
}

int LocalPort(int socket) {
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  if (getsockname(socket, reinterpret_cast<sockaddr*>(&local), &length) != 0) return -1;
  if (local.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&local)->sin_port);
  if (local.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&local)->sin6_port);
  }
  return -1;
}

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
    GuardRegistry& registry = Guards();
    MutexLock registry_lock(&registry.mutex);
    for (int port : ports_) {
      auto it = registry.by_port.find(port);
      if (it != registry.by_port.end() && it->second == this) registry.by_port.erase(it);
    }
    MutexLock lock(&mutex_);
    for (const auto& [socket, tracked] : tracked_) SetTrackedFlag(socket, false);
    stopping_ = true;
  }
  deadline_changed_.NotifyAll();
  deadline_thread_.join();
}

void ConnectionGuard::Watch(const std::vector<int>& ports) {
  GuardRegistry& registry = Guards();
  MutexLock registry_lock(&registry.mutex);
  for (int port : ports) {
    registry.by_port[port] = this;
    ports_.push_back(port);
  }
}

bool ConnectionGuard::OnAccept(int socket, const sockaddr* peer) {
  ConnectionKey key;
  if (!PeerOf(peer, &key.address, &key.port)) return true;
  key.local_port = LocalPort(socket);
  GuardRegistry& registry = Guards();
  MutexLock registry_lock(&registry.mutex);
  auto guard = registry.by_port.find(key.local_port);
  return guard == registry.by_port.end() || guard->second->Admit(socket, key);
}

bool ConnectionGuard::Admit(int socket, const ConnectionKey& key) {
  const unsigned long long inode = SocketInode(socket);
  MutexLock lock(&mutex_);
  DropLocked(socket);  // a number reused before its close was reported
  const Clock::time_point now = Clock::now();
  SkipAskingCandidatesLocked(now);
  const ConnectionTable::AcceptResult result = table_.Accept(socket, key.address, now);
  for (int victim : result.reclaim) {
    AbortLocked(victim);
    ++stats_.reclaimed;
  }
  switch (result.admission) {
    case ConnectionTable::Admission::kAccepted:
      sockets_[key] = socket;
      tracked_[socket] = Tracked{key, inode};
      SetTrackedFlag(socket, true);
      ++stats_.accepted;
      return true;
    case ConnectionTable::Admission::kAddressFull:
      ++stats_.refused_address_full;
      break;
    case ConnectionTable::Admission::kServerFull:
      ++stats_.refused_server_full;
      break;
  }
  __real_close(socket);  // the registry lock is held: not through the wrapper
  return false;
}

int ConnectionGuard::Find(const ConnectionKey& key) const {
  MutexLock lock(&mutex_);
  auto it = sockets_.find(key);
  return it == sockets_.end() ? -1 : it->second;
}

void ConnectionGuard::RequestStarted(int socket, Clock::time_point deadline) {
  {
    MutexLock lock(&mutex_);
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

void ConnectionGuard::Closed(const ConnectionKey& key) {
  MutexLock lock(&mutex_);
  auto it = sockets_.find(key);
  if (it == sockets_.end()) return;
  DropLocked(it->second);
}

void ConnectionGuard::DropLocked(int socket) {
  auto it = tracked_.find(socket);
  if (it == tracked_.end()) return;
  table_.Close(socket);
  deadlines_.erase(socket);
  sockets_.erase(it->second.key);
  tracked_.erase(it);
  SetTrackedFlag(socket, false);
}

bool ConnectionGuard::StillOpenLocked(int socket) const {
  auto it = tracked_.find(socket);
  return it != tracked_.end() && SocketInode(socket) == it->second.inode;
}

void ConnectionGuard::SweepLocked() {
  std::vector<int> gone;
  for (const auto& [socket, tracked] : tracked_) {
    if (SocketInode(socket) != tracked.inode) gone.push_back(socket);
  }
  for (int socket : gone) DropLocked(socket);
  MarkAskingLocked();
  for (int victim : table_.ReclaimExcess(Clock::now())) {
    AbortLocked(victim);
    ++stats_.reclaimed;
  }
}

void ConnectionGuard::MarkAskingLocked() {
  if (table_.live() <= table_.caps().reclaim_from) return;  // nothing would be reclaimed
  for (const auto& [socket, tracked] : tracked_) {
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

// Only the guard that tracks a socket fstats, peeks at or shuts it down, and a guard
// starts tracking a number only when accept() returns it, which it cannot while the
// number is open: so the socket is closed under the lock of the guard that tracks
// it, and a close of a number no guard tracks needs no lock at all.
int ConnectionGuard::OnClose(int socket) {
  if (!MayBeTracked(socket)) return __real_close(socket);
  GuardRegistry& registry = Guards();
  MutexLock registry_lock(&registry.mutex);
  ConnectionGuard* previous = nullptr;
  for (const auto& [port, guard] : registry.by_port) {
    if (guard == previous) continue;  // a guard watching several ports
    previous = guard;
    int result = 0;
    if (guard->CloseIfTracked(socket, &result)) return result;
  }
  return __real_close(socket);
}

bool ConnectionGuard::MayBeTracked(int socket) {
  return !Flaggable(socket) || g_tracked_flags[static_cast<std::size_t>(socket)].load();
}

bool ConnectionGuard::CloseIfTracked(int socket, int* result) {
  MutexLock lock(&mutex_);
  if (tracked_.find(socket) == tracked_.end()) return false;
  DropLocked(socket);
  *result = __real_close(socket);
  return true;
}

ConnectionGuardStats ConnectionGuard::stats() const {
  MutexLock lock(&mutex_);
  return stats_;
}

void ConnectionGuard::AbortLocked(int socket) {
  // Only sockets civetweb has not closed yet (it reports a close before making it;
  // for the few it does not report, the inode tells).
  if (StillOpenLocked(socket)) shutdown(socket, SHUT_RDWR);
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

// civetweb's accept(), routed here by the linker (-Wl,--wrap=accept).
extern "C" int __real_accept(int listener, sockaddr* address, socklen_t* length);

// Every close() of the code linked with scx_http, routed here by the linker
// (-Wl,--wrap=close).
extern "C" int __wrap_close(int socket) { return scx::ConnectionGuard::OnClose(socket); }

extern "C" int __wrap_accept(int listener, sockaddr* address, socklen_t* length) {
  sockaddr_storage own{};
  socklen_t own_length = sizeof(own);
  if (address == nullptr || length == nullptr) {
    address = reinterpret_cast<sockaddr*>(&own);
    length = &own_length;
  }
  const int socket = __real_accept(listener, address, length);
  if (socket < 0) {
    const int error = errno;
    if (error == EMFILE || error == ENFILE || error == ENOBUFS || error == ENOMEM) {
      std::this_thread::sleep_for(scx::kAcceptFailurePause);
    }
    errno = error;
    return socket;
  }
  if (scx::ConnectionGuard::OnAccept(socket, address)) return socket;
  errno = EAGAIN;
  return -1;
}
