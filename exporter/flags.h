// Command-line flags, following the Prometheus exporter conventions
// (--config.file, --web.listen-address, ...). Accepts "--flag=value" and "--flag value".
#ifndef SCX_EXPORTER_FLAGS_H_
#define SCX_EXPORTER_FLAGS_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "exporter/endpoints.h"
#include "exporter/listen_address.h"
#include "exporter/log_options.h"

namespace scx {

struct Flags {
  std::string config_file;  // empty: DefaultConfig()
  std::string listen_address = kDefaultListenAddress;
  std::string telemetry_path = kDefaultTelemetryPath;
  std::string web_config_file;                             // empty: plain HTTP, no auth
  std::optional<std::chrono::milliseconds> scan_interval;  // wins over the config file
  LogLevel log_level = LogLevel::kInfo;
  LogFormat log_format = LogFormat::kLogfmt;
  bool disable_exporter_metrics = false;  // no skeleton_coherence_exporter_*, no process_*
  bool once = false;
  bool help = false;
  bool version = false;
};

// Parses argv[1..]. Returns false and sets `error` for an unknown flag or a bad value.
bool ParseFlags(const std::vector<std::string>& args, Flags* flags, std::string* error);

// The --help text.
std::string UsageText();

}  // namespace scx

#endif  // SCX_EXPORTER_FLAGS_H_
