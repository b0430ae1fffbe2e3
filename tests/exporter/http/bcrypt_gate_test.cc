// Tests for the fair sharing of bcrypt slots between client addresses: the usage
// accounting (pure, time given), the gate's hand-over and queue, and a flood from
// many addresses that must not lock a quiet address out.
#include "exporter/http/bcrypt_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "exporter/http/basic_auth.h"
#include "tests/http_client.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = BcryptUsage::Clock;

TEST(BcryptUsage, EachCheckCountsOneAndHalvesEveryHalfLife) {
  BcryptUsage usage;
  const Clock::time_point start = Clock::now();
  EXPECT_EQ(usage.Of("10.0.0.1", start), 0);
  usage.Charge("10.0.0.1", start);
  usage.Charge("10.0.0.1", start);
  EXPECT_DOUBLE_EQ(usage.Of("10.0.0.1", start), 2);
  EXPECT_NEAR(usage.Of("10.0.0.1", start + kBcryptUsageHalfLife), 1, 1e-9);
  EXPECT_NEAR(usage.Of("10.0.0.1", start + 2 * kBcryptUsageHalfLife), 0.5, 1e-9);
  usage.Charge("10.0.0.1", start + kBcryptUsageHalfLife);
  EXPECT_NEAR(usage.Of("10.0.0.1", start + kBcryptUsageHalfLife), 2, 1e-9);
  EXPECT_EQ(usage.Of("10.0.0.2", start), 0);
}

TEST(BcryptUsage, PastItsBoundItForgetsTheLeastUsedHalf) {
  BcryptUsage usage(4);
  const Clock::time_point now = Clock::now();
  for (int i = 0; i < 5; ++i) usage.Charge("busy", now);
  usage.Charge("a", now);
  usage.Charge("b", now);
  usage.Charge("c", now);
  usage.Charge("d", now);  // the fifth address: half of the four are forgotten first
  EXPECT_LE(usage.size(), 3u);
  EXPECT_DOUBLE_EQ(usage.Of("busy", now), 5);  // the busiest is never the one forgotten
  EXPECT_DOUBLE_EQ(usage.Of("d", now), 1);
}

// Calls gate->Enter(address) on a thread; `entered` says how it ended.
std::thread EnterOnThread(BcryptGate* gate, const std::string& address, std::atomic<int>* entered) {
  return std::thread([=] { entered->store(gate->Enter(address) ? 1 : 0); });
}

void WaitForWaiters(const BcryptGate& gate, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + seconds(5);
  while (gate.waiting() != count && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(gate.waiting(), count);
}

// Runs `count` checks for `address` one after the other; false if one was refused.
bool RunChecks(BcryptGate* gate, const std::string& address, int count) {
  for (int i = 0; i < count; ++i) {
    if (!gate->Enter(address)) return false;
    gate->Leave();
  }
  return true;
}

TEST(BcryptGate, BeyondItsSlotsACallerWaitsThenIsTurnedAway) {
  BcryptGate gate(2, 8, milliseconds(50));
  EXPECT_TRUE(gate.Enter("a"));
  EXPECT_TRUE(gate.Enter("a"));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(gate.Enter("b"));
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(50));
  EXPECT_EQ(gate.in_use(), 2);
  gate.Leave();
  EXPECT_TRUE(gate.Enter("b"));
  EXPECT_EQ(gate.waiting(), 0u);
}

TEST(BcryptGate, AFreedSlotGoesToTheQuietestAddressNotTheEarliest) {
  BcryptGate gate(1, 8, seconds(10));
  ASSERT_TRUE(RunChecks(&gate, "flood", 5));
  ASSERT_TRUE(gate.Enter("flood"));
  std::atomic<int> flood_waiter{-1}, quiet_waiter{-1};
  std::thread first = EnterOnThread(&gate, "flood", &flood_waiter);
  WaitForWaiters(gate, 1);
  std::thread second = EnterOnThread(&gate, "quiet", &quiet_waiter);
  WaitForWaiters(gate, 2);
  gate.Leave();
  second.join();
  EXPECT_EQ(quiet_waiter.load(), 1);
  EXPECT_EQ(flood_waiter.load(), -1);  // still waiting
  gate.Leave();
  first.join();
  EXPECT_EQ(flood_waiter.load(), 1);
  gate.Leave();
  EXPECT_EQ(gate.in_use(), 0);
}

TEST(BcryptGate, AQuietNewcomerPushesTheBusiestOutOfAFullQueue) {
  BcryptGate gate(1, 1, seconds(10));
  ASSERT_TRUE(RunChecks(&gate, "flood", 3));
  ASSERT_TRUE(gate.Enter("flood"));
  std::atomic<int> flood_waiter{-1}, quiet_waiter{-1};
  std::thread first = EnterOnThread(&gate, "flood", &flood_waiter);
  WaitForWaiters(gate, 1);
  std::thread second = EnterOnThread(&gate, "quiet", &quiet_waiter);
  first.join();  // pushed out at once, long before its 10 s
  EXPECT_EQ(flood_waiter.load(), 0);
  WaitForWaiters(gate, 1);
  // A newcomer from the flooding address cannot push the quiet one out.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(gate.Enter("flood"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, seconds(5));
  gate.Leave();
  second.join();
  EXPECT_EQ(quiet_waiter.load(), 1);
  gate.Leave();
}

// The attack, scaled down: 24 clients on 8 addresses (fewer than the gate's
// 32 waiters: refused ones would spin) flood wrong passwords through 2 bcrypt slots
// (each check 100 ms, callers wait at most 800 ms); a user on another address, whose
// credentials are never cached, logs in 10 times meanwhile. Refused when busy, it got
// 0 of 60 through in 30 s; served first come first served, it would wait behind 22
// flooders (1.1 s) and be turned away too. The flood runs 4 s first, so that every
// flooding address has had more checks than the user will have had by its tenth: each
// of its checks then waits for one check to end (100 ms), and the rest of the 800 ms is
// for a loaded machine (with 40 ms checks, 300 ms and no head start, a sanitizer build
// beside a CPU hog missed once in five).
TEST(BcryptGate, AFloodFromManyAddressesDoesNotLockAQuietUserOut) {
  BasicAuth auth(
      {{"alice", "hash-of-wonderland"}},
      [](const std::string& password, const std::string& hash) {
        std::this_thread::sleep_for(milliseconds(100));
        return hash == "hash-of-" + password;
      },
      /*cache_capacity=*/0, /*bcrypt_slots=*/2, milliseconds(800));
  std::atomic<bool> stop{false};
  std::vector<std::thread> flood;
  for (int i = 0; i < 24; ++i) {
    flood.emplace_back([&auth, &stop, i] {
      const std::string header = testing::BasicAuthorization("alice", "guess");
      const std::string address = "10.0.0." + std::to_string(i % 8);
      while (!stop.load()) auth.Check(header.c_str(), address);
    });
  }
  std::this_thread::sleep_for(milliseconds(4000));  // the flood holds every slot
  int allowed = 0;
  const std::string header = testing::BasicAuthorization("alice", "wonderland");
  for (int attempt = 0; attempt < 10; ++attempt) {
    if (auth.Check(header.c_str(), "192.168.1.7") == AuthResult::kAllowed) ++allowed;
  }
  stop.store(true);
  for (std::thread& thread : flood) thread.join();
  EXPECT_EQ(allowed, 10);
}

}  // namespace
}  // namespace scx
