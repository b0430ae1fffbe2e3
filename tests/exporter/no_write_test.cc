// The exporter never writes where it looks: runs the real binary for several scans
// over brains of every kind (static, registry owner, registry project, glob; ok,
// mismatch, empty, torn) while inotify watches every brain dir and registry dir,
// and checks that nothing but opens, reads and read-only closes happened there.
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/test_process.h"
#include "tests/test_support.h"

namespace scx {
namespace {

using std::chrono::milliseconds;
using testing::InstanceJson;
using testing::ManifestJson;
using testing::ReadFile;
using testing::StoreJson;
using testing::TempDir;
using testing::WriteFile;

constexpr int kScansToWatch = 6;
constexpr uint32_t kReadOnlyEvents = IN_OPEN | IN_CLOSE_NOWRITE | IN_ACCESS;

size_t CountOf(const std::string& text, const std::string& part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

std::string DescribeMask(uint32_t mask) {
  static const std::map<uint32_t, const char*> kNames = {{IN_ACCESS, "IN_ACCESS"},
                                                         {IN_MODIFY, "IN_MODIFY"},
                                                         {IN_ATTRIB, "IN_ATTRIB"},
                                                         {IN_CLOSE_WRITE, "IN_CLOSE_WRITE"},
                                                         {IN_CLOSE_NOWRITE, "IN_CLOSE_NOWRITE"},
                                                         {IN_OPEN, "IN_OPEN"},
                                                         {IN_MOVED_FROM, "IN_MOVED_FROM"},
                                                         {IN_MOVED_TO, "IN_MOVED_TO"},
                                                         {IN_CREATE, "IN_CREATE"},
                                                         {IN_DELETE, "IN_DELETE"},
                                                         {IN_DELETE_SELF, "IN_DELETE_SELF"},
                                                         {IN_MOVE_SELF, "IN_MOVE_SELF"},
                                                         {IN_ISDIR, "IN_ISDIR"},
                                                         {IN_Q_OVERFLOW, "IN_Q_OVERFLOW"},
                                                         {IN_UNMOUNT, "IN_UNMOUNT"},
                                                         {IN_IGNORED, "IN_IGNORED"}};
  std::string text;
  for (const auto& [bit, name] : kNames) {
    if (mask & bit) text += (text.empty() ? "" : "|") + std::string(name);
  }
  return text;
}

// Watches directories (not recursively) with inotify; every event is kept.
class DirWatcher {
 public:
  DirWatcher() : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {}
  ~DirWatcher() {
    if (fd_ >= 0) close(fd_);
  }
  bool ok() const { return fd_ >= 0; }

  bool Watch(const std::string& dir) {
    const int wd = inotify_add_watch(fd_, dir.c_str(), IN_ALL_EVENTS | IN_ONLYDIR);
    if (wd < 0) return false;
    dirs_[wd] = dir;
    return true;
  }

  // Reads every queued event; "dir/name: MASK" for those outside `allowed`.
  std::vector<std::string> Drain(uint32_t allowed, int* total) {
    std::vector<std::string> unexpected;
    alignas(struct inotify_event) char buffer[64 * 1024];
    while (true) {
      const ssize_t length = read(fd_, buffer, sizeof(buffer));
      if (length <= 0) break;
      for (ssize_t offset = 0; offset < length;) {
        const auto* event = reinterpret_cast<const struct inotify_event*>(buffer + offset);
        offset += sizeof(struct inotify_event) + event->len;
        ++*total;
        if ((event->mask & ~(allowed | IN_ISDIR)) == 0) continue;
        unexpected.push_back(dirs_[event->wd] + "/" + (event->len ? event->name : "") + ": " +
                             DescribeMask(event->mask));
      }
    }
    return unexpected;
  }

 private:
  int fd_;
  std::map<int, std::string> dirs_;
};

TEST(NoWriteTest, ScansOnlyOpenAndReadTheWatchedDirs) {
  TempDir dir;
  // A registry with an owner (the incident) and a project entry; the owner's runtime
  // root also holds a project brain of its own.
  const std::string registry = dir.Join("registry");
  const std::string owner_runtime = dir.Join("runtime/m1nd");
  const std::string listed_project = owner_runtime + "/project-brains/aaaa1111";
  const std::string entry_project = owner_runtime + "/project-brains/bbbb2222";
  WriteFile(registry + "/instances/owner.json",
            InstanceJson("owner", dir.Join("repos/m1nd"), owner_runtime));
  WriteFile(registry + "/instances/project.json",
            InstanceJson("project", entry_project, owner_runtime, "\"project\""));
  WriteFile(owner_runtime + "/system_blocks.json",
            StoreJson("sk_keyvault_candidate", {"sb_keyvault_core"}));
  WriteFile(listed_project + "/project_brain.json", ManifestJson(dir.Join("repos/alpha")));
  WriteFile(listed_project + "/system_blocks.json",
            StoreJson("sk_alpha_candidate", {"sb_alpha_a"}));
  WriteFile(entry_project + "/project_brain.json", ManifestJson(dir.Join("repos/beta")));
  // A glob brain with a torn store, and static brains: healthy and empty.
  const std::string globbed = dir.Join("globbed/gamma");
  WriteFile(globbed + "/project_brain.json", ManifestJson(dir.Join("repos/gamma")));
  WriteFile(globbed + "/system_blocks.json", "{\"schema\": \"m1nd-system-block-st");
  const std::string healthy = dir.Join("static/keyvault");
  const std::string empty = dir.Join("static/empty");
  WriteFile(healthy + "/system_blocks.json", StoreJson("sk_keyvault_candidate", {"sb_keyvault_x"}));
  testing::MakeDirs(empty);

  const std::string config = dir.Join("config.yml");
  WriteFile(config, "scan_interval: 100ms\nm1nd_registries: [" + registry +
                        "]\nruntime_globs: [\"" + dir.Join("globbed/*") +
                        "\"]\nbrains:\n  - {name: keyvault, project_root: /r/keyvault, "
                        "runtime_dir: " +
                        healthy +
                        "}\n  - {name: empty, project_root: /r/empty, "
                        "runtime_dir: " +
                        empty + "}\n");

  DirWatcher watcher;
  ASSERT_TRUE(watcher.ok());
  for (const std::string& watched :
       {registry, registry + "/instances", owner_runtime, owner_runtime + "/project-brains",
        listed_project, entry_project, dir.Join("globbed"), globbed, healthy, empty}) {
    ASSERT_TRUE(watcher.Watch(watched)) << watched;
  }

  const std::string log = dir.Join("exporter.log");
  testing::TestProcess exporter;
  std::string error;
  ASSERT_TRUE(
      exporter.Start(SCX_EXPORTER_BINARY,
                     {"--config.file=" + config,
                      "--web.listen-address=127.0.0.1:" + std::to_string(testing::FindFreePort()),
                      "--log.level=debug"},
                     log, &error))
      << error;
  const bool scanned = testing::WaitFor(
      [&] { return CountOf(ReadFile(log), "msg=\"scan completed\"") >= kScansToWatch; },
      milliseconds(15000));
  const std::optional<int> status = exporter.Stop();
  const std::string log_text = ReadFile(log);
  ASSERT_TRUE(scanned) << log_text;
  ASSERT_TRUE(status.has_value());

  // Every brain was found (so every dir was really looked at).
  EXPECT_TRUE(log_text.find("brains=6 ok=2 mismatch=1 absent=2 unreadable=1") != std::string::npos)
      << log_text;

  int total = 0;
  const std::vector<std::string> unexpected = watcher.Drain(kReadOnlyEvents, &total);
  EXPECT_TRUE(unexpected.empty()) << [&] {
    std::string text;
    for (const std::string& line : unexpected) text += line + "\n";
    return text;
  }();
  EXPECT_GT(total, 0) << "inotify saw nothing: the watch did not work";
}

}  // namespace
}  // namespace scx
