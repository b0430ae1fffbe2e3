// The exporter process's own vital signs, with the names and meanings of the
// Prometheus client libraries' process collector (process_cpu_seconds_total,
// process_resident_memory_bytes, ...), read from /proc/self. The parsers are pure and
// tested on fixture text; ReadProcessStats does the reading.
//
// Thread-safety: pure functions, and ReadProcessStats only reads /proc.
#ifndef SCX_EXPORTER_METRICS_PROCESS_METRICS_H_
#define SCX_EXPORTER_METRICS_PROCESS_METRICS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "exporter/metrics/process_stats.h"

namespace scx {

// The fields of /proc/<pid>/stat the collector uses (proc(5)).
struct ProcSelfStat {
  std::uint64_t utime_ticks = 0;  // field 14
  std::uint64_t stime_ticks = 0;  // field 15
  std::uint64_t start_ticks = 0;  // field 22: since boot
  std::uint64_t vsize_bytes = 0;  // field 23
  std::int64_t rss_pages = 0;     // field 24
};

// Parses the one line of /proc/<pid>/stat. The command name (field 2) may hold
// spaces and parentheses: fields are counted after its last ')'.
bool ParseProcSelfStat(std::string_view text, ProcSelfStat* stat, std::string* error);

// The "btime" line of /proc/stat: Unix time the system booted.
bool ParseBootTime(std::string_view proc_stat, std::int64_t* boot_time, std::string* error);

// The soft limit of the "Max open files" line of /proc/<pid>/limits; "unlimited" is
// 2^64 - 1, as the client libraries report it.
bool ParseMaxOpenFiles(std::string_view limits, double* max_fds, std::string* error);

// The soft limit of the "Max address space" line (RLIMIT_AS) of /proc/<pid>/limits;
// "unlimited" is -1, as client_golang's process collector reports it.
bool ParseMaxAddressSpace(std::string_view limits, double* max_bytes, std::string* error);

// The limits the process collector reports, from /proc/<pid>/limits.
struct ProcessLimits {
  double max_fds = 0;
  double max_address_space_bytes = 0;
};

// Combines the parsed files into the exported values.
ProcessStats ComputeProcessStats(const ProcSelfStat& stat, std::int64_t boot_time,
                                 double ticks_per_second, double page_size, double open_fds,
                                 const ProcessLimits& limits);

// Reads /proc/self/stat, /proc/stat, /proc/self/limits and counts /proc/self/fd: a
// few small files, cheap enough for every scrape. False with `error` naming the file
// when one cannot be read or parsed.
bool ReadProcessStats(ProcessStats* stats, std::string* error);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_PROCESS_METRICS_H_
