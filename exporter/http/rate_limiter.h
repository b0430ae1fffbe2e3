// The web config's `rate_limit`, as exporter-toolkit applies it: one token bucket for
// every request the server answers (golang.org/x/time/rate's Limiter). It holds
// `burst` tokens and starts full; a token comes back every `interval`; a request takes
// one, or is refused (429) when none is left. Pure: the caller says what time it is.
//
// Kept as the time at which the bucket would be full again (GCRA): a request at
// `now` is allowed when that time, less `burst - 1` intervals, is not after `now`.
//
// Thread-safety: Allow may be called from several threads at once.
#ifndef SCX_EXPORTER_HTTP_RATE_LIMITER_H_
#define SCX_EXPORTER_HTTP_RATE_LIMITER_H_

#include <chrono>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace scx {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // `interval` > 0, `burst` >= 1 (the web config parser refuses the rest).
  RateLimiter(Clock::duration interval, int burst);
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  // Takes a token at `now` and returns true, or returns false and sets `*retry_after`
  // (when not null) to the time until one comes back. `now` never goes back.
  bool Allow(Clock::time_point now, Clock::duration* retry_after = nullptr);

 private:
  const Clock::duration interval_;
  const Clock::duration slack_;  // (burst - 1) intervals: how far ahead `full_at_` may run
  Mutex mutex_;
  // When the bucket is full again if no request comes; the clock's epoch at first,
  // so the bucket starts full.
  Clock::time_point full_at_ SCX_GUARDED_BY(mutex_);
};

}  // namespace scx

#endif  // SCX_EXPORTER_HTTP_RATE_LIMITER_H_
