// The block lists, clocks and static-brain fixture the tests of the scanner share
// (the scanner_*_test.cc files of this folder).
#ifndef SCX_TESTS_ENGINE_SCANNER_FIXTURES_H_
#define SCX_TESTS_ENGINE_SCANNER_FIXTURES_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <time.h>

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "base/stamp_cache.h"
#include "engine/scanner.h"
#include "exporter/metrics/metrics_renderer.h"
#include "tests/test_support.h"

namespace scx::testing {

inline const std::vector<std::string> kKeyvaultBlocks = {"sb_keyvault_core_1a2b3c4d",
                                                         "sb_keyvault_cli_5e6f7a8b"};
inline const std::vector<std::string> kM1ndBlocks = {"sb_m1nd_core_1a2b3c4d",
                                                     "sb_m1nd_mcp_9f8e7d6c", "sb_m1nd_ui_00ff00ff"};

// Replaces `path` as m1nd does, with its mtime set to `mtime_seconds` (Unix time).
inline void ReplaceWithMtime(const std::string& path, const std::string& contents,
                             std::int64_t mtime_seconds) {
  const std::string tmp = path + ".tmp";
  testing::WriteFile(tmp, contents);
  const struct timespec times[2] = {{mtime_seconds, 0}, {mtime_seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, tmp.c_str(), times, 0), 0);
  ASSERT_EQ(std::rename(tmp.c_str(), path.c_str()), 0);
}

// Now by CLOCK_REALTIME, in nanoseconds.
inline std::int64_t RealtimeNs() {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return std::int64_t{now.tv_sec} * 1000 * 1000 * 1000 + now.tv_nsec;
}

// A clock well ahead of the real one: every file a test writes is settled when first
// read, as one written long before the scan is.
inline std::int64_t SettledNowNs() { return RealtimeNs() + 10 * kStampSettleNs; }

class ScannerTest : public ::testing::Test {
 protected:
  // Adds a static brain bound to /home/u/<slug> with its runtime dir in the temp dir.
  std::string AddBrain(const std::string& name) {
    std::string runtime_dir = dir_.Join("rt-" + name);
    testing::MakeDirs(runtime_dir);
    // m1nd's runtime dir holds more than the store: one it emptied is out of view.
    testing::WriteFile(runtime_dir + "/graph_snapshot.json", "{}");
    config_.static_brains.push_back(StaticBrain{name, "/home/u/" + name, "", runtime_dir});
    return runtime_dir + "/system_blocks.json";
  }

  static const BrainReport& Find(const ScanResult& scan, const std::string& name) {
    for (const BrainReport& brain : scan.brains) {
      if (brain.brain().name == name) return brain;
    }
    ADD_FAILURE() << "no brain " << name;
    return scan.brains.front();
  }

  TempDir dir_;
  DiscoveryConfig config_;
  Scanner scanner_{StoreReaderOptions(), SettledNowNs};
};

// Sample lines of the rendered metrics that carry `label`.
inline std::vector<std::string> SeriesWith(const ScanResult& scan, const std::string& label) {
  BrainMetricsOptions every_series;
  every_series.store_details = true;
  std::istringstream text(RenderMetrics(scan, nullptr, every_series));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) {
    if (line[0] != '#' && line.find(label) != std::string::npos) lines.push_back(line);
  }
  return lines;
}

}  // namespace scx::testing

#endif  // SCX_TESTS_ENGINE_SCANNER_FIXTURES_H_
