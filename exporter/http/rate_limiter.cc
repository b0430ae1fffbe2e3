// A token bucket for the web config's rate_limit.
#include "exporter/http/rate_limiter.h"

#include <algorithm>

namespace scx {

RateLimiter::RateLimiter(Clock::duration interval, int burst)
    : interval_(interval), slack_(interval * (burst - 1)) {}

bool RateLimiter::Allow(Clock::time_point now, Clock::duration* retry_after) {
  MutexLock lock(&mutex_);
  const Clock::time_point from = std::max(full_at_, now);
  if (from - slack_ > now) {  // no token left: the next one is due at from - slack_
    if (retry_after != nullptr) *retry_after = from - slack_ - now;
    return false;
  }
  full_at_ = from + interval_;
  return true;
}

}  // namespace scx
