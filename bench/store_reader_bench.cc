// Store reader cost against a bare open/read/close loop over the same files.
//
// Generates 1,000 realistic stores of 50 blocks each in a temporary directory, then
// times, over several interleaved repetitions (median reported, per 1,000 files):
//   (a) baseline: open/read-to-EOF/close of every file into a reused buffer,
//   (b) scx::ReadStore on every file (stat, open, fstat, read, close, parse),
//   (c) reference: the same bare read, then a full nlohmann::json DOM parse.
// and prints the ratios (b)/(a) (target <= 2.5) and (c)/(a).
//
//   store_reader_bench [--files=N] [--blocks=N] [--reps=N] [--no-dom] [--check]
//                      [--benchmark_filter=... (runs the Google Benchmark variants too)]
// --check exits 1 when (b)/(a) exceeds the target.
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include "engine/store_reader.h"

namespace scx {
namespace {

constexpr double kTargetRatio = 2.5;

struct Config {
  int files = 1000;
  int blocks = 50;
  int reps = 15;
  bool check = false;
  bool dom = true;
  bool gbench = false;
};

std::vector<std::string> g_paths;

std::string Hex8(std::mt19937_64& rng) {
  char buffer[9];
  std::snprintf(buffer, sizeof(buffer), "%08x", static_cast<unsigned>(rng()));
  return buffer;
}

// One store shaped like m1nd's: skeleton, blocks with membership, sockets, receipt
// contract and layout, unmapped files; m1nd's field order, pretty-printed with a
// 2-space indent.
std::string MakeStore(int index, int blocks, std::mt19937_64& rng) {
  static const char* const kWords[] = {"core",  "api",    "store", "vault", "auth",   "index",
                                       "cache", "ingest", "sched", "proto", "crypto", "ui"};
  static const char* const kRoles[] = {"primary", "shared", "test", "docs"};
  auto word = [&] { return std::string(kWords[rng() % 12]); };
  const std::string project = word() + std::to_string(index);
  // Brains differ: some map a few files per block, others many, with more sockets.
  const int richness = static_cast<int>(rng() % 4);

  nlohmann::ordered_json store;
  store["schema"] = kStoreSchema;
  store["store_version"] = 1 + static_cast<int>(rng() % 500);
  store["skeleton"] = {
      {"skeleton_id", "sk_" + project + "_candidate"},
      {"version", 1 + static_cast<int>(rng() % 9)},
      {"state", "candidate"},
      {"ratification",
       {{"method", ""}, {"ratifier", ""}, {"ratified_at", ""}, {"commit", Hex8(rng)}}}};
  nlohmann::ordered_json block_array = nlohmann::ordered_json::array();
  std::vector<std::string> ids;
  for (int b = 0; b < blocks; ++b) {
    const std::string name = word();
    const std::string id = "sb_" + project + "_" + name + "_" + Hex8(rng);
    ids.push_back(id);
    nlohmann::ordered_json membership = nlohmann::ordered_json::array();
    const int members = 1 + static_cast<int>(rng() % (1 + richness));
    for (int m = 0; m < members; ++m) {
      membership.push_back(
          {{"path", "src/" + name + "/" + word() + "_" + std::to_string(m) + ".rs"},
           {"role", kRoles[rng() % 4]},
           {"optional", rng() % 2 == 0}});
    }
    auto sockets = [&](const char* kind) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      const int count = static_cast<int>(rng() % (1 + richness / 2));
      for (int s = 0; s < count; ++s) {
        list.push_back({{"alias", std::string(kind) + "_" + word()},
                        {"to", ids[rng() % ids.size()]},
                        {"type", "fn " + word() + "(&self) -> Result<(), Error>"}});
      }
      return list;
    };
    block_array.push_back(
        {{"block_id", id},
         {"name", name},
         {"purpose", "Owns the " + name + " concerns of " + project +
                         ": \"boundaries\", invariants and the receipts it must emit."},
         {"kind", rng() % 3 ? "scanned" : "planned"},
         {"state", "candidate"},
         {"membership", membership},
         {"sockets",
          {{"inputs", sockets("in")}, {"outputs", sockets("out")}, {"external", sockets("ext")}}},
         {"receipt_contract",
          {{"version", 1},
           {"required",
            nlohmann::ordered_json::array({{{"type", "test"}}, {{"type", "structural"}}})},
           {"optional", nlohmann::ordered_json::array()},
           {"waived", nlohmann::ordered_json::array()},
           {"declared_by", nullptr},
           {"declared_at", nullptr}}},
         {"layout",
          {{"x", static_cast<int>(rng() % 1200)},
           {"y", static_cast<int>(rng() % 800)},
           {"locked", false},
           {"algorithm_seed", nullptr},
           {"version", 1}}}});
  }
  store["blocks"] = block_array;
  store["unmapped_policy"] = {{"visible", true},
                              {"default_action", "leave_unmapped_until_ratified"}};
  nlohmann::ordered_json unmapped = nlohmann::ordered_json::array();
  const int unmapped_total = static_cast<int>(rng() % 6);
  for (int u = 0; u < unmapped_total; ++u) unmapped.push_back("scripts/" + word() + ".sh");
  store["unmapped_files"] = unmapped;
  store["unmapped_total"] = unmapped_total;
  return store.dump(2) + "\n";
}

// The baseline's reusable buffer. It starts on a page, as a buffer tuned for reading
// would: a read into malloc's 16-byte-aligned memory copies at half the speed on x86-64.
class ReadBuffer {
 public:
  explicit ReadBuffer(std::size_t size) { Resize(size); }
  char* data() { return data_.get(); }
  std::size_t size() const { return size_; }
  void Resize(std::size_t size) {
    constexpr std::size_t kPage = 4096;
    std::unique_ptr<char, Free> grown(
        static_cast<char*>(std::aligned_alloc(kPage, (size + kPage - 1) / kPage * kPage)));
    if (grown == nullptr) {
      std::fprintf(stderr, "out of memory\n");
      std::exit(1);
    }
    if (data_ != nullptr) std::memcpy(grown.get(), data_.get(), size_);
    data_ = std::move(grown);
    size_ = size;
  }

 private:
  struct Free {
    void operator()(char* data) const { std::free(data); }
  };
  std::unique_ptr<char, Free> data_;
  std::size_t size_ = 0;
};

// Reads a whole file with nothing but open/read/close; returns the byte count.
std::size_t BareRead(const std::string& path, ReadBuffer* buffer) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::perror(path.c_str());
    std::exit(1);
  }
  std::size_t used = 0;
  for (;;) {
    if (used == buffer->size()) buffer->Resize(buffer->size() * 2);
    const ssize_t n = read(fd, buffer->data() + used, buffer->size() - used);
    if (n <= 0) break;
    used += static_cast<std::size_t>(n);
  }
  close(fd);
  return used;
}

// The three variants; each returns a checksum so that nothing is optimised away.
std::uint64_t RunBaseline() {
  static ReadBuffer buffer(1 << 20);
  std::uint64_t total = 0;
  for (const std::string& path : g_paths) total += BareRead(path, &buffer);
  return total;
}

std::uint64_t RunReadStore() {
  std::uint64_t total = 0;
  for (const std::string& path : g_paths) {
    const StoreReadResult result = ReadStore(path, StoreReaderOptions());
    if (result.error != StoreError::kNone) {
      std::fprintf(stderr, "ReadStore failed: %s\n", result.message.c_str());
      std::exit(1);
    }
    total += static_cast<std::uint64_t>(result.contents.block_count);
  }
  return total;
}

std::uint64_t RunNlohmann() {
  static ReadBuffer buffer(1 << 20);
  std::uint64_t total = 0;
  for (const std::string& path : g_paths) {
    const std::size_t size = BareRead(path, &buffer);
    const nlohmann::json doc = nlohmann::json::parse(buffer.data(), buffer.data() + size);
    total += doc["blocks"].size();
  }
  return total;
}

struct Sample {
  double wall = 0;  // steady_clock seconds
  double cpu = 0;   // this thread's CPU seconds (user + system): less sensitive to a busy host
};

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

Sample Measure(const std::function<std::uint64_t()>& run) {
  const double cpu_start = ThreadCpuSeconds();
  const auto start = std::chrono::steady_clock::now();
  benchmark::DoNotOptimize(run());
  const auto end = std::chrono::steady_clock::now();
  Sample sample;
  sample.cpu = ThreadCpuSeconds() - cpu_start;
  sample.wall = std::chrono::duration<double>(end - start).count();
  return sample;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct Summary {
  double wall_median, wall_min, cpu_median;
};

// In ms per 1,000 files.
Summary Summarize(const std::vector<Sample>& samples, double scale) {
  std::vector<double> wall, cpu;
  for (const Sample& s : samples) {
    wall.push_back(s.wall * scale);
    cpu.push_back(s.cpu * scale);
  }
  return {Median(wall), *std::min_element(wall.begin(), wall.end()), Median(cpu)};
}

// Google Benchmark variants, run only when a --benchmark_* flag is given.
void BM_BareRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(RunBaseline());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(g_paths.size()));
}
void BM_ReadStore(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(RunReadStore());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(g_paths.size()));
}
void BM_NlohmannDom(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(RunNlohmann());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(g_paths.size()));
}
BENCHMARK(BM_BareRead)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReadStore)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NlohmannDom)->Unit(benchmark::kMillisecond);

int Main(int argc, char** argv) {
  Config config;
  std::vector<char*> gbench_args = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--files=", 0) == 0) {
      config.files = std::max(1, std::atoi(arg.c_str() + 8));
    } else if (arg.rfind("--blocks=", 0) == 0) {
      config.blocks = std::max(1, std::atoi(arg.c_str() + 9));
    } else if (arg.rfind("--reps=", 0) == 0) {
      config.reps = std::max(1, std::atoi(arg.c_str() + 7));
    } else if (arg == "--no-dom") {
      config.dom = false;
    } else if (arg == "--check") {
      config.check = true;
    } else if (arg.rfind("--benchmark", 0) == 0) {
      config.gbench = true;
      gbench_args.push_back(argv[i]);
    } else {
      std::fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }

  const char* tmp = getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/scx-bench-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = pattern;

  std::mt19937_64 rng(20240611);
  std::uint64_t bytes = 0;
  std::size_t smallest = SIZE_MAX, largest = 0;
  for (int i = 0; i < config.files; ++i) {
    const std::string brain = dir + "/brain" + std::to_string(i);
    std::filesystem::create_directories(brain);
    const std::string path = brain + "/" + kStoreFileName;
    const std::string json = MakeStore(i, config.blocks, rng);
    std::ofstream(path, std::ios::binary) << json;
    g_paths.push_back(path);
    bytes += json.size();
    smallest = std::min(smallest, json.size());
    largest = std::max(largest, json.size());
  }
  std::printf("%d stores of %d blocks in %s: %.1f MB, %.1f KB average (%.1f-%.1f KB)\n",
              config.files, config.blocks, dir.c_str(), bytes / 1e6, bytes / 1e3 / config.files,
              smallest / 1e3, largest / 1e3);

  // Warm the page cache and every code path once.
  RunBaseline();
  RunReadStore();
  if (config.dom) RunNlohmann();

  // Interleaved, so that a change in the host's load hits every variant alike.
  std::vector<Sample> baseline, reader, dom;
  for (int rep = 0; rep < config.reps; ++rep) {
    baseline.push_back(Measure(RunBaseline));
    reader.push_back(Measure(RunReadStore));
    if (config.dom && rep < std::max(3, config.reps / 3)) dom.push_back(Measure(RunNlohmann));
  }
  const double scale = 1000.0 / config.files * 1e3;  // seconds per run -> ms per 1,000 files
  const Summary a = Summarize(baseline, scale);
  const Summary b = Summarize(reader, scale);
  std::printf("\n%d repetitions, ms per 1,000 files   wall median   wall best   CPU median\n",
              config.reps);
  auto row = [](const char* name, const Summary& x) {
    std::printf("  %-32s %11.3f %11.3f %12.3f\n", name, x.wall_median, x.wall_min, x.cpu_median);
  };
  row("(a) bare open/read/close", a);
  row("(b) scx::ReadStore", b);
  Summary c{};
  if (config.dom) {
    c = Summarize(dom, scale);
    row(("(c) read + nlohmann DOM (" + std::to_string(dom.size()) + " reps)").c_str(), c);
  }
  const double ratio_b = b.wall_median / a.wall_median;
  std::printf(
      "\nratio (b)/(a) = %.2f wall median, %.2f wall best, %.2f CPU  (target <= %.1f: %s)\n",
      ratio_b, b.wall_min / a.wall_min, b.cpu_median / a.cpu_median, kTargetRatio,
      ratio_b <= kTargetRatio ? "ok" : "OVER");
  if (config.dom) {
    std::printf("ratio (c)/(a) = %.2f wall median, %.2f wall best, %.2f CPU  (reference)\n",
                c.wall_median / a.wall_median, c.wall_min / a.wall_min,
                c.cpu_median / a.cpu_median);
  }

  if (config.gbench) {
    int gbench_argc = static_cast<int>(gbench_args.size());
    benchmark::Initialize(&gbench_argc, gbench_args.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  }

  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return config.check && ratio_b > kTargetRatio ? 1 : 0;
}

}  // namespace
}  // namespace scx

int main(int argc, char** argv) { return scx::Main(argc, argv); }
