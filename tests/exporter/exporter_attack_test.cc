// The real exporter binary under connection exhaustion: 500 idle connections and 50
// slow-header clients (one byte per second, never finishing) must not stop a scrape
// from answering within a second, and the server must close every attacker within
// the documented bound (docs/security.md).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "tests/http_client.h"
#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using testing::HttpGet;
using testing::ReadFile;
using testing::StoreJson;
using testing::TempDir;
using testing::TestProcess;
using testing::WaitFor;
using testing::WriteFile;
using Clock = std::chrono::steady_clock;

constexpr int kIdleConnections = 500;
constexpr int kSlowConnections = 50;
// The promise (1 s) in the normal build; a sanitizer build, several times slower,
// checks 3 s (still below the 5 s an idle connection may hold a worker).
constexpr milliseconds kScrapeBound{testing::UnderSanitizer() ? 3000 : 1000};
// docs/security.md: a connection that has not sent a complete request header is
// closed once it has been open for the request timeout (5 s) and its next read
// returns: at once when idle, at its next byte when trickling (here every second).
constexpr milliseconds kDocumentedCloseBound{5000 + 1000};
constexpr milliseconds kCloseSlack{2000};  // a loaded machine, a sanitizer build
constexpr milliseconds kStartupTimeout{10000};
// A partial request header, sent one byte per second; it never ends.
constexpr char kSlowHeader[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nX-Slow: aaaaaaaaaaaaaa";

// Raises the soft descriptor limit to what the attack needs, within the hard limit.
bool EnsureDescriptors(rlim_t needed) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
  if (limit.rlim_cur >= needed) return true;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) return false;
  limit.rlim_cur = needed;
  return setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

// A TCP connection to 127.0.0.1:`port` that completes within `timeout`; -1 otherwise.
int ConnectWithin(int port, milliseconds timeout) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t size = sizeof(error);
    if (errno != EINPROGRESS || poll(&p, 1, static_cast<int>(timeout.count())) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size) != 0 || error != 0) {
      close(fd);
      return -1;
    }
  }
  return fd;
}

struct Attacker {
  int fd = -1;
  Clock::time_point opened;
  Clock::time_point closed;  // when the server's close was seen
  bool slow = false;
  size_t sent = 0;
};

// Reads whatever the server sends on ready attackers; an end of file or error
// marks the attacker closed by the server.
void CollectCloses(std::vector<Attacker>* attackers, int timeout_ms) {
  std::vector<pollfd> fds;
  std::vector<size_t> index;
  for (size_t i = 0; i < attackers->size(); ++i) {
    if ((*attackers)[i].fd < 0) continue;
    fds.push_back(pollfd{(*attackers)[i].fd, POLLIN, 0});
    index.push_back(i);
  }
  if (fds.empty() || poll(fds.data(), fds.size(), timeout_ms) <= 0) return;
  for (size_t k = 0; k < fds.size(); ++k) {
    if (fds[k].revents == 0) continue;
    Attacker& attacker = (*attackers)[index[k]];
    char buffer[4096];
    if (recv(attacker.fd, buffer, sizeof(buffer), MSG_DONTWAIT) > 0) continue;
    attacker.closed = Clock::now();
    close(attacker.fd);
    attacker.fd = -1;
  }
}

// Once a second, each slow attacker still open sends the next byte of its header.
void DripSlowAttackers(std::vector<Attacker>* attackers, Clock::time_point* next_byte) {
  if (Clock::now() < *next_byte) return;
  for (Attacker& attacker : *attackers) {
    if (!attacker.slow || attacker.fd < 0 || attacker.sent + 1 >= sizeof(kSlowHeader)) continue;
    if (send(attacker.fd, kSlowHeader + attacker.sent, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1) {
      ++attacker.sent;
    }
  }
  *next_byte += milliseconds(1000);
}

// The resident set size of process `pid` in kB, from /proc; 0 when unknown.
long ResidentKb(pid_t pid) {
  const std::string status = ReadFile("/proc/" + std::to_string(pid) + "/status");
  const size_t at = status.find("VmRSS:");
  return at == std::string::npos ? 0 : std::atol(status.c_str() + at + 6);
}

size_t OpenCount(const std::vector<Attacker>& attackers) {
  return static_cast<size_t>(std::count_if(attackers.begin(), attackers.end(),
                                           [](const Attacker& a) { return a.fd >= 0; }));
}

TEST(ExporterAttackTest, IdleAndSlowClientsDoNotStarveScrapesAndAreClosedInTime) {
  ASSERT_TRUE(EnsureDescriptors(kIdleConnections + kSlowConnections + 256))
      << "cannot raise RLIMIT_NOFILE for the attack";
  TempDir dir;
  WriteFile(dir.Join("rt/system_blocks.json"), StoreJson("sk_m1nd_candidate", {"sb_m1nd_core"}));
  WriteFile(dir.Join("config.yml"),
            "m1nd_registries: []\nbrains:\n  - name: m1nd\n"
            "    project_root: /home/u/m1nd\n    runtime_dir: " +
                dir.Join("rt") + "\n");
  TestProcess exporter;
  int port = 0;
  std::string error;
  ASSERT_TRUE(exporter.StartOnFreePort(SCX_EXPORTER_BINARY,
                                       {"--config.file=" + dir.Join("config.yml"),
                                        // Every attacker comes from 127.0.0.1: measure the
                                        // timeouts, not the cap per address.
                                        "--web.max-connections-per-address=0"},
                                       dir.Join("exporter.log"), &port, &error))
      << error;
  ASSERT_TRUE(WaitFor([&] { return HttpGet(port, "/-/ready").status == 200; }, kStartupTimeout))
      << ReadFile(dir.Join("exporter.log"));

  std::vector<Attacker> attackers(kIdleConnections + kSlowConnections);
  for (size_t i = 0; i < attackers.size(); ++i) {
    attackers[i].fd = ConnectWithin(port, milliseconds(2000));
    ASSERT_GE(attackers[i].fd, 0) << "the server took more than 2 s to accept connection " << i;
    attackers[i].opened = Clock::now();
    attackers[i].slow = i >= static_cast<size_t>(kIdleConnections);
  }

  // For 4 s: every second each slow attacker sends one more byte; every 500 ms a
  // scrape, timed.
  std::vector<long> scrape_ms;
  const Clock::time_point attack_start = Clock::now();
  Clock::time_point next_byte = attack_start;
  Clock::time_point next_scrape = attack_start + milliseconds(500);
  while (Clock::now() < attack_start + milliseconds(4000)) {
    DripSlowAttackers(&attackers, &next_byte);
    if (Clock::now() >= next_scrape) {
      const Clock::time_point start = Clock::now();
      testing::HttpResult scrape = HttpGet(port, "/metrics");
      scrape_ms.push_back(static_cast<long>(
          std::chrono::duration_cast<milliseconds>(Clock::now() - start).count()));
      EXPECT_EQ(scrape.status, 200) << scrape.error;
      EXPECT_NE(scrape.body.find("skeleton_coherence{brain=\"m1nd\""), std::string::npos);
      next_scrape += milliseconds(500);
    }
    CollectCloses(&attackers, 20);
  }
  ASSERT_FALSE(scrape_ms.empty());
  const long rss_under_attack_kb = ResidentKb(exporter.pid());
  const long worst_scrape_ms = *std::max_element(scrape_ms.begin(), scrape_ms.end());

  // Then wait for the server to close every attacker.
  const Clock::time_point give_up = attack_start + kDocumentedCloseBound + kCloseSlack;
  while (OpenCount(attackers) > 0 && Clock::now() < give_up) {
    DripSlowAttackers(&attackers, &next_byte);
    CollectCloses(&attackers, 50);
  }
  long worst_close_ms = 0;
  for (const Attacker& attacker : attackers) {
    if (attacker.fd >= 0) continue;
    worst_close_ms = std::max<long>(
        worst_close_ms,
        static_cast<long>(
            std::chrono::duration_cast<milliseconds>(attacker.closed - attacker.opened).count()));
  }
  const size_t still_open = OpenCount(attackers);
  for (Attacker& attacker : attackers) {
    if (attacker.fd >= 0) close(attacker.fd);
  }

  std::cout << "scrapes under attack: " << scrape_ms.size() << ", worst " << worst_scrape_ms
            << " ms; attackers closed by the server after at most " << worst_close_ms
            << " ms; still open: " << still_open << "; exporter RSS under attack "
            << rss_under_attack_kb << " kB\n";
  RecordProperty("worst_scrape_ms", static_cast<int>(worst_scrape_ms));
  RecordProperty("worst_close_ms", static_cast<int>(worst_close_ms));
  EXPECT_LT(worst_scrape_ms, kScrapeBound.count());
  EXPECT_EQ(still_open, 0u) << "attackers still open "
                            << (kDocumentedCloseBound + kCloseSlack).count()
                            << " ms after the start";
  EXPECT_LE(worst_close_ms, (kDocumentedCloseBound + kCloseSlack).count());
  EXPECT_EQ(HttpGet(port, "/metrics").status, 200);  // and it still serves afterwards
}

}  // namespace
}  // namespace scx
