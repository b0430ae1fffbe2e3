// The CPUs this process may use: its affinity mask and its cgroup v2 CPU quota.
#include "base/usable_cpus.h"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <system_error>
#include <thread>
#include <vector>

#include "base/untrusted_file.h"

namespace scx {

namespace {

// The period of a cgroup's quota when `cpu.max` names none, in microseconds.
constexpr std::int64_t kDefaultCpuPeriodMicros = 100000;

// The largest affinity mask asked for, in CPUs; Linux supports at most 8,192 CPUs.
constexpr int kMaxAffinityMaskCpus = 1 << 16;

constexpr std::string_view kBlanks = " \t\r\n";

// The fields of `text` separated by blanks.
std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> fields;
  std::size_t start = text.find_first_not_of(kBlanks);
  while (start != std::string_view::npos) {
    const std::size_t end = std::min(text.find_first_of(kBlanks, start), text.size());
    fields.push_back(text.substr(start, end - start));
    start = text.find_first_not_of(kBlanks, end);
  }
  return fields;
}

// `field` as a decimal number above zero; empty when it is anything else.
std::optional<std::int64_t> ParsePositive(std::string_view field) {
  std::int64_t value = 0;
  const char* const end = field.data() + field.size();
  const auto [stop, error] = std::from_chars(field.data(), end, value);
  if (error != std::errc() || stop != end || value <= 0) return std::nullopt;
  return value;
}

// ceil(quota / period) CPUs, at most INT_MAX.
int CpusForQuota(std::int64_t quota, std::int64_t period) {
  const std::int64_t cpus = quota / period + (quota % period != 0 ? 1 : 0);
  return static_cast<int>(std::min<std::int64_t>(cpus, std::numeric_limits<int>::max()));
}

// The directories of `cgroup_path` and its ancestors under `root`, root first. Empty
// when the path is refused: not absolute, or with a "." or ".." component.
std::optional<std::vector<std::string>> CgroupDirs(const std::string& root,
                                                   std::string_view cgroup_path) {
  if (cgroup_path.empty() || cgroup_path.front() != '/') return std::nullopt;
  std::vector<std::string> dirs{root};
  std::size_t start = 0;
  while (start < cgroup_path.size()) {
    const std::size_t end = std::min(cgroup_path.find('/', start), cgroup_path.size());
    const std::string_view component = cgroup_path.substr(start, end - start);
    start = end + 1;
    if (component.empty()) continue;
    if (component == "." || component == "..") return std::nullopt;
    dirs.push_back(dirs.back() + "/" + std::string(component));
  }
  return dirs;
}

// The most read of /proc/self/cgroup or a cpu.max file; either holds a few lines.
constexpr std::int64_t kMaxControlFileBytes = std::int64_t{64} * 1024;

// A whole small file of /proc or /sys, read as the stores are (untrusted_file); empty when
// it cannot be read.
std::optional<std::string> ReadControlFile(const std::string& path) {
  std::string contents;
  if (ReadUntrustedFile(path, kMaxControlFileBytes, &contents).error != UntrustedFileError::kNone) {
    return std::nullopt;
  }
  return contents;
}

struct CpuSetFree {
  void operator()(cpu_set_t* set) const { CPU_FREE(set); }
};

// The CPUs in the calling thread's affinity mask; 0 when it cannot be read. The mask
// is asked for with sets of growing size, since the kernel refuses (EINVAL) a set
// smaller than its own, which has more than CPU_SETSIZE (1,024) bits on large machines.
int CountAffinityMask() {
  for (int cpus = CPU_SETSIZE; cpus <= kMaxAffinityMaskCpus; cpus *= 2) {
    const std::unique_ptr<cpu_set_t, CpuSetFree> set(CPU_ALLOC(cpus));
    if (set == nullptr) return 0;
    const std::size_t bytes = CPU_ALLOC_SIZE(cpus);
    CPU_ZERO_S(bytes, set.get());
    if (sched_getaffinity(0, bytes, set.get()) == 0) return CPU_COUNT_S(bytes, set.get());
    if (errno != EINVAL) return 0;
  }
  return 0;
}

// The CPU limit of this process's cgroup v2 cgroup; empty without one.
std::optional<int> ProcessCgroupCpuLimit() {
  const std::optional<std::string> proc_self_cgroup = ReadControlFile("/proc/self/cgroup");
  if (!proc_self_cgroup) return std::nullopt;
  const std::optional<std::string> cgroup_path = ParseCgroupV2Path(*proc_self_cgroup);
  if (!cgroup_path) return std::nullopt;
  return CgroupCpuLimit(*cgroup_path);
}

}  // namespace

std::optional<int> ParseCpuMax(std::string_view cpu_max) {
  const std::vector<std::string_view> fields = Fields(cpu_max);
  if (fields.empty() || fields.size() > 2 || fields[0] == "max") return std::nullopt;
  const std::optional<std::int64_t> quota = ParsePositive(fields[0]);
  const std::optional<std::int64_t> period =
      fields.size() == 2 ? ParsePositive(fields[1]) : kDefaultCpuPeriodMicros;
  if (!quota || !period) return std::nullopt;
  return CpusForQuota(*quota, *period);
}

std::optional<std::string> ParseCgroupV2Path(std::string_view proc_self_cgroup) {
  constexpr std::string_view kV2Prefix = "0::";
  std::size_t start = 0;
  while (start < proc_self_cgroup.size()) {
    const std::size_t end = std::min(proc_self_cgroup.find('\n', start), proc_self_cgroup.size());
    const std::string_view line = proc_self_cgroup.substr(start, end - start);
    start = end + 1;
    if (line.size() > kV2Prefix.size() && line.substr(0, kV2Prefix.size()) == kV2Prefix) {
      return std::string(line.substr(kV2Prefix.size()));
    }
  }
  return std::nullopt;
}

std::optional<int> CgroupCpuLimit(const std::string& cgroup_path, const std::string& root) {
  const std::optional<std::vector<std::string>> dirs = CgroupDirs(root, cgroup_path);
  if (!dirs) return std::nullopt;
  std::optional<int> smallest;
  for (const std::string& dir : *dirs) {
    const std::optional<std::string> cpu_max = ReadControlFile(dir + "/cpu.max");
    const std::optional<int> limit = cpu_max ? ParseCpuMax(*cpu_max) : std::nullopt;
    if (limit && (!smallest || *limit < *smallest)) smallest = limit;
  }
  return smallest;
}

int AffinityCpus() {
  const int in_mask = CountAffinityMask();
  if (in_mask > 0) return in_mask;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

int UsableCpus() {
  int cpus = AffinityCpus();
  if (const std::optional<int> limit = ProcessCgroupCpuLimit()) cpus = std::min(cpus, *limit);
  return std::max(cpus, 1);
}

}  // namespace scx
