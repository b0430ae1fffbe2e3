// Tests for the parallel loop: every index exactly once, how many threads (when
// automatic, as many as the CPUs the process may use), a stop in the middle, and an
// exception carried back to the caller.
#include "base/parallel_for.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "base/usable_cpus.h"

namespace scx {
namespace {

TEST(ThreadsForTest, SmallLoopsStayOnTheCallingThread) {
  EXPECT_EQ(1, ThreadsFor(Parallelism{4, 128}, 0));
  EXPECT_EQ(1, ThreadsFor(Parallelism{4, 128}, 127));
  EXPECT_EQ(2, ThreadsFor(Parallelism{4, 128}, 128));  // one more thread per 128
  EXPECT_EQ(3, ThreadsFor(Parallelism{4, 128}, 256));
  EXPECT_EQ(4, ThreadsFor(Parallelism{4, 128}, 100000));
  EXPECT_EQ(1, ThreadsFor(Parallelism{1, 1}, 100000));
}

TEST(ThreadsForTest, AutomaticIsTheUsableCpusAtMostTheCap) {
  const int expected = std::min(UsableCpus(), kMaxParallelThreads);
  EXPECT_EQ(expected, ThreadsFor(Parallelism{0, 1}, 100000));
  EXPECT_EQ(kMaxParallelThreads, ThreadsFor(Parallelism{64, 1}, 100000));
  EXPECT_EQ(expected, ThreadsFor(Parallelism{-3, 1}, 100000));
}

TEST(ThreadsForTest, WithUsableCpusFixesOnlyAnAutomaticCount) {
  const Parallelism automatic = WithUsableCpus(Parallelism{0, 7});
  EXPECT_EQ(UsableCpus(), automatic.threads);
  EXPECT_EQ(7u, automatic.min_items);
  EXPECT_EQ(UsableCpus(), WithUsableCpus(Parallelism{-3, 1}).threads);
  EXPECT_EQ(3, WithUsableCpus(Parallelism{3, 1}).threads);
  EXPECT_EQ(1, WithUsableCpus(Parallelism{1, 1}).threads);
  // Once fixed, the loop uses it as an explicit count.
  EXPECT_EQ(std::min(UsableCpus(), kMaxParallelThreads), ThreadsFor(automatic, 100000));
}

TEST(ParallelForTest, RunsEveryIndexExactlyOnce) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{5000}}) {
    std::vector<std::atomic<int>> runs(count);
    ASSERT_TRUE(ParallelFor(count, Parallelism{4, 1}, [&runs](std::size_t i) { ++runs[i]; }));
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(1, runs[i].load()) << i;
  }
}

TEST(ParallelForTest, UsesTheThreadsItSays) {
  std::vector<std::thread::id> ids(4000);
  ParallelFor(ids.size(), Parallelism{1, 1},
              [&ids](std::size_t i) { ids[i] = std::this_thread::get_id(); });
  for (const std::thread::id& id : ids) EXPECT_EQ(std::this_thread::get_id(), id);
}

TEST(ParallelForTest, AStopEndsTheLoopAndSaysSo) {
  constexpr std::size_t kCount = 100000;
  constexpr std::size_t kStopAt = 1000;
  std::atomic<bool> stop{false};
  std::vector<std::atomic<int>> runs(kCount);
  const bool finished = ParallelFor(
      kCount, Parallelism{4, 1},
      [&](std::size_t i) {
        ++runs[i];
        if (i == kStopAt) stop = true;
      },
      &stop);
  EXPECT_FALSE(finished);
  std::size_t ran = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    EXPECT_LE(runs[i].load(), 1) << i;
    ran += static_cast<std::size_t>(runs[i].load());
  }
  EXPECT_EQ(1, runs[kStopAt].load());
  // After the stop each thread finishes at most the index it was on.
  EXPECT_LT(ran, kCount);

  std::atomic<bool> already{true};
  std::atomic<int> calls{0};
  EXPECT_FALSE(ParallelFor(
      10, Parallelism{4, 1}, [&](std::size_t) { ++calls; }, &already));
  EXPECT_EQ(0, calls.load());
}

TEST(ParallelForTest, AnExceptionReachesTheCallerAfterEveryThreadEnded) {
  std::atomic<int> running{0};
  std::atomic<int> calls{0};
  std::atomic<bool> thrown{false};
  auto body = [&](std::size_t i) {
    ++running;
    ++calls;
    if (i == 10) {
      --running;
      thrown = true;
      throw std::runtime_error("index 10");
    }
    // The indices after 10 wait for the throw, so that the other threads cannot run
    // them all while the thread holding index 10 is descheduled, and then take a
    // little time each, so that they cannot run them all before the throw is caught.
    if (i > 10) {
      while (!thrown) std::this_thread::yield();
      std::this_thread::sleep_for(std::chrono::microseconds(10));
    }
    --running;
  };
  EXPECT_THROW(ParallelFor(100000, Parallelism{4, 1}, body), std::runtime_error);
  EXPECT_EQ(0, running.load());
  EXPECT_LT(calls.load(), 100000);  // the others stopped early
}

}  // namespace
}  // namespace scx
