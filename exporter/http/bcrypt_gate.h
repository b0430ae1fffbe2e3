// Who may run a bcrypt check now. bcrypt is slow on purpose (tens to hundreds of
// milliseconds a check), so only a few checks run at once; without fairness a flood
// of wrong passwords from some addresses holds every slot, and a legitimate user whose
// credentials are not cached yet (after a restart) is turned away every time.
//
// BcryptUsage keeps, per client address, how much bcrypt it has had lately: each
// check counts 1 and the sum halves every kBcryptUsageHalfLife. Pure: time is passed
// in. BcryptGate hands out the slots: when all are taken a caller waits a little, and
// a freed slot goes to the waiter whose address has had the least. An address that
// floods ranks behind every address that does not, whatever the number of flooding
// addresses.
//
// Thread-safety: BcryptUsage is not thread-safe (BcryptGate locks around it);
// BcryptGate is safe to use from several threads at once.
#ifndef SCX_EXPORTER_HTTP_BCRYPT_GATE_H_
#define SCX_EXPORTER_HTTP_BCRYPT_GATE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace scx {

inline constexpr std::chrono::seconds kBcryptUsageHalfLife{10};

class BcryptUsage {
 public:
  using Clock = std::chrono::steady_clock;

  // At most `max_addresses` remembered; past it, the half least used are forgotten
  // (a forgotten address starts again at 0, which only ever favours it).
  explicit BcryptUsage(std::size_t max_addresses = 4096) : max_addresses_(max_addresses) {}

  // `address`'s usage at `now` (0 for an address never charged).
  double Of(const std::string& address, Clock::time_point now) const;
  // Counts one check for `address` at `now`.
  void Charge(const std::string& address, Clock::time_point now);
  std::size_t size() const { return usage_.size(); }

 private:
  struct Entry {
    double value = 0;
    Clock::time_point at;
  };
  static double Decayed(const Entry& entry, Clock::time_point now);
  void ForgetTheLeastUsed(Clock::time_point now);

  const std::size_t max_addresses_;
  std::unordered_map<std::string, Entry> usage_;
};

class BcryptGate {
 public:
  // At most `slots` checks at once. A caller that finds them all taken waits at most
  // `max_wait`, in a queue of at most `max_waiters` (each waiter holds an HTTP worker).
  explicit BcryptGate(int slots, std::size_t max_waiters = 32,
                      std::chrono::milliseconds max_wait = std::chrono::milliseconds(1000));

  // Takes a slot for a check from `address`. False when none came free within
  // max_wait, when the queue is full of waiters whose addresses have had no more
  // bcrypt than this one, or when this waiter was pushed out of the full queue by a
  // newcomer from an address that has had less. A slot taken is charged to `address`.
  bool Enter(const std::string& address);
  // Gives back a slot taken by Enter and hands it to the waiter whose address has
  // had the least bcrypt (the earliest among equals).
  void Leave();

  int in_use() const;
  std::size_t waiting() const;

 private:
  struct Waiter {
    std::string address;
    std::uint64_t number;   // arrival order
    bool admitted = false;  // a slot was handed to it
    bool evicted = false;   // pushed out of the full queue
  };
  using Waiters = std::list<Waiter>;

  // The waiter a freed slot goes to, and the one a newcomer may push out.
  enum class Rank { kQuietest, kBusiest };
  // The waiter whose address has had the least bcrypt (the earliest among equals),
  // or the most (the latest among equals); end() when none waits.
  Waiters::iterator Ranked(Rank rank, BcryptUsage::Clock::time_point now) SCX_REQUIRES(mutex_);
  // Waits until `waiter` is handed a slot (true), pushed out or out of time (false).
  bool Wait(Waiters::iterator waiter) SCX_REQUIRES(mutex_);
  // Waiters neither handed a slot nor pushed out yet.
  std::size_t Queued() const SCX_REQUIRES(mutex_);

  const int slots_;
  const std::size_t max_waiters_;
  const std::chrono::milliseconds max_wait_;
  mutable Mutex mutex_;
  CondVar changed_;
  int in_use_ SCX_GUARDED_BY(mutex_) = 0;
  std::uint64_t arrivals_ SCX_GUARDED_BY(mutex_) = 0;
  Waiters waiters_ SCX_GUARDED_BY(mutex_);
  BcryptUsage usage_ SCX_GUARDED_BY(mutex_);
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_BCRYPT_GATE_H_
