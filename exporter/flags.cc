// Command-line flags, Prometheus exporter style.
#include "exporter/flags.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>

#include "base/strings.h"
#include "exporter/config.h"
#include "exporter/duration.h"

namespace scx {

namespace {

using ValueSetter = std::function<bool(const std::string& value, Flags*, std::string* error)>;

bool SetLogLevel(const std::string& value, Flags* flags, std::string* error) {
  static const std::map<std::string, LogLevel> kLevels = {{"debug", LogLevel::kDebug},
                                                          {"info", LogLevel::kInfo},
                                                          {"warn", LogLevel::kWarn},
                                                          {"error", LogLevel::kError}};
  auto it = kLevels.find(value);
  if (it == kLevels.end()) {
    *error = "--log.level must be one of debug, info, warn, error; got \"" + value + "\"";
    return false;
  }
  flags->log_level = it->second;
  return true;
}

bool SetLogFormat(const std::string& value, Flags* flags, std::string* error) {
  if (value == "logfmt" || value == "json") {
    flags->log_format = value == "json" ? LogFormat::kJson : LogFormat::kLogfmt;
    return true;
  }
  *error = "--log.format must be logfmt or json; got \"" + value + "\"";
  return false;
}

bool SetScanInterval(const std::string& value, Flags* flags, std::string* error) {
  std::chrono::milliseconds interval;
  if (!ParseDuration(value, &interval)) {
    *error = "--scan.interval must be " + DurationSyntax() + "; got \"" + value + "\"";
    return false;
  }
  if (interval < kMinScanInterval) {
    *error = "--scan.interval must be at least " + FormatDuration(kMinScanInterval) +
             " (each scan costs CPU); got \"" + value + "\"";
    return false;
  }
  flags->scan_interval = interval;
  return true;
}

bool SetTelemetryPath(const std::string& value, Flags* flags, std::string* error) {
  if (value.size() < 2 || value[0] != '/' || StartsWith(value, "/-/") ||
      StartsWith(value, "/api/")) {
    *error =
        "--web.telemetry-path must start with '/' and not be \"/\", \"/-/...\" or "
        "\"/api/...\"; got \"" +
        value + "\"";
    return false;
  }
  flags->telemetry_path = value;
  return true;
}

// An absolute http(s) URL the landing page can put in an href as it is: no fragment
// (the page adds one per section), no whitespace, quotes or control characters.
bool SetRunbookUrl(const std::string& value, Flags* flags, std::string* error) {
  const bool http = StartsWith(value, "http://") || StartsWith(value, "https://");
  const bool clean = value.find_first_of("#\"'<> \t\r\n\\") == std::string::npos &&
                     std::none_of(value.begin(), value.end(),
                                  [](unsigned char c) { return c < 0x20 || c == 0x7f; });
  if (!http || !clean || value.size() > 2048) {
    *error =
        "--web.runbook-url must be an http:// or https:// URL of docs/runbook.md without "
        "'#', spaces or quotes (at most 2048 bytes); got \"" +
        value + "\"";
    return false;
  }
  flags->runbook_url = value;
  return true;
}

// The first --web.listen-address replaces the default; each further one adds a listener.
// Its syntax is checked here, so that a bad one is a usage error (exit 2).
bool AddListenAddress(const std::string& value, Flags* flags, std::string* error) {
  ListenAddress address;
  if (!ParseListenAddress(value, &address, error)) {
    *error = "--web.listen-address: " + *error;
    return false;
  }
  if (!flags->listen_address_given) flags->listen_addresses.clear();
  flags->listen_address_given = true;
  flags->listen_addresses.push_back(value);
  return true;
}

// A whole number from 0 (no limit) to `max` for flag `name`.
bool ParseLimit(const std::string& name, const std::string& value, int max, int* number,
                std::string* error) {
  std::uint64_t parsed = 0;
  if (!ParseWholeNumber(value, &parsed) || parsed > static_cast<std::uint64_t>(max)) {
    *error = "--" + name + " must be a whole number from 0 (no limit) to " + std::to_string(max) +
             "; got \"" + value + "\"";
    return false;
  }
  *number = static_cast<int>(parsed);
  return true;
}

bool SetMaxRequests(const std::string& value, Flags* flags, std::string* error) {
  return ParseLimit("web.max-requests", value, kMaxMaxRequests, &flags->max_requests, error);
}

bool SetMaxConnectionsPerAddress(const std::string& value, Flags* flags, std::string* error) {
  return ParseLimit("web.max-connections-per-address", value, kMaxMaxConnectionsPerAddress,
                    &flags->max_connections_per_address, error);
}

bool SetWriteTimeout(const std::string& value, Flags* flags, std::string* error) {
  std::chrono::milliseconds timeout;
  if (!ParseDuration(value, &timeout) || timeout.count() <= 0) {
    *error = "--web.write-timeout must be a positive duration: " + DurationSyntax() + "; got \"" +
             value + "\"";
    return false;
  }
  flags->write_timeout = timeout;
  return true;
}

bool SetDiscoveryView(const std::string& value, Flags* flags, std::string* error) {
  if (!ValueOf(kDiscoveryViews, value, &flags->discovery_view)) {
    *error = "--discovery.view must be " + NamesOf(kDiscoveryViews) + "; got \"" + value + "\"";
    return false;
  }
  return true;
}

bool SetOutput(const std::string& value, Flags* flags, std::string* error) {
  if (value != "json" && value != "table") {
    *error = "--output must be json or table; got \"" + value + "\"";
    return false;
  }
  flags->once_output = value == "table" ? OnceOutput::kTable : OnceOutput::kJson;
  flags->output_given = true;
  return true;
}

const std::map<std::string, ValueSetter>& ValueFlags() {
  static const std::map<std::string, ValueSetter> kFlags = {
      {"config.file",
       [](const std::string& v, Flags* f, std::string*) { return f->config_file = v, true; }},
      {"web.listen-address", AddListenAddress},
      {"web.max-requests", SetMaxRequests},
      {"web.max-connections-per-address", SetMaxConnectionsPerAddress},
      {"web.write-timeout", SetWriteTimeout},
      {"web.telemetry-path", SetTelemetryPath},
      {"web.runbook-url", SetRunbookUrl},
      {"web.config.file",
       [](const std::string& v, Flags* f, std::string*) { return f->web_config_file = v, true; }},
      {"scan.interval", SetScanInterval},
      {"storage.path",
       [](const std::string& v, Flags* f, std::string*) { return f->storage_path = v, true; }},
      {"discovery.view", SetDiscoveryView},
      {"log.level", SetLogLevel},
      {"log.format", SetLogFormat},
      {"output", SetOutput},
  };
  return kFlags;
}

using BoolMember = bool Flags::*;

const std::map<std::string, BoolMember>& BoolFlags() {
  static const std::map<std::string, BoolMember> kFlags = {
      {"once", &Flags::once},
      {"config.check", &Flags::config_check},
      {"scan.watch", &Flags::scan_watch},
      {"metrics.store-details", &Flags::store_details},
      {"help", &Flags::help},
      {"version", &Flags::version},
      {"web.disable-exporter-metrics", &Flags::disable_exporter_metrics},
      {"web.enable-lifecycle", &Flags::enable_lifecycle},
      {"web.systemd-socket", &Flags::systemd_socket}};
  return kFlags;
}

// Kingpin's negation, as Prometheus' exporters take it: "--no-scan.watch" is
// "--scan.watch=false". Null when `name` is no "no-" form of a boolean flag.
BoolMember NegatedBoolFlag(const std::string& name) {
  if (!StartsWith(name, "no-")) return nullptr;
  auto flag = BoolFlags().find(name.substr(3));
  return flag == BoolFlags().end() ? nullptr : flag->second;
}

// "--name" sets the flag, "--name=true" / "--name=false" say which.
bool SetBool(const std::string& name, const std::optional<std::string>& value, bool* flag,
             std::string* error) {
  if (value && *value != "true" && *value != "false") {
    *error = "--" + name + " takes no value (or =true / =false)";
    return false;
  }
  *flag = !value || *value == "true";
  return true;
}

}  // namespace

bool ParseFlags(const std::vector<std::string>& args, Flags* flags, std::string* error) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h") {
      flags->help = true;
      continue;
    }
    if (!StartsWith(arg, "--") || arg.size() == 2) {
      *error = "unexpected argument \"" + arg + "\" (see --help)";
      return false;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (std::size_t equals = name.find('='); equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
    }
    if (auto flag = BoolFlags().find(name); flag != BoolFlags().end()) {
      if (!SetBool(name, value, &(flags->*(flag->second)), error)) return false;
      continue;
    }
    if (auto flag = NegatedBoolFlag(name); flag != nullptr) {
      if (value) {
        *error = "--" + name + " takes no value";
        return false;
      }
      flags->*flag = false;
      continue;
    }
    auto flag = ValueFlags().find(name);
    if (flag == ValueFlags().end()) {
      *error = "unknown flag --" + name + " (see --help)";
      return false;
    }
    if (!value) {
      if (i + 1 >= args.size()) {
        *error = "flag --" + name + " needs a value";
        return false;
      }
      value = args[++i];
    }
    if (!flag->second(*value, flags, error)) return false;
  }
  return true;
}

std::string UsageText() {
  return std::string(
             "usage: skeleton-coherence-exporter [flags]\n"
             "\n"
             "Watches m1nd brains and exports whether each serves its own skeleton.\n"
             "\n"
             "A boolean flag FLAG is unset by --no-FLAG, as in Prometheus' exporters,\n"
             "or by --FLAG=false.\n"
             "\n"
             "Flags:\n"
             "  --config.file=FILE          YAML config (static brains, registries, globs).\n"
             "                              Without it: m1nd's registry, $M1ND_REGISTRY_DIR\n"
             "                              or else ~/.m1nd/registry.\n"
             "  --web.listen-address=ADDR   Address to listen on (default \"") +
         kDefaultListenAddress +
         "\"). Repeat it to listen on several\n"
         "                              addresses, one listener each.\n"
         "  --web.systemd-socket        Serve the sockets systemd passes (socket\n"
         "                              activation: the .socket unit) instead of\n"
         "                              --web.listen-address.\n"
         "  --web.max-requests=N        Scrapes of the metrics served at once; one more\n"
         "                              gets 503 (default " +
         std::to_string(kDefaultMaxRequests) +
         ", 0 = no limit, at most\n"
         "                              " +
         std::to_string(kMaxMaxRequests) +
         ": each holds an HTTP worker thread),\n"
         "                              shared fairly among client addresses.\n"
         "  --web.write-timeout=DURATION\n"
         "                              A response not written this long after its\n"
         "                              request is aborted, however slowly the client\n"
         "                              reads (default " +
         FormatDuration(kDefaultWriteTimeout) +
         ").\n"
         "  --web.max-connections-per-address=N\n"
         "                              Connections open at once from one client\n"
         "                              address; more are closed at once (default " +
         std::to_string(kDefaultMaxConnectionsPerAddress) +
         ",\n"
         "                              0 = no limit).\n"
         "  --web.telemetry-path=PATH   Path of the metrics (default \"/metrics\").\n"
         "  --web.config.file=FILE      Prometheus-style web config: TLS and basic auth.\n"
         "  --web.runbook-url=URL       Where the landing page links the sections of\n"
         "                              docs/runbook.md (default \"/runbook\", the copy\n"
         "                              this exporter serves).\n"
         "  --web.disable-exporter-metrics\n"
         "                              Leave out the exporter's own metrics\n"
         "                              (skeleton_coherence_exporter_*, process_*); the\n"
         "                              per-brain metrics stay.\n"
         "  --web.enable-lifecycle      Allow POST /-/reload (403 without it); SIGHUP\n"
         "                              reloads either way.\n"
         "  --scan.interval=DURATION    Time between scans, at least 100ms; wins over the\n"
         "                              config file (default 15s). Durations as in\n"
         "                              Prometheus: 1h30m, 1w, 1y (not 1.5h).\n"
         "  --scan.watch                Rescan at once when a watched brain file changes\n"
         "                              (inotify; default true). The timer still scans;\n"
         "                              --no-scan.watch: the timer alone.\n"
         "  --storage.path=DIR          Folder of the exporter's own state (labels, and\n"
         "                              the last verdict of each mismatch), so that a page\n"
         "                              stands through a restart (default none: nothing\n"
         "                              is kept). Refused (exit 2) inside a watched\n"
         "                              registry or brain folder.\n"
         "  --discovery.view=VIEW       Whether this process sees the file system as m1nd\n"
         "                              does, which tells a repo gone from one hidden:\n"
         "                              auto (default: per m1nd process, from /proc),\n"
         "                              host (it does) or sandbox (parts are hidden).\n"
         "  --metrics.store-details     Also export each brain's store_version and its\n"
         "                              store read errors by reason (7 more series a\n"
         "                              brain; default off).\n"
         "  --log.level=LEVEL           debug, info, warn or error (default info).\n"
         "  --log.format=FORMAT         logfmt or json (default logfmt).\n"
         "  --config.check              Check the config file, the web config file (TLS\n"
         "                              files and bcrypt hashes too) and the listen\n"
         "                              addresses, print a line per file and exit: 0 all\n"
         "                              good, 2 not. Scans nothing, listens nowhere.\n"
         "  --once                      Scan once, print the verdicts as JSON and exit:\n"
         "                              0 no mismatch, 1 a mismatch, 2 usage or config error.\n"
         "  --output=FORMAT             With --once: json (default) or table (aligned\n"
         "                              columns for people, worst first).\n"
         "  -h, --help                  Show this help and exit.\n"
         "  --version                   Show the version and exit.\n";
}

}  // namespace scx
