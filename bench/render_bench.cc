// Cost of rendering one scan: the /metrics text (RenderMetrics, in both formats), the
// /api/v1/brains JSON (BrainsView) and the landing page of a synthetic fleet, built once in memory
// (no files). Brains look like a bench/run.py fleet: 1 in 20 a mismatch, 1 in 20 without a store, 1
// in 50 with zero blocks, a few sharing a skeleton.
//
//   render_bench [--brains=N] [--benchmark_filter=...] [other Google Benchmark flags]
//
// Prints the time of one render and the body's size and capacity. For the memory a
// render takes, run it under heaptrack and compare with a run that renders nothing:
//   heaptrack build/bin/render_bench --benchmark_min_time=1
//   heaptrack build/bin/render_bench --benchmark_filter=none
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "exporter/metrics/metrics_renderer.h"
#include "exporter/render/json_view.h"
#include "exporter/render/landing_page.h"

namespace scx {
namespace {

ScanResult* g_scan = nullptr;

std::shared_ptr<const Coherence> Verdict(CoherenceStatus status, const std::string& expected,
                                         const std::string& found) {
  Coherence verdict;
  verdict.status = status;
  verdict.expected_slug = expected;
  verdict.found_slug = found;
  if (status == CoherenceStatus::kMismatch) {
    verdict.reason = "skeleton_id sk_" + found + "_candidate does not name slug " + expected;
  }
  return std::make_shared<const Coherence>(verdict);
}

BrainReport MakeBrain(int index) {
  static const char* const kWords[] = {"core",  "api",    "store", "vault", "auth",   "index",
                                       "cache", "ingest", "sched", "proto", "crypto", "ui"};
  BrainReport report;
  const std::string name = std::string(kWords[index % 12]) + "-" + std::to_string(index);
  Brain* brain = report.mutable_brain();
  brain->name = name;
  brain->project_root = "/home/dev/src/" + name;
  brain->runtime_dir = "/home/dev/.m1nd/runtimes/" + name;
  brain->source = BrainSource::kRegistryProject;
  brain->identity_source = IdentitySource::kConfigProjectRoot;
  if (index % 20 == 7) {
    report.state = BrainState::kAbsent;
    report.store = StorePresence::kAbsent;
    return report;
  }
  report.store = StorePresence::kPresent;
  report.has_store_facts = true;
  report.store_version = 1 + index % 500;
  report.block_count = index % 50 == 3 ? 0 : 10;
  if (index % 20 == 3) {
    const std::string other =
        std::string(kWords[(index + 1) % 12]) + "-" + std::to_string(index + 1);
    report.state = BrainState::kMismatch;
    report.coherence = Verdict(CoherenceStatus::kMismatch, name, other);
    report.mismatch_since = 1796003827.979081 + index;
    SkeletonProvenance report_provenance;
    report_provenance.owner_brain = other;
    report_provenance.shared_with = {other};
    report_provenance.shared_count = 1;
    report.skeleton_provenance = std::make_shared<const SkeletonProvenance>(report_provenance);
  } else {
    report.state = BrainState::kOk;
    report.coherence = Verdict(CoherenceStatus::kOk, name, name);
  }
  return report;
}

void BM_RenderMetrics(benchmark::State& state) {
  std::size_t size = 0;
  std::size_t capacity = 0;
  for (auto _ : state) {
    // Reserved from the previous render's size, as a caller rendering each scan would.
    std::string text = RenderMetrics(*g_scan, nullptr, {}, ExpositionFormat::kText, size);
    size = text.size();
    capacity = text.capacity();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["brains"] = static_cast<double>(g_scan->brains.size());
  state.counters["MB"] = static_cast<double>(size) / 1e6;
  state.counters["capacity_MB"] = static_cast<double>(capacity) / 1e6;
}
BENCHMARK(BM_RenderMetrics)->Unit(benchmark::kMillisecond);

// The same text in OpenMetrics (what Prometheus scrapes): only the metadata differs.
void BM_RenderMetricsOpenMetrics(benchmark::State& state) {
  std::size_t size = 0;
  for (auto _ : state) {
    std::string text = RenderMetrics(*g_scan, nullptr, {}, ExpositionFormat::kOpenMetrics, size);
    size = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["MB"] = static_cast<double>(size) / 1e6;
}
BENCHMARK(BM_RenderMetricsOpenMetrics)->Unit(benchmark::kMillisecond);

void BM_BrainsView(benchmark::State& state) {
  std::size_t size = 0;
  std::size_t capacity = 0;
  for (auto _ : state) {
    // Reserved from the previous render's size, as the snapshots do.
    std::string json = BrainsView(g_scan->brains, {}, size);
    size = json.size();
    capacity = json.capacity();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["brains"] = static_cast<double>(g_scan->brains.size());
  state.counters["MB"] = static_cast<double>(size) / 1e6;
  state.counters["capacity_MB"] = static_cast<double>(capacity) / 1e6;
}
BENCHMARK(BM_BrainsView)->Unit(benchmark::kMillisecond);

// The same JSON grown as it is written, as it would be without the previous render's
// size: each doubling maps fresh pages and copies, about twice the time at 10,000
// brains. Why a snapshot passes its JSON size on to the next (exporter/snapshot.h).
void BM_BrainsViewGrowing(benchmark::State& state) {
  std::size_t size = 0;
  for (auto _ : state) {
    std::string json = BrainsView(g_scan->brains);
    size = json.size();
    benchmark::DoNotOptimize(json.data());
  }
  state.counters["MB"] = static_cast<double>(size) / 1e6;
}
BENCHMARK(BM_BrainsViewGrowing)->Unit(benchmark::kMillisecond);

// The landing page of the same fleet: at most 100 rows of each state, then "N more".
void BM_LandingPage(benchmark::State& state) {
  std::size_t size = 0;
  for (auto _ : state) {
    std::string html = RenderLandingPage(LandingPageInfo(), g_scan->brains, true, 1796003827.0);
    size = html.size();
    benchmark::DoNotOptimize(html.data());
  }
  state.counters["MB"] = static_cast<double>(size) / 1e6;
}
BENCHMARK(BM_LandingPage)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace scx

int main(int argc, char** argv) {
  int brains = 10000;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--brains=", 9) == 0) {
      brains = std::atoi(argv[i] + 9);
    } else {
      rest.push_back(argv[i]);
    }
  }
  scx::ScanResult scan;
  scan.brains.reserve(brains);
  for (int i = 0; i < brains; ++i) scan.brains.push_back(scx::MakeBrain(i));
  std::sort(scan.brains.begin(), scan.brains.end(),
            [](const scx::BrainReport& a, const scx::BrainReport& b) {
              return a.brain().name < b.brain().name;
            });  // as a scan lists them
  scx::g_scan = &scan;

  int rest_count = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_count, rest.data());
  if (benchmark::ReportUnrecognizedArguments(rest_count, rest.data())) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
