// Test helpers for files on disk: a temporary directory removed at the end of the
// test, and writers that mimic how m1nd lays out its files (including its atomic
// `.tmp` + rename replacement of a store).
#ifndef SCX_TESTS_TEST_SUPPORT_H_
#define SCX_TESTS_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <optional>
#include <string>
#include <vector>

namespace scx {
namespace testing {

// True in a build under a sanitizer: gcc says so with __SANITIZE_*__, clang 14 only
// through __has_feature.
constexpr bool UnderSanitizer() {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  return true;
#endif
#endif
  return false;
}

// How long the exporter may take to exit after SIGTERM: 1 s, as the README promises,
// checked by the normal build (docs/performance.md has the measured figures). A
// sanitizer build checks that it exits, within a bound that allows for the
// sanitizer: ASan and ThreadSanitizer make starting and joining threads several
// times slower, and on a loaded 2-core machine that alone came near a second.
inline constexpr std::chrono::milliseconds kStopBound{UnderSanitizer() ? 5000 : 1000};

// How many times slower CPU-bound code runs under a sanitizer here: ThreadSanitizer (a
// YAML walk measured 5 to 8 times), and clang's ASan build, whose objects also carry
// the fuzzers' coverage hooks on every comparison (6 to 7 times). A time bound on such
// code is multiplied by it there; the promise itself is checked by the normal build.
inline constexpr int kCpuSlowdown = UnderSanitizer() ? 10 : 1;

// Sets an environment variable (unsets it, for a null `value`) for one test and
// restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = getenv(name);
    if (old != nullptr) old_ = old;
    Set(value);
  }
  ~ScopedEnv() { Set(old_ ? old_->c_str() : nullptr); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void Set(const char* value) {
    if (value == nullptr) {
      unsetenv(name_.c_str());
    } else {
      setenv(name_.c_str(), value, 1);
    }
  }

  std::string name_;
  std::optional<std::string> old_;
};

// A fresh directory under $TMPDIR (or /tmp), removed with its contents on
// destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path() + "/" + relative.
  std::string Join(const std::string& relative) const;

 private:
  std::string path_;
};

// Creates the parent directories of `path`, then writes `contents` to it.
void WriteFile(const std::string& path, const std::string& contents);

// Writes `path`.tmp and renames it over `path`, as m1nd does.
void ReplaceFileAtomically(const std::string& path, const std::string& contents);

// Reads a whole file; empty string when it cannot be read.
std::string ReadFile(const std::string& path);

// mkdir -p.
void MakeDirs(const std::string& path);

// A store document in m1nd's shape (pretty-printed, 2-space indent) with the given
// skeleton id and block ids.
std::string StoreJson(const std::string& skeleton_id, const std::vector<std::string>& block_ids,
                      int store_version = 1);

// A project_brain.json manifest for `project_root`.
std::string ManifestJson(const std::string& project_root);

// An instance registry entry. `brain_kind` is "null" for an owner or "\"project\"".
std::string InstanceJson(const std::string& instance_id, const std::string& workspace_root,
                         const std::string& runtime_root, const std::string& brain_kind = "null",
                         bool stale = false);

// The number of file descriptors this process has open.
std::size_t OpenDescriptorCount();

// Runs `call` on another thread and returns its result. A call that has not returned
// within `limit` is a hang: it records a failure naming `what` and exits the process
// at once, so that a hang fails fast instead of stalling the suite.
template <typename Call>
auto CallWithin(std::chrono::milliseconds limit, const std::string& what, Call call) {
  auto future = std::async(std::launch::async, std::move(call));
  if (future.wait_for(limit) != std::future_status::ready) {
    ADD_FAILURE() << what << " did not return within " << limit.count() << " ms";
    std::fprintf(stderr, "FATAL: %s hung; exiting\n", what.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return future.get();
}

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_TEST_SUPPORT_H_
