// ConfigReloader: coalesced and spaced loads, results handed to waiters, and a stop
// that never waits for a hung load. Loads are blocked on gates the test opens, so no
// assertion depends on timing.
#include "exporter/config_reloader.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
constexpr milliseconds kBound{5000};  // for things that happen at once
constexpr milliseconds kLongSpacing{3600 * 1000};

// A door the load waits at until the test opens it.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }
  void Pass() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [this] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

struct Counters {
  std::atomic<int> loads{0};
  std::atomic<int> applied{0};
  std::atomic<int> returned{0};
};

ConfigReloader::Apply CountApplies(std::shared_ptr<Counters> counters) {
  return
      [counters](const std::string&, const Config&, const ReloadOutcome&) { ++counters->applied; };
}

TEST(ConfigReloaderTest, ABurstDuringALoadCostsOneMoreLoad) {
  auto counters = std::make_shared<Counters>();
  auto gate = std::make_shared<Gate>();
  ConfigReloader reloader(
      [counters, gate](Config*, std::string*) {
        if (++counters->loads == 1) gate->Pass();
        return true;
      },
      CountApplies(counters), milliseconds(0));
  reloader.Start();
  const ConfigReloader::Ticket first = reloader.Request("http");
  EXPECT_TRUE(first.immediate);
  ASSERT_TRUE(testing::WaitFor([&] { return reloader.loads_started() == 1; }, kBound));
  std::vector<std::thread> senders;
  std::atomic<int> joined{0};
  for (int t = 0; t < 4; ++t) {
    senders.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        const ConfigReloader::Ticket ticket = reloader.Request("http");
        if (ticket.load == first.load + 1 && !ticket.immediate) ++joined;
      }
    });
  }
  for (std::thread& sender : senders) sender.join();
  EXPECT_EQ(joined, 100);  // every request while the first load runs joins the second
  gate->Open();
  ASSERT_TRUE(reloader.WaitFor(first.load + 1, kBound));
  EXPECT_EQ(reloader.loads_started(), 2u);
  EXPECT_EQ(counters->loads, 2);
  EXPECT_EQ(counters->applied, 2);
}

TEST(ConfigReloaderTest, LoadsAreSpacedAndRequestsMeanwhileShareOne) {
  auto counters = std::make_shared<Counters>();
  ConfigReloader reloader(
      [counters](Config*, std::string*) {
        ++counters->loads;
        return true;
      },
      CountApplies(counters), kLongSpacing);
  reloader.Start();
  const ConfigReloader::Ticket first = reloader.Request("SIGHUP");
  ASSERT_TRUE(reloader.WaitFor(first.load, kBound));
  for (int i = 0; i < 100; ++i) {
    const ConfigReloader::Ticket ticket = reloader.Request("http");
    EXPECT_EQ(ticket.load, first.load + 1);
    EXPECT_FALSE(ticket.immediate);  // too soon after the first
  }
  EXPECT_FALSE(reloader.WaitFor(first.load + 1, milliseconds(50)));
  EXPECT_EQ(reloader.loads_started(), 1u);
  testing::CallWithin(kBound, "Stop while a load waits for its turn",
                      [&] { reloader.Stop(milliseconds(0)); });
  EXPECT_EQ(counters->loads, 1);
}

TEST(ConfigReloaderTest, WaitersGetTheOutcome) {
  auto counters = std::make_shared<Counters>();
  std::string trigger_seen;
  ConfigReloader reloader(
      [](Config*, std::string* error) {
        *error = "config.yml:3: key 'x': unknown key";
        return false;
      },
      [&](const std::string& trigger, const Config&, const ReloadOutcome& outcome) {
        trigger_seen = trigger;
        EXPECT_FALSE(outcome.success);
      },
      milliseconds(0));
  reloader.Start();
  const ConfigReloader::Ticket ticket = reloader.Request("http");
  const std::optional<ReloadOutcome> outcome = reloader.WaitFor(ticket.load, kBound);
  ASSERT_TRUE(outcome);
  EXPECT_FALSE(outcome->success);
  EXPECT_EQ(outcome->error, "config.yml:3: key 'x': unknown key");
  EXPECT_EQ(trigger_seen, "http");
}

TEST(ConfigReloaderTest, StopAbandonsAHungLoadAndNeverAppliesIt) {
  auto counters = std::make_shared<Counters>();
  auto gate = std::make_shared<Gate>();
  auto reloader = std::make_unique<ConfigReloader>(
      [counters, gate](Config*, std::string*) {
        ++counters->loads;
        gate->Pass();  // hangs like a read on a dead network mount
        ++counters->returned;
        return true;
      },
      CountApplies(counters), milliseconds(0));
  reloader->Start();
  const ConfigReloader::Ticket ticket = reloader->Request("http");
  ASSERT_TRUE(testing::WaitFor([&] { return counters->loads == 1; }, kBound));
  std::thread waiter([&] { EXPECT_FALSE(reloader->WaitFor(ticket.load, kLongSpacing)); });
  testing::CallWithin(kBound, "Stop during a hung load", [&] { reloader->Stop(milliseconds(50)); });
  waiter.join();                                  // woken by Stop
  EXPECT_EQ(reloader->Request("http").load, 0u);  // stopped: nothing is queued
  reloader.reset();
  gate->Open();  // the abandoned load returns after its reloader is gone
  ASSERT_TRUE(testing::WaitFor([&] { return counters->returned == 1; }, kBound));
  std::this_thread::sleep_for(milliseconds(20));  // the thread ends without applying
  EXPECT_EQ(counters->applied, 0);
}

}  // namespace
}  // namespace scx
