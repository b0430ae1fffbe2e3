// Command-line flags, following the Prometheus exporter conventions
// (--config.file, --web.listen-address, ...). Accepts "--flag=value" and "--flag value".
#ifndef SCX_EXPORTER_FLAGS_H_
#define SCX_EXPORTER_FLAGS_H_

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/discovery/visibility.h"
#include "exporter/http/listen_address.h"
#include "exporter/log_options.h"
#include "exporter/render/endpoints.h"

namespace scx {

// --web.max-requests: node_exporter's default, and the largest value accepted (each
// allowed scrape needs an HTTP worker thread of its own).
inline constexpr int kDefaultMaxRequests = 40;
inline constexpr int kMaxMaxRequests = 1000;
// --web.write-timeout: Prometheus' default scrape timeout.
inline constexpr std::chrono::milliseconds kDefaultWriteTimeout{10000};
// --web.max-connections-per-address: room for a Prometheus pair, a few people and a
// proxy, below the 96 HTTP workers; the largest value a port number allows.
inline constexpr int kDefaultMaxConnectionsPerAddress = 64;
inline constexpr int kMaxMaxConnectionsPerAddress = 65535;

// What --once prints: JSON (the default, for programs) or an aligned table for people.
enum class OnceOutput { kJson, kTable };

struct Flags {
  std::string config_file;  // empty: DefaultConfig()
  // Every --web.listen-address in order (one listener each); the default alone when
  // none is given.
  std::vector<std::string> listen_addresses = {kDefaultListenAddress};
  bool listen_address_given = false;  // set by the first --web.listen-address
  // --web.systemd-socket: serve the sockets systemd passes (socket activation) instead
  // of listen_addresses (exporter/http/systemd_socket.h).
  bool systemd_socket = false;
  int max_requests = kDefaultMaxRequests;  // concurrent scrapes; 0: no limit
  // A response not written within this time of its request is aborted.
  std::chrono::milliseconds write_timeout = kDefaultWriteTimeout;
  int max_connections_per_address = kDefaultMaxConnectionsPerAddress;  // 0: no cap
  std::string telemetry_path = kDefaultTelemetryPath;
  std::string runbook_url = kDefaultRunbookUrl;  // --web.runbook-url
  std::string web_config_file;                   // empty: plain HTTP, no auth
  std::string storage_path;  // --storage.path: the state's folder; empty: no state kept
  std::optional<std::chrono::milliseconds> scan_interval;  // wins over the config file
  LogLevel log_level = LogLevel::kInfo;
  LogFormat log_format = LogFormat::kLogfmt;
  bool disable_exporter_metrics = false;  // no skeleton_coherence_exporter_*, no process_*
  bool enable_lifecycle = false;          // POST /-/reload; 403 without it
  bool scan_watch = true;                 // --scan.watch: instant detection with inotify
  bool store_details = false;             // --metrics.store-details: 6 more series a brain
  // --discovery.view: whether an ingest root this process does not find is gone
  DiscoveryView discovery_view = DiscoveryView::kAuto;
  bool once = false;
  // --config.check: validate the config and web config files and exit (as
  // blackbox_exporter's flag), never scanning or listening.
  bool config_check = false;
  OnceOutput once_output = OnceOutput::kJson;  // --output; only with --once
  bool output_given = false;
  bool help = false;
  bool version = false;
};

// Parses argv[1..] into `flags` (which holds the defaults). Returns false and sets
// `error` for an unknown flag or a bad value.
bool ParseFlags(const std::vector<std::string>& args, Flags* flags, std::string* error);

// The --help text.
std::string UsageText();

}  // namespace scx

#endif  // SCX_EXPORTER_FLAGS_H_
