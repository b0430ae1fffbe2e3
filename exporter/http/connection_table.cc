// ConnectionTable: caps per address and in all, and which waiting connections go.
#include "exporter/http/connection_table.h"

#include <algorithm>
#include <limits>

namespace scx {

ConnectionCaps CapsFor(int max_connections, int workers, int max_per_address) {
  ConnectionCaps caps;
  caps.max_connections = std::max(1, max_connections);
  caps.max_per_address = std::max(0, max_per_address);
  const int pool = std::max(1, std::min(caps.max_connections, workers));
  const int headroom = std::clamp(pool / 16, 1, 64);
  caps.reclaim_from = std::max(1, pool - headroom);
  caps.reclaim_after = std::chrono::milliseconds(250);
  return caps;
}

int MaxConnectionsFor(long long descriptors, int reserve) {
  const long long left = descriptors - std::max(0, reserve);
  return static_cast<int>(std::clamp<long long>(left, 1, std::numeric_limits<int>::max()));
}

int ConnectionTable::OpenFrom(const std::string& address) const {
  auto it = addresses_.find(address);
  return it == addresses_.end() ? 0 : it->second.open;
}

ConnectionTable::AcceptResult ConnectionTable::Accept(int id, const std::string& address,
                                                      Clock::time_point now) {
  AcceptResult result;
  if (Contains(id)) Close(id);  // a socket number reused before its close was seen
  const int held = OpenFrom(address);
  if (caps_.max_per_address > 0 && held >= caps_.max_per_address) {
    result.admission = Admission::kAddressFull;
    return result;
  }
  if (live() >= caps_.reclaim_from) {
    int victim = ReclaimCandidate(now);
    if (victim < 0) victim = YoungCandidateAbove(held);
    if (victim >= 0) {
      Reclaim(victim);
      result.reclaim.push_back(victim);
    }
  }
  if (live() >= caps_.max_connections) {
    result.admission = Admission::kServerFull;
    return result;
  }
  Connection& connection = connections_[id];
  connection.address = address;
  connection.since = now;
  Address& owner = addresses_[address];
  ++owner.open;
  owner.waiting.emplace(now, id);
  return result;
}

std::vector<int> ConnectionTable::ReclaimExcess(Clock::time_point now) {
  std::vector<int> reclaimed;
  while (live() > caps_.reclaim_from) {
    const int victim = ReclaimCandidate(now);
    if (victim < 0) break;
    Reclaim(victim);
    reclaimed.push_back(victim);
  }
  return reclaimed;
}

void ConnectionTable::Close(int id) {
  auto it = connections_.find(id);
  if (it == connections_.end()) return;
  StopWaiting(id, &it->second);
  if (it->second.reclaimed) --reclaiming_;
  auto owner = addresses_.find(it->second.address);
  if (owner != addresses_.end() && --owner->second.open <= 0) addresses_.erase(owner);
  connections_.erase(it);
}

void ConnectionTable::StartRequest(int id) {
  auto it = connections_.find(id);
  if (it != connections_.end()) StopWaiting(id, &it->second);
}

void ConnectionTable::EndRequest(int id, Clock::time_point now) {
  auto it = connections_.find(id);
  if (it == connections_.end() || it->second.waiting || it->second.reclaimed) return;
  it->second.waiting = true;
  it->second.since = now;
  addresses_[it->second.address].waiting.emplace(now, id);
}

int ConnectionTable::ReclaimCandidate(Clock::time_point now) const {
  const Address* greediest = nullptr;
  for (const auto& [address, entry] : addresses_) {
    if (entry.waiting.empty() || entry.waiting.begin()->first > now - caps_.reclaim_after) {
      continue;
    }
    if (greediest == nullptr || entry.open > greediest->open) greediest = &entry;
  }
  return greediest == nullptr ? -1 : greediest->waiting.begin()->second;
}

int ConnectionTable::YoungCandidateAbove(int held) const {
  const Address* greediest = nullptr;
  for (const auto& [address, entry] : addresses_) {
    if (entry.waiting.empty() || entry.open <= held) continue;
    if (greediest == nullptr || entry.open > greediest->open) greediest = &entry;
  }
  return greediest == nullptr ? -1 : greediest->waiting.begin()->second;
}

std::vector<int> ConnectionTable::Waiting() const {
  std::vector<int> ids;
  for (const auto& [address, entry] : addresses_) {
    for (const auto& [since, id] : entry.waiting) ids.push_back(id);
  }
  return ids;
}

void ConnectionTable::Reclaim(int id) {
  Connection& connection = connections_.at(id);
  StopWaiting(id, &connection);
  connection.reclaimed = true;
  ++reclaiming_;
}

void ConnectionTable::StopWaiting(int id, Connection* connection) {
  if (!connection->waiting) return;
  connection->waiting = false;
  auto owner = addresses_.find(connection->address);
  if (owner != addresses_.end()) owner->second.waiting.erase({connection->since, id});
}

}  // namespace scx
