// Process metrics from /proc/self.
#include "exporter/metrics/process_metrics.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/strings.h"

namespace scx {

namespace {

constexpr double kUnlimited = 18446744073709551615.0;  // 2^64 - 1

std::vector<std::string_view> Fields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t at = 0;
  while (at < text.size()) {
    const size_t start = text.find_first_not_of(" \t\n", at);
    if (start == std::string_view::npos) break;
    size_t end = text.find_first_of(" \t\n", start);
    if (end == std::string_view::npos) end = text.size();
    fields.push_back(text.substr(start, end - start));
    at = end;
  }
  return fields;
}

template <typename Number>
bool ParseNumber(std::string_view text, Number* number) {
  const char* end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, *number);
  return result.ec == std::errc() && result.ptr == end;
}

// The line of `text` that starts with `prefix`, without the prefix; empty if none.
std::string_view LineAfter(std::string_view text, std::string_view prefix) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    if (StartsWith(line, prefix)) return line.substr(prefix.size());
    at = end + 1;
  }
  return {};
}

bool ReadWholeFile(const char* path, std::string* text, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  if (!in.good() && !in.eof()) {
    *error = std::string(path) + ": cannot be read";
    return false;
  }
  *text = out.str();
  if (text->empty()) {
    *error = std::string(path) + ": cannot be read";
    return false;
  }
  return true;
}

// Entries of /proc/self/fd (the descriptor listing it counts itself, as in the
// client libraries).
bool CountOpenFds(double* count, std::string* error) {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) {
    *error = std::string("/proc/self/fd: ") + std::strerror(errno);
    return false;
  }
  double entries = 0;
  while (const dirent* entry = readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) ++entries;
  }
  closedir(dir);
  *count = entries;
  return true;
}

}  // namespace

bool ParseProcSelfStat(std::string_view text, ProcSelfStat* stat, std::string* error) {
  const size_t name_end = text.rfind(')');
  if (name_end == std::string_view::npos) {
    *error = "no command name in parentheses";
    return false;
  }
  // Fields from 3 (state) on: field N is fields[N - 3].
  const std::vector<std::string_view> fields = Fields(text.substr(name_end + 1));
  if (fields.size() < 22) {
    *error = "only " + std::to_string(fields.size() + 2) + " fields, 24 needed";
    return false;
  }
  if (!ParseNumber(fields[11], &stat->utime_ticks) ||
      !ParseNumber(fields[12], &stat->stime_ticks) ||
      !ParseNumber(fields[19], &stat->start_ticks) ||
      !ParseNumber(fields[20], &stat->vsize_bytes) || !ParseNumber(fields[21], &stat->rss_pages)) {
    *error = "utime, stime, starttime, vsize or rss is not a number";
    return false;
  }
  return true;
}

bool ParseBootTime(std::string_view proc_stat, std::int64_t* boot_time, std::string* error) {
  const std::vector<std::string_view> fields = Fields(LineAfter(proc_stat, "btime "));
  if (fields.size() != 1 || !ParseNumber(fields[0], boot_time)) {
    *error = "no \"btime <seconds>\" line";
    return false;
  }
  return true;
}

namespace {

// The soft limit of the line of `limits` named `row`, `unlimited` for "unlimited".
// "Max open files            1024                 1048576              files"
bool ParseSoftLimit(std::string_view limits, std::string_view row, double unlimited,
                    double* soft_limit, std::string* error) {
  const std::vector<std::string_view> fields = Fields(LineAfter(limits, std::string(row) + " "));
  std::uint64_t soft = 0;
  if (!fields.empty() && fields[0] == "unlimited") {
    *soft_limit = unlimited;
    return true;
  }
  if (fields.empty() || !ParseNumber(fields[0], &soft)) {
    *error = "no \"" + std::string(row) + " <soft limit>\" line";
    return false;
  }
  *soft_limit = static_cast<double>(soft);
  return true;
}

}  // namespace

bool ParseMaxOpenFiles(std::string_view limits, double* max_fds, std::string* error) {
  return ParseSoftLimit(limits, "Max open files", kUnlimited, max_fds, error);
}

bool ParseMaxAddressSpace(std::string_view limits, double* max_bytes, std::string* error) {
  return ParseSoftLimit(limits, "Max address space", -1, max_bytes, error);
}

ProcessStats ComputeProcessStats(const ProcSelfStat& stat, std::int64_t boot_time,
                                 double ticks_per_second, double page_size, double open_fds,
                                 const ProcessLimits& limits) {
  ProcessStats stats;
  stats.cpu_seconds_total =
      static_cast<double>(stat.utime_ticks + stat.stime_ticks) / ticks_per_second;
  stats.resident_memory_bytes = static_cast<double>(stat.rss_pages) * page_size;
  stats.virtual_memory_bytes = static_cast<double>(stat.vsize_bytes);
  stats.virtual_memory_max_bytes = limits.max_address_space_bytes;
  stats.start_time_seconds =
      static_cast<double>(boot_time) + static_cast<double>(stat.start_ticks) / ticks_per_second;
  stats.open_fds = open_fds;
  stats.max_fds = limits.max_fds;
  return stats;
}

bool ReadProcessStats(ProcessStats* stats, std::string* error) {
  std::string self_stat;
  std::string system_stat;
  std::string limits;
  if (!ReadWholeFile("/proc/self/stat", &self_stat, error) ||
      !ReadWholeFile("/proc/stat", &system_stat, error) ||
      !ReadWholeFile("/proc/self/limits", &limits, error)) {
    return false;
  }
  ProcSelfStat stat;
  std::int64_t boot_time = 0;
  ProcessLimits process_limits;
  double open_fds = 0;
  std::string why;
  if (!ParseProcSelfStat(self_stat, &stat, &why)) {
    *error = "/proc/self/stat: " + why;
    return false;
  }
  if (!ParseBootTime(system_stat, &boot_time, &why)) {
    *error = "/proc/stat: " + why;
    return false;
  }
  if (!ParseMaxOpenFiles(limits, &process_limits.max_fds, &why) ||
      !ParseMaxAddressSpace(limits, &process_limits.max_address_space_bytes, &why)) {
    *error = "/proc/self/limits: " + why;
    return false;
  }
  if (!CountOpenFds(&open_fds, error)) return false;
  const long ticks = sysconf(_SC_CLK_TCK);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (ticks <= 0 || page_size <= 0) {
    *error = "sysconf: no clock tick rate or page size";
    return false;
  }
  *stats = ComputeProcessStats(stat, boot_time, static_cast<double>(ticks),
                               static_cast<double>(page_size), open_fds, process_limits);
  return true;
}

}  // namespace scx
