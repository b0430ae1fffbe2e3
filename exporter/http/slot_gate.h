// Scrape slots shared fairly among client addresses (--web.max-requests). At most
// `capacity` requests hold a slot at once. An address alone may take them all; when
// a newcomer finds them full while some address holds more than its fair share
// (capacity divided by the addresses holding slots, the newcomer included), the
// oldest slot of the greediest address is taken from it (its holder is aborted) and
// given to the newcomer. So slow or greedy clients on one address cannot starve a
// scraper on another. Pure logic: no clock, no sockets.
//
// Thread-safety: none; the caller serializes (HttpServer holds a mutex around it).
#ifndef SCX_EXPORTER_HTTP_SLOT_GATE_H_
#define SCX_EXPORTER_HTTP_SLOT_GATE_H_

#include <cstdint>
#include <map>
#include <string>

namespace scx {

class SlotGate {
 public:
  using Ticket = std::uint64_t;  // 0: no slot

  struct Decision {
    Ticket ticket = 0;     // the slot granted; 0: refused
    Ticket preempted = 0;  // a slot taken from another holder (abort it); 0: none
  };

  // `capacity` 0 means no limit (every request is admitted, nothing preempted).
  explicit SlotGate(int capacity) : capacity_(capacity < 0 ? 0 : capacity) {}

  // A slot for a request from `address`, or a refusal.
  Decision Acquire(const std::string& address);

  // Gives back `ticket` (no-op for 0 and for a ticket already preempted).
  void Release(Ticket ticket);

  int capacity() const { return capacity_; }
  int in_use() const { return static_cast<int>(holders_.size()); }
  int HeldBy(const std::string& address) const;

 private:
  // What an address may hold while `addresses` addresses hold slots: at least one.
  int ShareAmong(int addresses) const;
  void Remove(std::map<Ticket, std::string>::iterator holder);

  int capacity_;
  Ticket next_ticket_ = 1;
  std::map<Ticket, std::string> holders_;  // by ticket, so the oldest comes first
  std::map<std::string, int> held_;        // slots held by each address (> 0)
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_SLOT_GATE_H_
