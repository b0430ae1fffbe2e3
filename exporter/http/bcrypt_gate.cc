// Fair sharing of the bcrypt slots between client addresses.
#include "exporter/http/bcrypt_gate.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace scx {

double BcryptUsage::Decayed(const Entry& entry, Clock::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - entry.at).count();
  if (elapsed <= 0) return entry.value;
  const double half_lives = elapsed / std::chrono::duration<double>(kBcryptUsageHalfLife).count();
  return entry.value * std::exp2(-half_lives);
}

double BcryptUsage::Of(const std::string& address, Clock::time_point now) const {
  const auto it = usage_.find(address);
  return it == usage_.end() ? 0 : Decayed(it->second, now);
}

void BcryptUsage::Charge(const std::string& address, Clock::time_point now) {
  auto it = usage_.find(address);
  if (it == usage_.end()) {
    if (usage_.size() >= max_addresses_) ForgetTheLeastUsed(now);
    it = usage_.emplace(address, Entry{0, now}).first;
  }
  it->second.value = Decayed(it->second, now) + 1;
  it->second.at = now;
}

void BcryptUsage::ForgetTheLeastUsed(Clock::time_point now) {
  std::vector<double> values;
  values.reserve(usage_.size());
  for (const auto& [address, entry] : usage_) values.push_back(Decayed(entry, now));
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double threshold = values.empty() ? 0 : *middle;
  std::size_t to_forget = usage_.size() - usage_.size() / 2;
  for (auto it = usage_.begin(); it != usage_.end() && to_forget > 0;) {
    if (Decayed(it->second, now) <= threshold) {
      it = usage_.erase(it);
      --to_forget;
    } else {
      ++it;
    }
  }
}

BcryptGate::BcryptGate(int slots, std::size_t max_waiters, std::chrono::milliseconds max_wait)
    : slots_(slots), max_waiters_(max_waiters), max_wait_(max_wait) {}

bool BcryptGate::Enter(const std::string& address) {
  MutexLock lock(&mutex_);
  const BcryptUsage::Clock::time_point now = BcryptUsage::Clock::now();
  if (in_use_ < slots_ && Queued() == 0) {
    ++in_use_;
    usage_.Charge(address, now);
    return true;
  }
  if (Queued() >= max_waiters_) {
    const auto busiest = Ranked(Rank::kBusiest, now);
    if (busiest == waiters_.end() || usage_.Of(busiest->address, now) <= usage_.Of(address, now)) {
      return false;
    }
    busiest->evicted = true;
    changed_.NotifyAll();
  }
  const auto waiter = waiters_.insert(waiters_.end(), Waiter{address, arrivals_++});
  const bool admitted = Wait(waiter);
  waiters_.erase(waiter);
  return admitted;
}

bool BcryptGate::Wait(Waiters::iterator waiter) {
  const auto deadline = BcryptUsage::Clock::now() + max_wait_;
  while (!waiter->admitted && !waiter->evicted) {
    if (!changed_.WaitUntil(&mutex_, deadline) && !waiter->admitted) return false;
  }
  return waiter->admitted;
}

void BcryptGate::Leave() {
  MutexLock lock(&mutex_);
  const BcryptUsage::Clock::time_point now = BcryptUsage::Clock::now();
  const auto quietest = Ranked(Rank::kQuietest, now);
  if (quietest == waiters_.end()) {
    --in_use_;
    return;
  }
  // The slot goes straight to the waiter: it stays in use.
  quietest->admitted = true;
  usage_.Charge(quietest->address, now);
  changed_.NotifyAll();
}

std::size_t BcryptGate::Queued() const {
  return static_cast<std::size_t>(std::count_if(
      waiters_.begin(), waiters_.end(), [](const Waiter& w) { return !w.admitted && !w.evicted; }));
}

BcryptGate::Waiters::iterator BcryptGate::Ranked(Rank rank, BcryptUsage::Clock::time_point now) {
  auto chosen = waiters_.end();
  double chosen_usage = 0;
  for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
    if (it->admitted || it->evicted) continue;
    const double usage = usage_.Of(it->address, now);
    // Strictly less keeps the earliest of equals; greater or equal takes the latest.
    const bool better = rank == Rank::kQuietest ? usage < chosen_usage : usage >= chosen_usage;
    if (chosen == waiters_.end() || better) {
      chosen = it;
      chosen_usage = usage;
    }
  }
  return chosen;
}

int BcryptGate::in_use() const {
  MutexLock lock(&mutex_);
  return in_use_;
}

std::size_t BcryptGate::waiting() const {
  MutexLock lock(&mutex_);
  return Queued();
}

}  // namespace scx
