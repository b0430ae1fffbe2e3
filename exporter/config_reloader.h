// Config reloads (SIGHUP and POST /-/reload) run on one dedicated thread, coalesced
// and spaced: a request while a reload is pending joins it, and a reload starts at
// least `min_spacing` after the previous one started, so a burst of any number of
// requests costs at most two loads (and two scans). The caller's thread never parses
// YAML, and Stop() never waits long for a load that hangs (a config on a dead
// network mount): the thread is then left behind and never applies anything again.
//
// Thread-safety: every public method may be called from any thread.
#ifndef SCX_EXPORTER_CONFIG_RELOADER_H_
#define SCX_EXPORTER_CONFIG_RELOADER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "exporter/config.h"

namespace scx {

struct ReloadOutcome {
  bool success = false;
  std::string error;  // why the load failed; empty on success
};

class ConfigReloader {
 public:
  // Reads the config. Slow (file I/O, YAML), runs on the reload thread, and must
  // use nothing owned by the caller: it may outlive it (see Stop).
  using Load = std::function<bool(Config* config, std::string* error)>;
  // Applies a load's result. Fast, runs on the reload thread, never after Stop()
  // has returned. `trigger` names what asked ("SIGHUP", "http"; the first of a
  // coalesced group).
  using Apply = std::function<void(const std::string& trigger, const Config& config,
                                   const ReloadOutcome& outcome)>;

  static constexpr std::chrono::milliseconds kDefaultMinSpacing{1000};

  ConfigReloader(Load load, Apply apply,
                 std::chrono::milliseconds min_spacing = kDefaultMinSpacing);
  ~ConfigReloader();  // Stop(0)
  ConfigReloader(const ConfigReloader&) = delete;
  ConfigReloader& operator=(const ConfigReloader&) = delete;

  // Starts the reload thread. Idempotent.
  void Start();

  // What Request did with a request.
  struct Ticket {
    std::uint64_t load = 0;  // the load that will serve it; 0: stopped, nothing queued
    bool immediate = false;  // that load starts now (nothing running, pending or too recent)
  };

  // Asks for a reload and returns at once. A request made while a load is pending
  // joins that load; otherwise it queues a new one, which starts now or
  // `min_spacing` after the previous load started, whichever is later.
  Ticket Request(const std::string& trigger);

  // Waits up to `timeout` for load `load` (from a Ticket) to finish. Nothing when
  // it has not finished in time or the reloader stopped.
  std::optional<ReloadOutcome> WaitFor(std::uint64_t load, std::chrono::milliseconds timeout);

  // Stops taking requests, wakes waiters, and waits up to `grace` for a load in
  // progress; a load still running then is abandoned (its result is never applied).
  // After Stop returns, Apply is never called. Idempotent.
  void Stop(std::chrono::milliseconds grace);

  // Loads started so far (for tests and the log).
  std::uint64_t loads_started() const;

 private:
  struct State;
  static void Run(std::shared_ptr<State> state);

  std::shared_ptr<State> state_;  // shared with the thread, which may outlive this
};

}  // namespace scx

#endif  // SCX_EXPORTER_CONFIG_RELOADER_H_
