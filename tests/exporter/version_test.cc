// The --version text and the build_info labels, as Prometheus' exporters give them.
#include "exporter/version.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "exporter/build_info.h"

namespace scx {
namespace {

const BuildInfo kBuild = {"0.1.0",      "abc123def456", "main", "u@h", "20261130-00:00:00",
                          "gcc 12.2.0", "linux/amd64"};

// prometheus/common/version.Print's lines and alignment, "toolchain" for its "go
// version", no "tags".
TEST(VersionTest, PrintsWhatPrometheusExportersPrint) {
  EXPECT_EQ(VersionText("skeleton-coherence-exporter", kBuild),
            "skeleton-coherence-exporter, version 0.1.0 (branch: main, revision: abc123def456)\n"
            "  build user:       u@h\n"
            "  build date:       20261130-00:00:00\n"
            "  toolchain:        gcc 12.2.0\n"
            "  platform:         linux/amd64\n");
}

TEST(VersionTest, BuildInfoLabels) {
  const std::vector<std::pair<std::string, std::string>> expected = {{"version", "0.1.0"},
                                                                     {"revision", "abc123def456"},
                                                                     {"branch", "main"},
                                                                     {"compiler", "gcc 12.2.0"},
                                                                     {"platform", "linux/amd64"}};
  EXPECT_EQ(BuildInfoLabels(kBuild), expected);
}

// This binary's: the generated header's, and the compiler and target it was built with.
TEST(VersionTest, ThisBuild) {
  const BuildInfo build = ThisBuild();
  EXPECT_EQ(build.version, kVersion);
  EXPECT_EQ(build.revision, kRevision);
  EXPECT_EQ(build.branch, kBranch);
  EXPECT_EQ(build.build_user, kBuildUser);
  EXPECT_EQ(build.build_date, kBuildDate);
  EXPECT_TRUE(build.compiler.rfind("gcc ", 0) == 0 || build.compiler.rfind("clang ", 0) == 0)
      << build.compiler;
  EXPECT_EQ(build.compiler.find_first_not_of("gclan 0123456789."), std::string::npos)
      << build.compiler;
  EXPECT_EQ(build.platform.rfind("linux/", 0), 0u) << build.platform;
  EXPECT_NE(build.platform, "linux/unknown");
}

}  // namespace
}  // namespace scx
