// What the binary says of its build: the --version text of Prometheus' exporters
// (prometheus/common/version.Print) and the labels of
// skeleton_coherence_exporter_build_info.
#ifndef SCX_EXPORTER_VERSION_H_
#define SCX_EXPORTER_VERSION_H_

#include <string>
#include <utility>
#include <vector>

namespace scx {

struct BuildInfo {
  std::string version;
  std::string revision;    // git, 12 hex digits
  std::string branch;      // git; "HEAD" for a detached checkout
  std::string build_user;  // user@host, or "unknown" in a reproducible build
  std::string build_date;  // 20060102-15:04:05, UTC
  std::string compiler;    // what compiled it: "gcc 12.2.0", "clang 14.0.6"
  std::string platform;    // os/arch in Go's names, as Go exporters print it: "linux/amd64"
};

// This binary's: the generated build_info.h, and the compiler and target of this file.
BuildInfo ThisBuild();

// The --version text, prometheus/common/version.Print's with "toolchain" for its
// "go version" (and no "tags": a C++ build has none), ending in a newline.
std::string VersionText(const std::string& program, const BuildInfo& build);

// The labels of skeleton_coherence_exporter_build_info, by name: version, revision,
// branch (as Prometheus' exporters give them), compiler and platform (in place of
// their goversion, goos and goarch, which a C++ binary has not).
std::vector<std::pair<std::string, std::string>> BuildInfoLabels(const BuildInfo& build);

}  // namespace scx

#endif  // SCX_EXPORTER_VERSION_H_
