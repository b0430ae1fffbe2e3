// SlotGate: fair shares of the scrape slots by client address.
#include "exporter/http/slot_gate.h"

#include <algorithm>

namespace scx {

int SlotGate::ShareAmong(int addresses) const {
  return std::max(1, capacity_ / std::max(1, addresses));
}

int SlotGate::HeldBy(const std::string& address) const {
  auto it = held_.find(address);
  return it == held_.end() ? 0 : it->second;
}

SlotGate::Decision SlotGate::Acquire(const std::string& address) {
  Decision decision;
  const int held = HeldBy(address);
  const int addresses = static_cast<int>(held_.size()) + (held == 0 ? 1 : 0);
  const int share = ShareAmong(addresses);
  if (capacity_ > 0 && in_use() >= capacity_) {
    // Full: only an address below its share may take a slot, and only from the
    // address furthest above it (ties: the one whose slot is oldest).
    if (held >= share) return decision;
    auto victim = holders_.end();
    int victim_held = share;
    for (auto it = holders_.begin(); it != holders_.end(); ++it) {
      const int count = held_[it->second];
      if (count > victim_held) {
        victim = it;
        victim_held = count;
      }
    }
    if (victim == holders_.end()) return decision;
    decision.preempted = victim->first;
    Remove(victim);
  }
  decision.ticket = next_ticket_++;
  holders_.emplace(decision.ticket, address);
  ++held_[address];
  return decision;
}

void SlotGate::Release(Ticket ticket) {
  auto holder = holders_.find(ticket);
  if (holder != holders_.end()) Remove(holder);
}

void SlotGate::Remove(std::map<Ticket, std::string>::iterator holder) {
  auto count = held_.find(holder->second);
  if (count != held_.end() && --count->second <= 0) held_.erase(count);
  holders_.erase(holder);
}

}  // namespace scx
