// Child processes and free ports for tests.
#include "tests/test_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

extern char** environ;

namespace scx {
namespace testing {

namespace {

constexpr std::chrono::milliseconds kGracefulStopTimeout{2000};
constexpr std::chrono::milliseconds kKillTimeout{5000};

}  // namespace

TestProcess::~TestProcess() { Stop(); }

bool TestProcess::Start(const std::string& binary, const std::vector<std::string>& args,
                        const std::string& output_path, std::string* error) {
  if (running()) {
    *error = "a process is already running";
    return false;
  }
  std::vector<std::string> argv_storage = {binary};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& arg : argv_storage) argv.push_back(arg.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, output_path.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);

  // The test may block signals (e.g. in a gtest thread); the child must not inherit that.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t empty_mask, default_signals;
  sigemptyset(&empty_mask);
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGTERM);
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGHUP);
  sigaddset(&default_signals, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &empty_mask);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  pid_t pid = -1;
  const int result = posix_spawn(&pid, binary.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (result != 0) {
    *error = "posix_spawn " + binary + ": " + std::strerror(result);
    return false;
  }
  pid_ = pid;
  return true;
}

void TestProcess::Signal(int signal_number) {
  if (running()) kill(pid_, signal_number);
}

std::optional<int> TestProcess::WaitForExit(std::chrono::milliseconds timeout) {
  if (!running()) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    int status = 0;
    const pid_t result = waitpid(pid_, &status, WNOHANG);
    if (result == pid_ || (result < 0 && errno != EINTR)) {
      pid_ = -1;
      if (result < 0) return std::nullopt;
      return status;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::optional<int> TestProcess::Stop() {
  if (!running()) return std::nullopt;
  Signal(SIGTERM);
  if (std::optional<int> status = WaitForExit(kGracefulStopTimeout)) return status;
  Signal(SIGKILL);
  return WaitForExit(kKillTimeout);
}

bool TestProcess::StartOnFreePort(const std::string& binary, std::vector<std::string> args,
                                  const std::string& output_path, int* port, std::string* error) {
  *port = FindFreePort();
  if (*port <= 0) {
    *error = "no free port on 127.0.0.1";
    return false;
  }
  args.push_back("--web.listen-address=127.0.0.1:" + std::to_string(*port));
  return Start(binary, args, output_path, error);
}

int FindFreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

std::string RunShellCommand(const std::string& command, const std::string& input,
                            int* exit_status) {
  if (exit_status != nullptr) *exit_status = -1;
  char path[] = "/tmp/scx-stdin-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) return "mkstemp failed";
  const bool written = write(fd, input.data(), input.size()) == static_cast<ssize_t>(input.size());
  close(fd);
  std::string output;
  if (written) {
    const std::string full_command = "(" + command + ") < '" + path + "' 2>&1";
    if (FILE* pipe = popen(full_command.c_str(), "r")) {
      char buffer[4096];
      size_t count;
      while ((count = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0)
        output.append(buffer, count);
      const int status = pclose(pipe);
      if (exit_status != nullptr) *exit_status = status;
    }
  }
  unlink(path);
  return output;
}

bool HaveCommand(const std::string& name) {
  return std::system(("command -v '" + name + "' >/dev/null 2>&1").c_str()) == 0;
}

bool UnderCi() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string_view(ci) == "true";
}

bool ToolAvailable(const std::string& name) {
  if (HaveCommand(name)) return true;
  if (UnderCi()) {
    ADD_FAILURE() << name << " is not installed and CI=true: ./scripts/install-deps.sh --test "
                  << "installs every tool the tests use";
  }
  return false;
}

}  // namespace testing
}  // namespace scx
