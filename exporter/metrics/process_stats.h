// The exporter process's own vital signs as the metrics renderer writes them, with the
// names and meanings of the Prometheus client libraries' process collector. Plain
// data: exporter/metrics/process_metrics reads them from /proc/self.
#ifndef SCX_EXPORTER_METRICS_PROCESS_STATS_H_
#define SCX_EXPORTER_METRICS_PROCESS_STATS_H_

namespace scx {

// The values exported, in the client libraries' units.
struct ProcessStats {
  double cpu_seconds_total = 0;         // user + system CPU time
  double resident_memory_bytes = 0;     // resident set size
  double virtual_memory_bytes = 0;      // virtual memory size
  double virtual_memory_max_bytes = 0;  // RLIMIT_AS's soft limit; -1 when unlimited
  double start_time_seconds = 0;        // Unix time the process started
  double open_fds = 0;                  // open file descriptors
  double max_fds = 0;                   // soft limit on open file descriptors
};

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_PROCESS_STATS_H_
