// What POST /-/reload asks of the config reloader: a reload, and then the result of
// the load that serves it. An interface, so that the handlers can be tested with a
// fake (tests/exporter/handlers_test.cc); ConfigReloader implements it.
//
// Thread-safety: both methods may be called from any thread, several at once.
#ifndef SCX_EXPORTER_RELOAD_REQUESTER_H_
#define SCX_EXPORTER_RELOAD_REQUESTER_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace scx {

struct ReloadOutcome {
  bool success = false;
  std::string error;  // why the load failed; empty on success
};

// What a request for a reload became.
struct ReloadTicket {
  std::uint64_t load = 0;  // the load that will serve it; 0: stopped, nothing queued
  bool immediate = false;  // that load starts now (nothing running, pending or too recent)
};

class ReloadRequester {
 public:
  virtual ~ReloadRequester() = default;

  // Asks for a reload and returns at once. `trigger` names the asker ("http").
  virtual ReloadTicket Request(const std::string& trigger) = 0;

  // Waits up to `timeout` for load `load` (from a ReloadTicket) to finish. Nothing
  // when it has not finished in time or the reloads have stopped.
  virtual std::optional<ReloadOutcome> WaitFor(std::uint64_t load,
                                               std::chrono::milliseconds timeout) = 0;
};

}  // namespace scx

#endif  // SCX_EXPORTER_RELOAD_REQUESTER_H_
