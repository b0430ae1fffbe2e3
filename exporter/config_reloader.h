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
#include "exporter/reload_requester.h"

namespace scx {

class ConfigReloader : public ReloadRequester {
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
  ~ConfigReloader() override;  // Stop(0)
  ConfigReloader(const ConfigReloader&) = delete;
  ConfigReloader& operator=(const ConfigReloader&) = delete;

  // Starts the reload thread. Idempotent.
  void Start();

  // What Request did with a request.
  using Ticket = ReloadTicket;

  // Asks for a reload and returns at once. A request made while a load is pending
  // joins that load; otherwise it queues a new one, which starts now or
  // `min_spacing` after the previous load started, whichever is later.
  Ticket Request(const std::string& trigger) override;

  // Waits up to `timeout` for load `load` (from a Ticket) to finish. Nothing when
  // it has not finished in time or the reloader stopped.
  std::optional<ReloadOutcome> WaitFor(std::uint64_t load,
                                       std::chrono::milliseconds timeout) override;

  // Stops taking requests, wakes waiters, and waits up to `grace` for a load in
  // progress; a load still running then is abandoned (its result is never applied).
  // After Stop returns, Apply is never called. Idempotent.
  void Stop(std::chrono::milliseconds grace);

  // Loads started so far (for tests and the log).
  std::uint64_t loads_started() const;

 private:
  struct State;
  // The thread's body: `shared` is the std::thread's own copy of state_, which keeps
  // the state alive until Run returns, even after this object is gone.
  static void Run(const std::shared_ptr<State>& shared);

  std::shared_ptr<State> state_;  // shared with the thread, which may outlive this
};

}  // namespace scx

#endif  // SCX_EXPORTER_CONFIG_RELOADER_H_
