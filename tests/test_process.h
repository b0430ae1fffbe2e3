// Test helper for child processes: start a binary with arguments, its stdout and
// stderr captured to a file, signal it, wait for it with a bound, and always stop it
// (SIGTERM, then SIGKILL after 2 s) when the object goes away. Plus a free port and
// a shell command fed from a string (for promtool).
#ifndef SCX_TESTS_TEST_PROCESS_H_
#define SCX_TESTS_TEST_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace scx {
namespace testing {

class TestProcess {
 public:
  TestProcess() = default;
  ~TestProcess();  // Stop()
  TestProcess(const TestProcess&) = delete;
  TestProcess& operator=(const TestProcess&) = delete;

  // Starts `binary` with `args` (argv[1..]), stdout and stderr appended to
  // `output_path`, with default signal dispositions and an empty signal mask.
  // Returns false (with `error` set) when it cannot be spawned.
  bool Start(const std::string& binary, const std::vector<std::string>& args,
             const std::string& output_path, std::string* error);

  // Start() for a server: `args` and --web.listen-address=127.0.0.1:PORT, PORT a
  // free port, set in `port`. False (with `error` set) when no port was free or the
  // binary cannot be spawned.
  bool StartOnFreePort(const std::string& binary, std::vector<std::string> args,
                       const std::string& output_path, int* port, std::string* error);

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }

  // Sends `signal_number` to the child (if still running).
  void Signal(int signal_number);

  // Waits up to `timeout` for the child to exit and reaps it. Returns its wait
  // status (see WIFEXITED), or nothing on timeout.
  std::optional<int> WaitForExit(std::chrono::milliseconds timeout);

  // SIGTERM, then SIGKILL if still running after 2 s; reaps. Returns the wait
  // status, or nothing if no child was running.
  std::optional<int> Stop();

 private:
  pid_t pid_ = -1;
};

// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then closed).
int FindFreePort();

// Runs `command` with /bin/sh, `input` on its stdin (from a temporary file), and
// returns what it printed on stdout and stderr. `exit_status` (may be null) gets
// pclose's status, or -1 when the command could not be started.
std::string RunShellCommand(const std::string& command, const std::string& input, int* exit_status);

// True when `name` is a command found on $PATH.
bool HaveCommand(const std::string& name);

// True when the tool `name`, which a test needs, is a command found on $PATH. When it
// is not and the environment says CI=true, it also records a test failure: under CI
// (scripts/test.sh, which installs every tool the tests use) a missing tool is a
// broken install, and a test that skipped for it would pass without having run. A
// test skips only for what the machine cannot give (root, a namespace, IPv6).
bool ToolAvailable(const std::string& name);

// True when the environment says CI=true.
bool UnderCi();

// Polls `predicate` every 20 ms until it is true or `timeout` passes.
template <typename Predicate>
bool WaitFor(Predicate predicate, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (predicate()) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_TEST_PROCESS_H_
