// Tests for parallel scans: the serial results in the same order; a stop leaves no trace.
#include "engine/scanner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "exporter/metrics/metrics_renderer.h"
#include "tests/engine/scanner_fixtures.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using testing::ReplaceFileAtomically;
using testing::SettledNowNs;
using testing::StoreJson;
using testing::TempDir;

// A fleet of static brains in every state a store can be in, for comparing a
// parallel scan with a serial one.
class MixedFleet {
 public:
  static constexpr int kBrains = 240;
  static constexpr std::int64_t kMaxBytes = 4096;

  explicit MixedFleet(const TempDir& dir) : dir_(dir) {
    for (int i = 0; i < kBrains; ++i) {
      const std::string name = "b" + std::to_string(1000 + i);
      const std::string runtime_dir = dir_.Join("rt-" + name);
      testing::MakeDirs(runtime_dir);
      config_.static_brains.push_back(StaticBrain{name, "/home/u/" + name, "", runtime_dir});
      Write(i, i % 8);
    }
  }

  // Puts brain `i`'s store in state `kind`: 0 ok, 1 mismatch, 2 absent, 3 torn (parse),
  // 4 FIFO, 5 a folder, 6 too large, 7 wrong schema.
  void Write(int i, int kind) {
    const std::string name = config_.static_brains[static_cast<std::size_t>(i)].name;
    const std::string store =
        config_.static_brains[static_cast<std::size_t>(i)].runtime_dir + "/system_blocks.json";
    std::filesystem::remove_all(store);
    const std::vector<std::string> blocks = {"sb_" + name + "_a", "sb_" + name + "_b"};
    switch (kind) {
      case 0:
        ReplaceFileAtomically(store, StoreJson("sk_" + name + "_x", blocks, i));
        break;
      case 1:
        ReplaceFileAtomically(store, StoreJson("sk_keyvault_x", {"sb_keyvault_a"}, i));
        break;
      case 2:
        break;
      case 3:
        ReplaceFileAtomically(store, StoreJson("sk_" + name + "_x", blocks).substr(0, 30));
        break;
      case 4:
        ASSERT_EQ(mkfifo(store.c_str(), 0600), 0);
        break;
      case 5:
        testing::MakeDirs(store);
        break;
      case 6:
        ReplaceFileAtomically(store, StoreJson("sk_" + name + "_x",
                                               std::vector<std::string>(200, "sb_" + name + "_z")));
        break;
      default:
        ReplaceFileAtomically(store, R"({"schema": "something-else", "blocks": []})");
        break;
    }
  }

  const DiscoveryConfig& config() const { return config_; }

 private:
  const TempDir& dir_;
  DiscoveryConfig config_;
};

// Two scans agree on every brain, in the same order, and on what they counted.
void ExpectSameScan(const ScanResult& serial, const ScanResult& parallel) {
  ASSERT_FALSE(serial.stopped);
  ASSERT_FALSE(parallel.stopped);
  ASSERT_EQ(serial.brains.size(), parallel.brains.size());
  for (std::size_t i = 0; i < serial.brains.size(); ++i) {
    const BrainReport& a = serial.brains[i];
    const BrainReport& b = parallel.brains[i];
    SCOPED_TRACE(a.brain().name);
    EXPECT_EQ(a.brain().name, b.brain().name);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.store, b.store);
    EXPECT_EQ(a.read_error, b.read_error);
    EXPECT_EQ(a.read_error_message, b.read_error_message);
    EXPECT_EQ(a.coherence == nullptr, b.coherence == nullptr);
    EXPECT_EQ(a.verdict_stale, b.verdict_stale);
    EXPECT_EQ(a.block_count, b.block_count);
    EXPECT_EQ(a.read_errors_total, b.read_errors_total);
  }
  EXPECT_EQ(serial.stores_parsed, parallel.stores_parsed);
  EXPECT_EQ(serial.stores_unchanged, parallel.stores_unchanged);
  EXPECT_EQ(serial.verdicts_computed, parallel.verdicts_computed);
  ASSERT_EQ(serial.changes.size(), parallel.changes.size());
  for (std::size_t i = 0; i < serial.changes.size(); ++i) {
    EXPECT_EQ(serial.changes[i].brain, parallel.changes[i].brain);
    EXPECT_EQ(serial.changes[i].from, parallel.changes[i].from);
    EXPECT_EQ(serial.changes[i].to, parallel.changes[i].to);
  }
  // Everything else a scan exports, verdicts and provenance included.
  EXPECT_EQ(RenderMetrics(serial, nullptr), RenderMetrics(parallel, nullptr));
}

class ParallelScanTest : public ::testing::Test {
 protected:
  ParallelScanTest() : fleet_(dir_) {
    StoreReaderOptions options;
    options.max_bytes = MixedFleet::kMaxBytes;
    serial_.SetOptions(options);
    parallel_.SetOptions(options);
    serial_.SetParallelism(Parallelism{1, 1});
    parallel_.SetParallelism(Parallelism{4, 1});  // four threads, whatever the machine
  }

  TempDir dir_;
  MixedFleet fleet_;
  Scanner serial_{StoreReaderOptions(), SettledNowNs};
  Scanner parallel_{StoreReaderOptions(), SettledNowNs};
};

TEST_F(ParallelScanTest, GivesTheSerialResultsInTheSameOrder) {
  const ScanResult cold = parallel_.Scan(fleet_.config());
  ExpectSameScan(serial_.Scan(fleet_.config()), cold);
  ASSERT_EQ(cold.brains.size(), static_cast<std::size_t>(MixedFleet::kBrains));
  EXPECT_EQ(cold.stores_parsed, MixedFleet::kBrains / 4);  // ok and mismatch
  for (std::size_t i = 1; i < cold.brains.size(); ++i) {
    EXPECT_LT(cold.brains[i - 1].brain().name, cold.brains[i].brain().name);
  }
  const BrainState expected[] = {BrainState::kOk,         BrainState::kMismatch,
                                 BrainState::kAbsent,     BrainState::kUnreadable,
                                 BrainState::kUnreadable, BrainState::kUnreadable,
                                 BrainState::kUnreadable, BrainState::kUnreadable};
  for (std::size_t i = 0; i < cold.brains.size(); ++i) {
    EXPECT_EQ(cold.brains[i].state, expected[i % 8]) << cold.brains[i].brain().name;
  }

  // Warm: nothing changed, nothing read.
  const ScanResult warm = parallel_.Scan(fleet_.config());
  ExpectSameScan(serial_.Scan(fleet_.config()), warm);
  EXPECT_EQ(warm.stores_parsed, 0);
  EXPECT_TRUE(warm.changes.empty());

  // Every brain moves on to another state: stale verdicts, new verdicts, gone stores.
  for (int i = 0; i < MixedFleet::kBrains; ++i) fleet_.Write(i, (i % 8 + 1 + i / 8) % 8);
  const ScanResult moved = parallel_.Scan(fleet_.config());
  ExpectSameScan(serial_.Scan(fleet_.config()), moved);
  EXPECT_FALSE(moved.changes.empty());
}

TEST_F(ParallelScanTest, AStopWhileReadingLeavesNoTrace) {
  // A stop set at some moment of a parallel scan: either the scan ended first, or it
  // is marked stopped, publishes nothing and the next scan is as if it never ran.
  for (int attempt = 0; attempt < 20; ++attempt) {
    Scanner scanner;
    StoreReaderOptions options;
    options.max_bytes = MixedFleet::kMaxBytes;
    scanner.SetOptions(options);
    scanner.SetParallelism(Parallelism{4, 1});
    std::atomic<bool> stop{false};
    std::thread stopper([&stop, attempt] {
      for (int spin = 0; spin < attempt * 50; ++spin) std::this_thread::yield();
      stop = true;
    });
    const ScanResult result = scanner.Scan(fleet_.config(), &stop);
    stopper.join();
    if (!result.stopped) continue;
    EXPECT_TRUE(result.brains.empty());
    EXPECT_TRUE(result.changes.empty());
    Scanner fresh;
    fresh.SetOptions(options);
    ExpectSameScan(fresh.Scan(fleet_.config()), scanner.Scan(fleet_.config()));
  }
  // Set before the scan, the stop always wins.
  std::atomic<bool> stop{true};
  EXPECT_TRUE(parallel_.Scan(fleet_.config(), &stop).stopped);
}

}  // namespace
}  // namespace scx
