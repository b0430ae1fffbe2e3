// The build's description, for --version and build_info.
#include "exporter/version.h"

#include "exporter/build_info.h"

namespace scx {

namespace {

std::string Compiler() {
#if defined(__clang__)
  return "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
         std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  return "gcc " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
         std::to_string(__GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

// GOOS/GOARCH names, which Prometheus' exporters print and dashboards group by.
std::string Platform() {
#if defined(__linux__)
  const std::string os = "linux";
#else
  const std::string os = "unknown";
#endif
#if defined(__x86_64__)
  const char* arch = "amd64";
#elif defined(__aarch64__)
  const char* arch = "arm64";
#elif defined(__i386__)
  const char* arch = "386";
#elif defined(__arm__)
  const char* arch = "arm";
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
  const char* arch = "ppc64le";
#elif defined(__s390x__)
  const char* arch = "s390x";
#elif defined(__riscv) && __riscv_xlen == 64
  const char* arch = "riscv64";
#else
  const char* arch = "unknown";
#endif
  return os + "/" + arch;
}

}  // namespace

BuildInfo ThisBuild() {
  return {kVersion, kRevision, kBranch, kBuildUser, kBuildDate, Compiler(), Platform()};
}

std::string VersionText(const std::string& program, const BuildInfo& build) {
  return program + ", version " + build.version + " (branch: " + build.branch +
         ", revision: " + build.revision + ")\n" +  //
         "  build user:       " + build.build_user + "\n" +
         "  build date:       " + build.build_date + "\n" +
         "  toolchain:        " + build.compiler + "\n" + "  platform:         " + build.platform +
         "\n";
}

std::vector<std::pair<std::string, std::string>> BuildInfoLabels(const BuildInfo& build) {
  return {{"version", build.version},
          {"revision", build.revision},
          {"branch", build.branch},
          {"compiler", build.compiler},
          {"platform", build.platform}};
}

}  // namespace scx
