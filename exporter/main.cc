// skeleton-coherence-exporter: parses flags, loads the config, then either checks the
// config (--config.check), scans once (--once) or runs the exporter service.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "engine/scanner.h"
#include "exporter/config.h"
#include "exporter/flags.h"
#include "exporter/heap.h"
#include "exporter/http/http_server.h"
#include "exporter/http/systemd_socket.h"
#include "exporter/logger.h"
#include "exporter/render/json_view.h"
#include "exporter/render/table_view.h"
#include "exporter/scan_log.h"
#include "exporter/scan_settings.h"
#include "exporter/service.h"
#include "exporter/storage_path_check.h"
#include "exporter/version.h"
#include "exporter/watched_sources.h"

namespace scx {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitUsage = 2;

// Colour only for a person at a terminal, and never when NO_COLOR is set.
bool StdoutWantsColor() {
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0');
}

// Scans once, prints the report on stdout, and reports problems on stderr (through
// ScanLog, as the service does, in its --once mode).
// The scan is set up as the service sets up its scans (ScanSettingsOf).
int RunOnce(const Flags& flags, const Config& config, Logger* logger) {
  const ScanSettings settings = ScanSettingsOf(flags, config);
  LogWatchedSources(settings.discovery, logger);
  const std::unique_ptr<Scanner> scanner = NewScanner(settings);
  const auto start = std::chrono::steady_clock::now();
  ScanResult scan = scanner->Scan(settings.discovery);
  ScanLog(logger, ScanLog::Mode::kOnce)
      .LogScan(scan,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  // Only a mismatch fails the run: identity_unknown, unreadable and absent have no
  // (fresh) verdict to fail on.
  bool mismatch = false;
  for (const BrainReport& brain : scan.brains) {
    mismatch = mismatch || brain.state == BrainState::kMismatch;
  }
  const std::string report = flags.once_output == OnceOutput::kTable
                                 ? OnceTable(scan.brains, StdoutWantsColor(), scan.orphans)
                                 : OnceReport(scan.brains, scan.orphans);
  std::fwrite(report.data(), 1, report.size(), stdout);
  std::fflush(stdout);
  return mismatch ? kExitMismatch : kExitOk;
}

// The parts of the HTTP server's options a start checks before it binds.
HttpServerOptions ServerOptionsToCheck(const Flags& flags) {
  HttpServerOptions options;
  options.listen_addresses = flags.listen_addresses;
  options.web_config_file = flags.web_config_file;
  return options;
}

// --config.check: the config file has been loaded already; checks what the HTTP server
// would check at start, without binding. A line per file checked on stdout.
int RunConfigCheck(const Flags& flags, const Config& config) {
  if (!flags.config_file.empty()) std::printf("config file %s: ok\n", flags.config_file.c_str());
  std::fflush(stdout);
  std::string error;
  if (!HttpServer::CheckOptions(ServerOptionsToCheck(flags), &error) ||
      !CheckStoragePath(flags.storage_path, config.discovery, &error)) {
    std::fprintf(stderr, "skeleton-coherence-exporter: %s\n", error.c_str());
    return kExitUsage;
  }
  if (!flags.web_config_file.empty()) {
    std::printf("web config file %s: ok\n", flags.web_config_file.c_str());
  }
  if (flags.config_file.empty() && flags.web_config_file.empty()) {
    std::printf("flags: ok (no --config.file or --web.config.file to check)\n");
  }
  return kExitOk;
}

int Main(int argc, char** argv) {
  Flags flags;
  std::string error;
  if (!ParseFlags(std::vector<std::string>(argv + 1, argv + argc), &flags, &error)) {
    std::fprintf(stderr, "skeleton-coherence-exporter: %s\n", error.c_str());
    return kExitUsage;
  }
  if (flags.help) {
    std::fputs(UsageText().c_str(), stdout);
    return kExitOk;
  }
  if (flags.version) {
    std::fputs(VersionText("skeleton-coherence-exporter", ThisBuild()).c_str(), stdout);
    return kExitOk;
  }
  if (flags.output_given && !flags.once) {
    std::fprintf(stderr, "skeleton-coherence-exporter: --output goes with --once\n");
    return kExitUsage;
  }
  if (flags.config_check && flags.once) {
    std::fprintf(stderr,
                 "skeleton-coherence-exporter: --config.check and --once exclude "
                 "each other\n");
    return kExitUsage;
  }
  Config config = DefaultConfig();
  if (!flags.config_file.empty() && !LoadConfigFile(flags.config_file, &config, &error)) {
    std::fprintf(stderr, "skeleton-coherence-exporter: %s\n", error.c_str());
    return kExitUsage;
  }
  config.discovery.view = flags.discovery_view;
  if (flags.config_check) return RunConfigCheck(flags, config);
  if (flags.once) {
    Logger logger(flags.log_level, flags.log_format);
    return RunOnce(flags, config, &logger);
  }
  // A web config or listen address the server would refuse is the operator's to fix:
  // exit 2 (usage), which the systemd unit does not restart. Failing to bind (a port
  // in use) is left to RunService: exit 1, which it retries.
  // So is a --storage.path inside what the exporter watches (storage_path_check.h).
  if (!HttpServer::CheckOptions(ServerOptionsToCheck(flags), &error) ||
      !CheckStoragePath(flags.storage_path, config.discovery, &error)) {
    std::fprintf(stderr, "skeleton-coherence-exporter: %s\n", error.c_str());
    return kExitUsage;
  }
  // --web.systemd-socket without the sockets: the unit is the operator's to fix.
  std::vector<int> systemd_sockets;
  if (flags.systemd_socket && !TakeSystemdSockets(&systemd_sockets, &error)) {
    std::fprintf(stderr, "skeleton-coherence-exporter: %s\n", error.c_str());
    return kExitUsage;
  }
  TuneMallocForServing();
  return RunService(flags, config, systemd_sockets);
}

}  // namespace
}  // namespace scx

int main(int argc, char** argv) { return scx::Main(argc, argv); }
