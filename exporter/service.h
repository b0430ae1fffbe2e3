// The long-running exporter: scan loop on its own thread, HTTP endpoints, signals
// (SIGTERM/SIGINT stop, SIGHUP reloads) and logging.
//
// Thread-safety: RunService is called once, from the main thread, before any other
// thread exists (it blocks the stop and reload signals for every thread it starts).
#ifndef SCX_EXPORTER_SERVICE_H_
#define SCX_EXPORTER_SERVICE_H_

#include <vector>

#include "exporter/config.h"
#include "exporter/flags.h"

namespace scx {

// Runs until SIGTERM or SIGINT. `config` is the config already loaded from
// flags.config_file (or DefaultConfig()). With --web.systemd-socket, `systemd_sockets`
// are the descriptors systemd passed (TakeSystemdSockets), served instead of
// flags.listen_addresses. Returns the process exit code.
int RunService(const Flags& flags, const Config& config, const std::vector<int>& systemd_sockets);

}  // namespace scx

#endif  // SCX_EXPORTER_SERVICE_H_
