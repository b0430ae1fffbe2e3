// How many CPUs this process may use, as opposed to how many the machine has online
// (what std::thread::hardware_concurrency counts): the CPUs of its affinity mask
// (taskset, systemd's CPUAffinity=, a cpuset), lowered to its cgroup's CPU quota
// (a Kubernetes CPU limit, systemd's CPUQuota=) rounded up, as Go's GOMAXPROCS and
// Rust's available_parallelism work it out. The scan starts no more threads than this,
// so that it does not burn a quota at once and get the cgroup, and with it the HTTP
// threads serving /metrics, throttled.
//
// Only cgroup v2 is read (`cpu.max`, in the process's cgroup and each of its
// ancestors): Debian 12, current systemd and Kubernetes on cgroup v2 hosts use it. A
// cgroup v1 quota (`cpu.cfs_quota_us`) is deliberately not read; under cgroup v1 only
// the affinity mask counts.
//
// The parsers and the walk over a cgroup tree are separate from the reading of the
// live files, so that tests can give them text and a fake tree.
#ifndef SCX_BASE_USABLE_CPUS_H_
#define SCX_BASE_USABLE_CPUS_H_

#include <optional>
#include <string>
#include <string_view>

namespace scx {

// Where cgroup v2 is mounted on a cgroup v2 host.
inline constexpr char kCgroupRoot[] = "/sys/fs/cgroup";

// The CPUs this process may use: the count of the calling thread's affinity mask (the
// process's, unless the thread changed its own), lowered to the cgroup v2 CPU limit
// when there is one. At least 1. Reads /proc and /sys at every call, so that a limit
// changed while the exporter runs applies to the next scan.
int UsableCpus();

// The CPUs in the calling thread's affinity mask; hardware_concurrency when the mask
// cannot be read, 1 when that is unknown too.
int AffinityCpus();

// The CPU limit in the text of a cgroup v2 `cpu.max` file ("$QUOTA $PERIOD", in
// microseconds): ceil(quota / period). Empty for "max" (no limit) and for text that is
// malformed or has a zero or negative number, which is ignored. A missing period is
// the kernel's default, 100000.
std::optional<int> ParseCpuMax(std::string_view cpu_max);

// The cgroup v2 path ("/system.slice/x.service") in the text of /proc/self/cgroup: the
// path of its "0::" line. Empty when there is none (a cgroup v1 only system); v1 lines
// ("4:cpu,cpuacct:/x") are ignored.
std::optional<std::string> ParseCgroupV2Path(std::string_view proc_self_cgroup);

// The smallest CPU limit over the `cpu.max` files of `cgroup_path` and each of its
// ancestors under `root`, the directory where cgroup v2 is mounted ("/" is the root
// itself). Missing, unreadable and "max" files are skipped. Empty when no file sets a
// limit, and when the path is refused: not absolute, or with a "." or ".." component.
std::optional<int> CgroupCpuLimit(const std::string& cgroup_path,
                                  const std::string& root = kCgroupRoot);

}  // namespace scx

#endif  // SCX_BASE_USABLE_CPUS_H_
