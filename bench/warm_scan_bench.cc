// Cost of a warm scan of a fleet on disk (one made by bench/run.py, say), in one
// process: discovery without and with its DiscoveryCache, in turn, and Scanner::Scan
// once two scans have read every store. Prints medians of wall time and the CPU time
// of a scan on all its threads.
//
//   warm_scan_bench --registry=DIR [--scans=N] [--scan-only]
//
// DIR is the fleet's m1nd registry folder (the one its config.yml names). --scan-only
// times Scanner::Scan alone (no discovery loops first): for a profiler.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/discovery/discovery.h"
#include "engine/scanner.h"

namespace scx {
namespace {

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double CpuSeconds() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

struct Timing {
  double wall_median = 0;
  double cpu_mean = 0;
};

// Runs `body` `times` times; the median wall time and the mean CPU time of one run.
Timing Time(int times, const std::function<void()>& body) {
  std::vector<double> walls;
  const double cpu_start = CpuSeconds();
  for (int i = 0; i < times; ++i) {
    const double start = WallSeconds();
    body();
    walls.push_back(WallSeconds() - start);
  }
  Timing timing;
  timing.cpu_mean = (CpuSeconds() - cpu_start) / times;
  std::sort(walls.begin(), walls.end());
  timing.wall_median = walls[walls.size() / 2];
  return timing;
}

void ScanWarm(const DiscoveryConfig& config, int scans) {
  Scanner scanner;
  scanner.Scan(config);
  scanner.Scan(config);
  const Timing warm = Time(scans, [&] { scanner.Scan(config); });
  std::printf("warm Scanner::Scan: %.3f s wall (median of %d), %.3f s CPU per scan\n",
              warm.wall_median, scans, warm.cpu_mean);
}

int Run(const std::string& registry, int scans, bool scan_only) {
  DiscoveryConfig config;
  config.registries = {registry};
  if (scan_only) {
    ScanWarm(config, scans);
    return 0;
  }
  const Parallelism parallelism;  // as the exporter: one thread per core, at most 4
  std::vector<Brain> previous = DiscoverBrains(config, {}).brains;
  DiscoveryCache cache;
  DiscoverBrains(config, previous, nullptr, parallelism, &cache);  // fills the cache
  std::vector<double> uncached, cached;
  for (int i = 0; i < scans; ++i) {
    uncached.push_back(
        Time(1, [&] { DiscoverBrains(config, previous, nullptr, parallelism); }).wall_median);
    cached.push_back(Time(1, [&] {
                       DiscoverBrains(config, previous, nullptr, parallelism, &cache);
                     }).wall_median);
  }
  std::sort(uncached.begin(), uncached.end());
  std::sort(cached.begin(), cached.end());
  std::printf("brains %zu\n", previous.size());
  std::printf("discovery without cache: %.3f s, with cache: %.3f s (wall, median of %d)\n",
              uncached[uncached.size() / 2], cached[cached.size() / 2], scans);

  ScanWarm(config, scans);
  return 0;
}

}  // namespace
}  // namespace scx

int main(int argc, char** argv) {
  std::string registry;
  int scans = 11;
  bool scan_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--registry=", 11) == 0) {
      registry = argv[i] + 11;
    } else if (std::strncmp(argv[i], "--scans=", 8) == 0) {
      scans = std::max(1, std::atoi(argv[i] + 8));
    } else if (std::strcmp(argv[i], "--scan-only") == 0) {
      scan_only = true;
    } else {
      std::fprintf(stderr, "usage: warm_scan_bench --registry=DIR [--scans=N] [--scan-only]\n");
      return 2;
    }
  }
  if (registry.empty()) {
    std::fprintf(stderr, "usage: warm_scan_bench --registry=DIR [--scans=N] [--scan-only]\n");
    return 2;
  }
  return scx::Run(registry, scans, scan_only);
}
