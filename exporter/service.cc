// The long-running exporter: wires the scan loop, the change watcher and the reloads
// to the HTTP endpoints (handlers.h) and turns signals into a clean stop (SIGTERM,
// SIGINT) or a config reload (SIGHUP). Reloads run on the ConfigReloader's thread,
// never on an HTTP worker or the signal thread.
#include "exporter/service.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "base/folder_lock.h"
#include "base/strings.h"
#include "exporter/build_info.h"
#include "exporter/config_reloader.h"
#include "exporter/duration.h"
#include "exporter/handlers.h"
#include "exporter/http/connection_table.h"
#include "exporter/http/http_server.h"
#include "exporter/http/listen_address.h"
#include "exporter/http/systemd_socket.h"
#include "exporter/http/tls_setup.h"
#include "exporter/logger.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/scan_loop.h"
#include "exporter/scan_settings.h"
#include "exporter/state_file.h"
#include "exporter/storage_path_check.h"
#include "exporter/version.h"
#include "exporter/watched_sources.h"

namespace scx {

namespace {

// How long a new exporter waits for the state folder's lock (a restart's old
// process still stopping) before it is refused.
constexpr std::chrono::milliseconds kStateLockWait{5000};

// Descriptors kept for everything but HTTP connections: listening sockets, logs,
// inotify, and above all the folders and files a scan opens (a few per reading
// thread). Connections are capped below RLIMIT_NOFILE by this much, so that a flood
// of connections never makes a scan's listing fail with EMFILE.
constexpr int kDescriptorReserve = 128;

// How long a stop waits for a load in progress before abandoning it.
constexpr std::chrono::milliseconds kReloadStopGrace{200};

sigset_t ServiceSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  return signals;
}

// "host:port" with the port actually bound; the host part as configured.
std::string BoundAddress(const std::string& listen_address, int port) {
  ListenAddress address;
  std::string error;
  ParseListenAddress(listen_address, &address, &error);  // the server has parsed it already
  return WithPort(address, port);
}

// "2025-01-31T12:00:00Z".
std::string UtcTime(std::int64_t seconds) {
  const auto time = static_cast<std::time_t>(seconds);
  std::tm parts{};
  char text[32] = "";
  if (gmtime_r(&time, &parts) != nullptr) {
    std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &parts);
  }
  return text;
}

// Every listen address, comma-separated, for log lines.
std::string JoinedAddresses(const Flags& flags) {
  return flags.systemd_socket ? "systemd" : Join(flags.listen_addresses, ",");
}

// Worker threads for the HTTP server. civetweb holds a worker for each open
// connection, idle ones included; the connection guard (exporter/http/) reclaims idle
// ones before the workers run out, so a few dozen serve any number of clients
// (kDefaultHttpThreads, see docs/security.md). At least `max_requests` scrapes at
// once plus kOtherWorkers for the other endpoints.
constexpr int kOtherWorkers = 4;
int WorkerThreads(int max_requests) {
  return std::max(kDefaultHttpThreads, max_requests + kOtherWorkers);
}

// Requests at once on the other endpoints (/, the API, the health checks...), so that
// slow readers of them cannot take the workers the scrapes need: what the workers
// leave beside the scrape slots and the connection guard's headroom (a sixteenth).
int OtherRequests(int workers, int max_requests) {
  return std::max(kOtherWorkers, workers - max_requests - workers / 16);
}

class Service {
 public:
  Service(const Flags& flags, const Config& config, std::vector<int> systemd_sockets,
          Logger* logger)
      : flags_(flags),
        systemd_sockets_(std::move(systemd_sockets)),
        logger_(logger),
        metrics_({ThisBuild(), !flags.disable_exporter_metrics}, logger),
        loop_(ScanSettingsOf(flags, config),
              {kVersion, kRevision, flags.telemetry_path, flags.runbook_url}, logger, &metrics_),
        watcher_(ChangeWatcher::Options(), [this] { loop_.RequestScan(); }),
        reloader_([this](Config* config, std::string* error) { return LoadConfig(config, error); },
                  [this](const std::string& trigger, const Config& config,
                         const ReloadOutcome& outcome) { ApplyReload(trigger, config, outcome); }),
        handlers_(&loop_, &metrics_, &reloader_, flags.enable_lifecycle) {}

  // Serves until SIGTERM or SIGINT. The signals must already be blocked.
  int Run() {
    if (!PrepareStateFolder()) return 1;
    metrics_.InitializeRequestCounts(handlers_.Register(flags_.telemetry_path, &server_));
    HttpServerOptions options;
    options.listen_addresses = flags_.listen_addresses;
    options.listen_sockets = systemd_sockets_;
    options.web_config_file = flags_.web_config_file;
    options.num_threads = WorkerThreads(flags_.max_requests);
    options.write_timeout_ms = static_cast<int>(flags_.write_timeout.count());
    options.max_connections_per_address = flags_.max_connections_per_address;
    options.max_other_requests = OtherRequests(options.num_threads, flags_.max_requests);
    options.events = &metrics_;
    const long long descriptors = EnsureDescriptorsFor(options.num_threads);
    options.max_connections = MaxConnectionsFor(descriptors, kDescriptorReserve);
    logger_->Info("connection limits",
                  {{"descriptors", descriptors},
                   {"descriptor_reserve", kDescriptorReserve},
                   {"max_connections", options.max_connections},
                   {"workers", options.num_threads},
                   {"max_connections_per_address", flags_.max_connections_per_address},
                   {"max_requests", flags_.max_requests},
                   {"max_other_requests", options.max_other_requests},
                   {"write_timeout", FormatDuration(flags_.write_timeout)}});
    server_.LimitInFlight(flags_.telemetry_path, flags_.max_requests);
    std::string error;
    if (!server_.Start(options, &error)) {
      logger_->Error("cannot start the HTTP server",
                     {{"address", JoinedAddresses(flags_)}, {"err", error}});
      return 1;
    }
    WarnIfBcryptCostsDiffer();  // before "listening": tests wait for that line
    LogListeners();
    metrics_.SetTlsCertificateNotAfter(server_.tls_certificate_not_after());
    metrics_.SetRunbookScheme(server_.tls_certificate_not_after() ? "https" : "http");
    WarnIfCertificateExpires("start");
    StartChangeWatcher();
    OpenStateFile();
    loop_.Start();
    reloader_.Start();
    WaitForStopSignal();
    reloader_.Stop(kReloadStopGrace);  // a hung load is abandoned, never waited for
    watcher_.Stop();
    loop_.Stop();
    server_.Stop();  // within civetweb's 200 ms poll slice, idle connections included
    logger_->Info("stopped");
    return 0;
  }

 private:
  // A "listening" line per listener, with the port bound (a ":0" address gets one).
  void LogListeners() {
    for (const int fd : systemd_sockets_) {
      logger_->Info("listening", {{"address", SocketAddress(fd)}, {"systemd_socket", fd}});
    }
    if (!systemd_sockets_.empty()) return;
    const std::vector<int> ports = server_.ports();
    for (size_t i = 0; i < ports.size() && i < flags_.listen_addresses.size(); ++i) {
      logger_->Info("listening", {{"address", BoundAddress(flags_.listen_addresses[i], ports[i])}});
    }
  }

  // Instant detection, unless --scan.watch=false. Without inotify the timer alone
  // scans, and the loop reports the watcher limited (watch_limited).
  void StartChangeWatcher() {
    if (!flags_.scan_watch) return;
    std::string error;
    if (!watcher_.Start(&error)) {
      logger_->Warn("instant detection is off: only the timer scans", {{"err", error}});
    }
    loop_.SetChangeWatcher(&watcher_);
  }

  // With --storage.path, the state of the last run is restored and kept from now on.
  // Its folder is made when missing (one level, as Prometheus makes its own); when it
  // cannot be, the exporter runs without a state, as without the flag.
  // Makes the state folder when missing and locks it. Two exporters on one
  // --storage.path would overwrite each other's state: the second is refused, after up
  // to kStateLockWait for a restart's old process to go. A folder that cannot be made,
  // is not one or cannot be locked is one warn line; the state file is kept anyway, so
  // every write is tried, fails and counts (state_write_failures_total,
  // SkeletonCoherenceStateWritesFailing) until it can be: continuity off is never
  // silent.
  bool PrepareStateFolder() {
    if (flags_.storage_path.empty()) return true;
    const std::string& folder = flags_.storage_path;
    struct stat info;
    if (mkdir(folder.c_str(), kStateFolderMode) != 0 && errno != EEXIST) {
      logger_->Warn("cannot make the state folder: no state is kept until it can be",
                    {{"path", folder}, {"err", strerror(errno)}});
      return true;
    }
    if (stat(folder.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      logger_->Warn("the state folder is not a folder: no state is kept until it is",
                    {{"path", folder}});
      return true;
    }
    bool busy = false;
    std::string error;
    state_lock_ = FolderLock::Acquire(folder, kStateLockWait, &busy, &error);
    if (state_lock_ != nullptr) return true;
    if (!busy) {
      logger_->Warn("cannot lock the state folder", {{"path", folder}, {"err", error}});
      return true;
    }
    logger_->Error(
        "another exporter uses this state folder: give each exporter its own --storage.path",
        {{"path", folder}, {"err", error}});
    return false;
  }

  void OpenStateFile() {
    if (flags_.storage_path.empty()) return;
    state_file_ = std::make_unique<StateFile>(flags_.storage_path, logger_);
    loop_.SetStateFile(state_file_.get());
  }

  // Every HTTP worker may hold one connection: raise the soft descriptor limit (as Go
  // programs such as Prometheus do), and warn when even the hard limit is too low.
  // Returns the soft limit now in force (connections are capped below it).
  long long EnsureDescriptorsFor(int http_threads) {
    const rlim_t needed = static_cast<rlim_t>(http_threads) + kDescriptorReserve;
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return static_cast<long long>(needed);
    if (limit.rlim_cur >= needed) return Descriptors(limit.rlim_cur);
    const rlim_t wanted = limit.rlim_max == RLIM_INFINITY ? needed : limit.rlim_max;
    rlimit raised = limit;
    raised.rlim_cur = wanted;
    const bool raised_ok = setrlimit(RLIMIT_NOFILE, &raised) == 0;
    const rlim_t now = raised_ok ? wanted : limit.rlim_cur;
    if (now < needed) {
      logger_->Warn(
          "descriptor limit below what the HTTP workers need; connections are capped "
          "lower, and a flood of them reclaims waiting ones sooner",
          {{"limit", now}, {"needed", needed}});
    }
    return Descriptors(now);
  }

  static long long Descriptors(rlim_t limit) {
    return limit == RLIM_INFINITY ? std::numeric_limits<long long>::max()
                                  : static_cast<long long>(limit);
  }

  // On the reloader's thread: the config file, refused like a broken one when it would
  // watch the state folder (storage_path_check.h).
  bool LoadConfig(Config* config, std::string* error) {
    if (!flags_.config_file.empty() && !LoadConfigFile(flags_.config_file, config, error)) {
      return false;
    }
    config->discovery.view = flags_.discovery_view;
    return CheckStoragePath(flags_.storage_path, config->discovery, error);
  }

  // On the reloader's thread: a failed load keeps the running config.
  void ApplyReload(const std::string& trigger, const Config& config, const ReloadOutcome& outcome) {
    if (!outcome.success) {
      logger_->Error(
          "config reload failed",
          {{"trigger", trigger}, {"config_file", flags_.config_file}, {"err", outcome.error}});
      metrics_.RecordConfigReload(false);
      return;
    }
    metrics_.RecordConfigReload(true);
    loop_.RequestReload(ScanSettingsOf(flags_, config));
    logger_->Info("config reloaded", {{"trigger", trigger}, {"config_file", flags_.config_file}});
    LogWatchedSources(config.discovery, logger_);
    WarnIfCertificateExpires(trigger);
  }

  // A warn line when the served certificate has expired or expires within
  // kCertificateWarnSeconds (certificates are loaded at start only: a renewed one
  // needs a restart). `when`: "start", or the reload's trigger.
  void WarnIfCertificateExpires(const std::string& when) {
    const std::optional<std::int64_t> not_after = server_.tls_certificate_not_after();
    if (!not_after) return;
    const std::int64_t left = *not_after - static_cast<std::int64_t>(std::time(nullptr));
    if (left > kCertificateWarnSeconds) return;
    logger_->Warn(left <= 0 ? "the TLS certificate served has expired; renew it and restart"
                            : "the TLS certificate served expires within 14 days; renew it and "
                              "restart",
                  {{"when", when},
                   {"web_config_file", flags_.web_config_file},
                   {"not_after", UtcTime(*not_after)},
                   {"hours_left", left / 3600}});
  }

  // An unknown user is checked against the highest cost, so with users of different
  // costs a user of a lower cost answers faster than an unknown name: one try tells
  // that the name exists (docs/security.md).
  void WarnIfBcryptCostsDiffer() {
    const std::vector<int> costs = server_.basic_auth_costs();
    if (costs.size() < 2) return;
    std::vector<std::string> names;
    names.reserve(costs.size());
    for (int cost : costs) names.push_back(std::to_string(cost));
    logger_->Warn(
        "basic_auth_users have different bcrypt costs: the time an answer takes tells the "
        "users of the lower costs from unknown names; hash every password with one cost",
        {{"web_config_file", flags_.web_config_file}, {"costs", Join(names, ",")}});
  }

  void WaitForStopSignal() {
    const sigset_t signals = ServiceSignals();
    while (true) {
      int signal_number = 0;
      if (sigwait(&signals, &signal_number) != 0) continue;
      if (signal_number == SIGHUP) {
        reloader_.Request("SIGHUP");
        continue;
      }
      logger_->Info("stopping", {{"signal", signal_number == SIGINT ? "SIGINT" : "SIGTERM"}});
      return;
    }
  }

  const Flags flags_;
  const std::vector<int> systemd_sockets_;
  Logger* const logger_;
  SelfMetrics metrics_;  // counted by all below, served by handlers_: declared before them
  std::unique_ptr<FolderLock> state_lock_;  // held while the exporter runs
  std::unique_ptr<StateFile> state_file_;   // used by loop_'s thread: declared before it
  ScanLoop loop_;
  ChangeWatcher watcher_;    // calls loop_: declared after it, stopped first
  ConfigReloader reloader_;  // applies to loop_: declared after it, stopped first
  Handlers handlers_;        // reads loop_, asks reloader_: declared after both
  HttpServer server_;        // declared last: destroyed (stopped) first
};

}  // namespace

int RunService(const Flags& flags, const Config& config, const std::vector<int>& systemd_sockets) {
  // Before any thread exists, so that every thread inherits the mask and only
  // sigwait in this thread sees these signals.
  const sigset_t signals = ServiceSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  Logger logger(flags.log_level, flags.log_format);
  logger.Info("starting", {{"version", kVersion},
                           {"revision", kRevision},
                           {"listen_address", JoinedAddresses(flags)},
                           {"config_file", flags.config_file}});
  LogWatchedSources(config.discovery, &logger);
  try {
    Service service(flags, config, systemd_sockets, &logger);
    return service.Run();
  } catch (const std::system_error& failure) {
    // A thread that could not be started (std::thread throws): one line and exit 1,
    // never std::terminate.
    logger.Error("cannot start a thread",
                 {{"err", failure.what()},
                  {"hint",
                   "the process may not start more threads: raise its RLIMIT_NPROC (ulimit "
                   "-u) or its container's pids limit"}});
    return 1;
  }
}

}  // namespace scx
