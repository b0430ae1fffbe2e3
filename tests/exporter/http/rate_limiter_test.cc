// The token bucket of the web config's rate_limit, on a clock the test moves.
#include "exporter/http/rate_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace scx {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = RateLimiter::Clock;

// Some time after the clock's epoch, as a steady clock reads after boot.
const Clock::time_point kStart = Clock::time_point() + std::chrono::hours(100);

TEST(RateLimiterTest, StartsFullThenGivesATokenEveryInterval) {
  RateLimiter limiter(seconds(1), 3);
  Clock::time_point now = kStart;
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Allow(now)) << i;  // the burst
  Clock::duration wait{};
  EXPECT_FALSE(limiter.Allow(now, &wait));
  EXPECT_EQ(wait, seconds(1));
  now += milliseconds(400);
  EXPECT_FALSE(limiter.Allow(now, &wait));
  EXPECT_EQ(wait, milliseconds(600));
  now += milliseconds(600);
  EXPECT_TRUE(limiter.Allow(now));  // one token back after one interval
  EXPECT_FALSE(limiter.Allow(now));
  now += seconds(2);
  EXPECT_TRUE(limiter.Allow(now));
  EXPECT_TRUE(limiter.Allow(now));
  EXPECT_FALSE(limiter.Allow(now));
}

// Refused requests take no token: a client that keeps asking gets in as soon as one
// comes back.
TEST(RateLimiterTest, RefusalsCostNothing) {
  RateLimiter limiter(seconds(1), 1);
  Clock::time_point now = kStart;
  EXPECT_TRUE(limiter.Allow(now));
  for (int i = 0; i < 9; ++i) {
    now += milliseconds(100);
    EXPECT_FALSE(limiter.Allow(now)) << i;
  }
  now += milliseconds(100);
  EXPECT_TRUE(limiter.Allow(now));
}

// A long idle time fills the bucket up to `burst`, never beyond.
TEST(RateLimiterTest, NeverHoldsMoreThanTheBurst) {
  RateLimiter limiter(milliseconds(10), 5);
  Clock::time_point now = kStart + std::chrono::hours(24);
  int allowed = 0;
  for (int i = 0; i < 100; ++i) allowed += limiter.Allow(now) ? 1 : 0;
  EXPECT_EQ(allowed, 5);
}

// At a steady rate above the limit, one request an interval gets through.
TEST(RateLimiterTest, SteadyRateIsOneAnInterval) {
  RateLimiter limiter(milliseconds(100), 2);
  Clock::time_point now = kStart;
  int allowed = 0;
  for (int i = 0; i < 1000; ++i) {  // 10 s at one request every 10 ms
    allowed += limiter.Allow(now) ? 1 : 0;
    now += milliseconds(10);
  }
  EXPECT_EQ(allowed, 2 + 99);  // the burst, then one every 100 ms for 9.99 s
}

// The largest rate_limit the web config takes does not overflow.
TEST(RateLimiterTest, LargestConfigDoesNotOverflow) {
  RateLimiter limiter(std::chrono::hours(24), 10000);
  Clock::time_point now = kStart;
  int allowed = 0;
  for (int i = 0; i < 10001; ++i) allowed += limiter.Allow(now) ? 1 : 0;
  EXPECT_EQ(allowed, 10000);
  Clock::duration wait{};
  EXPECT_FALSE(limiter.Allow(now, &wait));
  EXPECT_EQ(wait, std::chrono::hours(24));
}

// Threads at once share the one bucket: never more than the burst at one time.
TEST(RateLimiterTest, ThreadsShareTheBucket) {
  RateLimiter limiter(std::chrono::hours(1), 50);
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) allowed += limiter.Allow(kStart) ? 1 : 0;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(allowed.load(), 50);
}

}  // namespace
}  // namespace scx
