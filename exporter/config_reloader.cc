// The reload thread: a queue of at most one pending load, spaced loads, and a stop
// that abandons a hung load instead of waiting for it.
#include "exporter/config_reloader.h"

#include <exception>
#include <thread>
#include <utility>

#include "base/mutex.h"

namespace scx {

namespace {
using Clock = std::chrono::steady_clock;
}  // namespace

// Shared by the owner and the thread, so that an abandoned thread never touches
// freed memory.
struct ConfigReloader::State {
  State(Load load_in, Apply apply_in, std::chrono::milliseconds min_spacing_in)
      : load(std::move(load_in)), apply(std::move(apply_in)), min_spacing(min_spacing_in) {}

  const Load load;
  const Apply apply;
  const std::chrono::milliseconds min_spacing;

  Mutex mutex;
  CondVar wake;      // the thread: a request, or stop
  CondVar finished;  // waiters and Stop: a load finished, stop, or the thread ended
  bool stopped SCX_GUARDED_BY(mutex) = false;
  bool thread_done SCX_GUARDED_BY(mutex) = false;
  std::uint64_t last_assigned SCX_GUARDED_BY(mutex) = 0;
  std::uint64_t pending SCX_GUARDED_BY(mutex) = 0;  // 0: nothing queued
  std::string pending_trigger SCX_GUARDED_BY(mutex);
  bool running SCX_GUARDED_BY(mutex) = false;
  std::optional<Clock::time_point> last_start SCX_GUARDED_BY(mutex);
  std::uint64_t loads_started SCX_GUARDED_BY(mutex) = 0;
  std::uint64_t finished_load SCX_GUARDED_BY(mutex) = 0;
  ReloadOutcome last_outcome SCX_GUARDED_BY(mutex);

  std::thread thread;  // used by the owner only
};

ConfigReloader::ConfigReloader(Load load, Apply apply, std::chrono::milliseconds min_spacing)
    : state_(std::make_shared<State>(std::move(load), std::move(apply), min_spacing)) {}

ConfigReloader::~ConfigReloader() { Stop(std::chrono::milliseconds(0)); }

void ConfigReloader::Start() {
  MutexLock lock(&state_->mutex);
  if (state_->thread.joinable() || state_->stopped) return;
  state_->thread = std::thread(&ConfigReloader::Run, state_);
}

ConfigReloader::Ticket ConfigReloader::Request(const std::string& trigger) {
  State& state = *state_;
  MutexLock lock(&state.mutex);
  if (state.stopped) return Ticket{};
  if (state.pending != 0) return Ticket{state.pending, false};
  state.pending = ++state.last_assigned;
  state.pending_trigger = trigger;
  const bool spaced = !state.last_start || Clock::now() - *state.last_start >= state.min_spacing;
  state.wake.NotifyAll();
  return Ticket{state.pending, !state.running && spaced};
}

std::optional<ReloadOutcome> ConfigReloader::WaitFor(std::uint64_t load,
                                                     std::chrono::milliseconds timeout) {
  State& state = *state_;
  const Clock::time_point deadline = Clock::now() + timeout;
  MutexLock lock(&state.mutex);
  while (!state.stopped && state.finished_load < load) {
    if (!state.finished.WaitUntil(&state.mutex, deadline)) break;
  }
  if (load == 0 || state.finished_load < load) return std::nullopt;
  return state.last_outcome;  // of `load`, or of a later one that finished meanwhile
}

void ConfigReloader::Stop(std::chrono::milliseconds grace) {
  State& state = *state_;
  const Clock::time_point deadline = Clock::now() + grace;
  bool done = true;
  {
    MutexLock lock(&state.mutex);
    state.stopped = true;
    state.wake.NotifyAll();
    state.finished.NotifyAll();
    if (!state.thread.joinable()) return;
    while (!state.thread_done) {
      if (!state.finished.WaitUntil(&state.mutex, deadline)) break;
    }
    done = state.thread_done;
  }
  if (done) {
    state.thread.join();
  } else {
    state.thread.detach();  // a hung load; it holds its own reference to the state
  }
}

std::uint64_t ConfigReloader::loads_started() const {
  MutexLock lock(&state_->mutex);
  return state_->loads_started;
}

void ConfigReloader::Run(const std::shared_ptr<State>& shared) {
  State& state = *shared;
  state.mutex.lock();
  while (!state.stopped) {
    if (state.pending == 0) {
      state.wake.Wait(&state.mutex);
      continue;
    }
    if (state.last_start) {
      const Clock::time_point earliest = *state.last_start + state.min_spacing;
      if (Clock::now() < earliest) {
        state.wake.WaitUntil(&state.mutex, earliest);
        continue;
      }
    }
    const std::uint64_t load = state.pending;
    const std::string trigger = std::move(state.pending_trigger);
    state.pending = 0;
    state.running = true;
    state.last_start = Clock::now();
    ++state.loads_started;
    state.mutex.unlock();

    Config config = DefaultConfig();
    ReloadOutcome outcome;
    try {
      outcome.success = state.load(&config, &outcome.error);
    } catch (const std::exception& e) {
      outcome.error = e.what();
    }
    if (outcome.success) outcome.error.clear();

    state.mutex.lock();
    state.running = false;
    if (state.stopped) break;  // abandoned or stopping: never applied
    state.apply(trigger, config, outcome);
    state.finished_load = load;
    state.last_outcome = outcome;
    state.finished.NotifyAll();
  }
  state.thread_done = true;
  state.finished.NotifyAll();
  state.mutex.unlock();
}

}  // namespace scx
